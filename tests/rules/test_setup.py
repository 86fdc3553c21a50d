"""Positions built with ``Match.from_setup``, seat counts, variants, views and bytes: the rules
core's public API for puzzles, tests and search, independent of any one rule text."""

import base64
import random

import pytest

from maumau.rules import (
    PRESETS,
    VARIANTS,
    BadRuleset,
    BadSetup,
    Match,
    Outcome,
    Pending,
    Phase,
    Reason,
    Ruleset,
    find_variant,
    parse_cards,
)
from maumau.rules.determinize import determinize
from tests.rules.support import act, named


def setup(preset, hands, discard, draw="", options=None, **kw):
    return Match.from_setup(
        Ruleset.create(preset, options),
        hands=[parse_cards(hand) for hand in hands],
        draw_pile=parse_cards(draw),
        discard=parse_cards(discard),
        **kw,
    )


def texts(match, seat):
    return {action.text for action in match.legal_actions(seat)}


# ------------------------------------------------------------------ cards against the deck


def test_more_copies_than_the_deck_holds_are_refused():
    with pytest.raises(BadSetup) as err:
        setup("classic", ["7H 7H 7H", "7H 2C"], "7H")
    assert err.value.code == "bad_setup"
    assert "5 7H" in err.value.message and "one deck (french52)" in err.value.message


def test_a_card_twice_across_hands_and_piles_is_refused():
    with pytest.raises(BadSetup, match="2 9H"):
        setup("classic", ["2C", "3C"], "9H", draw="9H")


def test_copies_are_counted_per_deck():
    """Rule text 000: seven seats play two decks, so two 7H are fine and three are not."""
    hands = ["7H", "7H", "2C", "3C", "4C", "5C", "6C"]
    assert setup("classic", hands, "8C").hands[1] == parse_cards("7H")
    with pytest.raises(BadSetup, match="3 7H"):
        setup("classic", hands, "7H")


def test_a_card_of_another_deck_is_refused():
    with pytest.raises(BadSetup, match="2C"):
        setup("online", ["2C", "8S"], "9S")


# ------------------------------------------------------------------ a fresh starting card


def test_fresh_jack_starter_classic_dealer_names_the_suit():
    """Rule text 000: a Jack turned up lets the dealer name the suit."""
    match = setup("classic", ["2C", "3C", "4C"], "JD", dealer=1, starter=True)
    assert (match.phase, match.chooser, match.turn) == (Phase.STARTER_SUIT, 1, 2)
    assert texts(match, 1) == {"suit:S", "suit:H", "suit:D", "suit:C"}
    assert texts(match, 2) == set()
    act(match, 1, "suit:H")
    assert (match.phase, match.wished, match.turn) == ("play", "H", 2)


def test_fresh_jack_starter_east_frisian_starting_seat_names_the_suit():
    """Rule text 002: the starter works for the starting seat, who names the Jack's suit."""
    match = setup("ostfriesland", ["7C", "8C", "9C"], "JD", dealer=0, starter=True)
    assert (match.phase, match.chooser) == (Phase.STARTER_SUIT, 1)


def test_fresh_seven_starter_is_optional_for_the_starting_seat():
    """Rule text 002: a 7 turned up may be taken up (stacked) or ignored by the starting seat."""
    match = setup("ostfriesland", ["7S KH 9D", "8C"], "7H", draw="QC", dealer=1, starter=True)
    assert texts(match, 0) == {"7S", "KH"}
    view = match.view(0)
    assert (view.pending, view.starter_open) == ("", True)
    act(match, 0, "7S")
    assert (match.pending, match.pending_count) == ("draw", 4)


def test_fresh_eight_starter_lapses_when_ignored():
    match = setup("ostfriesland", ["KH QH 10C", "9C"], "8H", dealer=1, starter=True)
    act(match, 0, "KH")
    assert (match.pending, match.turn) == ("", 1)


def test_fresh_wild_starter_colour_starting_seat_names_the_colour():
    match = setup("colour", ["R1", "G1"], "W", dealer=1, starter=True)
    assert (match.phase, match.chooser) == (Phase.STARTER_SUIT, 0)


def test_fresh_starter_has_no_effect_online():
    match = setup("online", ["7S", "8S"], "JC", dealer=1, starter=True)
    assert (match.phase, match.pending) == (Phase.PLAYING, Pending.NONE)


def test_a_fresh_starter_comes_without_a_wish():
    with pytest.raises(BadSetup):
        setup("classic", ["2C", "3C"], "JD", wished="H", starter=True)


# ------------------------------------------------------------------ pending W+4 and bluffs


@pytest.mark.parametrize("bluff", [False, True])
def test_pending_draw_four_knows_whether_it_was_a_bluff(bluff):
    """Rule text 003: a challenge finds out whether the W+4 was played while another card fit."""
    match = setup(
        "colour", ["R1 R2", "G1 G2", "B1"], "R5 W+4", draw="Y1 Y2 Y3 Y4 Y5 Y6",
        turn=1, wished="G", pending="draw4", pending_count=4, bluff=bluff,
    )  # fmt: skip
    events = act(match, 1, "challenge")
    challenged = named(events, "Challenged")[0]
    assert (challenged.by, challenged.seat, challenged.bluff) == (1, 0, bluff)
    assert len(match.hands[0 if bluff else 1]) == (6 if bluff else 8)


def test_only_a_pending_draw_four_can_be_a_bluff():
    with pytest.raises(BadSetup):
        setup("colour", ["R1", "G1"], "R+2", pending="draw", pending_count=2, bluff=True)


def test_a_pending_draw_four_lies_on_the_pile():
    with pytest.raises(BadSetup) as err:
        setup("colour", ["R1", "G1"], "R5", wished="G", pending="draw4", pending_count=4)
    assert err.value.params == {"reason": "a pending W+4 lies on top of the discard pile"}


# ------------------------------------------------------------------ drawn cards and calls


def test_a_seat_that_just_drew_may_play_the_card_or_pass():
    match = setup("classic", ["2C 4C 9H", "3C"], "5H", drawn=parse_cards("9H")[0], turn=0)
    assert match.phase == Phase.DRAWN
    assert texts(match, 0) == {"9H", "pass"}


def test_a_drawn_card_that_does_not_fit_is_refused():
    with pytest.raises(BadSetup):
        setup("classic", ["2C 9S", "3C"], "5H", drawn=parse_cards("9S")[0], turn=0)


def test_a_drawn_card_in_a_game_where_drawing_ends_the_turn_is_refused():
    with pytest.raises(BadSetup):
        setup("ostfriesland", ["KC 9H", "8C"], "7H", drawn=parse_cards("9H")[0], turn=0)


def test_owed_call_can_be_caught_and_an_uncaught_finisher_wins():
    """Rule text 000: a seat out of cards without 'Mau Mau' wins once its window closes."""
    match = setup("classic", ["", "5S 6S", "7D 8D"], "4S", draw="KC QC", turn=1,
                  owing={0: "maumau"})  # fmt: skip
    assert {"catch:0"} <= texts(match, 1)
    act(match, 1, "5S")
    events = act(match, 2, "draw")
    assert named(events, "RoundOver")[0].winner == 0


def test_owing_is_refused_where_no_play_owes_a_call():
    with pytest.raises(BadSetup) as err:
        setup("online", ["7S", "8S"], "9S", owing={0: "mau"})
    assert "in online: nobody can owe one" in str(err.value)


def test_declared_last_protects_a_seat_from_a_catch():
    match = setup("colour", ["R1", "G1 G2"], "R5", turn=1, declared=[0])
    assert "catch:0" not in texts(match, 1)
    assert "catch:0" in texts(setup("colour", ["R1", "G1 G2"], "R5", turn=1), 1)


# ------------------------------------------------------------------ running totals and rounds


def test_running_totals_and_a_deciding_round():
    """Rule text 000: in a deciding round only the tied seats play; its winner wins the match."""
    match = setup(
        "classic", ["2C", "", "3C 4H"], "2H", dealer=2, turn=0,
        in_round=[True, False, True], totals=[100, 140, 100], round_wins=[2, 3, 1], round=7,
    )  # fmt: skip
    assert (match.deciding, match.round) == (True, 7)
    events = act(match, 0, "2C!maumau")
    assert named(events, "MatchOver")[0].reason == Reason.TIE_BREAK
    assert match.outcome == Outcome((0,), "tie_break")
    assert match.round_wins == [3, 3, 1]


def test_a_finished_match_takes_no_action():
    match = setup("online", ["7S", "8S"], "9S", outcome=Outcome((1,), Reason.WINS))
    assert match.phase == Phase.OVER and texts(match, 0) == texts(match, 1) == set()


def test_per_seat_counts_need_one_number_per_seat():
    with pytest.raises(BadSetup, match="totals"):
        setup("classic", ["2C", "3C"], "4C", totals=[1, 2, 3])


# ------------------------------------------------------------------ seat counts


@pytest.mark.parametrize(
    ("preset", "options", "seats", "name", "reason"),
    [
        ("classic", None, 9, "seats", "classic is for 2 to 8 seats"),
        ("classic", None, 1, "seats", "classic is for 2 to 8 seats"),
        ("online", None, 5, "seats", "online is for 2 to 4 seats"),
        ("colour", {"teams": True}, 3, "teams", "teams need exactly 4 seats"),
        ("classic", {"deck": "skat32", "hand_size": 10}, 4, "hand_size",
         "4 hands of 10 do not fit a deck of 32"),
    ],
)  # fmt: skip
def test_check_seats_refuses_an_unusable_table(preset, options, seats, name, reason):
    ruleset = Ruleset.create(preset, options)
    with pytest.raises(BadRuleset) as err:
        ruleset.check_seats(seats)
    assert err.value.code == "bad_option"
    assert err.value.params == {"name": name, "reason": reason}
    with pytest.raises(BadRuleset):
        Match.new(ruleset, seats, 1)


def test_check_seats_accepts_every_table_a_match_deals():
    for ruleset in PRESETS.values():
        for seats in range(ruleset.min_seats, ruleset.max_seats + 1):
            ruleset.check_seats(seats)
            Match.new(ruleset, seats, seats)


# ------------------------------------------------------------------ variants


def test_every_preset_has_its_variant():
    assert set(VARIANTS) == set(PRESETS)
    for name, ruleset in PRESETS.items():
        variant = find_variant(name)
        assert type(ruleset.variant) is variant
        assert (ruleset.calls, ruleset.scoring) == (variant.calls, variant.scoring)


def test_an_unknown_preset_is_refused():
    with pytest.raises(BadRuleset) as err:
        find_variant("chess")
    assert err.value.code == "unknown_preset"


# ------------------------------------------------------------------ views and bytes


def test_views_carry_the_experience_counters():
    """Special penalty cards played count for experience; every seat sees every seat's count."""
    match = setup("colour", ["R+2 R1 R3", "R+2 G1", "B1"], "R5", turn=0)
    act(match, 0, "R+2")
    act(match, 1, "R+2")
    for viewer in (0, 1, 2, None):
        assert match.view(viewer).specials == (1, 1, 0)


# Written by the rules core before its fields were declared in one place (format version 1):
# an East-Frisian match of three seats after 40 actions.
_OLD_BYTES = (
    "eJxNUNlugzAQ/JeVcrtSICe85I76kDuPUYVcMMWtYyMMjaqq/941TlAEWMx6d3ZmfuEbfIdABj4onccZZ1pQGQEBCX6P"
    "gMYLx0GYYBXBBZq7NsImfrNGuwdvBKKM3rCttt91+uflftLqeMflnHjDGRnMF8d6c0MO7vbQP03nncHqtJqse+5oOB6t"
    "9+tGrd5YzsbjDdJFXIdIM2q5k9pmsTrtzovttD7dHtutQb93OHtDsLtQ2QtqvnKtWYSSUIIq8lBdGfiyEALtqAI9GGMR"
    "o4Khuy6BXOVUGAtdgs/bvSu4cflcvNIC3+eKTlnI7aRDHOJiicvgvuKSZwUj1WHSwO6Iyw/wYxxiuLfIpBWAP4FUmKtn"
    "3GYszLmSpcwb14nxAq9gQfBJwy/wS2JImbSMABUIQhSQl7yPikoNHxXV5jCh3K5+F0UcV/USmVRMjGlCNQYHqaA/YGaU"
    "0o879CJoVoZsR59Om3qgGc2r2JlOkFkwzKr79w/jSLf/"
)


def test_bytes_written_before_still_decode():
    match = Match.from_bytes(base64.b64decode(_OLD_BYTES))
    assert (match.ruleset.preset, match.seats, match.round, match.turn) == ("ostfriesland", 3, 1, 0)
    assert match.phase is Phase.PLAYING and match.pending is Pending.NONE
    assert match.hands[1] == parse_cards("10S") and match.top == parse_cards("JH")[0]
    assert Match.from_bytes(match.to_bytes()) == match
    assert list(match.legal_actions(0))


def test_determinize_keeps_everything_the_seat_sees():
    """A sampled world looks, to the seat it is sampled for, exactly like the real match."""
    rng = random.Random(5)
    for preset, seats in (("classic", 3), ("online", 2), ("ostfriesland", 4), ("colour", 3)):
        for seed in range(12):
            match = Match.new(Ruleset.create(preset), seats, seed)
            for _ in range(rng.randrange(60)):
                if match.phase == "over":
                    break
                seat = match.chooser if match.phase == "starter_suit" else match.turn
                actions = [a for a in match.legal_actions(seat) if a.text[:5] != "catch"]
                match.apply(seat, rng.choice(actions))
            for seat in range(seats):
                view = match.view(seat)
                assert determinize(view, rng).view(seat) == view, (preset, seed, seat)
