"""The state of a match, each field declared once: copying, comparing and the byte codec all
follow from the declarations below, so a new field needs no edits anywhere else.

A field's ``metadata`` names how it is copied (:data:`SHARED` values are immutable and shared by
copies, the others are copied one level or two deep) and how it is written to bytes (its key and
codec, see :mod:`.codec`). The rules modules work on this class; :class:`.match.Match` adds the
public face.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Final, TypeVar

from .cards import Card
from .kinds import NO_PENDING, PLAYING, Outcome, Pending, Phase

if TYPE_CHECKING:
    from .ruleset import Ruleset
    from .variants import Variant

SHARED: Final = "shared"
"""Immutable (numbers, text, enums, cards, outcomes): a copy shares it."""
LIST: Final = "list"
"""A list of immutable items: a copy gets its own list."""
NESTED: Final = "nested"
"""A list of lists (the hands): a copy gets its own lists."""
DICT: Final = "dict"
"""A dict with immutable keys and values: a copy gets its own dict."""

PLAIN: Final = "plain"
"""Written to bytes as it is (JSON numbers, text, booleans and lists of them)."""


def _state(copy: str = SHARED, *, codec: str = PLAIN, key: str = "") -> dict[str, str]:
    """A state field's metadata: how it is copied, and its codec and key in the bytes (``key``
    defaults to the field's name; codec '' keeps the field out of the bytes)."""
    return {"copy": copy, "codec": codec, "key": key}


@dataclass(slots=True, init=False, repr=False)
class MatchState:
    """Everything about a match: a value that the rules modules read and change in place."""

    ruleset: Ruleset = field(metadata=_state(codec="ruleset", key="r"))
    variant: Variant = field(compare=False, metadata=_state(codec=""))
    """The ruleset's behaviour (derived from it, so neither compared nor written)."""
    seats: int = field(metadata=_state(key="n"))
    seed: str = field(metadata=_state(key="s"))
    """The seed every shuffle of this match derives from: same seed and actions, same match."""
    round: int = field(metadata=_state())
    dealer: int = field(metadata=_state())
    totals: list[int] = field(metadata=_state(LIST))
    """Match totals per seat: penalty points, rounds won or collected points by the scoring."""
    round_wins: list[int] = field(metadata=_state(LIST))
    maumaus: list[int] = field(metadata=_state(LIST))
    """East-Frisian Mau-Mau finishes per seat: the first tie-break."""
    specials: list[int] = field(metadata=_state(LIST))
    """Penalty special cards played per seat (7s, draw-2s, draw-4s), for experience points."""
    in_round: list[bool] = field(metadata=_state(LIST))
    """The seats dealt in: all of them, or only the tied ones in a deciding round."""
    deciding: bool = field(metadata=_state())
    hands: list[list[Card]] = field(metadata=_state(NESTED, codec="hands"))
    draw_pile: list[Card] = field(metadata=_state(LIST, codec="cards", key="draw"))
    """The draw pile; its top card is the last element."""
    discard: list[Card] = field(metadata=_state(LIST, codec="cards", key="disc"))
    """The discard pile; its top card is the last element."""
    turn: int = field(metadata=_state())
    turn_no: int = field(metadata=_state())
    """Turns played this match: the clock that call windows close by."""
    direction: int = field(metadata=_state())
    wished: str | None = field(metadata=_state())
    wish_jack: bool = field(metadata=_state())
    """Whether the standing wish came from a wishing card (not from a plain card's suit)."""
    pending: Pending = field(metadata=_state(codec="pending"))
    pending_count: int = field(metadata=_state())
    pending_optional: bool = field(metadata=_state())
    """The pending effect is the starter's, which the starting seat may take up or ignore."""
    chain: int = field(metadata=_state())
    """Draw cards stacked so far in the pending chain."""
    bluff: bool = field(metadata=_state())
    """The pending W+4 was played while another card fitted."""
    bluffer: int = field(metadata=_state())
    drawn: Card | None = field(metadata=_state(codec="card"))
    phase: Phase = field(metadata=_state(codec="phase"))
    chooser: int = field(metadata=_state())
    """The seat naming the starter's suit in phase 'starter_suit', else -1."""
    missed: dict[int, tuple[str, int]] = field(metadata=_state(DICT, codec="missed"))
    """Seats that missed a call: seat -> (the call, the turn number whose end closes the window)."""
    declared: list[bool] = field(metadata=_state(LIST))
    """Seats that pressed 'last' and have not drawn since."""
    out_seat: int | None = field(metadata=_state())
    """The first seat that went out without its finishing call: it wins if not caught in time."""
    reshuffles: int = field(metadata=_state())
    outcome: Outcome | None = field(metadata=_state(codec="outcome"))

    def __init__(self, ruleset: Ruleset, seats: int, seed: str) -> None:
        """A match before its first deal: no cards anywhere, every count at zero."""
        self.ruleset, self.variant, self.seats, self.seed = ruleset, ruleset.variant, seats, seed
        self.round, self.dealer, self.turn, self.turn_no = 1, 0, 0, 0
        self.totals, self.round_wins = [0] * seats, [0] * seats
        self.maumaus, self.specials = [0] * seats, [0] * seats
        self.in_round, self.deciding = [True] * seats, False
        self.hands = [[] for _ in range(seats)]
        self.draw_pile, self.discard = [], []
        self.outcome = None
        self.reset_round()

    def reset_round(self) -> None:
        """The state every round starts from, before the deal."""
        self.direction = 1
        self.wished, self.wish_jack = None, False
        self.pending, self.pending_count, self.pending_optional, self.chain = (
            NO_PENDING,
            0,
            False,
            0,
        )
        self.bluff, self.bluffer = False, -1
        self.drawn, self.phase, self.chooser = None, PLAYING, -1
        self.missed = {}
        self.declared = [False] * self.seats
        self.out_seat = None
        self.reshuffles = 0

    def copy_state(self, other: MatchState) -> None:
        """Make ``other`` an independent copy of this state."""
        for name in _SHARED_FIELDS:
            setattr(other, name, getattr(self, name))
        for name in _LIST_FIELDS:
            setattr(other, name, list(getattr(self, name)))
        for name in _NESTED_FIELDS:
            setattr(other, name, [list(inner) for inner in getattr(self, name)])
        for name in _DICT_FIELDS:
            setattr(other, name, dict(getattr(self, name)))


S = TypeVar("S", bound=MatchState)


def blank(cls: type[S]) -> S:
    """An instance with no field set yet, for :meth:`MatchState.copy_state` and the codec to fill
    in: it skips the constructor's work, which copying and decoding would overwrite at once."""
    return cls.__new__(cls)


STATE_FIELDS: Final = fields(MatchState)
"""The declarations, in order; the codec reads its keys and kinds from here."""
_SHARED_FIELDS: Final = tuple(f.name for f in STATE_FIELDS if f.metadata["copy"] == SHARED)
_LIST_FIELDS: Final = tuple(f.name for f in STATE_FIELDS if f.metadata["copy"] == LIST)
_NESTED_FIELDS: Final = tuple(f.name for f in STATE_FIELDS if f.metadata["copy"] == NESTED)
_DICT_FIELDS: Final = tuple(f.name for f in STATE_FIELDS if f.metadata["copy"] == DICT)
