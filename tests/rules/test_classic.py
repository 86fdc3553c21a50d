"""The classic family rules (preset 'classic', rule text 000), one test per rule."""

import functools
from collections import Counter

import pytest

from maumau.rules import (
    ACCEPT,
    DRAW,
    PASS,
    BadRuleset,
    IllegalAction,
    Match,
    Ruleset,
    parse_cards,
    translate,
)
from tests.rules.support import (
    act,
    cards_in_play,
    full_deck,
    legal,
    named,
    play_out,
    position,
    refused,
)

CLASSIC = Ruleset.create("classic")
FRENCH_52 = " ".join(
    rank + suit
    for suit in "SHDC"
    for rank in ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
)
"""The 52 French cards, written out here so the deck is checked against the rule text."""
setup = functools.partial(position, ruleset=CLASSIC)


# ------------------------------------------------------------------ seats, deck and deal


@pytest.mark.parametrize(("seats", "cards"), [(2, 52), (4, 52), (6, 52), (7, 104), (8, 104)])
def test_deck_size_by_table_size(seats, cards):
    """Rule text 000: up to six seats play one 52-card deck, seven or more two decks."""
    match = Match.new(CLASSIC, seats=seats, seed=1)
    assert sum(cards_in_play(match).values()) == cards
    assert cards_in_play(match) == Counter(parse_cards(FRENCH_52) * (cards // 52))


def test_too_many_seats_rejected():
    """Rule text 000: the classic table seats two to eight (two decks from seven on)."""
    with pytest.raises(ValueError) as err:
        Match.new(Ruleset.create("classic"), seats=9, seed=1)
    assert err.value.code == "bad_option"
    assert err.value.params["name"] == "seats"


def test_every_seat_is_dealt_five_cards():
    """Rule text 000: every seat, the dealer included, gets five cards before the starter."""
    match = Match.new(Ruleset.create("classic"), seats=4, seed=1)
    assert [len(hand) for hand in match.hands] == [5, 5, 5, 5]
    assert len(match.discard) == 1


def test_jack_starter_lets_dealer_name_the_suit():
    """Rule text 000: if the turned-up starter is a Jack, the dealer names the suit to serve."""
    match = next(
        m
        for seed in range(500)
        if (m := Match.new(Ruleset.create("classic"), seats=3, seed=seed)).top.rank == "J"
    )
    dealer, first = match.dealer, match.turn
    assert match.phase == "starter_suit"
    assert "suit:S" in legal(match, dealer)
    assert "suit:S" not in legal(match, first)
    assert refused(match, first, "suit:S") == "starter_suit_needed"
    assert refused(match, first, "draw") == "starter_suit_needed"

    events = act(match, dealer, "suit:S")

    assert match.phase == "play"
    assert match.wished == "S"
    assert match.turn == first
    assert named(events, "SuitNamed")[0].seat == dealer


def test_seat_left_of_dealer_begins():
    """Rule text 000: the seat to the dealer's left plays first."""
    for seed in range(10):
        match = Match.new(Ruleset.create("classic"), seats=5, seed=seed)
        assert match.turn == (match.dealer + 1) % 5


def test_deal_passes_to_the_next_seat_each_round():
    """Rule text 000: the deal moves one seat on (clockwise) after every round."""
    match = setup("5H", "5S", "6C 7C", top="9H", draw="2D 3D", dealer=0, turn=0)

    events = act(match, 0, "5H!maumau")

    assert match.round == 2
    assert match.dealer == 1
    assert match.turn == 2
    assert named(events, "RoundStarted")[0].dealer == 1


# ------------------------------------------------------------------ matching and drawing


def test_card_matches_rank_or_suit():
    """Rule text 000: a card goes on the top card if it shares its rank or its suit."""
    match = setup("9S 5H 4C", "2D 3D", top="9H")
    assert "9S" in legal(match, 0)
    assert "5H" in legal(match, 0)
    assert "4C" not in legal(match, 0)
    assert refused(match, 0, "4C") == "card_does_not_match"

    act(match, 0, "9S")

    assert match.top == parse_cards("9S")[0]
    assert match.hands[0] == parse_cards("5H 4C")
    assert match.turn == 1


def test_wished_suit_must_be_served():
    """Rule text 000: after a Jack the next seat serves the suit named, not the Jack's suit."""
    match = setup("5D 5S 2C", "2D 3D", top="9H JD", wished="S")
    assert refused(match, 0, "5D") == "card_does_not_match"
    act(match, 0, "5S")
    assert match.wished is None


def test_draw_only_when_nothing_fits():
    """Rule text 000: a seat draws a card only when none of its cards can be played."""
    match = setup("5H 2C 3C", "2D 3D", top="9H", draw="KS")
    assert DRAW not in match.legal_actions(0)
    assert refused(match, 0, "draw") == "draw_not_allowed"

    stuck = setup("2C 3C", "2D 3D", top="9H", draw="KS")
    assert DRAW in stuck.legal_actions(0)


def test_fitting_drawn_card_may_be_played_at_once():
    """Rule text 000: a drawn card that fits may be played straight away."""
    match = setup("2C 3C", "2D 3D", top="9H", draw="KH 4S")

    act(match, 0, "draw")

    assert match.phase == "drawn"
    assert match.turn == 0
    assert "KH" in legal(match, 0)
    act(match, 0, "KH")
    assert match.top == parse_cards("KH")[0]
    assert match.turn == 1


def test_fitting_drawn_card_may_be_kept():
    """Rule text 000: a seat may keep a fitting drawn card for later and end its turn."""
    match = setup("2C 3C", "2D 3D", top="9H", draw="KH 4S")
    act(match, 0, "draw")
    assert PASS in match.legal_actions(0)

    act(match, 0, "pass")

    assert match.hands[0] == parse_cards("2C 3C KH")
    assert match.phase == "play"
    assert match.turn == 1


def test_drawn_card_that_does_not_fit_ends_the_turn():
    """Rule text 000: when the drawn card cannot be played the turn is over."""
    match = setup("2C 3C", "2D 3D", top="9H", draw="4S KH")

    act(match, 0, "draw")

    assert match.hands[0] == parse_cards("2C 3C 4S")
    assert match.phase == "play"
    assert match.turn == 1


# ------------------------------------------------------------------ special cards


def test_seven_makes_next_seat_draw_two_and_sit_out():
    """Rule text 000: after a 7 the next seat takes two cards and loses its turn."""
    match = setup("7H 2C 3C", "3S 4D 5D", "5C 6C", top="9H", draw="KS QS JS")
    act(match, 0, "7H")
    assert (match.pending, match.pending_count, match.turn) == ("draw", 2, 1)
    assert ACCEPT in match.legal_actions(1)

    events = act(match, 1, "accept")

    assert match.hands[1] == parse_cards("3S 4D 5D KS QS")
    assert named(events, "Drew")[0].reason == "penalty"
    assert (match.pending, match.pending_count, match.turn) == ("", 0, 2)


def test_seven_passes_the_penalty_on_increased_by_two():
    """Rule text 000: a seat holding a 7 may play it and pass on a penalty two cards larger."""
    match = setup("7H 2C 3C", "7S 4D 5D", "5C 6C 8C", top="9H", draw="KS QS JS 10S 2S")
    act(match, 0, "7H")

    act(match, 1, "7S")

    assert (match.pending, match.pending_count, match.turn) == ("draw", 4, 2)
    act(match, 2, "accept")
    assert len(match.hands[2]) == 7
    assert match.turn == 0


def test_only_a_seven_answers_a_pending_seven():
    """Rule text 000: facing a 7, a seat either plays a 7 or takes the cards; nothing else."""
    match = setup(
        "2C 3C 4C", "9H JD 7S 5D", "5C 6C", top="7H", pending="draw", pending_count=2, turn=1
    )
    assert "7S" in legal(match, 1)
    assert "9H" not in legal(match, 1)
    assert DRAW not in match.legal_actions(1)
    assert refused(match, 1, "9H") == "draw_pending"
    assert refused(match, 1, "JD:H") == "draw_pending"
    assert refused(match, 1, "draw") == "draw_pending"


def test_eight_skips_the_next_seat():
    """Rule text 000: an 8 makes the next seat sit out; play goes on with the seat after it."""
    match = setup("8H 2C 3C", "3S 4D", "5C 6C", top="9H")

    events = act(match, 0, "8H")

    assert match.turn == 2
    assert named(events, "Skipped")[0].seat == 1


def test_eight_at_two_seats_lets_the_same_seat_play_again():
    """Rule text 000: the 8 makes the next seat sit out, at a table of two the only other one."""
    match = setup("8H 2H 3C", "3S 4D", top="9H")

    events = act(match, 0, "8H")

    assert [event.seat for event in named(events, "Skipped")] == [1]
    assert match.view(None).turn == 0
    assert "2H" in legal(match, 0)


def test_jack_goes_on_anything_and_names_a_suit():
    """Rule text 000: a Jack may be played on any card, a Jack too, and names any suit."""
    match = setup("JC 2S 3S", "JD 4D 5D", "5C 6C", top="9H")
    assert "JC:H" in legal(match, 0)

    act(match, 0, "JC:H")
    assert match.wished == "H"

    act(match, 1, "JD:S")
    assert match.wished == "S"
    assert match.top == parse_cards("JD")[0]


def test_jack_without_a_suit_is_refused():
    """Rule text 000: whoever plays a Jack must say which suit comes next."""
    match = setup("JC 2S 3S", "4D 5D", top="9H")
    assert "JC" not in legal(match, 0)
    assert refused(match, 0, "JC") == "wish_needed"


# ------------------------------------------------------------------ calls


def test_play_leaving_one_card_calls_mau():
    """Rule text 000: the play that leaves a single card must come with 'Mau'."""
    match = setup("5H 2C", "4D 5D", "5C 6C", top="9H")
    assert "5H!mau" in legal(match, 0)
    assert refused(match, 0, "5H!maumau") == "call_not_due"

    act(match, 0, "5H!mau")

    assert match.hands[0] == parse_cards("2C")
    assert "catch:0" not in legal(match, 1)
    assert refused(match, 1, "catch:0") == "catch_not_allowed"


def test_call_not_due_with_more_cards_left():
    """Rule text 000: 'Mau' is said only when exactly one card remains."""
    match = setup("5H 2C 3C", "4D 5D", top="9H")
    assert refused(match, 0, "5H!mau") == "call_not_due"


def test_missed_mau_is_caught_for_two_cards():
    """Rule text 000: a seat caught without its 'Mau' before the next turn ends draws two."""
    match = setup("5H 2C", "5S 5D", "5C 6C", top="9H", draw="KS QS JS")
    act(match, 0, "5H")
    assert "catch:0" in legal(match, 1)
    assert "catch:0" in legal(match, 2)

    events = act(match, 2, "catch:0")

    assert match.hands[0] == parse_cards("2C KS QS")
    assert named(events, "Caught")[0].seat == 0
    assert match.turn == 1


def test_catch_window_closes_after_the_next_seats_turn():
    """Rule text 000: a missed call can be caught only until the next seat's turn ends."""
    match = setup("5H 2C", "5S 5D", "5C 6C", top="9H", draw="KS QS JS")
    act(match, 0, "5H")

    act(match, 1, "5S")

    assert "catch:0" not in legal(match, 2)
    assert refused(match, 2, "catch:0") == "catch_not_allowed"
    assert match.hands[0] == parse_cards("2C")


def test_missed_mau_on_an_eight_can_still_be_caught():
    """Rule text 000 (preset reading): the window lasts until the end of the next turn played,
    so when the call is missed on an 8 it stays open during the turn after the skipped seat."""
    match = setup("8H 2C", "5S 5D", "5C 6C", top="9H", draw="KS QS JS")
    act(match, 0, "8H")
    assert match.turn == 2
    assert "catch:0" in legal(match, 1)


def test_last_card_with_maumau_ends_the_round():
    """Rule text 000: playing the last card with 'Mau Mau' ends the round at once."""
    match = setup("5H", "4D 5D", "5C 6C", top="9H", draw="KS")
    assert refused(match, 0, "5H!mau") == "call_not_due"

    events = act(match, 0, "5H!maumau")

    over = named(events, "RoundOver")[0]
    assert (over.round, over.winner) == (1, 0)
    assert match.round == 2


def test_last_card_without_maumau_wins_when_the_window_closes():
    """Rule text 000 (preset reading): going out without 'Mau Mau' ends the round only once
    the catch window closes uncaught, and that seat then wins."""
    match = setup("5H", "5S 5D", "5C 6C", top="9H", draw="KS QS")
    events = act(match, 0, "5H")
    assert not named(events, "RoundOver")
    assert match.round == 1
    assert match.turn == 1
    assert "catch:0" in legal(match, 2)

    events = act(match, 1, "5S")

    over = named(events, "RoundOver")[0]
    assert (over.winner, over.points[0]) == (0, 0)
    assert match.round == 2


def test_caught_without_maumau_takes_two_and_the_round_goes_on():
    """Rule text 000: a seat caught forgetting 'Mau Mau' draws two and does not win."""
    match = setup("5H", "5S 5D", "5C 6C", top="9H", draw="KS QS JS")
    act(match, 0, "5H")

    act(match, 1, "catch:0")
    act(match, 1, "5S")

    assert match.round == 1
    assert match.hands[0] == parse_cards("KS QS")
    assert match.turn == 2


def test_out_without_maumau_at_two_seats_the_skipped_seat_sits_out_its_turn_to_catch():
    """Rule text 000: a missed call may be pointed out until the next person's turn ends; at two
    seats an 8 as the last card skips that person, who still gets the turn it sits out, with
    nothing to do but catch or accept. Uncaught, the seat out of cards then wins."""
    match = setup("8H", "2C 3C", top="9H", draw="KS QS")

    events = act(match, 0, "8H")

    assert not named(events, "RoundOver")
    assert (match.turn, match.view(None).pending) == (1, "skip")
    assert legal(match, 1) == {"accept", "catch:0"}
    assert refused(match, 1, "8C") == "card_not_in_hand"
    assert refused(match, 1, "draw") == "sit_out_pending"
    events = act(match, 1, "accept")
    assert [event.seat for event in named(events, "Skipped")] == [1]
    over = named(events, "RoundOver")[0]
    assert (over.winner, over.finish, over.points) == (0, "out", (0, 5))


def test_out_without_maumau_at_two_seats_caught_in_the_turn_it_sits_out():
    """Rule text 000: the skipped seat catches the missed 'Mau Mau' in the turn it sits out; the
    caught seat takes two and, the skip served, plays on."""
    match = setup("8H", "2C 8C", top="9H", draw="KS QS")
    act(match, 0, "8H")
    assert refused(match, 1, "8C") == "sit_out_pending"  # an 8 passes no classic skip on

    act(match, 1, "catch:0")
    assert match.hands[0] == parse_cards("KS QS")
    assert match.turn == 1
    events = act(match, 1, "accept")

    assert not named(events, "RoundOver")
    assert (match.turn, match.round, match.view(None).pending) == (0, 1, "")


def test_first_seat_out_wins_even_if_the_next_one_also_forgets():
    """Rule text 000 (preset reading): a seat out without 'Mau Mau' wins when its window closes
    uncaught, even if the next seat also goes out without the call in that very turn."""
    match = setup("5H", "5S", top="9H", draw="KS QS")
    act(match, 0, "5H")

    events = act(match, 1, "5S")

    assert named(events, "RoundOver")[0].winner == 0


# ------------------------------------------------------------------ piles and scoring


def test_empty_draw_pile_is_refilled_from_the_discard_pile():
    """Rule text 000: when the draw pile runs out, the discards under the top card are
    shuffled into a new draw pile."""
    match = setup("2C 3C", "2D 3D", top="4H 5H 6D 9H")
    before = cards_in_play(match)

    events = act(match, 0, "draw")

    assert named(events, "Reshuffled")[0].count == 3
    assert match.discard == parse_cards("9H")
    assert len(match.draw_pile) == 2
    assert len(match.hands[0]) == 3
    assert cards_in_play(match) == before


def test_round_points_are_the_cards_left_in_hand():
    """Rule text 000: the winner scores 0; the others score their hands (A, K, Q, J ten each,
    pips their face value), added to their totals."""
    match = setup(
        "5H", "AS KH QD JC", "2C 10S 7C", top="9H", draw="KS", totals=[10, 20, 30], dealer=2
    )

    events = act(match, 0, "5H!maumau")

    over = named(events, "RoundOver")[0]
    assert over.points == (0, 40, 19)
    assert over.totals == (10, 60, 49)
    assert match.totals == [10, 60, 49]
    assert match.outcome is None


def test_match_ends_at_the_target_and_the_lowest_total_wins():
    """Rule text 000: once a total reaches the target (100) the match ends; lowest total wins."""
    match = setup("5H", "5C", "2C", top="9H", totals=[90, 95, 50], dealer=2)

    events = act(match, 0, "5H!maumau")

    assert match.totals == [90, 100, 52]
    assert match.outcome.winners == (2,)
    assert match.outcome.reason == "target"
    assert match.phase == "over"
    assert named(events, "MatchOver")[0].winners == (2,)
    assert refused(match, 1, "5C") == "match_over"


def test_tie_for_lowest_total_plays_a_deciding_round_among_the_tied():
    """Rule text 000: a tie for the lowest total is settled by one more round among the tied."""
    match = setup("5H", "10S", "5C", top="9H", totals=[60, 95, 55], dealer=2)

    events = act(match, 0, "5H!maumau")

    assert match.totals == [60, 105, 60]
    assert match.outcome is None
    assert match.in_round == [True, False, True]
    assert match.round == 2
    assert match.hands[1] == []
    assert named(events, "RoundStarted")[0].seats == (0, 2)
    assert match.turn in (0, 2)


def test_deciding_round_winner_wins_the_match():
    """Rule text 000: whoever wins the deciding round among the tied wins the match."""
    match = setup("5H", "10S", "5C", top="9H", totals=[60, 95, 55], dealer=2)
    act(match, 0, "5H!maumau")

    play_out(match)

    assert match.outcome.reason == "tie_break"
    assert match.outcome.winners in ((0,), (2,))
    assert match.round == 2


def test_casual_game_is_a_single_unscored_round():
    """Rule text 000: the casual game without scoring is won by whoever goes out first."""
    match = setup("5H", "AS KH", "2C", top="9H", ruleset=Ruleset.create("classic", {"target": 0}))

    events = act(match, 0, "5H!maumau")

    assert match.outcome.winners == (0,)
    assert match.outcome.reason == "single"
    assert named(events, "MatchOver")[0].reason == "single"


# ------------------------------------------------------------------ variants


def test_skat_deck_variant_uses_32_cards():
    """Rule text 000, variant: the traditional Skat deck has only 7 to Ace, 32 cards."""
    match = Match.new(Ruleset.create("classic", {"deck": "skat32"}), seats=4, seed=1)
    cards = match.draw_pile + match.discard + [card for hand in match.hands for card in hand]
    assert len(cards) == 32
    assert {card.rank for card in cards} == {"7", "8", "9", "10", "J", "Q", "K", "A"}


def test_ace_power_draw_makes_every_other_seat_draw_one():
    """Rule text 000, variant: with the ace power 'draw' every other seat takes one card."""
    match = setup(
        "AH 2C 3C",
        "4D 5D",
        "5C 6C",
        top="9H",
        draw="KS QS JS",
        ruleset=Ruleset.create("classic", {"ace_power": "draw"}),
    )

    events = act(match, 0, "AH")

    assert match.hands[1] == parse_cards("4D 5D KS")
    assert match.hands[2] == parse_cards("5C 6C QS")
    assert [e.reason for e in named(events, "Drew")] == ["ace", "ace"]
    assert match.turn == 1


def test_ace_power_skip_lets_the_ace_player_move_again():
    """Rule text 000, variant: with the ace power 'skip' all others sit out once, so the ace's
    player plays again."""
    match = setup(
        "AH 5H 3C",
        "4D 5D",
        "5C 6C",
        top="9H",
        ruleset=Ruleset.create("classic", {"ace_power": "skip"}),
    )

    act(match, 0, "AH")
    assert match.turn == 0
    assert "5H!mau" in legal(match, 0)

    act(match, 0, "5H!mau")
    assert match.turn == 1


ACE_SKIPS = Ruleset.create("classic", {"ace_power": "skip"})


def test_ace_power_skip_as_the_last_card_without_the_call_never_makes_its_player_draw():
    """Rule text 000, variant: an ace that skips everyone else, played as the last card without
    'Mau Mau', would bring the turn straight back to a seat with no cards. The next seat gets the
    turn it sits out to catch the call; uncaught, the seat out of cards wins there and then,
    holding nothing (it never draws)."""
    match = setup("AH", "4D 5D", "5C 6C", top="9H", draw="KS QS", ruleset=ACE_SKIPS)

    events = act(match, 0, "AH")

    assert not named(events, "RoundOver")
    assert (match.turn, match.view(None).pending) == (1, "skip")
    assert legal(match, 1) == {"accept", "catch:0"}
    assert "catch:0" in legal(match, 2)
    events = act(match, 1, "accept")
    over = named(events, "RoundOver")[0]
    assert (over.winner, over.finish, over.points) == (0, "out", (0, 9, 11))
    assert not named(events[: events.index(over)], "Drew")


def test_ace_power_skip_as_the_last_card_caught_gives_the_ace_player_the_turn_again():
    """Rule text 000, variant: caught in the turn the next seat sits out, the ace's player takes
    two; every other seat sits out the ace, so play comes back to it."""
    match = setup("AH", "4D 5D", "5C 6C", top="9H", draw="KS QS", ruleset=ACE_SKIPS)
    act(match, 0, "AH")

    act(match, 2, "catch:0")
    events = act(match, 1, "accept")

    assert match.hands[0] == parse_cards("KS QS")
    assert (match.turn, match.round) == (0, 1)
    assert named(events, "TurnStarted")[0].seat == 0


def test_ace_power_draw_passes_over_a_seat_out_of_cards():
    """Rule text 000, variant: a seat that went out without its call holds no cards and draws
    none for another seat's ace; uncaught, it wins when the next turn (the ace's) ends."""
    match = setup(
        "5H",
        "AH 4D",
        "5C 6C",
        top="9H",
        draw="KS QS",
        ruleset=Ruleset.create("classic", {"ace_power": "draw"}),
    )
    act(match, 0, "5H")

    events = act(match, 1, "AH!mau")

    over = named(events, "RoundOver")[0]
    played = events[: events.index(over)]
    assert [event.seat for event in named(played, "Drew")] == [2]
    assert (over.winner, over.points) == (0, (0, 4, 21))


def test_seven_chain_limit_lets_one_extra_seat_add_a_seven():
    """Rule text 000, variant: a limited chain lets one further seat add a 7; the next takes."""
    match = setup(
        "7H 2C 3C",
        "7S 4D 5D",
        "7C 6C 8C",
        top="9H",
        draw="KS QS JS 10S",
        ruleset=Ruleset.create("classic", {"seven_chain_limit": 1}),
    )
    act(match, 0, "7H")
    act(match, 1, "7S")
    assert "7C" not in legal(match, 2)
    assert refused(match, 2, "7C") == "draw_pending"

    act(match, 2, "accept")

    assert len(match.hands[2]) == 7


def test_a_set_up_chain_of_sevens_counts_against_the_chain_limit():
    """Rule text 000, variant: a pending 4 is two sevens laid, so with one extra seven allowed
    no third may follow; a pending 2 is one seven, and one more may."""
    limited = Ruleset.create("classic", {"seven_chain_limit": 1})
    two = setup("7S 2C", "3C", top="7H 7D", ruleset=limited, pending="draw", pending_count=4)
    assert legal(two, 0) == {"accept"}
    one = setup("7S 2C", "3C", top="7H", ruleset=limited, pending="draw", pending_count=2)
    assert "7S" in legal(one, 0)


def test_hand_size_variant_deals_seven_cards():
    """Rule text 000, variant: seven cards are dealt instead of five."""
    ruleset = Ruleset.create("classic", {"hand_size": 7})
    match = Match.new(ruleset, seats=3, seed=1)
    assert [len(hand) for hand in match.hands] == [7, 7, 7]
    assert cards_in_play(match) == full_deck(ruleset, 3)


def test_childrens_game_without_sevens_treats_a_seven_as_plain():
    """Rule text 000, variant: in the children's game a 7 makes nobody draw."""
    match = setup(
        "7H 2C 3C", "3H 4D", "5C 6C", top="9H", ruleset=Ruleset.create("classic", {"sevens": False})
    )

    act(match, 0, "7H")

    assert (match.pending, match.pending_count) == ("", 0)
    assert refused(match, 1, "accept") == "nothing_to_accept"
    act(match, 1, "3H")
    assert match.turn == 2


@pytest.mark.parametrize(
    ("preset", "options", "code", "name"),
    [
        ("classic", {"jokers": True}, "bad_option", "jokers"),
        ("classic", {"hand_size": 11}, "bad_option", "hand_size"),
        ("classic", {"deck": "tarot"}, "bad_option", "deck"),
        ("classic", {"ace_power": "double"}, "bad_option", "ace_power"),
        ("classic", {"sevens": "yes"}, "bad_option", "sevens"),
        ("classic", {"target": -1}, "bad_option", "target"),
        ("skat", None, "unknown_preset", "skat"),
    ],
)
def test_unknown_options_and_values_out_of_range_are_refused(preset, options, code, name):
    """Rule text 000 variants: only the variants the text names can be chosen, within range."""
    with pytest.raises(BadRuleset) as err:
        Ruleset.create(preset, options)
    assert err.value.code == code
    assert err.value.params["name"] == name
    assert name in str(err.value)


# ------------------------------------------------------------------ messages


def test_refusal_messages_tell_the_player_what_to_do():
    """Rule text 000: a refused move explains the rule (serve suit or rank), in English and
    in German."""
    match = setup("4C 2C 3C", "4D 5D", top="9H")
    with pytest.raises(IllegalAction) as err:
        act(match, 0, "4C")
    message = str(err.value)
    assert "4C" in message
    assert "9H" in message
    assert "hearts" in message
    german = translate(err.value.code, err.value.params, "de")
    assert german != message
    assert "Herz" in german


def test_pending_seven_message_names_the_way_out():
    """Rule text 000: facing a 7, the refusal says to play a 7 or take the cards."""
    match = setup("2C 3C", "9H 5D", top="7H", pending="draw", pending_count=4, turn=1)
    with pytest.raises(IllegalAction) as err:
        act(match, 1, "9H")
    assert "7" in str(err.value)
    assert "4 cards" in str(err.value)
    assert translate(err.value.code, err.value.params, "de") != str(err.value)


def test_seven_or_eight_starter_has_no_effect():
    """Rule text 000 (preset reading): only a Jack starter does anything; a 7 or 8 turned up
    asks no cards and skips nobody."""
    for rank in ("7", "8"):
        match = next(
            m
            for seed in range(500)
            if (m := Match.new(Ruleset.create("classic"), seats=3, seed=seed)).top.rank == rank
        )
        assert (match.phase, match.pending, match.pending_count) == ("play", "", 0)
        assert match.turn == (match.dealer + 1) % 3
