"""Legal actions: checking one action (with the error that forbids it) and listing them all.

Listing is the hot path of search, so it is built in one pass with interned plays; checking is
the path for untrusted input and explains every refusal with an error code and its parameters.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Final

from .actions import (
    ACCEPT,
    CHALLENGE,
    DRAW,
    PASS,
    Accept,
    Action,
    Call,
    Catch,
    Challenge,
    Draw,
    NameSuit,
    Pass,
    Play,
)
from .cards import ALL_CARDS, COLOURS, FRENCH_SUITS, Card
from .errors import BadInput, BadSuit, IllegalAction
from .kinds import (
    DRAW4_PENDING,
    DRAW_PENDING,
    DRAWN,
    DRAWS,
    DRAWS_FOUR,
    OVER,
    SKIP_PENDING,
    SKIPS,
    STARTER_SUIT,
    WISHES,
    Pending,
)

if TYPE_CHECKING:
    from .match import Match
    from .state import MatchState


def pending_code(m: MatchState, pending: Pending) -> str:
    """The error code of a pending effect that forbids other moves (tested by identity: an
    enumeration member hashes in interpreted code, too slow for a dictionary on this path).
    A skip that no card passes on is a turn to sit out (see ``turns.sit_out_turn``)."""
    if pending is DRAW_PENDING:
        return "draw_pending"
    if pending is SKIP_PENDING:
        return "skip_pending" if m.ruleset.skip_stackable else "sit_out_pending"
    return "draw4_bluff_pending"


def refusal(m: MatchState, card: Card, wishing: bool) -> str | None:
    """Why ``card`` may not be played now (an error code), or None when it may."""
    pending = m.pending
    if pending:
        if pending is DRAW_PENDING:
            limit = m.ruleset.chain_limit
            if m.variant.marks[card.code] & DRAWS and (limit is None or m.chain <= limit):
                return None
        elif (
            pending is SKIP_PENDING
            and m.variant.marks[card.code] & SKIPS
            and m.ruleset.skip_stackable  # else a turn to sit out: no 8 passes it on
        ):
            return None
        if not m.pending_optional:
            return pending_code(m, pending)
    return m.variant.fits(m, card, wishing)


def playable(m: MatchState, card: Card) -> bool:
    return any(refusal(m, card, wishing) is None for wishing in m.variant.wish_options(card))


def can_play(m: MatchState, seat: int) -> bool:
    return any(playable(m, card) for card in m.hands[seat])


def bluffs(m: MatchState, hand: Iterable[Card]) -> bool:
    """Whether playing a W+4 from ``hand`` now is a bluff: another card of it fits."""
    marks = m.variant.marks
    return any(not marks[card.code] & DRAWS_FOUR and playable(m, card) for card in hand)


# ------------------------------------------------------------------ checking


def check(m: MatchState, seat: int, action: Action) -> None:
    """Raise the error that forbids ``action`` for ``seat`` now; return when it is legal."""
    if not 0 <= seat < m.seats:
        raise BadInput("bad_seat", seat=seat, seats=m.seats)
    if m.phase is OVER:
        raise IllegalAction("match_over")
    match action:
        case Catch(target):
            if target == seat or not 0 <= target < m.seats or not m.variant.catchable(m, target):
                raise IllegalAction("catch_not_allowed", seat=target)
            return
        case Call(word):
            if not m.variant.may_call(m, seat, word):
                raise IllegalAction("call_not_due", call=word)
            return
        case NameSuit(suit):
            if m.phase is not STARTER_SUIT:
                raise IllegalAction("starter_suit_not_due")
            if seat != m.chooser:
                raise IllegalAction("starter_suit_needed", seat=m.chooser, card=m.discard[-1].text)
            if suit not in m.ruleset.suits:
                raise BadSuit(suit, m.ruleset.suits)
            return
    if m.phase is STARTER_SUIT:
        raise IllegalAction("starter_suit_needed", seat=m.chooser, card=m.discard[-1].text)
    if seat != m.turn:
        raise IllegalAction("not_your_turn", turn=m.turn)
    match action:
        case Play():
            _check_play(m, seat, action)
        case Draw():
            _check_draw(m, seat)
        case Pass():
            if m.phase is not DRAWN:
                raise IllegalAction("pass_not_allowed")
        case Accept():
            if not m.pending or m.pending_optional:
                raise IllegalAction("nothing_to_accept")
        case Challenge():
            if m.pending is not DRAW4_PENDING:
                raise IllegalAction("challenge_not_allowed")
        case _:
            raise BadInput("bad_action_text", text=repr(action))


def _check_play(m: MatchState, seat: int, play: Play) -> None:
    card = play.card
    if card not in m.hands[seat]:
        raise IllegalAction("card_not_in_hand", card=card.text)
    if m.phase is DRAWN and card is not m.drawn:
        raise IllegalAction("only_drawn_card", card=str(m.drawn))
    wishing = play.suit is not None
    options = m.variant.wish_options(card)
    suits = m.ruleset.suits
    if wishing and True not in options:
        raise IllegalAction("wish_not_allowed", card=card.text)
    if not wishing and False not in options:
        raise IllegalAction("wish_needed", card=card.text, allowed=suits, example=suits[0])
    if play.suit is not None and play.suit not in suits:
        raise BadSuit(play.suit, suits)
    code = refusal(m, card, wishing)
    if code is not None:
        raise explain(m, code, card)
    variant = m.variant
    if variant.call_refused(variant.due_call(m, seat, card, wishing), play.call):
        raise IllegalAction("call_not_due", call=play.call)


def explain(m: MatchState, code: str, card: Card) -> IllegalAction:
    """The error for refusal ``code``, with the parameters its message names."""
    rules = m.ruleset
    top = m.discard[-1]
    if code == "draw_pending":
        return IllegalAction(code, rank=rules.draw_rank, count=m.pending_count)
    if code == "skip_pending":
        return IllegalAction(code, rank=rules.skip_rank)
    if code == "draw4_bluff_pending":
        return IllegalAction(code, count=m.pending_count)
    if code in ("wish_on_wish", "card_does_not_match"):
        active = m.wished if m.wished is not None else top.suit
        return IllegalAction(code, card=card.text, top=top.text, suit=active, rank=top.rank)
    return IllegalAction(code)


def _check_draw(m: MatchState, seat: int) -> None:
    if m.phase is DRAWN:
        raise IllegalAction("only_drawn_card", card=str(m.drawn))
    if m.pending and not m.pending_optional:
        raise explain(m, pending_code(m, m.pending), m.discard[-1])
    if not m.variant.may_always_draw and can_play(m, seat):
        raise IllegalAction("draw_not_allowed")


# ------------------------------------------------------------------ listing


def legal(m: MatchState, seat: int) -> list[Action]:
    """Every legal action of ``seat``, built in one pass: this is the hot path of search.
    The seat's own moves come first (its plays before drawing, passing or taking a penalty),
    calls and catches (which any seat may make) last."""
    if m.phase is OVER or not 0 <= seat < m.seats:
        return []
    actions = _moves(m, seat)
    m.variant.call_actions(m, seat, actions)
    return actions


def cards_first(m: MatchState, seat: int) -> list[Action]:
    """The legal plays of ``seat`` if it has any (in the order :func:`legal` lists them), else
    all its legal actions: the choice of a player who plays a card whenever one fits, as
    RLCard's UNO does and search rollouts may. Built in the same one pass as :func:`legal`."""
    if m.phase is OVER or not 0 <= seat < m.seats:
        return []
    actions = _moves(m, seat)
    if actions and type(actions[0]) is Play:  # the plays come first: drop what follows them
        while type(actions[-1]) is not Play:
            actions.pop()
        return actions
    m.variant.call_actions(m, seat, actions)
    return actions


def _moves(m: MatchState, seat: int) -> list[Action]:
    """The moves of the seat the match waits for (nothing for any other seat)."""
    actions: list[Action] = []
    phase = m.phase
    if phase is STARTER_SUIT:
        if seat == m.chooser:
            actions += [NameSuit(suit) for suit in m.ruleset.suits]
        return actions
    if seat != m.turn:
        return actions
    if phase is DRAWN:
        if m.drawn is not None:
            _add_plays(m, seat, [m.drawn], actions)
        actions.append(PASS)
        return actions
    can_play = _add_plays(m, seat, m.hands[seat], actions)
    if m.pending and not m.pending_optional:
        actions.append(ACCEPT)
        if m.pending is DRAW4_PENDING:
            actions.append(CHALLENGE)
    elif not can_play or m.variant.may_always_draw:
        actions.append(DRAW)
    return actions


def _add_plays(m: MatchState, seat: int, cards: list[Card], actions: list[Action]) -> bool:
    """Append the legal plays of ``cards`` to ``actions``; True if there was any. Nothing is
    allocated per card: plays are interned, and a card the hand holds twice (where the deck
    holds some twice) is found by looking back over the few cards before it. A plain card with
    nothing pending or wished is matched against the top card here, the common case."""
    variant = m.variant
    marks = variant.marks
    rules = m.ruleset
    serves = _SERVES[m.discard[-1].code]
    plain_only = not m.pending and m.wished is None
    found = False
    repeats = rules.deck == "colour108" or rules.decks_for(m.seats) > 1
    for index in range(len(cards)):
        card = cards[index]
        code = card.code
        plays = _PLAYS[code]
        if plain_only and not marks[code] & WISHES:
            if serves[code] and not (repeats and _held_before(cards, index, card)):
                found = True
                _add_calls(plays[0], _call_slot(variant.due_call(m, seat, card, False)), actions)
            continue
        if repeats and _held_before(cards, index, card):
            continue
        for wishing in variant.wish_options(card):
            if refusal(m, card, wishing) is not None:
                continue
            found = True
            slot = _call_slot(variant.due_call(m, seat, card, wishing))
            if wishing:  # one play per suit to wish, in the order of the family's suits
                for suit in range(1, len(plays)):
                    _add_calls(plays[suit], slot, actions)
            else:
                _add_calls(plays[0], slot, actions)
    return found


def _add_calls(by_call: tuple[Play, ...], slot: int, actions: list[Action]) -> None:
    """Append the play carrying its due call (slot, see :data:`_CALL_SLOTS`) and, where a call
    is due, the same play without it (missing the call is a legal move too)."""
    actions.append(by_call[slot])
    if slot:
        actions.append(by_call[0])


def _call_slot(call: str | None) -> int:
    return 0 if call is None else _CALL_SLOTS[call]


def _held_before(cards: list[Card], index: int, card: Card) -> bool:
    """Whether ``card`` is among the first ``index`` of ``cards`` (its plays are listed)."""
    for before in range(index):  # noqa: SIM110 (a loop: no generator in the pure form)
        if cards[before] is card:
            return True
    return False


_CALL_SLOTS: Final[dict[str | None, int]] = {None: 0, "mau": 1, "maumau": 2, "last": 3}


def _interned_plays(card: Card) -> tuple[tuple[Play, ...], ...]:
    """Every play of ``card``: by wished suit (none, then its family's four, the order of
    ``Ruleset.suits``) and by call (none, then :data:`_CALL_SLOTS`); legal action lists are
    rebuilt on every step of a search."""
    family = COLOURS if card.is_wild or card.suit in COLOURS else FRENCH_SUITS
    return tuple(tuple(Play(card, suit, call) for call in _CALL_SLOTS) for suit in (None, *family))


_PLAYS: Final = tuple(_interned_plays(card) for card in ALL_CARDS)
"""The interned plays of every card, by its code."""

_SERVES: Final = tuple(
    bytes(card.suit == top.suit or card.rank == top.rank for card in ALL_CARDS) for top in ALL_CARDS
)
"""By the top card's code, then a card's code: 1 where the card matches it by suit or rank (a
plain card on a pile with nothing pending or wished), compared once here instead of per listing."""


class LegalActions:
    """The legal actions of one seat, computed lazily: iterate it, test ``in``, ``count()`` it."""

    __slots__ = ("_match", "_seat")

    def __init__(self, match: Match, seat: int) -> None:
        self._match = match
        self._seat = seat

    def __iter__(self) -> Iterator[Action]:
        return iter(legal(self._match, self._seat))

    def __contains__(self, action: object) -> bool:
        try:
            check(self._match, self._seat, action)  # type: ignore[arg-type]
        except (IllegalAction, BadInput, TypeError):
            return False
        return True

    def __bool__(self) -> bool:
        return bool(legal(self._match, self._seat))

    def count(self) -> int:
        return len(legal(self._match, self._seat))

    def __repr__(self) -> str:
        return f"<LegalActions seat={self._seat}: {' '.join(a.text for a in self)}>"
