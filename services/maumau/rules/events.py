"""Events: what an applied action caused, in order, as small immutable values.

Events carrying cards that only one seat may see (:class:`Drew`) are redacted per viewer with
:func:`redact`: the drawing seat sees its cards, everyone else only their number.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .cards import Card

# Every event writes its constructor out: in the compiled core a written method is compiled, while
# the one a dataclass generates is interpreted (a round's events cost as much as its plays); mypyc
# turns ``object.__setattr__(self, ...)`` written out into a plain store (a name bound to it
# instead, ``_set = object.__setattr__``, is a generic call, measured six times slower).


@dataclass(frozen=True, slots=True, init=False)
class RoundStarted:
    round: int
    dealer: int
    starter: Card
    seats: tuple[int, ...]
    """The seats dealt in (all of them, or only the tied ones in a deciding round)."""

    def __init__(self, round: int, dealer: int, starter: Card, seats: tuple[int, ...]) -> None:
        object.__setattr__(self, "round", round)
        object.__setattr__(self, "dealer", dealer)
        object.__setattr__(self, "starter", starter)
        object.__setattr__(self, "seats", seats)


@dataclass(frozen=True, slots=True, init=False)
class Drew:
    """``seat`` took ``count`` cards; ``cards`` is empty when redacted for another viewer.

    ``reason``: 'deal', 'draw', 'penalty' (a pending 7 or draw-2/draw-4), 'caught' (a missed call),
    'challenge' (a lost draw-4 challenge or a caught bluff), 'ace' (the ace-power variant).
    """

    seat: int
    count: int
    reason: str
    cards: tuple[Card, ...]

    def __init__(self, seat: int, count: int, reason: str, cards: tuple[Card, ...] = ()) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "count", count)
        object.__setattr__(self, "reason", reason)
        object.__setattr__(self, "cards", cards)


@dataclass(frozen=True, slots=True, init=False)
class Played:
    seat: int
    card: Card
    suit: str | None
    call: str | None

    def __init__(self, seat: int, card: Card, suit: str | None, call: str | None) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "card", card)
        object.__setattr__(self, "suit", suit)
        object.__setattr__(self, "call", call)


@dataclass(frozen=True, slots=True, init=False)
class SuitNamed:
    """``seat`` named ``suit`` for the starter card."""

    seat: int
    suit: str

    def __init__(self, seat: int, suit: str) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "suit", suit)


@dataclass(frozen=True, slots=True, init=False)
class Called:
    """``seat`` made ``word`` as a call of its own (the 'last' button)."""

    seat: int
    word: str

    def __init__(self, seat: int, word: str) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "word", word)


@dataclass(frozen=True, slots=True, init=False)
class Skipped:
    """``seat`` sits out a turn."""

    seat: int

    def __init__(self, seat: int) -> None:
        object.__setattr__(self, "seat", seat)


@dataclass(frozen=True, slots=True, init=False)
class DirectionChanged:
    direction: int
    """+1 clockwise (increasing seat index), -1 counter-clockwise."""

    def __init__(self, direction: int) -> None:
        object.__setattr__(self, "direction", direction)


@dataclass(frozen=True, slots=True, init=False)
class Caught:
    """``by`` caught ``seat`` missing the call ``word``; ``seat`` draws penalty cards next."""

    by: int
    seat: int
    word: str

    def __init__(self, by: int, seat: int, word: str) -> None:
        object.__setattr__(self, "by", by)
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "word", word)


@dataclass(frozen=True, slots=True, init=False)
class Challenged:
    """``by`` challenged the W+4 of ``seat``; ``bluff`` tells whether it was played illegally."""

    by: int
    seat: int
    bluff: bool

    def __init__(self, by: int, seat: int, bluff: bool) -> None:
        object.__setattr__(self, "by", by)
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "bluff", bluff)


@dataclass(frozen=True, slots=True, init=False)
class Passed:
    seat: int

    def __init__(self, seat: int) -> None:
        object.__setattr__(self, "seat", seat)


@dataclass(frozen=True, slots=True, init=False)
class Reshuffled:
    """The discard pile, all but its top card, became the new draw pile of ``count`` cards."""

    count: int

    def __init__(self, count: int) -> None:
        object.__setattr__(self, "count", count)


@dataclass(frozen=True, slots=True, init=False)
class TurnStarted:
    seat: int

    def __init__(self, seat: int) -> None:
        object.__setattr__(self, "seat", seat)


@dataclass(frozen=True, slots=True, init=False)
class RoundOver:
    """``points`` scored this round and ``totals`` for the match so far, both per seat."""

    round: int
    winner: int
    finish: str
    """'out' (last card), 'mau' or 'maumau' (the East-Frisian finishes)."""
    points: tuple[int, ...]
    totals: tuple[int, ...]

    def __init__(
        self, round: int, winner: int, finish: str, points: tuple[int, ...], totals: tuple[int, ...]
    ) -> None:
        object.__setattr__(self, "round", round)
        object.__setattr__(self, "winner", winner)
        object.__setattr__(self, "finish", finish)
        object.__setattr__(self, "points", points)
        object.__setattr__(self, "totals", totals)


@dataclass(frozen=True, slots=True, init=False)
class MatchOver:
    winners: tuple[int, ...]
    totals: tuple[int, ...]
    reason: str
    """'target' (a total reached the target), 'rounds' (all rounds played), 'wins' (enough rounds
    won), 'single' (a casual one-round match), 'tie_break' (a deciding round among the tied)."""

    def __init__(self, winners: tuple[int, ...], totals: tuple[int, ...], reason: str) -> None:
        object.__setattr__(self, "winners", winners)
        object.__setattr__(self, "totals", totals)
        object.__setattr__(self, "reason", reason)


Event = (
    RoundStarted
    | Drew
    | Played
    | SuitNamed
    | Called
    | Skipped
    | DirectionChanged
    | Caught
    | Challenged
    | Passed
    | Reshuffled
    | TurnStarted
    | RoundOver
    | MatchOver
)


def redact(event: Event, viewer: int | None) -> Event:
    """``event`` as ``viewer`` may see it (None: a spectator, who sees no cards in any hand)."""
    if isinstance(event, Drew) and event.cards and event.seat != viewer:
        return replace(event, cards=())
    return event
