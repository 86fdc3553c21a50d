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


# ---------------------------------------------------------------------- cards per language and deck


def test_the_german_colour_deck_has_its_own_colour_words_and_letters_that_do_not_clash():
    """Grün and Gelb both start with G, and Y means nothing in German: two letters each."""
    texts = Texts("de")
    shown = texts.cards(parse_cards("R7 G4 B2 Y6 Gskip Brev Y+2 W W+4"))
    assert shown == "Ro7 Gr4 Bl2 Ge6 GrAus BlDreh Ge+2 Wahl Wahl+4"
    letters = [texts.suit_letter(colour) for colour in "RGBY"]
    assert len(set(letters)) == 4 and "Y" not in letters
    for card in ("Ro7", "GrAus", "ge+2", "Wahl+4", "BlDreh"):  # typed as shown, any case
        assert Texts("de").typed(card) in ("R7", "Gskip", "Y+2", "W+4", "Brev")
    assert texts.typed("Wahl:Gr") == "W:G" and texts.typed_suit("Gelb") == "Y"
    assert Texts("en").cards(parse_cards("G4 Y6")) == "G4 Y6"


def test_french_suits_show_as_symbols_where_the_terminal_can_and_read_back():
    texts = Texts("en", symbols=True)
    assert texts.cards(parse_cards("10H AS JD 7C")) == "10♥ A♠ J♦ 7♣"
    assert texts.action("JD:S!mau") == "J♦:♠!mau"
    assert texts.typed("10♥") == "10H" and texts.typed("J♦:♠!mau") == "JD:S!mau"
    assert Texts("en").cards(parse_cards("10H AS")) == "10H AS"  # plain mode: letters


@pytest.mark.parametrize(
    ("lang", "noun", "many", "texts"),
    [
        ("en", "computer", 3, ("1 computer", "3 computers")),
        ("de", "computer", 2, ("1 Computer", "2 Computer")),
        ("de", "round", 6, ("1 Runde", "6 Runden")),
        ("de", "card", 2, ("1 Karte", "2 Karten")),
        ("de", "move", 5, ("1 Zug", "5 Züge")),
    ],
)
def test_plurals_are_done_properly(lang, noun, many, texts):
    assert (Texts(lang).count(noun, 1), Texts(lang).count(noun, many)) == texts


def test_no_text_is_left_with_a_plural_placeholder():
    for lang in ("en", "de"):
        texts = Texts(lang)
        assert "Runde(n)" not in str(texts._texts) and "(s)" not in str(texts._texts)
        against = texts.count("computer", 1)
        welcome = texts.get("welcome", name="Ada", ruleset="classic", against=against,
                            level="random", match_id="m")  # fmt: skip
        expected = "against 1 computer " if lang == "en" else "gegen 1 Computer "
        assert expected in welcome


def test_the_prompt_shows_a_card_of_the_hand_in_the_deck_and_language_played():
    hand = parse_cards("Gskip R7")
    assert "eine Karte wie GrAus" in Texts("de").get(
        "your_move", first=1, last=3, example=Texts("de").example(hand)
    )
    assert "a card like 7H" not in Texts("en").get(
        "your_move", first=1, last=3, example=Texts("en").example(hand)
    )
