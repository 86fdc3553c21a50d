"""The online room game (preset 'online', rule text 001), one test per rule."""

import functools

import pytest

from maumau.rules import (
    ACCEPT,
    DRAW,
    PASS,
    BadInput,
    BadRuleset,
    IllegalAction,
    Match,
    Ruleset,
    parse_cards,
    translate,
)
from tests.rules.support import act, cards_in_play, legal, named, position, refused

ONLINE = Ruleset.create("online")
setup = functools.partial(position, ruleset=ONLINE)


def new_match_with_starter(rank):
    """A freshly dealt two-seat match whose starter card has ``rank``."""
    for seed in range(500):
        match = Match.new(Ruleset.create("online"), seats=2, seed=seed)
        if match.top.rank == rank:
            return match
    raise AssertionError(f"no seed turns up a {rank} starter")


# ------------------------------------------------------------------ table, deck and deal


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_two_to_four_seats_play_32_cards_five_each(seats):
    """Rule text 001: a room seats two to four; 32 cards from 7 to Ace, five cards each."""
    match = Match.new(Ruleset.create("online"), seats=seats, seed=1)
    cards = match.draw_pile + match.discard + [card for hand in match.hands for card in hand]
    assert len(cards) == 32
    assert {card.rank for card in cards} == {"7", "8", "9", "10", "J", "Q", "K", "A"}
    assert [len(hand) for hand in match.hands] == [5] * seats
    assert len(match.discard) == 1


@pytest.mark.parametrize("seats", [1, 5])
def test_other_table_sizes_are_refused(seats):
    """Rule text 001: a room is for two to four people."""
    with pytest.raises(BadInput) as err:
        Match.new(Ruleset.create("online"), seats=seats, seed=1)
    assert err.value.code == "bad_option"
    assert err.value.params["name"] == "seats"


# ------------------------------------------------------------------ matching


def test_same_suit_or_same_rank_fits():
    """Rule text 001: a card fits when it has the top card's suit or rank (on 9H: any heart
    or any 9)."""
    match = setup("9C KH QS", "8D 10D", top="9H")
    assert "9C" in legal(match, 0)
    assert "KH" in legal(match, 0)
    assert "QS" not in legal(match, 0)
    assert refused(match, 0, "QS") == "card_does_not_match"

    act(match, 0, "KH")

    assert match.top == parse_cards("KH")[0]
    assert match.turn == 1


# ------------------------------------------------------------------ special cards


def test_seven_makes_the_next_seat_take_two_which_ends_its_turn():
    """Rule text 001: a 7 asks two cards of the next seat; taking them ends its turn."""
    match = setup("7H 9C KC", "8D 10D QD", "AS KS", top="9H", draw="KD QC JC")
    act(match, 0, "7H")
    assert (match.pending, match.pending_count) == ("draw", 2)
    assert ACCEPT in match.legal_actions(1)

    events = act(match, 1, "accept")

    assert match.hands[1] == parse_cards("8D 10D QD KD QC")
    assert named(events, "Drew")[0].reason == "penalty"
    assert (match.pending, match.turn) == ("", 2)


def test_sevens_stack_two_cards_each():
    """Rule text 001: a further 7 lengthens the penalty by two cards for the seat after."""
    match = setup("7H 9C KC", "7D 10D QD", "AS KS", top="9H", draw="KD QC JC 10C 9D")
    act(match, 0, "7H")

    act(match, 1, "7D")

    assert (match.pending, match.pending_count, match.turn) == ("draw", 4, 2)
    act(match, 2, "accept")
    assert len(match.hands[2]) == 6
    assert match.turn == 0


def test_only_a_seven_or_taking_the_cards_answers_a_seven():
    """Rule text 001: on pending 7s a plain card is a mistake; play a 7 or take them all."""
    match = setup("9H 7S JD 10D", "8D QD", top="7H", pending="draw", pending_count=4)
    assert "7S" in legal(match, 0)
    assert ACCEPT in match.legal_actions(0)
    assert "9H" not in legal(match, 0)
    assert DRAW not in match.legal_actions(0)
    assert refused(match, 0, "9H") == "draw_pending"
    assert refused(match, 0, "JD:S") == "draw_pending"
    assert refused(match, 0, "draw") == "draw_pending"


def test_eight_skips_the_next_seat():
    """Rule text 001: an 8 skips the next person."""
    match = setup("8H 9C KC", "8D 10D", "AS KS", top="9H")

    events = act(match, 0, "8H")

    assert match.turn == 2
    assert named(events, "Skipped")[0].seat == 1


def test_jack_wishes_a_suit():
    """Rule text 001: a Jack is played with the suit it wishes, which the next seat serves."""
    match = setup("JC 9C KC", "8D 10S", top="9H")
    assert "JC:S" in legal(match, 0)
    assert refused(match, 0, "JC") == "wish_needed"

    act(match, 0, "JC:S")

    assert match.wished == "S"
    assert refused(match, 1, "8D") == "card_does_not_match"
    act(match, 1, "10S")


def test_jack_never_goes_on_a_jack():
    """Rule text 001: a Jack may not be laid on a Jack."""
    match = setup("JD 9S", "8D 10D", top="9H JC", wished="S")
    assert "JD:H" not in legal(match, 0)
    assert refused(match, 0, "JD:H") == "jack_on_jack"
    assert "9S" in legal(match, 0)


# ------------------------------------------------------------------ drawing


def test_a_seat_may_draw_even_when_a_card_fits():
    """Rule text 001: drawing is allowed at any turn, not only when nothing fits."""
    match = setup("9C KH", "8D 10D", top="9H", draw="QS")
    assert DRAW in match.legal_actions(0)

    act(match, 0, "draw")

    assert match.hands[0] == parse_cards("9C KH QS")


def test_after_drawing_only_the_drawn_card_may_be_played():
    """Rule text 001: after drawing only the card just drawn may be played, or the seat passes."""
    match = setup("9C KH", "8D 10D", top="9H", draw="QH")
    act(match, 0, "draw")
    assert match.phase == "drawn"
    assert "QH" in legal(match, 0)
    assert PASS in match.legal_actions(0)
    assert "KH" not in legal(match, 0)
    assert refused(match, 0, "KH") == "only_drawn_card"
    assert refused(match, 0, "draw") == "only_drawn_card"

    act(match, 0, "QH")

    assert match.hands[0] == parse_cards("9C KH")
    assert match.turn == 1


def test_the_drawn_card_may_be_kept_by_passing():
    """Rule text 001: instead of playing the fitting drawn card, the seat may pass."""
    match = setup("9C KH", "8D 10D", top="9H", draw="QH")
    act(match, 0, "draw")

    events = act(match, 0, "pass")

    assert named(events, "Passed")[0].seat == 0
    assert match.hands[0] == parse_cards("9C KH QH")
    assert match.turn == 1


def test_a_drawn_card_that_does_not_fit_ends_the_turn():
    """Rule text 001: if the drawn card does not fit, the turn ends by itself."""
    match = setup("9C KH", "8D 10D", top="9H", draw="QS")

    act(match, 0, "draw")

    assert match.phase == "play"
    assert match.turn == 1
    assert refused(match, 0, "pass") == "not_your_turn"


# ------------------------------------------------------------------ start and finish


def test_a_seven_starter_has_no_effect():
    """Rule text 001: the starter card has no special effect, so a 7 starter asks nothing."""
    match = new_match_with_starter("7")
    assert (match.pending, match.pending_count) == ("", 0)
    assert match.phase == "play"
    assert refused(match, match.turn, "accept") == "nothing_to_accept"


def test_an_eight_starter_skips_nobody():
    """Rule text 001: the starter card has no special effect, so an 8 starter skips nobody."""
    match = new_match_with_starter("8")
    assert match.turn == (match.dealer + 1) % 2
    assert match.pending == ""


def test_a_jack_starter_names_no_suit():
    """Rule text 001: the starter card has no special effect, so no suit is named for a Jack."""
    match = new_match_with_starter("J")
    assert match.phase == "play"
    assert match.wished is None
    assert "suit:H" not in legal(match, match.dealer)
    assert refused(match, match.dealer, "suit:H") == "starter_suit_not_due"


def test_the_last_card_wins_at_once():
    """Rule text 001: whoever lays down the last card wins straight away, no call needed."""
    match = setup("9H", "8D 10D", top="9C")

    events = act(match, 0, "9H")

    assert named(events, "RoundOver")[0].winner == 0
    assert match.round_wins == [1, 0]
    assert match.outcome.winners == (0,)
    assert match.outcome.reason == "wins"
    assert match.phase == "over"


@pytest.mark.parametrize(("hand", "play"), [("9H 9D", "9H!mau"), ("9H", "9H!maumau")])
def test_calls_are_automatic_so_none_is_taken(hand, play):
    """Rule text 001: the online game announces Mau and Mau-Mau itself; a seat calls nothing."""
    match = setup(hand, "8D 10D", top="9C")
    assert refused(match, 0, play) == "call_not_due"
    assert refused(match, 0, "call:last") == "call_not_due"


def test_no_penalty_for_a_forgotten_call():
    """Rule text 001: there is no penalty for forgetting to say Mau, so nobody can be caught."""
    match = setup("9H 9D", "8D 10D", top="9C", draw="KS QS")
    act(match, 0, "9H")
    assert len(match.hands[0]) == 1
    assert not any(type(a).__name__ == "Catch" for a in match.legal_actions(1))
    assert refused(match, 1, "catch:0") == "catch_not_allowed"


# ------------------------------------------------------------------ empty draw pile


def test_empty_draw_pile_is_refilled_from_the_discards():
    """Rule text 001: an empty draw pile is refilled with the discards under the top card."""
    match = setup("9C KC", "8D 10D", top="QS AS 10S 9H")
    before = cards_in_play(match)

    events = act(match, 0, "draw")

    assert named(events, "Reshuffled")[0].count == 3
    assert match.view(None).discard == tuple(parse_cards("9H"))
    assert match.view(None).hand_sizes == (3, 2)
    assert cards_in_play(match) == before


def test_turn_passes_on_when_no_card_can_be_drawn():
    """Rule text 001: when not a single card can be drawn, play moves on to the next seat."""
    match = setup("9C KC", "8D 10D", top="9H")

    events = act(match, 0, "draw")

    assert named(events, "Drew")[0].count == 0
    assert match.hands[0] == parse_cards("9C KC")
    assert match.turn == 1


def test_nothing_is_shuffled_when_the_discard_pile_holds_only_its_top_card():
    """Rule text 001: with no discards under the top card there is nothing to shuffle: no
    reshuffle is told, and the next real one deals the same order as in a match that never
    tried (the shuffle's seed moved on only for a real reshuffle)."""
    match = setup("QH KD 9S", "QC KH AD 10S", top="9C", seed="order")

    events = act(match, 0, "draw")

    assert named(events, "Reshuffled") == []
    assert [(e.seat, e.count) for e in named(events, "Drew")] == [(0, 0)]
    for seat, card in ((1, "QC"), (0, "QH"), (1, "KH"), (0, "KD"), (1, "AD")):
        act(match, seat, card)
    fresh = setup("9S", "10S", top="9C QC QH KH KD AD", seed="order")
    drawn = [named(act(m, 0, "draw"), "Drew")[0].cards for m in (match, fresh)]
    assert drawn[0] == drawn[1]
    assert match.draw_pile == fresh.draw_pile


def test_a_penalty_larger_than_the_piles_takes_what_there_is():
    """Rule text 001: taking the penalty of pending 7s with too few cards left takes them all."""
    match = setup("9C KC", "8D 10D", top="9D 7H", draw="KS", pending="draw", pending_count=6)

    events = act(match, 0, "accept")

    assert match.hands[0] == parse_cards("9C KC KS 9D")
    assert named(events, "Drew")[0].count == 2
    assert (match.pending, match.turn) == ("", 1)


# ------------------------------------------------------------------ wins and options


def test_round_wins_are_counted_until_the_agreed_number():
    """Rule text 001: round wins are collected; with wins=2 the first win does not end it."""
    match = setup("9H", "8D 10D", top="9C", ruleset=Ruleset.create("online", {"wins": 2}))

    events = act(match, 0, "9H")

    assert named(events, "RoundOver")[0].winner == 0
    assert match.outcome is None
    assert match.round_wins == [1, 0]
    assert match.round == 2
    assert [len(hand) for hand in match.hands] == [5, 5]

    for _ in range(2000):
        if match.outcome is not None:
            break
        action = next(iter(match.legal_actions(match.turn)))
        match.apply(match.turn, action)
    (winner,) = match.outcome.winners
    assert match.outcome.reason == "wins"
    assert match.round_wins[winner] == 2
    assert sum(match.round_wins) in (2, 3)


@pytest.mark.parametrize(
    ("options", "name"), [({"wins": 0}, "wins"), ({"deck": "french52"}, "deck")]
)
def test_only_the_wins_option_is_offered(options, name):
    """Rule text 001: the rest is fixed (32 cards, five each); only the win count is chosen."""
    with pytest.raises(BadRuleset) as err:
        Ruleset.create("online", options)
    assert err.value.code == "bad_option"
    assert err.value.params["name"] == name


# ------------------------------------------------------------------ messages


def test_jack_on_jack_message_reads_as_a_rule_in_both_languages():
    """Rule text 001: the refusal of a Jack on a Jack says so, in English and in German."""
    match = setup("JD 9S", "8D 10D", top="JC", wished="S")
    with pytest.raises(IllegalAction) as err:
        act(match, 0, "JD:H")
    message = str(err.value)
    assert "Jack" in message
    german = translate(err.value.code, err.value.params, "de")
    assert german != message
    assert "Bube" in german


def test_only_drawn_card_message_names_the_card():
    """Rule text 001: the refusal after drawing names the drawn card and the way out (pass)."""
    match = setup("9C KH", "8D 10D", top="9H", draw="QH")
    act(match, 0, "draw")
    with pytest.raises(IllegalAction) as err:
        act(match, 0, "KH")
    assert "QH" in str(err.value)
    assert "pass" in str(err.value)
    german = translate(err.value.code, err.value.params, "de")
    assert "QH" in german
    assert german != str(err.value)
