"""Applying actions: plays, draws, penalties, the passing of turns, and dealing and ending rounds.

The windows of missed calls live here too, as they close when turns end. Everything here trusts
its action (checking is :mod:`.legal`'s job) and records what happened as events. What differs
between presets is asked of the variant (``m.variant``).
"""

from __future__ import annotations

import hashlib
from _random import Random
from typing import TYPE_CHECKING, Final

from . import legal, scoring
from .actions import Play
from .cards import Card
from .events import (
    Challenged,
    Drew,
    Event,
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
from .kinds import (
    AGAIN,
    DRAW_PENDING,
    DRAWN,
    DRAWS,
    DRAWS_FOUR,
    NO_PENDING,
    OVER,
    PLAYING,
    SKIP_PENDING,
    SKIPS,
    Finish,
    Outcome,
    Reason,
)

if TYPE_CHECKING:
    from .state import MatchState


def pass_turn(m: MatchState, seat: int, events: list[Event]) -> None:
    """Keep the drawn card and end the turn."""
    events.append(Passed(seat))
    m.drawn, m.phase = None, PLAYING
    if len(m.hands[seat]) > 1:  # a 'last' pressed before keeping the card lapses
        m.declared[seat] = False
    next_turn(m, events)


def name_suit(m: MatchState, seat: int, suit: str, events: list[Event]) -> None:
    """The chooser names the suit the starting card asks for."""
    m.wished = suit
    m.wish_jack = m.discard[-1].rank in m.ruleset.wish_ranks
    m.phase, m.chooser = PLAYING, -1
    events.append(SuitNamed(seat, suit))


def clear_pending(m: MatchState) -> None:
    m.pending, m.pending_count, m.pending_optional, m.chain = NO_PENDING, 0, False, 0


def play(m: MatchState, seat: int, action: Play, events: list[Event]) -> None:
    rules, variant = m.ruleset, m.variant
    card, hand = action.card, m.hands[seat]
    marks = variant.marks[card.code]
    wishing = action.suit is not None
    due = variant.due_call(m, seat, card, wishing)
    if marks & DRAWS_FOUR:
        m.bluff = legal.bluffs(m, hand)
        m.bluffer = seat
    stacks = (m.pending is DRAW_PENDING and (marks & DRAWS) != 0) or (
        m.pending is SKIP_PENDING and (marks & SKIPS) != 0
    )
    _remove(hand, card)
    m.discard.append(card)
    m.drawn, m.phase = None, PLAYING
    m.wished, m.wish_jack = action.suit, wishing
    events.append(Played(seat, card, action.suit, action.call))
    if marks & (DRAWS | DRAWS_FOUR):
        m.specials[seat] += 1
    if due is not None and action.call != due:
        m.missed[seat] = (due, m.turn_no + 1)  # catchable until the next turn ends
        m.penalty_last[seat] = False
    if not stacks:
        clear_pending(m)
    if not hand and (rules.again_may_finish or not marks & AGAIN):
        if due is None or action.call == due:
            end_round(m, seat, variant.finish(due), events)
            return
        if m.out_seat is None:
            m.out_seat = seat
    variant.card_effect(m, seat, card, events)


def _remove(hand: list[Card], card: Card) -> None:
    """Take the first ``card`` out of ``hand`` (cards are interned: found by identity, with no
    comparison calls, unlike ``list.remove``)."""
    for index in range(len(hand)):
        if hand[index] is card:
            hand.pop(index)
            return
    raise ValueError(f"{card} is not in the hand")


def draw_turn(m: MatchState, seat: int, events: list[Event]) -> None:
    if m.pending_optional:  # the starter's effect was not taken up: it lapses
        clear_pending(m)
    drawn = give(m, seat, 1, "draw", events)
    m.variant.after_penalty(m, seat)
    if drawn and m.variant.plays_drawn and legal.playable(m, drawn[0]):
        m.drawn, m.phase = drawn[0], DRAWN
        return
    next_turn(m, events)


def accept(m: MatchState, seat: int, events: list[Event]) -> None:
    if m.pending is SKIP_PENDING:
        events.append(Skipped(seat))
        m.pending, m.pending_count, m.chain = NO_PENDING, 0, 0
        m.variant.after_sitting_out(m, seat, events)
        return
    give(m, seat, m.pending_count, "penalty", events)
    m.pending, m.pending_count, m.chain = NO_PENDING, 0, 0
    next_turn(m, events)


def challenge(m: MatchState, seat: int, events: list[Event]) -> None:
    """A caught bluffer takes four and the challenger then plays its turn; a challenger of a
    legal W+4 takes six and loses the turn."""
    events.append(Challenged(seat, m.bluffer, m.bluff))
    m.pending, m.pending_count = NO_PENDING, 0
    if m.bluff:
        give(m, m.bluffer, 4, "challenge", events)
        return
    give(m, seat, 6, "challenge", events)
    next_turn(m, events)


def give(m: MatchState, seat: int, count: int, reason: str, events: list[Event]) -> list[Card]:
    """Move up to ``count`` cards from the draw pile to ``seat``, reshuffling as needed."""
    cards: list[Card] = []
    pile = m.draw_pile
    for _ in range(count):
        if not pile:
            reshuffle(m, events)
            if not pile:
                break
        cards.append(pile.pop())
    m.hands[seat] += cards
    m.declared[seat] = False
    events.append(Drew(seat, len(cards), reason, tuple(cards)))
    return cards


def reshuffle(m: MatchState, events: list[Event]) -> None:
    """The discard pile but its top card becomes the draw pile, shuffled from the seed."""
    if len(m.discard) < 2:
        return
    m.reshuffles += 1
    pile = m.discard[:-1]
    del m.discard[:-1]
    shuffle(seeded(f"{m.seed}/{m.round}/reshuffle/{m.reshuffles}"), pile)
    m.draw_pile[:0] = pile
    events.append(Reshuffled(len(pile)))


def seeded(text: str) -> Random:
    """The generator ``random.Random(text)`` is, without the library's interpreted constructor:
    seeded with the same number (version 2 of ``random.seed``: the text's UTF-8 bytes followed
    by their SHA-512 digest, read big-endian), so it draws the very same bits."""
    data = text.encode()
    return Random(int.from_bytes(data + hashlib.sha512(data).digest(), "big"))


def below(rng: Random, size: int) -> int:
    """``rng.randrange(size)`` (``size`` >= 1) as the library draws it: ``getrandbits`` of the
    size's bit length, drawn again while it is too large."""
    bits = size.bit_length()
    number = rng.getrandbits(bits)
    while number >= size:
        number = rng.getrandbits(bits)
    return number


def shuffle(rng: Random, cards: list[Card]) -> None:
    """Shuffle ``cards`` in place into the very order ``rng.shuffle(cards)`` gives (CPython's
    Fisher-Yates, drawing each index by rejection from ``getrandbits``), so every seed deals what
    it always dealt; written out because the library's is interpreted and deals are a hot path."""
    getrandbits = rng.getrandbits
    bits = len(cards).bit_length()
    for last in range(len(cards) - 1, 0, -1):
        size = last + 1
        if size < 1 << (bits - 1):
            bits -= 1
        other = getrandbits(bits)
        while other >= size:
            other = getrandbits(bits)
        cards[last], cards[other] = cards[other], cards[last]


_TURNS_STARTED: Final = tuple(TurnStarted(seat) for seat in range(8))
"""The event starting each seat's turn (at most 8 seats, as every preset), built once: nearly
every action ends with one, and events are immutable values."""


def seats_from(m: MatchState, seat: int) -> list[int]:
    """The other seats dealt in, in playing order after ``seat``."""
    order = []
    other = seat
    for _ in range(m.seats - 1):
        other = (other + m.direction) % m.seats
        if m.in_round[other]:
            order.append(other)
    return order


def next_turn(m: MatchState, events: list[Event], skip: bool = False) -> None:
    """End the turn and start the next seat's (passing over one seat for a skip).

    A skipped seat plays no turn, so call windows stay open through the turn after it; a seat that
    went out uncaught wins when its window closes or play comes back to it. Where the skip would
    hand play straight back to a seat out of cards that owes its call (two seats), the skipped
    seat is the last one that may catch it: it gets its turn to sit out (:func:`sit_out_turn`)."""
    if close_windows(m, events):
        return
    move_on(m)
    if skip:
        out_seat = m.out_seat
        if out_seat is not None and seats_from(m, m.turn)[0] == out_seat:
            _start_sit_out(m, events)
            return
        events.append(Skipped(m.turn))
        move_on(m)
    _start(m, m.turn, events)


def sit_out_turn(m: MatchState, events: list[Event]) -> None:
    """End the turn of a seat that went out owing its call with a card whose effect skips every
    other seat: the next seat gets the turn it sits out, in which it may still catch the missed
    call (the window lasts to the end of the next person's turn), and otherwise only accepts."""
    if close_windows(m, events):
        return
    move_on(m)
    _start_sit_out(m, events)


def _start_sit_out(m: MatchState, events: list[Event]) -> None:
    m.pending, m.pending_count, m.pending_optional, m.chain = SKIP_PENDING, 0, False, 0
    events.append(_TURNS_STARTED[m.turn])


def back_to(m: MatchState, seat: int, events: list[Event]) -> None:
    """End the turn and give the next one to ``seat``, every seat between sitting out (the
    classic ace that skips everyone else); a seat out of cards that owes its call wins there."""
    if close_windows(m, events):
        return
    m.turn = seat
    _start(m, seat, events)


def _start(m: MatchState, seat: int, events: list[Event]) -> None:
    """Start the turn of ``seat``, or end the round if it went out uncaught: play came back to it,
    so it never draws or plays with no cards."""
    out_seat = m.out_seat
    if out_seat is not None and out_seat == seat:
        end_round(m, out_seat, finish_of(m, out_seat), events)
        return
    events.append(_TURNS_STARTED[seat])


def seat_before(m: MatchState, seat: int) -> int:
    """The seat dealt in that plays just before ``seat``."""
    other = seat
    while True:
        other = (other - m.direction) % m.seats
        if m.in_round[other]:
            return other


def move_on(m: MatchState) -> None:
    seat = m.turn
    while True:
        seat = (seat + m.direction) % m.seats
        if m.in_round[seat]:
            break
    m.turn = seat


def start_round(m: MatchState, events: list[Event]) -> None:
    """Deal the next round from the seed: the next dealer in, hands one card at a time from the
    dealer's left, the starting card turned up and its rule applied."""
    rules = m.ruleset
    m.reset_round()
    active = [s for s in range(m.seats) if m.in_round[s]]
    m.dealer = next(
        s for s in ((m.dealer + i) % m.seats for i in range(1, m.seats + 1)) if m.in_round[s]
    )
    deck = rules.deck_for(m.seats)
    shuffle(seeded(f"{m.seed}/{m.round}"), deck)
    m.draw_pile = deck
    m.hands = [[] for _ in range(m.seats)]
    order = [*seats_from(m, m.dealer), m.dealer]
    for _ in range(rules.hand_size):
        for seat in order:
            m.hands[seat].append(deck.pop())
    starter = deck.pop()
    m.discard = [starter]
    m.turn = order[0]
    m.turn_no += 1
    events.append(RoundStarted(m.round, m.dealer, starter, tuple(active)))
    for seat in order:
        events.append(Drew(seat, rules.hand_size, "deal", tuple(m.hands[seat])))
    m.variant.turn_up(m)
    events.append(_TURNS_STARTED[m.turn])


def end_round(m: MatchState, winner: int, finish: Finish, events: list[Event]) -> None:
    """Score the round ``winner`` won, then end the match or deal the next round."""
    points = m.variant.round_points(m, winner, finish)
    for seat in range(m.seats):
        m.totals[seat] += points[seat]
    m.round_wins[winner] += 1
    events.append(RoundOver(m.round, winner, finish, tuple(points), tuple(m.totals)))
    if m.deciding:
        m.outcome = Outcome(scoring.team_of(m, winner), Reason.TIE_BREAK)
    else:
        m.outcome = m.variant.match_result(m, winner)
    if m.outcome is not None:
        m.phase = OVER
        events.append(MatchOver(m.outcome.winners, tuple(m.totals), m.outcome.reason))
        return
    m.round += 1
    start_round(m, events)


def close_windows(m: MatchState, events: list[Event]) -> bool:
    """Count the turn that ends now and close the call windows it ends; a seat out of cards whose
    window closes uncaught wins the round (True then)."""
    m.turn_no += 1
    if not m.missed:
        return False
    for seat, (word, closes) in list(m.missed.items()):
        if m.turn_no > closes:
            del m.missed[seat]
            m.penalty_last[seat] = False
            if seat == m.out_seat:
                end_round(m, seat, m.variant.finish(word), events)
                return True
    return False


def finish_of(m: MatchState, seat: int) -> Finish:
    """How ``seat``, out of cards with its call missed, finishes when play comes back to it."""
    return m.variant.finish(m.missed[seat][0])
