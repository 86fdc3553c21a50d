"""The terminal client's texts and its numbered options, without a server."""

from __future__ import annotations

import random

import pytest

from maumau import wire
from maumau.rules import Match, Ruleset, parse_cards
from maumau.v1 import game_pb2
from maumau_cli.game import options_for
from maumau_cli.texts import Texts, default_language
from maumau_sdk import Event, SeatInfo, View

SEATS = (
    SeatInfo(0, "p0", "Ada", "", False),
    SeatInfo(1, "", "random bot", "random", False),
    SeatInfo(2, "p2", "Bea", "", False),
    SeatInfo(3, "", "random bot", "random", False),
)
ENGINE_EVENTS = [
    game_pb2.Event(seat_joined=game_pb2.SeatJoined(seat=2, player_id="p2", name="Bea")),
    game_pb2.Event(match_started=game_pb2.MatchStarted(seed_commitment="ab")),
    game_pb2.Event(timed_out=game_pb2.SeatOnly(seat=0)),
    game_pb2.Event(handed_to_bot=game_pb2.SeatOnly(seat=0)),
    game_pb2.Event(left=game_pb2.SeatOnly(seat=2)),
    game_pb2.Event(seed_revealed=game_pb2.SeedRevealed(server_seed="s", deal_seed="d")),
]


@pytest.mark.parametrize("preset", ["classic", "online", "ostfriesland", "colour"])
@pytest.mark.parametrize("lang", ["en", "de"])
def test_every_event_of_a_match_reads_as_one_line_for_each_seat(preset, lang):
    texts = Texts(lang)
    match, events = Match.start(Ruleset.create(preset), 4, f"texts {preset}")
    rng = random.Random(preset)
    while match.phase != "over" and len(events) < 3000:
        seat = rng.choice([s for s in range(4) if match.legal_actions(s)])
        events += match.apply(seat, rng.choice(list(match.legal_actions(seat))))
    messages = [wire.event_to_pb(e) for e in events] + ENGINE_EVENTS
    for me in (0, 1):
        for message in messages:
            line = texts.describe(Event.from_pb(wire.redact_pb(message, me)), SEATS, me)
            assert line is None or (line and "{" not in line)


def test_your_own_moves_read_in_the_second_person():
    played = game_pb2.Event(played=game_pb2.Played(seat=0, card="JD", suit="S", call="mau"))
    assert Texts("en").describe(Event.from_pb(played), SEATS, 0) == (
        "You play JD and wish spades - 'Mau!'"
    )
    assert Texts("de").describe(Event.from_pb(played), SEATS, 0) == (
        "Du spielst JD und wünschst Pik - 'Mau!'"
    )
    assert Texts("de").describe(Event.from_pb(played), SEATS, 2) == (
        "Ada spielt JD und wünscht Pik - 'Mau!'"
    )


def view_of(match: Match, seat: int) -> View:
    return View.from_pb(wire.view_to_pb(match.view(seat), "m", 1), SEATS[: match.seats])


def test_a_jack_is_one_option_and_its_suit_is_asked_for_afterwards():
    """Classic: a Jack goes on anything and names the suit to play next."""
    match = Match.from_setup(
        Ruleset.create("classic"),
        [parse_cards("JD 7H KS"), parse_cards("2C 3C 4C")],
        draw_pile=parse_cards("5C 6C 8C"),
        discard=parse_cards("9H"),
        turn=0,
    )
    options = options_for(view_of(match, 0), Texts("en"))
    assert [o.label for o in options] == ["play JD and name a suit", "play 7H"]
    assert sorted(a.text for a in options[0].actions) == ["JD:C", "JD:D", "JD:H", "JD:S"]


def test_a_due_call_comes_with_the_card_and_a_penalty_is_taken_as_one_option():
    match = Match.from_setup(
        Ruleset.create("classic"),
        [parse_cards("7H 7S"), parse_cards("2C 3C 4C")],
        draw_pile=parse_cards("5C 6C 8C 9C"),
        discard=parse_cards("7D"),
        pending="draw",
        pending_count=2,
        turn=0,
    )
    labels = [o.label for o in options_for(view_of(match, 0), Texts("de"))]
    assert labels == ["7H spielen und 'Mau!' ansagen", "7S spielen und 'Mau!' ansagen",
                      "2 Karten nehmen"]  # fmt: skip


def test_the_language_comes_from_the_locale():
    assert default_language({"LANG": "de_DE.UTF-8"}) == "de"
    assert default_language({"LC_ALL": "en_GB.UTF-8", "LANG": "de_DE.UTF-8"}) == "en"
    assert default_language({}) == "en"
