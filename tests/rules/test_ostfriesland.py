"""The East-Frisian tournament rules (preset 'ostfriesland', rule text 002), one test per rule.

Positions are built with ``Match.from_setup``; seat 0 is to move unless a test says otherwise.
"""

import functools
from collections import Counter
from collections.abc import Callable

import pytest

from maumau.rules import (
    DRAW,
    BadInput,
    Card,
    Event,
    Match,
    Ruleset,
    card_points,
    french_deck,
    parse_action,
    parse_cards,
)
from tests.rules.support import act, dealt_where, hand, legal, named, position, refused

OST = Ruleset.create("ostfriesland")


setup = functools.partial(position, ruleset=OST)


# ------------------------------------------------------------------ table and deal


def test_a_table_seats_up_to_eight() -> None:
    """Rule text 002: at most eight players sit at one table."""
    assert len(Match.new(OST, seats=8, seed=1).hands) == 8
    with pytest.raises(BadInput) as err:
        Match.new(OST, seats=9, seed=1)
    assert err.value.code == "bad_option"


def test_three_skat_decks_are_shuffled_together_and_six_cards_dealt() -> None:
    """Rule text 002: three 32-card Skat decks make one pile; every player gets six cards."""
    match = Match.new(OST, seats=4, seed=3)
    cards = [card for h in match.hands for card in h] + match.draw_pile + match.discard
    assert len(cards) == 96
    assert Counter(cards) == Counter(french_deck(("7", "8", "9", "10", "J", "Q", "K", "A")) * 3)
    assert [len(h) for h in match.hands] == [6, 6, 6, 6]
    assert len(match.discard) == 1


def test_the_seat_left_of_the_dealer_begins_and_the_deal_passes_left() -> None:
    """Rule text 002: the player left of the dealer starts; next round the next seat deals."""
    match = setup("QH", "10S 10C", "AS AC", top="10H", dealer=2)
    assert match.turn == 0
    act(match, 0, "QH!mau")
    assert (match.round, match.dealer, match.turn) == (2, 0, 1)


# ------------------------------------------------------------------ the starter card


def test_a_jack_starter_lets_the_starting_seat_name_the_suit() -> None:
    """Rule text 002: the first card works for the starting player; on a Jack it wishes itself."""
    match = dealt_where(OST, 3, lambda m: m.top.rank == "J")
    starter_seat = match.turn
    other = (starter_seat + 1) % 3
    assert match.phase == "starter_suit"
    assert match.chooser == starter_seat
    assert legal(match, starter_seat) == {"suit:S", "suit:H", "suit:D", "suit:C"}
    assert refused(match, other, "suit:S") == "starter_suit_needed"
    assert refused(match, starter_seat, "draw") == "starter_suit_needed"
    act(match, starter_seat, "suit:S")
    assert (match.phase, match.wished, match.turn) == ("play", "S", starter_seat)


def _opens_on(rank: str, holding: Callable[[str], bool]) -> Callable[[Match], bool]:
    """Seat 0 starts on a starter of ``rank`` holding a card whose text passes ``holding``."""
    return lambda m: m.top.rank == rank and m.turn == 0 and any(holding(c.text) for c in m.hands[0])


def test_a_seven_starter_counts_when_the_starting_seat_stacks_a_seven() -> None:
    """Rule text 002: a starter 7 counts only if the starting player wants it: a 7 on it passes
    on both sevens, so the next seat faces four cards."""
    match = dealt_where(OST, 3, _opens_on("7", lambda text: text[0] == "7"))
    seven = next(card for card in match.hands[0] if card.rank == "7")
    assert seven.text in legal(match, 0)
    assert "accept" not in legal(match, 0)
    act(match, 0, seven.text)
    assert (match.turn, match.pending, match.pending_count) == (1, "draw", 4)
    events = act(match, 1, "accept")
    assert named(events, "Drew")[0].count == 4


def test_a_seven_starter_may_be_played_on_as_a_plain_card() -> None:
    """Rule text 002: if the starting player does not take the starter 7 up, it is a plain card."""
    match = dealt_where(OST, 3, lambda m: _opens_on("7", _plain_of(m.top.suit))(m))  # 10, Q, K or A
    plain = next(card for card in match.hands[0] if _plain_of(match.top.suit)(card.text))
    act(match, 0, plain.text)
    assert (match.turn, match.pending, match.pending_count) == (1, "", 0)
    assert "accept" not in legal(match, 1)


def _plain_of(suit: str) -> Callable[[str], bool]:
    return lambda text: text[:-1] in ("10", "Q", "K", "A") and text[-1] == suit


def test_a_seven_starter_works_only_for_the_starting_seat() -> None:
    """Rule text 002: the starter works for the starting player alone; once that seat drew instead,
    a 7 from the next seat is an ordinary 7: the seat after it draws two, not four."""
    match = dealt_where(
        OST,
        3,
        lambda m: (
            m.top.rank == "7"
            and m.turn == 0
            and legal(m, 0) == {"draw"}
            and any(card.rank == "7" for card in m.hands[1])
        ),
    )
    act(match, 0, "draw")
    assert match.turn == 1
    seven = next(card for card in match.hands[1] if card.rank == "7")
    act(match, 1, seven.text)
    assert (match.turn, match.pending, match.pending_count) == (2, "draw", 2)


def test_an_eight_starter_counts_when_the_starting_seat_stacks_an_eight() -> None:
    """Rule text 002: a starter 8 taken up with another 8 makes the next seat sit out."""
    match = dealt_where(OST, 3, _opens_on("8", lambda text: text[0] == "8"))
    eight = next(card for card in match.hands[0] if card.rank == "8")
    assert "accept" not in legal(match, 0)
    act(match, 0, eight.text)
    assert (match.turn, match.pending) == (1, "skip")
    events = act(match, 1, "accept")
    assert named(events, "Skipped")[0].seat == 1
    assert match.turn == 2


# ------------------------------------------------------------------ matching and drawing


def test_a_card_must_match_the_top_card_in_suit_or_rank() -> None:
    """Rule text 002: a card fits when it has the suit or the rank of the top card."""
    match = setup("10H QS 10C", "AS", top="QH")
    assert refused(match, 0, "10C") == "card_does_not_match"
    assert legal(match, 0) >= {"10H", "QS"}
    act(match, 0, "QS")
    assert match.turn == 1


def test_drawing_is_allowed_only_without_a_fitting_card() -> None:
    """Rule text 002: a penalty card is drawn when one cannot play (the reading chosen); a turn
    must play or draw, passing is no choice."""
    match = setup("10H KS", "AS", top="QH", draw="KD")
    assert refused(match, 0, "draw") == "draw_not_allowed"
    assert refused(match, 0, "pass") == "pass_not_allowed"
    assert "draw" not in legal(match, 0)


def test_drawing_ends_the_turn_at_once_even_when_the_card_fits() -> None:
    """Rule text 002: whoever drew a penalty card may not play any more; the turn ends at once."""
    match = setup("10S KS", "AS", top="QH", draw="KH 9C")
    assert legal(match, 0) == {"draw"}
    events = act(match, 0, "draw")
    assert named(events, "Drew")[0].cards == tuple(parse_cards("KH"))
    assert hand(match, 0) == "10S KS KH"
    assert (match.turn, match.phase) == (1, "play")


# ------------------------------------------------------------------ 7, 8, 9


def test_a_seven_makes_the_next_seat_draw_two() -> None:
    """Rule text 002: after a 7 the next player draws two penalty cards unless it extends."""
    match = setup("7H KS", "AS QC", "AC", top="10H", draw="9D 9S 9C")
    act(match, 0, "7H!last")
    assert (match.turn, match.pending, match.pending_count) == (1, "draw", 2)
    events = act(match, 1, "accept")
    drew = named(events, "Drew")[0]
    assert (drew.seat, drew.count, drew.reason) == (1, 2, "penalty")
    assert hand(match, 1) == "AS QC 9D 9S"
    assert (match.turn, match.pending, match.pending_count) == (2, "", 0)


def test_each_seven_laid_on_a_seven_adds_two_cards() -> None:
    """Rule text 002: a 7 extends a 7; the penalty grows by two for each 7 laid."""
    match = setup("7S KS QS", "7C QC AC", "AC", top="7H", pending="draw", pending_count=2)
    assert legal(match, 0) == {"7S", "accept"}
    act(match, 0, "7S")
    assert (match.turn, match.pending_count) == (1, 4)
    act(match, 1, "7C")
    assert (match.turn, match.pending_count) == (2, 6)


def test_a_pending_seven_admits_only_a_seven_or_taking_the_cards() -> None:
    """Rule text 002: a 7 of the previous player must be answered, even a Jack cannot go on it."""
    match = setup("JH 7S 10H", "AS", top="7H", pending="draw", pending_count=2)
    assert refused(match, 0, "JH:S") == "draw_pending"
    assert refused(match, 0, "10H") == "draw_pending"
    assert refused(match, 0, "draw") == "draw_pending"


def test_an_eight_makes_the_next_seat_sit_out() -> None:
    """Rule text 002: after an 8 the next player sits out unless it has an 8 of its own."""
    match = setup("8H KS", "AS QC", "AC", top="10H")
    act(match, 0, "8H!last")
    assert (match.turn, match.pending) == (1, "skip")
    assert legal(match, 1) == {"accept"}
    events = act(match, 1, "accept")
    assert named(events, "Skipped")[0].seat == 1
    assert hand(match, 1) == "AS QC"
    assert (match.turn, match.pending) == (2, "")


def test_an_eight_on_an_eight_passes_the_skip_on() -> None:
    """Rule text 002: the player facing an 8 may play an 8 and the next one sits out instead."""
    match = setup("8S KS QS", "AS QC", "AC", top="8H", pending="skip")
    assert legal(match, 0) == {"8S", "accept"}
    assert refused(match, 0, "KS") == "skip_pending"
    assert refused(match, 0, "draw") == "skip_pending"
    act(match, 0, "8S")
    assert (match.turn, match.pending) == (1, "skip")
    act(match, 1, "accept")
    assert match.turn == 2


def test_a_nine_lets_the_same_seat_play_again() -> None:
    """Rule text 002: whoever lays a 9 is on turn again."""
    match = setup("9H KH 10S", "AS", top="10H")
    events = act(match, 0, "9H")
    assert match.turn == 0
    assert not named(events, "TurnStarted")
    act(match, 0, "KH!last")
    assert match.turn == 1


def test_a_nine_cannot_finish_the_round() -> None:
    """Rule text 002: a 9 obliges its player to move again, so it cannot end the round: with the
    hand empty the seat must draw."""
    match = setup("9H", "AS", top="10H", draw="KS")
    assert refused(match, 0, "9H!mau") == "call_not_due"
    events = act(match, 0, "9H")
    assert not named(events, "RoundOver")
    assert (match.hands[0], match.turn, match.round, match.outcome) == ([], 0, 1, None)
    assert legal(match, 0) == {"draw"}
    act(match, 0, "draw")
    assert (hand(match, 0), match.turn) == ("KS", 1)


# ------------------------------------------------------------------ Jacks


def test_a_wishing_jack_goes_on_any_card() -> None:
    """Rule text 002: a Jack laid with a wish need not fit the top card."""
    match = setup("JH KS", "AS", top="10C")
    act(match, 0, "JH:D!last")
    assert (match.turn, match.wished) == (1, "D")


def test_a_jack_may_not_answer_a_pending_eight() -> None:
    """Rule text 002: a 7 or 8 of the previous player must be respected, also by a Jack."""
    match = setup("JH KS", "AS", top="8H", pending="skip")
    assert refused(match, 0, "JH:S") == "skip_pending"


def test_the_wished_suit_must_be_served() -> None:
    """Rule text 002: the next player must serve the wished suit, whatever suit the Jack has."""
    match = setup("JD KS", "10D QS AS", "AC", top="10C")
    act(match, 0, "JD:S!last")
    assert match.wished == "S"
    assert refused(match, 1, "10D") == "card_does_not_match"
    act(match, 1, "QS")
    assert (match.turn, match.wished) == (2, None)


def test_a_jack_without_a_wish_must_fit_like_a_plain_card() -> None:
    """Rule text 002: only a wishing Jack goes on anything (the reading chosen: a Jack without a
    wish is a plain card and must fit)."""
    match = setup("JD JC KS", "AS", top="10C")
    assert refused(match, 0, "JD") == "card_does_not_match"
    act(match, 0, "JC")
    assert (match.turn, match.wished) == (1, None)


def test_no_jack_may_wish_on_a_wish() -> None:
    """Rule text 002, 'Bube auf Bube stinkt': after a wishing Jack no Jack may wish again; the
    wished suit has to be served."""
    match = setup("JC JS KS", "AS", top="JD", wished="S")
    assert refused(match, 0, "JC:H") == "wish_on_wish"
    assert refused(match, 0, "JS:H") == "wish_on_wish"
    assert refused(match, 0, "JC") == "wish_on_wish"
    assert "JS:H" not in legal(match, 0)


def test_a_jack_of_the_wished_suit_goes_as_a_plain_card_and_counts_as_ordinary() -> None:
    """Rule text 002: a Jack of the wished suit may be laid as a joker without a wish; that Jack is
    then an ordinary card, so the next player may wish with a third Jack."""
    match = setup("JS KS", "JH AS", "AC", top="JD", wished="S")
    assert "JS" in legal(match, 0)
    act(match, 0, "JS!last")
    assert (match.turn, match.wished) == (1, None)
    assert "JH:D" in legal(match, 1)
    act(match, 1, "JH:D!last")
    assert (match.turn, match.wished) == (2, "D")


# ------------------------------------------------------------------ calls


def test_last_card_is_called_by_a_turn_ending_with_one_card() -> None:
    """Rule text 002: a player ending the turn with one card calls 'Letzte Karte' ('last')."""
    match = setup("8H KS", "AS", "AC", top="10H")
    assert refused(match, 0, "10H!mau") == "card_not_in_hand"
    assert {"8H!last", "8H"} <= legal(match, 0)
    events = act(match, 0, "8H!last")
    assert named(events, "Played")[0].call == "last"
    assert refused(match, 2, "catch:0") == "catch_not_allowed"


def test_a_forgotten_last_card_call_costs_one_card_and_play_goes_on() -> None:
    """Rule text 002: a forgotten call, caught by another player, earns one penalty card; the
    game goes on."""
    match = setup("KH 10S", "AS QC", "AC", top="10H", draw="7D 9D")
    act(match, 0, "KH")
    assert "catch:0" in legal(match, 2)
    events = act(match, 2, "catch:0")
    caught = named(events, "Caught")[0]
    assert (caught.by, caught.seat, caught.word) == (2, 0, "last")
    assert named(events, "Drew")[0].reason == "caught"
    assert hand(match, 0) == "10S 7D"
    assert (match.turn, match.phase) == (1, "play")
    assert refused(match, 1, "catch:0") == "catch_not_allowed"


def test_finishing_with_a_plain_card_is_a_mau() -> None:
    """Rule text 002: the round is ended with the call 'Mau'; a Mau scores 0 for its winner."""
    match = setup("KH", "AS QC", "JC", top="10H")
    events = act(match, 0, "KH!mau")
    over = named(events, "RoundOver")[0]
    assert (over.winner, over.finish, over.points) == (0, "mau", (0, 10, 20))
    assert match.maumaus == [0, 0, 0]


def test_finishing_with_a_wishing_jack_is_a_maumau() -> None:
    """Rule text 002: a round ended with a wishing Jack is called 'Mau-Mau': everyone's points
    count double and the winner scores minus 40."""
    match = setup("JH", "AS QC", "JC", top="10H", totals=[5, 5, 5])
    events = act(match, 0, "JH:S!maumau")
    over = named(events, "RoundOver")[0]
    assert (over.winner, over.finish, over.points) == (0, "maumau", (-40, 20, 40))
    assert match.totals == [-35, 25, 45]
    assert match.maumaus == [1, 0, 0]


def test_finishing_with_a_jack_as_joker_is_only_a_mau() -> None:
    """Rule text 002: a round ended by a Jack laid as joker (no wish) ends with 'Mau' only."""
    match = setup("JS", "AS", top="JD", wished="S")
    events = act(match, 0, "JS!mau")
    over = named(events, "RoundOver")[0]
    assert (over.finish, over.points) == ("mau", (0, 5))


def test_a_forgotten_mau_is_caught_and_the_round_goes_on() -> None:
    """Rule text 002: who forgets 'Mau' gets a penalty card and the round goes on."""
    match = setup("KH", "AS KC", "AC", top="10H", draw="7D 9D")
    events = act(match, 0, "KH")
    assert not named(events, "RoundOver")
    act(match, 2, "catch:0")
    assert hand(match, 0) == "7D"
    act(match, 0, "call:last")
    act(match, 1, "KC!last")
    assert (match.round, match.turn, match.outcome) == (1, 2, None)
    assert refused(match, 2, "catch:0") == "catch_not_allowed"
    events = act(match, 2, "AC!mau")
    assert named(events, "RoundOver")[0].winner == 2


def test_a_wrong_finishing_call_stands_and_is_caught_as_a_forgotten_one() -> None:
    """Rule text 002: a wishing Jack ends the round with 'Mau-Mau'; a player who says 'Mau'
    instead has not made the call, which is a penalty the others may claim, not a move the player
    may take back: the play stands, 'Mau-Mau' is owed and the catch costs one card."""
    match = setup("JH", "AS QC", "JC", top="10H", draw="7D 9D")

    events = act(match, 0, "JH:S!mau")

    assert not named(events, "RoundOver")
    assert (match.hands[0], match.wished, match.turn) == ([], "S", 1)
    events = act(match, 2, "catch:0")
    caught = named(events, "Caught")[0]
    assert (caught.seat, caught.word) == (0, "maumau")
    assert hand(match, 0) == "7D"


def test_a_wrong_call_uncaught_wins_as_the_finish_that_was_due() -> None:
    """Rule text 002: a Jack laid as joker finishes with 'Mau' only; said 'Mau-Mau' and not
    caught, the seat wins with the Mau it owed when its window closes."""
    match = setup("JS", "AS KS", top="JD", wished="S", draw="7D")
    act(match, 0, "JS!maumau")

    events = act(match, 1, "AS!last")

    over = named(events, "RoundOver")[0]
    assert (over.winner, over.finish, over.points) == (0, "mau", (0, 5))


def test_a_call_where_none_is_due_is_refused() -> None:
    """Rule text 002: a call goes with a play that leaves one card or none; with more left there
    is nothing to say, and saying something is refused as a mistake of the client."""
    match = setup("KH 10S QS", "AS", top="10H")
    assert refused(match, 0, "KH!last") == "call_not_due"
    assert refused(match, 0, "KH!mau") == "call_not_due"


def test_a_penalty_card_after_going_out_owes_letzte_karte_at_once() -> None:
    """Rule text 002 (its pro tip): who thought they had won and got a penalty card must not
    forget 'Letzte Karte'. The seat owes it from the penalty card on, may say it at once on its
    own, and is catchable until the end of the next turn."""
    match = setup("KH", "AS KC", "AC QC", top="10H", draw="7D 9D 8D")
    act(match, 0, "KH")
    act(match, 1, "catch:0")
    assert hand(match, 0) == "7D"
    assert "call:last" in legal(match, 0)
    assert "catch:0" in legal(match, 2)

    events = act(match, 0, "call:last")

    assert named(events, "Called")[0].word == "last"
    assert "call:last" not in legal(match, 0)
    assert refused(match, 2, "catch:0") == "catch_not_allowed"
    assert refused(match, 0, "call:last") == "call_not_due"


def test_letzte_karte_owed_after_a_penalty_card_is_caught_until_the_next_turn_ends() -> None:
    """Rule text 002: the 'Letzte Karte' owed after a penalty card, not said, costs another card
    when caught before the end of the turn after the penalty; after that it is too late."""
    match = setup("KH", "AS KC", "AC QC", top="10H", draw="7D 9D 8D")
    act(match, 0, "KH")
    act(match, 1, "catch:0")  # in seat 1's turn: catchable through seat 2's
    act(match, 1, "KC!last")
    assert "catch:0" in legal(match, 2)

    events = act(match, 2, "catch:0")

    assert (named(events, "Caught")[0].word, hand(match, 0)) == ("last", "7D 9D")
    assert "call:last" not in legal(match, 0)

    late = setup("KH", "AS KC", "AC QC", top="10H", draw="7D 9D 8D")
    act(late, 0, "KH")
    act(late, 1, "catch:0")
    act(late, 1, "KC!last")
    act(late, 2, "QC!last")
    assert refused(late, 1, "catch:0") == "catch_not_allowed"
    assert refused(late, 0, "call:last") == "call_not_due"


def test_a_nine_as_the_last_card_and_the_draw_it_forces_owe_letzte_karte() -> None:
    """Rule text 002: a 9 played as the last card obliges a draw; the seat ends its turn with one
    card, got without a play, so 'Letzte Karte' is owed on its own and catchable."""
    match = setup("9H", "AS KS", "AC", top="10H", draw="KD")
    act(match, 0, "9H")
    act(match, 0, "draw")
    assert (hand(match, 0), match.turn) == ("KD", 1)
    assert "call:last" in legal(match, 0)

    events = act(match, 2, "catch:0")

    assert (named(events, "Caught")[0].word, len(match.hands[0])) == ("last", 2)


# ------------------------------------------------------------------ scoring and the match


_LEFT = ["10H", "QH", "KH", "AH", "7S", "8S", "9S", "JC"]


def test_cards_left_score_five_ten_or_twenty() -> None:
    """Rule text 002: 10, Q, K, A count 5; 7, 8, 9 count 10; a Jack 20."""
    points = {text: card_points(Card.parse(text), "ostfriesland") for text in _LEFT}
    assert points == {
        "10H": 5, "QH": 5, "KH": 5, "AH": 5, "7S": 10, "8S": 10, "9S": 10, "JC": 20
    }  # fmt: skip
    match = setup("KD", "10H QH KH AH", "7S 8S 9S", "JC", top="10D")
    over = named(act(match, 0, "KD!mau"), "RoundOver")[0]
    assert over.points == (0, 20, 30, 20)


def test_a_match_lasts_five_rounds_and_the_lowest_total_wins() -> None:
    """Rule text 002: a table plays five rounds; the fewest penalty points win."""
    assert OST.rounds == 5
    match = setup("KD", "10H", "JC", top="10D", round=4, totals=[30, 0, 0])
    act(match, 0, "KD!mau")
    assert (match.round, match.outcome) == (5, None)
    match = setup("KD", "10H", "JC", top="10D", round=5, totals=[30, 0, 0])
    events = act(match, 0, "KD!mau")
    assert match.totals == [30, 5, 20]
    assert match.outcome is not None
    assert (match.outcome.winners, match.outcome.reason) == ((1,), "rounds")
    assert match.phase == "over"
    assert named(events, "MatchOver")[0].winners == (1,)
    assert refused(match, 1, "10H") == "match_over"


def test_the_number_of_rounds_is_an_option() -> None:
    """Rule text 002 (five rounds per table) as option 'rounds'."""
    three = Ruleset.create("ostfriesland", {"rounds": 3})
    match = setup("KD", "10H", top="10D", ruleset=three, round=3)
    act(match, 0, "KD!mau")
    assert match.outcome is not None
    assert match.outcome.winners == (0,)


def test_a_tie_goes_to_the_most_maumau_finishes() -> None:
    """Rule text 002: with equal totals the Mau-Mau count decides."""
    match = setup("JD", "10H", "AC", top="10D", round=5, totals=[30, -20, 0])
    act(match, 0, "JD:H!maumau")
    assert match.totals == [-10, -10, 10]
    assert match.maumaus == [1, 0, 0]
    assert match.outcome is not None
    assert (match.outcome.winners, match.outcome.reason) == ((0,), "rounds")


def test_a_tie_left_after_the_maumau_count_is_settled_by_a_deciding_round() -> None:
    """Rule text 002: if totals and Mau-Mau counts are equal, a deciding round ('Stechen') among
    the tied players decides."""
    match = setup("KD", "10H", "AC", top="10D", round=5, totals=[5, 0, 40])
    events = act(match, 0, "KD!mau")
    assert match.totals == [5, 5, 45]
    assert (match.outcome, match.round) == (None, 6)
    assert named(events, "RoundStarted")[0].seats == (0, 1)
    assert [len(h) for h in match.hands] == [6, 6, 0]
    events = _play_round_out(match)
    assert match.outcome is not None
    assert match.outcome.reason == "tie_break"
    assert match.outcome.winners == (named(events, "RoundOver")[0].winner,)
    assert match.outcome.winners[0] in (0, 1)


def _play_round_out(match: Match) -> list[Event]:
    """Play the first legal action (calls included) until the round ends; its events."""
    events: list[Event] = []
    for _ in range(3000):
        seat = match.chooser if match.phase == "starter_suit" else match.turn
        action = next(a for a in match.legal_actions(seat) if not a.text.startswith("catch"))
        events += match.apply(seat, action)
        if match.outcome is not None:
            return events
    raise AssertionError("the deciding round did not end")


# ------------------------------------------------------------------ legal actions


def test_legal_actions_of_key_positions() -> None:
    """Rule text 002: what a seat may do when stuck, facing a 7, and facing a wish."""
    stuck = setup("10S KS", "AS", top="QH", draw="KH")
    assert list(stuck.legal_actions(0)) == [DRAW]
    assert legal(stuck, 1) == set()
    seven = setup("7S JH 10H", "AS", top="7H", pending="draw", pending_count=2)
    assert legal(seven, 0) == {"7S", "accept"}
    wish = setup("JS QD 9S", "AS", top="JD", wished="S")
    assert legal(wish, 0) == {"JS", "9S"}
    assert parse_action("QD") not in wish.legal_actions(0)
