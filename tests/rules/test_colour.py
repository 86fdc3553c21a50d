"""The UNO-like colour game (preset 'colour', rule text 003), one test per rule.

Positions are built with ``Match.from_setup``; seat 0 is to move unless a test says otherwise.
"""

import functools
from collections import Counter

import pytest

from maumau.rules import (
    BadInput,
    Card,
    Match,
    Ruleset,
    card_points,
    colour_deck,
    parse_action,
)
from tests.rules.support import act, dealt_where, hand, legal, named, position, refused

COL = Ruleset.create("colour")
TEAMS = Ruleset.create("colour", {"teams": True})
SPARE = "B0 B1 B2 B3 B4 B5 B6 B7 B8 B9"
"""Draw pile cards for positions where penalty cards are taken."""


setup = functools.partial(position, ruleset=COL, draw=SPARE)


# ------------------------------------------------------------------ deck, deal, seats, teams


def test_the_deck_has_108_colour_cards_and_seven_are_dealt() -> None:
    """Rule text 003: 108 cards in four colours, one 0 and two of each other card per colour,
    four wilds and four wild draw-4; everyone starts with seven cards."""
    deck = Counter(colour_deck())
    assert sum(deck.values()) == 108
    assert deck[Card.parse("R0")] == 1
    assert deck[Card.parse("G9")] == deck[Card.parse("Bskip")] == deck[Card.parse("Y+2")] == 2
    assert deck[Card.parse("W")] == deck[Card.parse("W+4")] == 4
    match = Match.new(COL, seats=4, seed=2)
    assert [len(h) for h in match.hands] == [7, 7, 7, 7]
    assert Counter([c for h in match.hands for c in h] + match.draw_pile + match.discard) == deck


def test_two_to_eight_seats_and_teams_only_for_four() -> None:
    """Rule text 003: four players in teams of two (seats 0+2 and 1+3); without teams the
    preset seats two to eight."""
    for seats in (2, 8):
        assert len(Match.new(COL, seats=seats, seed=1).hands) == seats
    for ruleset, seats in ((COL, 1), (COL, 9), (TEAMS, 3)):
        with pytest.raises(BadInput) as err:
            Match.new(ruleset, seats=seats, seed=1)
        assert err.value.code == "bad_option"
    match = Match.new(TEAMS, seats=4, seed=1)
    assert [match.team_of(seat) for seat in range(4)] == [(0, 2), (1, 3), (0, 2), (1, 3)]


def test_a_wild_starter_lets_the_starting_seat_name_the_colour() -> None:
    """Rule text 003 says nothing of the starter; the reading chosen: a wild starter lets the
    starting seat name the colour."""
    match = dealt_where(COL, 3, lambda m: m.top.text == "W")
    first = match.turn
    assert (match.phase, match.chooser) == ("starter_suit", first)
    assert refused(match, (first + 1) % 3, "suit:G") == "starter_suit_needed"
    act(match, first, "suit:G")
    assert (match.phase, match.wished, match.turn) == ("play", "G", first)


def test_an_action_card_starter_has_no_effect() -> None:
    """Rule text 003 reading: a draw-2 starter makes nobody draw."""
    match = dealt_where(COL, 3, lambda m: m.top.rank == "+2")
    assert (match.phase, match.pending) == ("play", "")
    assert "accept" not in legal(match, match.turn)
    assert "draw" in legal(match, match.turn)


# ------------------------------------------------------------------ playing


def test_a_card_must_match_colour_number_or_symbol() -> None:
    """Rule text 003: play a card of the same colour, number or symbol as the top card."""
    match = setup("R5 G7 G3 Bskip", "G1", top="R7")
    assert refused(match, 0, "G3") == "card_does_not_match"
    assert refused(match, 0, "Bskip") == "card_does_not_match"
    assert {"R5", "G7"} <= legal(match, 0)
    act(match, 0, "G7")
    assert match.turn == 1
    symbol = setup("Bskip B1 G3", "G1 G2", top="Rskip")
    assert legal(symbol, 0) == {"Bskip", "draw"}


def test_skip_passes_over_the_next_seat() -> None:
    """Rule text 003: after a skip card the next player is passed over."""
    match = setup("Rskip R1", "G1", "G2", "G3", top="R5")
    events = act(match, 0, "Rskip")
    assert named(events, "Skipped")[0].seat == 1
    assert match.turn == 2


def test_reverse_changes_the_direction_of_play() -> None:
    """Rule text 003: the reverse card turns the direction of play round."""
    match = setup("Rrev R1", "G1", "G2", "R3 R4", top="R5")
    events = act(match, 0, "Rrev")
    assert named(events, "DirectionChanged")[0].direction == -1
    assert (match.direction, match.turn) == (-1, 3)
    act(match, 3, "R3")
    assert match.turn == 2
    two = setup("Rrev R1", "G1 G2", top="R5")
    act(two, 0, "Rrev")
    assert (two.direction, two.turn) == (-1, 1)


def test_a_second_reverse_turns_play_back() -> None:
    """Rule text 003: every reverse turns the direction round, so a second one restores it."""
    match = setup("Rrev R1", "G1 G2", "Rrev R3", top="R5")
    act(match, 0, "Rrev")
    assert (match.view(None).direction, match.view(None).turn) == (-1, 2)
    events = act(match, 2, "Rrev")
    assert named(events, "DirectionChanged")[0].direction == 1
    assert (match.view(None).direction, match.view(None).turn) == (1, 0)


def test_a_skip_at_two_seats_lets_the_same_seat_play_again() -> None:
    """Rule text 003: the skip passes over the next player, at a table of two the only other one."""
    match = setup("Rskip R1 R2", "G1 G2", top="R5")
    events = act(match, 0, "Rskip")
    assert [event.seat for event in named(events, "Skipped")] == [1]
    assert match.view(None).turn == 0
    assert "R1" in legal(match, 0)


def test_draw_two_makes_the_next_seat_draw_two_and_lose_its_turn() -> None:
    """Rule text 003: a draw-2 makes the next player draw two cards and sit out."""
    match = setup("R+2 R1 R2", "G1 B5 G6", "G2 G3", top="R5")
    act(match, 0, "R+2")
    assert (match.turn, match.pending, match.pending_count) == (1, "draw", 2)
    assert legal(match, 1) == {"accept"}
    events = act(match, 1, "accept")
    drew = named(events, "Drew")[0]
    assert (drew.seat, drew.count, drew.reason) == (1, 2, "penalty")
    assert hand(match, 1) == "G1 B5 G6 B0 B1"
    assert (match.turn, match.pending) == (2, "")


def test_draw_twos_stack_and_the_next_seat_draws_four() -> None:
    """Rule text 003: a draw-2 may be answered with another; the player after that draws four."""
    match = setup("R+2 R1", "Y+2 W+4 B5", "G2", top="R5")
    act(match, 0, "R+2")
    assert refused(match, 1, "W+4:G") == "draw_pending"
    assert refused(match, 1, "draw") == "draw_pending"
    act(match, 1, "Y+2")
    assert (match.turn, match.pending_count) == (2, 4)
    events = act(match, 2, "accept")
    assert named(events, "Drew")[0].count == 4
    assert match.turn == 0


def test_a_wild_names_the_colour_to_follow() -> None:
    """Rule text 003: a wild card changes the colour; the next player follows that colour."""
    match = setup("W R1", "G2 R9 W", "G3", top="G5")
    assert refused(match, 0, "W") == "wish_needed"
    act(match, 0, "W:R")
    assert (match.turn, match.wished) == (1, "R")
    assert refused(match, 1, "G2") == "card_does_not_match"
    assert {"R9", "W:B"} <= legal(match, 1)
    act(match, 1, "R9")
    assert match.wished is None


def test_wild_draw_four_names_a_colour_and_the_next_seat_draws_four() -> None:
    """Rule text 003: a wild draw-4 changes the colour; the next player draws four and sits out."""
    match = setup("W+4 B1 B2", "G2 R9 G6", "R3 R4", top="G5")
    act(match, 0, "W+4:R")
    assert (match.turn, match.pending, match.pending_count, match.wished) == (1, "draw4", 4, "R")
    assert legal(match, 1) == {"accept", "challenge"}
    events = act(match, 1, "accept")
    assert named(events, "Drew")[0].count == 4
    assert hand(match, 1) == "G2 R9 G6 B0 B1 B2 B3"
    assert (match.turn, match.pending, match.wished) == (2, "", "R")


def test_wild_draw_four_may_be_played_as_a_bluff() -> None:
    """Rule text 003: a draw-4 is meant only for a player who cannot play otherwise, but it may be
    played at any time, breaking that rule."""
    match = setup("W+4 G1", "G2", top="G5")
    assert "W+4:R" in legal(match, 0)
    act(match, 0, "W+4:R")
    assert (match.turn, match.pending) == (1, "draw4")


def test_a_wrong_challenge_costs_six_cards_and_the_turn() -> None:
    """Rule text 003: challenging a draw-4 that kept the rule makes the challenger draw six."""
    match = setup("W+4 B1", "G2", "R3", top="G5")
    act(match, 0, "W+4:R")
    events = act(match, 1, "challenge")
    challenged = named(events, "Challenged")[0]
    assert (challenged.by, challenged.seat, challenged.bluff) == (1, 0, False)
    drew = named(events, "Drew")[0]
    assert (drew.seat, drew.count, drew.reason) == (1, 6, "challenge")
    assert len(match.hands[1]) == 7
    assert (match.turn, match.pending) == (2, "")


def test_a_caught_bluff_costs_the_bluffer_four_cards() -> None:
    """Rule text 003: a challenged draw-4 that broke the rule makes its player draw four; the
    challenger draws nothing and then plays its turn (the reading chosen)."""
    match = setup("W+4 G1 B1", "G2 R9", "R3", top="G5")
    act(match, 0, "W+4:R")
    events = act(match, 1, "challenge")
    assert named(events, "Challenged")[0].bluff is True
    drew = named(events, "Drew")[0]
    assert (drew.seat, drew.count) == (0, 4)
    assert hand(match, 0) == "G1 B1 B0 B1 B2 B3"
    assert hand(match, 1) == "G2 R9"
    assert (match.turn, match.pending, match.wished) == (1, "", "R")
    act(match, 1, "R9")
    assert match.turn == 2


def test_a_held_plain_wild_makes_a_draw_four_a_bluff() -> None:
    """Rule text 003: a plain wild goes on anything, so holding one while playing a draw-4 is a
    bluff, even when no card of the hand matches the colour."""
    match = setup("W+4 W G1", "B2 R9", "R3", top="Y5")
    act(match, 0, "W+4:R")
    events = act(match, 1, "challenge")
    assert named(events, "Challenged")[0].bluff is True
    assert hand(match, 0) == "W G1 B0 B1 B2 B3"
    assert match.view(None).turn == 1


def test_challenge_only_a_draw_four() -> None:
    """Rule text 003: only the player facing a draw-4 may challenge it."""
    match = setup("R+2 R1", "G2", top="R5")
    assert refused(match, 0, "challenge") == "challenge_not_allowed"
    act(match, 0, "R+2")
    assert refused(match, 1, "challenge") == "challenge_not_allowed"


# ------------------------------------------------------------------ drawing


def test_a_seat_may_draw_even_when_it_could_play() -> None:
    """Rule text 003 (tip): one may draw from the pile and keep one's cards; a drawn card that
    does not fit ends the turn."""
    match = setup("R5 G1", "G2", top="R3", draw="B9")
    assert "draw" in legal(match, 0)
    act(match, 0, "draw")
    assert hand(match, 0) == "R5 G1 B9"
    assert (match.turn, match.phase) == (1, "play")


def test_after_drawing_only_the_drawn_card_may_be_played_or_pass() -> None:
    """Rule text 003: after drawing, the player may play the card just drawn or pass."""
    match = setup("R5 G1", "G2 G3", top="R3", draw="R8 B9")
    assert refused(match, 0, "pass") == "pass_not_allowed"
    act(match, 0, "draw")
    assert (match.turn, match.phase) == (0, "drawn")
    assert legal(match, 0) == {"R8", "pass"}
    assert refused(match, 0, "R5") == "only_drawn_card"
    assert refused(match, 0, "draw") == "only_drawn_card"
    events = act(match, 0, "pass")
    assert named(events, "Passed")[0].seat == 0
    assert hand(match, 0) == "R5 G1 R8"
    assert match.turn == 1
    played = setup("R5 G1", "G2", top="R3", draw="R8 B9")
    act(played, 0, "draw")
    act(played, 0, "R8")
    assert (hand(played, 0), played.turn) == ("R5 G1", 1)


# ------------------------------------------------------------------ the 'last' button


def test_last_may_be_pressed_with_one_card_or_with_two_on_ones_turn() -> None:
    """Rule text 003: a player down to one card presses 'last'; it may be pressed before playing
    the card (with two cards on one's own turn)."""
    match = setup("R5 R6", "G2 G3", "B1", "Y1 Y2 Y3", top="R3")
    assert "call:last" in legal(match, 0)
    assert refused(match, 1, "call:last") == "call_not_due"
    assert refused(match, 3, "call:last") == "call_not_due"
    events = act(match, 2, "call:last")
    assert (named(events, "Called")[0].seat, match.turn) == (2, 0)
    act(match, 0, "call:last")
    act(match, 0, "R5")
    assert refused(match, 1, "catch:0") == "catch_not_allowed"
    assert refused(match, 1, "catch:2") == "catch_not_allowed"


def test_being_beaten_to_last_costs_two_cards() -> None:
    """Rule text 003: if another player presses 'last' first, the player with one card draws two."""
    match = setup("R5 R6", "G2 G3", "B1 B2", top="R3", draw="Y1 Y2 Y3")
    act(match, 0, "R5")
    assert refused(match, 0, "catch:0") == "catch_not_allowed"
    assert "catch:0" in legal(match, 2)
    events = act(match, 2, "catch:0")
    caught = named(events, "Caught")[0]
    assert (caught.by, caught.seat, caught.word) == (2, 0, "last")
    drew = named(events, "Drew")[0]
    assert (drew.seat, drew.count, drew.reason) == (0, 2, "caught")
    assert hand(match, 0) == "R6 Y1 Y2"
    assert match.turn == 1
    assert refused(match, 1, "catch:0") == "catch_not_allowed"


def test_last_may_still_be_pressed_after_the_card_until_someone_is_faster() -> None:
    """Rule text 003: the 'last' button may be pressed with one card left at any time."""
    match = setup("R5 R6", "G2 G3", "B1 B2", top="R3")
    act(match, 0, "R5")
    act(match, 0, "call:last")
    assert refused(match, 2, "catch:0") == "catch_not_allowed"


def test_last_may_be_pressed_before_playing_a_drawn_second_to_last_card() -> None:
    """Rule text 003: 'last' may be pressed before playing the card; that holds too for a player
    who drew into two cards and is about to play the drawn one."""
    match = setup("R5", "G2 G3", top="G4", draw="G7")
    act(match, 0, "draw")
    assert (match.phase, len(match.hands[0])) == ("drawn", 2)
    assert "call:last" in legal(match, 0)
    act(match, 0, "call:last")
    act(match, 0, "G7")
    assert refused(match, 1, "catch:0") == "catch_not_allowed"


def test_taking_cards_undoes_a_last_call() -> None:
    """Rule text 003: 'last' announces a last card; a seat that then takes cards must press it
    again when it is down to one card once more, or be caught."""
    match = setup("R+2 R1 R2", "G5", "R3 R4", top="R6")
    act(match, 1, "call:last")
    assert match.view(None).declared_last == (1,)
    act(match, 0, "R+2")
    act(match, 1, "accept")
    assert match.view(None).declared_last == ()
    assert "call:last" not in legal(match, 1)


def test_keeping_a_drawn_card_with_two_in_hand_undoes_a_last_call() -> None:
    """Rule text 003: 'last' pressed before playing a drawn second-to-last card lapses when the
    card is kept instead: the seat holds two cards again."""
    match = setup("R5", "G2 G3", top="G4", draw="G7")
    act(match, 0, "draw")
    act(match, 0, "call:last")
    assert match.view(None).declared_last == (0,)
    act(match, 0, "pass")
    assert match.view(None).declared_last == ()
    assert match.view(None).hand_sizes[0] == 2


# ------------------------------------------------------------------ scoring and the match


def test_cards_score_face_value_twenty_or_fifty() -> None:
    """Rule text 003: numbers count their face value, skip, reverse and draw-2 count 20, the wilds
    50."""
    texts = ["R0", "G7", "B9", "Yskip", "Rrev", "G+2", "W", "W+4"]
    points = [card_points(Card.parse(text), "collect") for text in texts]
    assert points == [0, 7, 9, 20, 20, 20, 50, 50]


def test_the_winner_collects_the_points_left_in_the_other_hands() -> None:
    """Rule text 003: playing the last card wins the round; the winner gets the points of all
    cards left in the other hands."""
    match = setup("R5", "R0 B9 Gskip", "W", top="R3", totals=[10, 0, 0])
    events = act(match, 0, "R5")
    over = named(events, "RoundOver")[0]
    assert (over.winner, over.points) == (0, (79, 0, 0))
    assert match.totals == [89, 0, 0]
    assert (match.outcome, match.round) == (None, 2)


def test_a_team_scores_together_and_the_partners_cards_do_not_count() -> None:
    """Rule text 003: in teams the winning team gets the points of the opponents' hands, and the
    first team to 100 wins the match."""
    match = setup("R5", "B9 Gskip", "W W", "R1", top="R3", ruleset=TEAMS, totals=[80, 0, 80, 0])
    events = act(match, 0, "R5")
    assert named(events, "RoundOver")[0].points == (30, 0, 30, 0)
    assert match.totals == [110, 0, 110, 0]
    assert match.outcome is not None
    assert (match.outcome.winners, match.outcome.reason) == ((0, 2), "target")
    assert match.phase == "over"
    assert refused(match, 1, "B9") == "match_over"


def test_the_first_to_reach_the_target_wins_the_match() -> None:
    """Rule text 003: the match goes to 100 points (option 'target')."""
    assert COL.target == 100
    match = setup("R5", "B9 Gskip W", top="R3", totals=[20, 0])
    act(match, 0, "R5")
    assert (match.totals, match.outcome) == ([99, 0], None)
    fifty = Ruleset.create("colour", {"target": 50})
    match = setup("R5", "B9 Gskip W", top="R3", totals=[20, 0], ruleset=fifty)
    act(match, 0, "R5")
    assert match.outcome is not None
    assert match.outcome.winners == (0,)


def test_draw_twos_and_draw_fours_played_are_counted_per_seat() -> None:
    """Rule text 003 (experience points): each draw-2 and draw-4 played counts for its player."""
    match = setup("R+2 W+4 B1", "Y+2 G9", "G2 G3", top="R5")
    act(match, 0, "R+2")
    act(match, 1, "Y+2")
    act(match, 2, "accept")
    act(match, 0, "W+4:G")
    assert match.specials == [2, 1, 0]


# ------------------------------------------------------------------ legal actions


def test_legal_actions_of_key_positions() -> None:
    """Rule text 003: what a seat may do facing a draw-2, a draw-4, and with a free choice."""
    facing_two = setup("Y+2 W W+4 R1", "G1 G2", top="R+2", pending="draw", pending_count=2)
    assert legal(facing_two, 0) == {"Y+2", "accept"}
    facing_four = setup(
        "Y+2 W R1", "G1 G2", top="W+4", wished="G", pending="draw4", pending_count=4
    )
    assert legal(facing_four, 0) == {"accept", "challenge"}
    free = setup("R1 Y7 W", "G1 G2", top="R7")
    assert legal(free, 0) == {"R1", "Y7", "W:R", "W:G", "W:B", "W:Y", "draw"}
    assert parse_action("W") not in free.legal_actions(0)
