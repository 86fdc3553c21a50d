"""Text forms: cards, actions, rulesets, refusals and told events, as clients read and write
them."""

import pickle

import pytest

from maumau.rules import (
    ACCEPT,
    ALL_CARDS,
    CHALLENGE,
    DRAW,
    PASS,
    BadCardText,
    BadInput,
    BadRuleset,
    BadSetup,
    BadSuit,
    Call,
    Card,
    Catch,
    IllegalAction,
    Match,
    NameSuit,
    Play,
    Ruleset,
    card_points,
    format_cards,
    parse_action,
    parse_cards,
    translate,
)
from maumau.rules.events import (
    Called,
    Caught,
    Challenged,
    DirectionChanged,
    Drew,
    MatchOver,
    Passed,
    Played,
    Reshuffled,
    RoundOver,
    RoundStarted,
    Skipped,
    SuitNamed,
    TurnStarted,
)
from maumau.rules.narrate import describe
from maumau.rules.reasons import Reason, render, render_all


def test_every_card_reads_back_from_its_text_as_the_same_value() -> None:
    assert len(ALL_CARDS) == 52 + 4 * 13 + 2
    for code, card in enumerate(ALL_CARDS):
        assert card.code == code
        assert Card.parse(card.text) is card
        assert str(card) == card.text
        assert repr(card) == f"Card.parse({card.text!r})"
        assert pickle.loads(pickle.dumps(card)) is card
    assert len({card.text for card in ALL_CARDS}) == len(ALL_CARDS)


def test_card_texts_are_read_leniently_but_only_as_cards() -> None:
    assert Card.parse(" 10h ") is Card.parse("10H")
    assert Card.parse("gSKIP") is Card.parse("Gskip")
    assert Card.parse("yrev") is Card.parse("Yrev")
    assert Card.parse("w+4") is Card.parse("W+4")
    for text in ("1H", "10X", "", "Rskipp", "W+2"):
        with pytest.raises(BadCardText) as err:
            Card.parse(text)
        assert err.value.code == "bad_card_text" and err.value.params == {"text": text}
        assert f"'{text}' is not a card" in str(err.value)


def test_a_card_knows_its_rank_suit_and_whether_it_is_wild() -> None:
    ten = Card.parse("10H")
    assert (ten.rank, ten.suit, ten.is_wild) == ("10", "H", False)
    skip = Card.parse("Gskip")
    assert (skip.rank, skip.suit, skip.is_wild) == ("skip", "G", False)
    for text in ("W", "W+4"):
        wild = Card.parse(text)
        assert (wild.rank, wild.suit, wild.is_wild) == (text, "", True)
    with pytest.raises(AttributeError):
        ten.rank = "9"  # type: ignore[misc]


def test_card_lists_read_and_write_as_space_separated_text() -> None:
    cards = parse_cards("7H  JD W+4")
    assert [card.text for card in cards] == ["7H", "JD", "W+4"]
    assert parse_cards(["7H", "JD"]) == cards[:2]
    assert format_cards(cards) == "7H JD W+4"
    assert parse_cards("") == [] and format_cards([]) == ""


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("draw", DRAW),
        ("pass", PASS),
        ("accept", ACCEPT),
        ("challenge", CHALLENGE),
        ("catch:2", Catch(2)),
        ("call:last", Call("last")),
        ("suit:H", NameSuit("H")),
        ("7H", Play(Card.parse("7H"))),
        ("JD:S", Play(Card.parse("JD"), "S")),
        ("5H!mau", Play(Card.parse("5H"), None, "mau")),
        ("JD:S!maumau", Play(Card.parse("JD"), "S", "maumau")),
        ("W+4:R", Play(Card.parse("W+4"), "R")),
    ],
)
def test_every_action_kind_round_trips_through_its_text(text, action) -> None:
    assert parse_action(text) == action
    assert action.text == text


def test_action_texts_are_read_leniently() -> None:
    assert parse_action(" DRAW ") is DRAW
    assert parse_action("Catch:3") == Catch(3)
    assert parse_action("CALL:Last") == Call("last")
    assert parse_action("suit:g") == NameSuit("G")
    assert parse_action("jd:s!MAU") == Play(Card.parse("JD"), "S", "mau")


@pytest.mark.parametrize(
    "text", ["", "jump", "catch:x", "call:uno", "suit:Q", "XX", "JD:Q", "5H!hello"]
)
def test_text_that_is_no_action_is_refused_by_code(text) -> None:
    with pytest.raises(BadInput) as err:
        parse_action(text)
    assert err.value.code == "bad_action_text"
    assert err.value.params == {"text": text}


def test_refusals_are_translated_from_code_and_parameters() -> None:
    error = IllegalAction("card_does_not_match", card="9C", top="5H", suit="H", rank="5")
    assert str(error) == "9C does not fit on 5H: play hearts or a 5"
    assert (
        translate(error.code, error.params, "de")
        == "9C passt nicht auf 5H: spiele Herz oder eine 5"
    )
    assert translate(error.code, error.params, "fr") == str(error)
    assert translate("bad_suit", {"text": "Q", "allowed": ("S", "H")}) == (
        "'Q' is not a suit here: choose one of S, H"
    )
    assert translate("bad_suit", {"text": "Q", "allowed": ["R", "G"]}) == (
        "'Q' is not a suit here: choose one of R, G"
    )
    assert translate("no_such_code", {"seat": 2}) == "no_such_code {'seat': '2'}"
    assert translate("not_your_turn", {}) == "not_your_turn {}"
    assert translate("card_does_not_match", {"suit": "X", "card": "9C", "top": "5H", "rank": "5"})
    assert "X" in translate(
        "card_does_not_match", {"suit": "X", "card": "9C", "top": "5H", "rank": "5"}
    )


def test_every_error_kind_carries_its_code() -> None:
    assert BadCardText("Z").code == "bad_card_text"
    suit = BadSuit("Q", ("S", "H"))
    assert (suit.code, suit.params) == ("bad_suit", {"text": "Q", "allowed": ("S", "H")})
    setup = BadSetup("no top card")
    assert (setup.code, str(setup)) == (
        "bad_setup",
        "this setup is not playable: no top card",
    )
    assert isinstance(setup, BadInput) and isinstance(suit, ValueError)
    assert BadRuleset("unknown_preset", name="x", allowed=("classic",)).message == (
        "no rule system 'x': choose one of classic"
    )


def test_rulesets_read_back_from_their_text() -> None:
    ruleset = Ruleset.create("classic", {"target": 50, "deck": "skat32", "sevens": False})
    assert ruleset.text == "classic deck=skat32 sevens=false target=50"
    assert Ruleset.parse(ruleset.text) == ruleset
    assert (ruleset.deck, ruleset.target, ruleset.draw_rank) == ("skat32", 50, None)
    assert Ruleset.create("classic", {"sevens": True}).draw_rank == "7"
    teams = Ruleset.parse("colour teams=true target=200")
    assert (teams.teams, teams.target) == (True, 200)
    assert Ruleset.parse("online wins=3").target == 3
    assert Ruleset.parse("classic seven_chain_limit=2").chain_limit == 2
    assert Ruleset.parse("ostfriesland rounds=7").rounds == 7
    assert Ruleset.create("classic", {"ace_power": "draw"}).ace_power == "draw"
    assert Ruleset.parse("classic").text == "classic"


def test_flags_read_and_write_as_true_and_false() -> None:
    """Texts no other test parses, so the cached reader really reads them here."""
    teams = Ruleset.create("colour", {"teams": True, "target": 150})
    assert teams.text == "colour target=150 teams=true"
    assert Ruleset.parse("colour target=150 teams=true") == teams
    assert Ruleset.parse("colour target=151 teams=false").teams is False
    assert Ruleset.parse("classic sevens=true target=77").draw_rank == "7"
    assert Ruleset.parse("classic hand_size=9 target=78").hand_size == 9
    assert Ruleset.parse("classic ace_power=skip target=79").ace_power == "skip"


@pytest.mark.parametrize(
    ("preset", "options", "reason"),
    [
        ("classic", {"deck": "colour108"}, "choose one of french52, skat32"),
        ("classic", {"sevens": 1}, "must be true or false"),
        ("classic", {"target": -1}, "must be a whole number from 0 to 10000"),
        ("classic", {"target": 10_001}, "must be a whole number from 0 to 10000"),
        ("classic", {"hand_size": True}, "must be a whole number from 3 to 10"),
        ("classic", {"hand_size": "5"}, "must be a whole number from 3 to 10"),
        ("online", {"target": 3}, "not an option of online; choose from wins"),
    ],
)
def test_option_values_are_checked(preset, options, reason) -> None:
    with pytest.raises(BadRuleset) as err:
        Ruleset.create(preset, options)
    assert err.value.code == "bad_option"
    assert err.value.params == {"name": next(iter(options)), "reason": reason}


def test_option_ranges_include_their_ends() -> None:
    assert Ruleset.create("classic", {"hand_size": 3}).hand_size == 3
    assert Ruleset.create("classic", {"hand_size": 10}).hand_size == 10
    assert Ruleset.create("classic", {"target": 0}).target == 0
    with pytest.raises(BadRuleset):
        Ruleset.create("classic", {"hand_size": 11})
    with pytest.raises(BadRuleset):
        Ruleset.create("classic", {"hand_size": 2})


def test_an_unknown_preset_names_the_known_ones() -> None:
    with pytest.raises(BadRuleset) as err:
        Ruleset.create("skat")
    assert err.value.code == "unknown_preset"
    assert err.value.params == {
        "name": "skat",
        "allowed": ("classic", "online", "ostfriesland", "colour"),
    }


def test_two_decks_from_seven_seats_unless_the_number_is_set() -> None:
    classic = Ruleset.create("classic")
    assert [classic.decks_for(n) for n in (2, 6, 7, 8)] == [1, 1, 2, 2]
    assert Ruleset.create("classic", {"decks": 3}).decks_for(2) == 3
    assert Ruleset.create("ostfriesland").decks_for(2) == 3


def test_card_points_under_each_scoring() -> None:
    points = {
        "points": {"2H": 2, "10S": 10, "JC": 10, "QD": 10, "KH": 10, "AS": 10, "7D": 7},
        "ostfriesland": {"7H": 10, "8H": 10, "9H": 10, "10H": 5, "JH": 20, "QH": 5, "AH": 5},
        "collect": {"R0": 0, "G9": 9, "Bskip": 20, "Yrev": 20, "R+2": 20, "W": 50, "W+4": 50},
    }
    for scoring, cards in points.items():
        for text, value in cards.items():
            assert card_points(Card.parse(text), scoring) == value, (scoring, text)


@pytest.mark.parametrize(
    ("event", "line"),
    [
        (
            RoundStarted(2, 1, Card.parse("9H"), (0, 1)),
            "round 2: seat 1 deals, starter 9H",
        ),
        (Drew(2, 2, "penalty"), "seat 2 takes 2 penalty cards"),
        (Drew(0, 2, "draw", (Card.parse("7H"), Card.parse("W"))), "seat 0 draws 2: 7H W"),
        (Drew(1, 5, "deal"), "seat 1 is dealt 5 cards"),
        (Drew(1, 2, "caught"), "seat 1 draws 2 for the missed call"),
        (Drew(1, 4, "challenge"), "seat 1 draws 4 after the challenge"),
        (Drew(3, 1, "ace"), "seat 3 draws 1 for the ace"),
        (Played(0, Card.parse("JD"), "S", "mau"), "seat 0 plays JD and wishes spades - Mau!"),
        (Played(1, Card.parse("7H"), None, None), "seat 1 plays 7H"),
        (Played(1, Card.parse("5H"), None, "maumau"), "seat 1 plays 5H - Mau Mau!"),
        (SuitNamed(2, "G"), "seat 2 names green for the starter"),
        (Called(1, "last"), "seat 1 calls last card!"),
        (Skipped(3), "seat 3 sits out"),
        (DirectionChanged(1), "play turns clockwise"),
        (DirectionChanged(-1), "play turns counter-clockwise"),
        (Caught(1, 0, "mau"), "seat 1 catches seat 0 without Mau!"),
        (Challenged(1, 0, True), "seat 1 challenges the W+4 of seat 0: it was a bluff"),
        (Challenged(1, 0, False), "seat 1 challenges the W+4 of seat 0: it was legal"),
        (Passed(2), "seat 2 keeps the drawn card"),
        (Reshuffled(7), "the discard pile is shuffled into a new draw pile of 7"),
        (TurnStarted(1), "seat 1 to play"),
        (
            RoundOver(1, 0, "out", (0, 12), (0, 12)),
            "round 1: seat 0 goes out; points [0, 12], totals [0, 12]",
        ),
        (
            RoundOver(3, 1, "mau", (5, 0), (9, 4)),
            "round 3: seat 1 finishes with Mau; points [5, 0], totals [9, 4]",
        ),
        (
            RoundOver(3, 1, "maumau", (10, -40), (9, 4)),
            "round 3: seat 1 finishes Mau-Mau; points [10, -40], totals [9, 4]",
        ),
        (
            MatchOver((0, 2), (120, 30, 120, 30), "target"),
            "match over (target): seat 0 and seat 2 won; totals [120, 30, 120, 30]",
        ),
    ],
)
def test_every_event_is_told_in_one_line(event, line) -> None:
    assert describe(event) == line


def test_only_events_are_told() -> None:
    with pytest.raises(TypeError, match="not an event: 'a string'"):
        describe("a string")  # type: ignore[arg-type]


def test_a_setup_names_what_makes_it_unplayable() -> None:
    classic = Ruleset.create("classic")

    def refused(**setup: object) -> str:
        with pytest.raises(BadSetup) as err:
            Match.from_setup(classic, [parse_cards("5H"), parse_cards("6H")], **setup)
        return err.value.params["reason"]

    assert refused(discard=[]) == "the discard pile needs a top card"
    top = parse_cards("9H")
    assert refused(discard=top, dealer=2) == "dealer 2 is not a seat dealt in at this table of 2"
    assert refused(discard=top, turn=-1) == "turn -1 is not a seat dealt in at this table of 2"
    assert refused(discard=top, turn=2) == "turn 2 is not a seat dealt in at this table of 2"
    assert refused(discard=top, dealer=-1) == "dealer -1 is not a seat dealt in at this table of 2"
    assert refused(discard=top, wished="R") == "wished suit R is not one of S, H, D, C"
    assert refused(discard=top, pending="jump") == "pending is one of '', draw, skip, draw4"
    assert refused(discard=parse_cards("R5")) == "R5 not in the french52 deck"
    assert refused(discard=top, draw_pile=parse_cards("W 2C")) == "W not in the french52 deck"


def test_hint_reasons_read_in_english_and_german_and_unknown_ones_as_themselves() -> None:
    """A hint's reasons render per language, with the call's own word and "card(s)" counted; a
    code this version does not know shows as itself with its parameters, so a newer server
    never breaks an older client."""
    assert render(Reason.of("with_call", call="last"), "de") == (
        "mit der fälligen Ansage 'Letzte Karte'"
    )
    assert render(Reason.of("accept_penalty", count=1)) == "nothing answers it: take 1 card"
    assert render(Reason.of("accept_penalty", count=2), "de") == "nichts pariert sie: nimm 2 Karten"
    assert render(("a_newer_code", {"seat": "2", "card": "JC"}), "de") == (
        "a_newer_code card=JC seat=2"
    )
    assert render_all(
        [Reason.of("last_card"), Reason.of("name_suit", suit="H", count=3)], "de"
    ) == ("deine letzte Karte: geh raus; wünsche Herz: du hältst 3 Karten davon")
    assert render(Reason.of("last_card"), "fr") == render(Reason.of("last_card"), "en")
