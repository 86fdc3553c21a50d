"""A match: rounds of one ruleset at one table, the public face of the rules core.

A :class:`Match` knows everything (every hand, the draw pile order); a :class:`View` is what one
seat may see. ``apply`` checks an action and changes the match in place, returning the events it
caused; ``apply_unchecked`` is the fast path for search, trusting its action.

>>> match = Match.new(Ruleset.create("online"), seats=2, seed="demo")
>>> seat = match.turn
>>> action = next(iter(match.legal_actions(seat)))
>>> events = match.apply(seat, action)
>>> Match.from_bytes(match.to_bytes()) == match
True

The work is done by one module per concern: :mod:`.legal` (checking and listing actions),
:mod:`.turns` (applying them), :mod:`.calls` (calls and catches), :mod:`.scoring`,
:mod:`.observer` (views), :mod:`.codec` (bytes), and :mod:`.variants` (what differs by preset).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import TypeVar, cast

from . import calls, codec, legal, scoring, turns
from .actions import (
    ACCEPT,
    CALLS,
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
from .cards import Card
from .errors import BadSetup, IllegalAction
from .events import Event
from .kinds import (
    DRAW4_PENDING,
    DRAW_PENDING,
    DRAWN,
    NO_PENDING,
    OVER,
    PLAYING,
    Calls,
    Outcome,
    Pending,
)
from .legal import LegalActions
from .observer import View, observe
from .ruleset import Ruleset
from .state import MatchState

__all__ = ["LegalActions", "Match", "Outcome", "View"]


class Match(MatchState):
    """The whole state of a match (declared in :class:`MatchState`); see the module docstring."""

    __slots__ = ()

    # ------------------------------------------------------------------ creation

    @classmethod
    def new(cls, ruleset: Ruleset, seats: int, seed: str | int) -> Match:
        """A match with the first round dealt from ``seed``; see :meth:`start` for its events."""
        return cls.start(ruleset, seats, seed)[0]

    @classmethod
    def start(cls, ruleset: Ruleset, seats: int, seed: str | int) -> tuple[Match, list[Event]]:
        """A new match and the events of its first deal; the first dealer is drawn by lot."""
        match = cls._blank(ruleset, seats, str(seed))
        match.dealer = (turns.below(turns.seeded(f"{match.seed}/dealer"), seats) - 1) % seats
        events: list[Event] = []
        turns.start_round(match, events)
        return match, events

    @classmethod
    def from_setup(
        cls,
        ruleset: Ruleset,
        hands: Sequence[Iterable[Card]],
        *,
        draw_pile: Iterable[Card] = (),
        discard: Iterable[Card],
        dealer: int | None = None,
        turn: int | None = None,
        starter: bool = False,
        wished: str | None = None,
        pending: Pending | str = NO_PENDING,
        pending_count: int = 0,
        bluff: bool = False,
        drawn: Card | None = None,
        direction: int = 1,
        declared: Iterable[int] = (),
        owing: Mapping[int, str] | None = None,
        penalty_last: Iterable[int] = (),
        in_round: Sequence[bool] | None = None,
        totals: Sequence[int] | None = None,
        round_wins: Sequence[int] | None = None,
        specials: Sequence[int] | None = None,
        maumaus: Sequence[int] | None = None,
        outcome: Outcome | None = None,
        round: int = 1,
        reshuffles: int = 0,
        seed: str = "setup",
    ) -> Match:
        """Any position play can reach, from an explicit setup: for tests, puzzles and search.

        ``draw_pile`` is listed top first, ``discard`` with its top card last; cards not listed are
        out of play, and no card may appear more often than the deck holds it. ``turn`` defaults
        to the seat after ``dealer`` (default: the last seat) in ``direction``.

        ``starter``: the top card was just turned up and its rule not yet applied; it is applied
        now (a suit to name for a Jack or wild, an optional 7 or 8 for the starting seat).
        ``pending`` with ``pending_count``: a draw chain, a skip or a W+4 (four cards) that the
        seat to move must answer; for a W+4 ``bluff`` tells whether another card fitted when the
        previous seat played it. ``drawn``: the seat to move has just drawn this card (the last
        of its hand) and may play it or pass. ``declared``: seats that pressed 'last'. ``owing``:
        seats that missed a call (seat -> the call), catchable until the end of the next turn; one
        of them out of cards wins when its window closes uncaught. ``penalty_last``: those of them
        owing 'Letzte Karte' after a penalty card (East-Frisian), which they may say on their own.
        ``in_round``: the seats dealt in (only the tied ones in a deciding round). ``totals``,
        ``round_wins``, ``specials`` and ``maumaus``: the running counts per seat. ``outcome``: the
        match is over.
        """
        seats = len(hands)
        match = cls._blank(ruleset, seats, seed)
        match.hands = [list(hand) for hand in hands]
        match.draw_pile = list(draw_pile)[::-1]
        match.discard = list(discard)
        if not match.discard:
            raise BadSetup("the discard pile needs a top card")
        _check_cards(match)
        if in_round is not None:
            match.in_round = _per_seat(in_round, seats, "in_round", bool)
            match.deciding = not all(match.in_round)
            idle = [s for s in range(seats) if not match.in_round[s] and match.hands[s]]
            if idle or sum(match.in_round) < 2:
                raise BadSetup("at least two seats are dealt in, and only they hold cards")
        match.direction = direction
        if direction not in (1, -1):
            raise BadSetup("direction is 1 (clockwise) or -1")
        match.dealer = seats - 1 if dealer is None else dealer
        _check_seat(match, "dealer", match.dealer)
        match.turn = match.dealer
        if turn is None:
            turns.move_on(match)
        else:
            _check_seat(match, "turn", turn)
            match.turn = turn
        for name, counts in (
            ("totals", totals),
            ("round_wins", round_wins),
            ("specials", specials),
            ("maumaus", maumaus),
        ):
            if counts is not None:
                setattr(match, name, _per_seat(counts, seats, name, int))
        if round < 1 or reshuffles < 0:
            raise BadSetup("round counts from 1, reshuffles from 0")
        match.round, match.reshuffles, match.turn_no = round, reshuffles, 1
        _set_wish_and_pending(match, wished, pending, pending_count, bluff)
        if starter:
            if match.pending or wished is not None or drawn is not None:
                raise BadSetup("a fresh starting card comes with no wish, pending effect or draw")
            match.variant.turn_up(match)
        if drawn is not None:
            _set_drawn(match, drawn)
        _set_calls(match, declared, owing or {}, penalty_last)
        if outcome is not None:
            match.outcome, match.phase = outcome, OVER
        return match

    @classmethod
    def _blank(cls, ruleset: Ruleset, seats: int, seed: str) -> Match:
        ruleset.check_seats(seats)
        match = cls(ruleset, seats, seed)
        match.clear()
        return match

    # ------------------------------------------------------------------ inspection

    @property
    def top(self) -> Card:
        return self.discard[-1]

    @property
    def active_suit(self) -> str:
        """The suit a plain card must match: the wished one, else the top card's."""
        return self.wished if self.wished is not None else self.discard[-1].suit

    def team_of(self, seat: int) -> tuple[int, ...]:
        """The seats that win together with ``seat``: its team, or the seat alone."""
        return scoring.team_of(self, seat)

    def legal_actions(self, seat: int) -> LegalActions:
        return LegalActions(self, seat)

    def legal_list(self, seat: int) -> list[Action]:
        """The legal actions of ``seat`` as a new list, in the order :meth:`legal_actions` lists
        them: the fast path of rollouts and search, with no view object to build and copy."""
        return legal.legal(self, seat)

    def cards_first_list(self, seat: int) -> list[Action]:
        """The legal plays of ``seat`` as a new list if it has any, else all its legal actions
        (as :meth:`legal_list`): what a player who never draws while a card fits chooses from,
        built in the same one pass."""
        return legal.cards_first(self, seat)

    def view(self, seat: int | None) -> View:
        """What ``seat`` may see; None gives the spectator view with no hand at all."""
        return observe(self, seat)

    def copy(self) -> Match:
        other = Match(self.ruleset, self.seats, self.seed)
        self.copy_state(other)
        return other

    # ------------------------------------------------------------------ acting

    def apply(self, seat: int, action: Action) -> list[Event]:
        """Check ``action`` for ``seat`` and apply it; an illegal one raises and changes nothing."""
        legal.check(self, seat, action)
        events: list[Event] = []
        _act(self, seat, action, events)
        return events

    def apply_unchecked(self, seat: int, action: Action) -> list[Event]:
        """Apply an action known to be legal (taken from :meth:`legal_actions`), skipping checks."""
        events: list[Event] = []
        _act(self, seat, action, events)
        return events

    def default_action(self, seat: int) -> Action:
        """What a silent seat does when its turn timer runs out: take a pending penalty or skip,
        keep a drawn card, or draw; where it may not draw (a card fits), its first fitting play;
        for a starter to name, the first suit."""
        actions = [a for a in legal.legal(self, seat) if not isinstance(a, Catch | Call)]
        if not actions:
            raise IllegalAction("not_your_turn", turn=self.turn)
        for preferred in (ACCEPT, PASS, DRAW):
            if preferred in actions:
                return preferred
        return actions[0]

    def after(self, seat: int, action: Action) -> tuple[Match, list[Event]]:
        """The match after ``action`` and the events it caused, leaving this match unchanged."""
        other = self.copy()
        return other, other.apply(seat, action)

    # ------------------------------------------------------------------ bytes

    def to_bytes(self) -> bytes:
        """The whole match as compact bytes; :meth:`from_bytes` restores it exactly."""
        return codec.encode(self)

    @classmethod
    def from_bytes(cls, data: bytes) -> Match:
        return codec.decode(cls, data)


def _act(match: Match, seat: int, action: Action, events: list[Event]) -> None:
    """Apply ``action`` of ``seat`` through the module of its concern (dispatched on the exact
    type, the cheapest test in either form; plays first, the most frequent)."""
    kind = type(action)
    if kind is Play:
        turns.play(match, seat, cast(Play, action), events)
    elif kind is Draw:
        turns.draw_turn(match, seat, events)
    elif kind is Pass:
        turns.pass_turn(match, seat, events)
    elif kind is Accept:
        turns.accept(match, seat, events)
    elif kind is Challenge:
        turns.challenge(match, seat, events)
    elif kind is Catch:
        calls.catch(match, seat, cast(Catch, action).seat, events)
    elif kind is Call:
        calls.call(match, seat, cast(Call, action).word, events)
    elif kind is NameSuit:
        turns.name_suit(match, seat, cast(NameSuit, action).suit, events)


# ------------------------------------------------------------------ setup checks


T = TypeVar("T")


def _check_seat(match: Match, name: str, seat: int) -> None:
    if not (0 <= seat < match.seats and match.in_round[seat]):
        raise BadSetup(f"{name} {seat} is not a seat dealt in at this table of {match.seats}")


def _per_seat(values: Sequence[T], seats: int, name: str, kind: type[T]) -> list[T]:
    if len(values) != seats or not all(isinstance(v, kind) for v in values):
        raise BadSetup(f"{name} needs one {kind.__name__} per seat ({seats})")
    return list(values)


def _check_cards(match: Match) -> None:
    """Every card is one the deck holds, and no card more often than the deck holds it."""
    deck = Counter(match.ruleset.deck_for(match.seats))
    listed = Counter(match.draw_pile) + Counter(match.discard)
    for hand in match.hands:
        listed += Counter(hand)
    strangers = sorted((card for card in listed if card not in deck), key=_code)
    if strangers:
        shown = " ".join(str(card) for card in strangers)
        raise BadSetup(f"{shown} not in the {match.ruleset.deck} deck")
    extra = listed - deck
    if extra:
        copies = match.ruleset.decks_for(match.seats)
        decks = "one deck" if copies == 1 else f"{copies} decks"
        shown = ", ".join(f"{listed[card]} {card}" for card in sorted(extra, key=_code))
        raise BadSetup(f"{shown}: more than the {decks} ({match.ruleset.deck}) of this table hold")


def _code(card: Card) -> int:
    return card.code


def _set_wish_and_pending(
    match: Match, wished: str | None, pending: Pending | str, count: int, bluff: bool
) -> None:
    rules = match.ruleset
    if wished is not None and wished not in rules.suits:
        raise BadSetup(f"wished suit {wished} is not one of {', '.join(rules.suits)}")
    match.wished = wished
    match.wish_jack = wished is not None and match.discard[-1].rank in rules.wish_ranks
    try:
        kind = Pending(pending)
    except ValueError:
        raise BadSetup("pending is one of '', draw, skip, draw4") from None
    if count < 0 or (kind is NO_PENDING and count):
        raise BadSetup("pending_count is a number of cards owed by a pending effect")
    if kind is DRAW4_PENDING and match.discard[-1].rank != rules.draw_four:
        raise BadSetup("a pending W+4 lies on top of the discard pile")
    if bluff and kind is not DRAW4_PENDING:
        raise BadSetup("only a pending W+4 can be a bluff")
    match.pending, match.pending_count = kind, count
    match.chain = count // 2 if kind is DRAW_PENDING else 0
    if kind is DRAW4_PENDING:
        match.bluff = bluff
        match.bluffer = turns.seat_before(match, match.turn)


def _set_drawn(match: Match, card: Card) -> None:
    hand = match.hands[match.turn]
    if not hand or hand[-1] is not card:
        raise BadSetup(f"the drawn card {card} is the last card of seat {match.turn}'s hand")
    if match.phase is not PLAYING or match.pending:
        raise BadSetup("a card is drawn only in a plain turn")
    if not match.variant.plays_drawn or not legal.playable(match, card):
        raise BadSetup(f"a drawn {card} that cannot be played at once ends the turn")
    match.drawn, match.phase = card, DRAWN


def _set_calls(
    match: Match, declared: Iterable[int], owing: Mapping[int, str], penalty_last: Iterable[int]
) -> None:
    seats = range(match.seats)
    for seat in declared:
        if seat not in seats:
            raise BadSetup(f"declared seat {seat} is not a seat of the table")
        match.declared[seat] = True
    if owing and match.variant.calls in (Calls.NONE, Calls.LAST):
        raise BadSetup(f"no play owes a call in {match.ruleset.preset}: nobody can owe one")
    for seat, word in owing.items():
        if seat not in seats or word not in CALLS:
            raise BadSetup(f"owing is seat -> one of {', '.join(CALLS)}, not {seat} -> {word}")
        match.missed[seat] = (word, match.turn_no + 1)
    match.out_seat = next((s for s in match.missed if not match.hands[s]), None)
    for seat in penalty_last:
        if owing.get(seat) != "last" or len(match.hands[seat]) != 1:
            raise BadSetup(f"penalty_last seat {seat} owes 'last' (in owing) and holds one card")
        match.penalty_last[seat] = True
