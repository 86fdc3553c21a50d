"""Hints explain themselves correctly: every reason the heuristic gives is a code whose claim holds
in the view it was given (a "longest suit" is the longest suit, a wish for the suit held most is
that suit, a stopped seat is about to go out, ...), and each reads in English and German."""

from __future__ import annotations

import random
from collections import Counter

import grpc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maumau.policies import rank
from maumau.rules import Catch, Match, NameSuit, Play, Ruleset, View, parse_cards
from maumau.rules.reasons import REASONS, Reason, render
from maumau.v1 import bots_pb2
from maumau.wire import action_from_pb, reasons_from_pb, reasons_to_pb, view_to_pb
from tests.bots import test_service

bots = pytest.fixture(test_service.bots.__wrapped__)  # the same real Bots server

PRESETS = ["classic", "online", "ostfriesland", "colour"]


def suit_counts(view: View, ruleset: Ruleset) -> Counter[str]:
    return Counter(c.suit for c in view.hand if c.rank not in ruleset.wish_ranks)


def most_held(view: View, ruleset: Ruleset) -> int:
    counts = suit_counts(view, ruleset)
    return max(counts[suit] for suit in ruleset.suits)


def check(view: View, action: object, reason: Reason) -> None:
    """The claim of one reason, checked against the view alone."""
    ruleset = Ruleset.parse(view.ruleset)
    counts = suit_counts(view, ruleset)
    params = dict(reason.params)
    number = {k: int(v) for k, v in params.items() if v.lstrip("-").isdigit()}
    code = reason.code
    assert code in REASONS["en"] and code in REASONS["de"], code
    if code in ("longest_suit", "shorter_suit"):
        assert isinstance(action, Play) and action.card.suit == params["suit"]
        assert number["count"] == counts[params["suit"]]
        if code == "longest_suit":
            assert number["count"] == most_held(view, ruleset)
    if code in ("wish_most", "wish_other"):
        assert isinstance(action, Play) and action.suit == params["suit"]
        assert number["count"] == counts[params["suit"]]
        if code == "wish_most":
            assert number["count"] == most_held(view, ruleset)
    if code in ("shorter_suit", "wish_other"):
        assert number["best_count"] == counts[params["best"]] == most_held(view, ruleset)
        assert number["count"] < number["best_count"]
    if code == "name_suit":
        assert isinstance(action, NameSuit) and number["count"] == counts[action.suit]
    if code == "catch_owed":
        assert isinstance(action, Catch) and number["seat"] in view.owing_call
    if code == "stop_seat":
        assert isinstance(action, Play) and number["seat"] != view.seat
        assert number["cards"] == view.hand_sizes[number["seat"]] <= 2
    if code == "last_card":
        assert len(view.hand) == 1
    if code == "with_call":
        assert isinstance(action, Play) and action.call == params["call"]
    if code == "keep_wild":
        assert isinstance(action, Play) and action.card.rank in ruleset.wish_ranks
    if code == "pass_penalty_on":
        assert view.pending and isinstance(action, Play) and action.card.rank == params["rank"]
    if code == "keep_draw_card":
        assert sum(1 for c in view.hand if c.rank == params["rank"]) == 1
    if code in ("accept_penalty", "accept_skip"):
        assert view.pending == "skip" if code == "accept_skip" else view.pending
    if code == "accept_penalty":
        assert number["count"] == view.pending_count
    if code == "draw_instead":
        fitting = {a.card for a in view.legal if isinstance(a, Play)}
        assert number["count"] == len(fitting) > 0
    if code == "draw_nothing_fits":
        assert not any(isinstance(a, Play) for a in view.legal)
    if code == "keep_drawn":
        assert view.drawn is not None
    if code in ("challenge_likely", "challenge_honest"):
        assert number["cards"] == view.hand_sizes[number["seat"]]
        assert (number["cards"] >= 6) == (code == "challenge_likely")
    for lang in ("en", "de"):
        text = render(reason, lang)
        assert "{" not in text and not text.startswith(code)


@settings(max_examples=150, deadline=None)
@given(
    preset=st.sampled_from(PRESETS),
    seats=st.integers(2, 4),
    seed=st.integers(0, 10**6),
    steps=st.integers(0, 60),
)
def test_every_reason_holds_in_the_view_it_was_given(preset, seats, seed, steps):
    match = Match.new(Ruleset.create(preset), seats, seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if match.phase == "over":
            return
        seat = match.chooser if match.phase == "starter_suit" else match.turn
        match.apply(seat, rng.choice(list(match.legal_actions(seat))))
    if match.phase == "over":
        return
    for seat in range(seats):
        view = match.view(seat)
        if not view.legal:
            continue
        for ranked in rank(view):
            assert ranked.reasons
            for reason in ranked.reasons:
                check(view, ranked.action, reason)
            assert reasons_from_pb(reasons_to_pb(ranked.reasons)) == ranked.reasons


def reported_position() -> Match:
    """The reported case: seat 0 holds AS QD 6D 3C JC on a 9S."""
    return Match.from_setup(
        Ruleset.create("classic"),
        [parse_cards("AS QD 6D 3C JC"), parse_cards("2H 3H 4H")],
        draw_pile=parse_cards("KH QH 10H 9H 8C"),
        discard=parse_cards("9S"),
        turn=0,
    )


def test_the_longest_suit_is_named_correctly():
    """The reported case: with AS QD 6D 3C JC on 9S, AS is not from the longest suit
    (diamonds is), and only the wish for diamonds claims the suit held most."""
    match = reported_position()
    ranked = {r.action.text: r for r in rank(match.view(0))}
    assert ranked["AS"].reasons[-1] == Reason.of(
        "shorter_suit", suit="S", count=1, best="D", best_count=2
    )
    assert ranked["AS"].reason.endswith("spades is not your longest suit (1 card; diamonds has 2)")
    wishes = {text: r.reasons for text, r in ranked.items() if text.startswith("JC:")}
    assert set(wishes) == {"JC:S", "JC:H", "JC:D", "JC:C"}
    claims = {
        text for text, reasons in wishes.items() if any(r.code == "wish_most" for r in reasons)
    }
    assert claims == {"JC:D"}
    assert "Karo, davon hältst du am meisten (2 Karten)" in render(wishes["JC:D"][-1], "de")


# ---------------------------------------------------------------------- over gRPC


async def test_hint_sends_reason_codes_and_text_in_the_asked_language(bots):
    match = reported_position()
    view = view_to_pb(match.view(0), "m", 1)
    german = await bots.Hint(bots_pb2.HintRequest(view=view, lang="de"))
    english = await bots.Hint(bots_pb2.HintRequest(view=view))
    by_action = {action_from_pb(r.action).text: r for r in german.actions}
    assert "Pik ist nicht deine längste Farbe" in by_action["AS"].reason
    assert reasons_from_pb(by_action["AS"].reasons)[-1].code == "shorter_suit"
    assert [r.reasons for r in english.actions] == [r.reasons for r in german.actions]
    assert (
        "spades is not your longest suit"
        in {action_from_pb(r.action).text: r.reason for r in english.actions}["AS"]
    )


async def test_hint_in_an_unknown_language_is_refused_clearly(bots):
    match = Match.new(Ruleset.create("classic"), 2, 1)
    view = view_to_pb(match.view(match.turn), "m", 1)
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await bots.Hint(bots_pb2.HintRequest(view=view, lang="fr"))
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "no language 'fr'" in refused.value.details()
