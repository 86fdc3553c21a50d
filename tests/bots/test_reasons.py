"""Hint reasons in the asker's language: every phrase the policies write has German words."""

import random

import grpc
import pytest

from maumau.bots.reasons import phrase, translate_reason
from maumau.policies import rank
from maumau.rules import Match, Ruleset

PRESETS = ["classic", "online", "ostfriesland", "colour"]


def reasons_in_random_play(preset: str, seed: int) -> set[str]:
    """Every reason phrase ranked for the seat to act in one random round."""
    match = Match.new(Ruleset.create(preset), 4, seed)
    rng = random.Random(seed)
    phrases: set[str] = set()
    for _ in range(300):
        if match.phase in ("over", "round_over"):
            break
        seat = match.chooser if match.phase == "starter_suit" else match.turn
        for ranked in rank(match.view(seat)):
            phrases.update(p for p in ranked.reason.split("; ") if p)
        match.apply(seat, rng.choice(list(match.legal_actions(seat))))
    return phrases


@pytest.mark.parametrize("preset", PRESETS)
def test_every_phrase_of_the_policies_has_german_words(preset: str) -> None:
    seen: set[str] = set()
    for seed in range(15):
        seen |= reasons_in_random_play(preset, seed)
    assert seen
    untranslated = {p for p in seen if phrase(p, "de") is None}
    assert not untranslated


def test_a_reason_is_told_phrase_by_phrase_with_suits_and_calls_named() -> None:
    reason = "with the 'mau' call; wish H, your longest suit"
    assert (
        translate_reason(reason, "de") == "mit der Ansage „Mau“; Herz wünschen, deine längste Farbe"
    )
    assert translate_reason(reason, "en") == "with the “Mau” call; wish hearts, your longest suit"
    assert translate_reason(reason, "") == reason


async def test_hint_answers_in_the_asked_language_and_refuses_an_unknown_one() -> None:
    from maumau.bots.__main__ import build
    from maumau.common.config import ServiceConfig
    from maumau.v1 import bots_pb2, bots_pb2_grpc
    from maumau.wire import view_to_pb

    server = build(ServiceConfig(host="127.0.0.1", port=0, metrics_port=0))
    await server.start()
    try:
        match = Match.new(Ruleset.create("classic"), 2, 7)
        seat = match.chooser if match.phase == "starter_suit" else match.turn
        view = view_to_pb(match.view(seat), "m", 1)
        async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
            stub = bots_pb2_grpc.BotsStub(channel)
            german = await stub.Hint(bots_pb2.HintRequest(view=view, lang="de"))
            plain = await stub.Hint(bots_pb2.HintRequest(view=view))
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await stub.Hint(bots_pb2.HintRequest(view=view, lang="fr"))
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert [r.reason for r in german.actions] == [
            translate_reason(r.reason, "de") for r in plain.actions
        ]
        assert german.actions[0].reason != plain.actions[0].reason
    finally:
        await server.stop(0)
