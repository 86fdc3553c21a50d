"""The solo match the page plays on the device (``maumau.solo``, run in Pyodide there): its view
and events are the gateway's JSON to the field, a kept record replays to the same hand and turn,
the computers play it to its end, and what a page may send wrongly is refused with nothing
changed (docs/architecture.md, "One rules core, no I/O": same seed and same actions give the same
match)."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maumau import solo, wire
from maumau.engine.record import MatchRecord, Status
from maumau.engine.service import seat_view
from maumau.gateway.upstream import to_json
from maumau.rules import Ruleset

TABLES = [("classic", 2), ("classic", 4), ("online", 3), ("ostfriesland", 4), ("colour", 4)]


def record_of(game: solo.Solo) -> MatchRecord:
    seats = game.match.seats
    return MatchRecord(
        match_id="",
        ruleset=game.ruleset.text,
        seats=seats,
        ranked=False,
        turn_seconds=0,
        max_timeouts=0,
        auto_start=True,
        seed_commitment="",
        server_seed="",
        players=[""] * seats,
        names=[game.name, *[""] * (seats - 1)],
        bots=["", *[game.level] * (seats - 1)],
        nonces=[""] * seats,
        left=[False] * seats,
        timeouts=[0] * seats,
        status=Status.PLAYING,
    )


def new_game(preset: str, seats: int, seed: str, level: str = "random") -> solo.Solo:
    ruleset = Ruleset.create(preset, {"target": 0} if preset in ("classic", "colour") else {})
    return solo.Solo.start({"ruleset": ruleset.text, "seats": seats, "level": level, "seed": seed})


def play_randomly(game: solo.Solo, rng: random.Random, steps: int) -> None:
    """The player's moves at random, the computers' by their level, for ``steps`` moves."""
    for _ in range(steps):
        if game.over():
            return
        if game.computer_seat() is not None:
            json.loads(game.computer_json())
        else:
            legal = list(game.match.legal_actions(solo.PLAYER))
            game.apply(solo.PLAYER, rng.choice(legal).text)


@pytest.mark.parametrize(("preset", "seats"), TABLES)
def test_the_view_is_the_gateways_json_to_the_field_all_through_a_match(preset, seats):
    rng = random.Random(preset)
    game = new_game(preset, seats, f"view-{preset}")
    while True:
        sent = to_json(seat_view(record_of(game), game.match, solo.PLAYER, game.version))
        assert json.loads(game.view_json()) == sent
        if game.over():
            break
        play_randomly(game, rng, 1)
    assert sent["phase"] == "over" and "outcome" in sent


@pytest.mark.parametrize(("preset", "seats"), TABLES)
def test_every_event_is_the_live_feeds_json_redacted_for_the_player(preset, seats):
    game = new_game(preset, seats, f"events-{preset}")
    play_randomly(game, random.Random(1), 10_000)
    replayed, events = game.match.start(game.ruleset, seats, game.seed)
    for seat, text in game.actions:
        events += replayed.apply(
            seat, wire.action_from_pb(wire.action_to_pb(solo.parse_action(text)))
        )
    sent = [to_json(wire.redact_pb(wire.event_to_pb(e), solo.PLAYER)) for e in events]
    assert game.events == sent
    others_drew = [e["drew"] for e in sent if "drew" in e and e["drew"]["seat"] != solo.PLAYER]
    assert others_drew and all(d["cards"] == [] for d in others_drew)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(TABLES), st.integers(0, 400), st.text("abc123", min_size=1, max_size=8))
def test_a_kept_record_replays_to_the_same_hand_and_turn(table, steps, seed):
    game = new_game(*table, seed=seed)
    play_randomly(game, random.Random(steps), steps)
    again = solo.Solo.resume(game.record_json())
    assert again.view_json() == game.view_json()
    assert again.events == game.events
    assert again.match.to_bytes() == game.match.to_bytes()


@pytest.mark.parametrize("level", ["random", "heuristic", "strong"])
def test_the_computers_play_a_match_to_its_end_at_every_level(level):
    game = new_game("classic", 3, f"level-{level}", level)
    play_randomly(game, random.Random(3), 5000)
    assert game.over()
    assert json.loads(game.view_json())["outcome"]["winners"]
    assert game.computer_json() == "null"


def test_an_action_the_rules_refuse_changes_nothing_and_says_why_in_the_language_asked():
    game = new_game("classic", 2, "refused")
    while game.computer_seat() is not None:
        game.computer_json()
    before = (game.record_json(), game.view_json(), list(game.events))
    wrong = next(c.text for c in game.player_view().hand if c.text not in
                 {a.text for a in game.player_view().legal})  # fmt: skip
    english, german = (json.loads(game.act_json(wrong, lang))["error"] for lang in ("en", "de"))
    assert english["code"] == german["code"] == "card_does_not_match"
    assert wrong in english["message"] and english["message"] != german["message"]
    assert json.loads(game.act_json("no such move"))["error"]["code"] == "bad_action_text"
    assert (game.record_json(), game.view_json(), game.events) == before


GOOD = {"ruleset": "classic", "seats": 2, "level": "random", "seed": "a"}


@pytest.mark.parametrize(
    ("record", "code"),
    [
        ("not json", "record"),
        ("[]", "record"),
        (json.dumps({**GOOD, "level": "godlike"}), "level"),
        (json.dumps({**GOOD, "seats": 9}), "computers"),
        (json.dumps({**GOOD, "seed": "a b"}), "seed"),
        (json.dumps({**GOOD, "ruleset": "chess"}), "unknown_preset"),
        (json.dumps({k: v for k, v in GOOD.items() if k != "seed"}), "record"),
        (json.dumps({**GOOD, "actions": [[0]]}), "record"),
        (json.dumps({**GOOD, "actions": [[5, "draw"]]}), "seat"),
        (json.dumps({**GOOD, "actions": [[0, "QQ"]]}), "bad_action_text"),
    ],
)
def test_a_record_that_makes_no_match_is_refused_with_a_code_in_english_and_german(record, code):
    refusals = []
    for lang in ("en", "de"):
        game, answer = solo.start_json(record, lang)
        assert game is None
        refusals.append(json.loads(answer)["error"])
    english, german = refusals
    assert english["code"] == german["code"] == code
    assert english["message"] and german["message"] and english["message"] != german["message"]


def test_every_refusal_of_a_record_has_its_text_in_both_languages():
    assert solo.MESSAGES["en"].keys() == solo.MESSAGES["de"].keys()


def test_tips_rank_the_players_legal_actions_with_reasons_in_both_languages():
    game = new_game("classic", 2, "tips")
    while game.computer_seat() is not None:
        game.computer_json()
    legal = {a.text for a in game.player_view().legal}
    for lang in ("en", "de"):
        answer = json.loads(game.tips_json(lang))
        assert answer["version"] == str(game.version)
        assert {a["action"] for a in answer["actions"]} == legal
        assert all(a["reason"] for a in answer["actions"][:1])
