"""The state of a match, each field declared once: comparing and the byte codec follow from the
declarations below; copying, the hot path of search, is written out (and tested to cover every
field).

A field's ``metadata`` names whether it is written to bytes, and its key and codec in version 1
of the format (see :mod:`.codec`). The rules modules work on this class; :class:`.match.Match`
adds the public face. The modules are compiled to C where a compiler is at hand (see the
package docstring), so the types declared here are checked at run time there.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Final

from .cards import Card
from .kinds import NO_PENDING, PLAYING, Outcome, Pending, Phase
from .ruleset import Ruleset
from .variants import Variant

PLAIN: Final = "plain"
"""Written to bytes as it is (JSON numbers, text, booleans and lists of them)."""


def _state(*, codec: str = PLAIN, key: str = "") -> dict[str, str]:
    """A state field's metadata: its codec and key in the bytes (``key`` defaults to the field's
    name; codec '' keeps the field out of the bytes)."""
    return {"codec": codec, "key": key}


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
    totals: list[int] = field(metadata=_state())
    """Match totals per seat: penalty points, rounds won or collected points by the scoring."""
    round_wins: list[int] = field(metadata=_state())
    maumaus: list[int] = field(metadata=_state())
    """East-Frisian Mau-Mau finishes per seat: the first tie-break."""
    specials: list[int] = field(metadata=_state())
    """Penalty special cards played per seat (7s, draw-2s, draw-4s), for experience points."""
    in_round: list[bool] = field(metadata=_state())
    """The seats dealt in: all of them, or only the tied ones in a deciding round."""
    deciding: bool = field(metadata=_state())
    hands: list[list[Card]] = field(metadata=_state(codec="hands"))
    draw_pile: list[Card] = field(metadata=_state(codec="cards", key="draw"))
    """The draw pile; its top card is the last element."""
    discard: list[Card] = field(metadata=_state(codec="cards", key="disc"))
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
    missed: dict[int, tuple[str, int]] = field(metadata=_state(codec="missed"))
    """Seats that missed a call: seat -> (the call, the turn number whose end closes the window)."""
    declared: list[bool] = field(metadata=_state())
    """Seats that pressed 'last' and have not drawn since."""
    out_seat: int | None = field(metadata=_state())
    """The first seat that went out without its finishing call: it wins if not caught in time."""
    reshuffles: int = field(metadata=_state())
    outcome: Outcome | None = field(metadata=_state(codec="outcome"))
    penalty_last: list[bool] = field(metadata=_state())
    """Seats a penalty card left with one card (East-Frisian): they owe 'Letzte Karte' and may say
    it as an action of their own (a play carries every other call)."""

    def __init__(self, ruleset: Ruleset, seats: int, seed: str) -> None:
        """A match with only its ruleset, seats and seed set: :meth:`clear` readies it for a
        first deal, :meth:`copy_state` and the codec fill in every other field."""
        self.ruleset, self.variant, self.seats, self.seed = ruleset, ruleset.variant, seats, seed

    def clear(self) -> None:
        """A match before its first deal: no cards anywhere, every count at zero."""
        seats = self.seats
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
        self.penalty_last = [False] * self.seats

    def copy_state(self, other: MatchState) -> None:
        """Make ``other`` (of the same ruleset, seats and seed) an independent copy of this state.

        Written out field by field, as search copies a state at every step: immutable values are
        shared, lists and dicts copied (the hands two deep). ``tests/rules`` checks that every
        declared field is copied and no list or dict is shared."""
        other.round, other.dealer, other.turn, other.turn_no = (
            self.round,
            self.dealer,
            self.turn,
            self.turn_no,
        )
        other.totals, other.round_wins = self.totals[:], self.round_wins[:]
        other.maumaus, other.specials = self.maumaus[:], self.specials[:]
        other.in_round, other.deciding = self.in_round[:], self.deciding
        other.hands = [hand[:] for hand in self.hands]
        other.draw_pile, other.discard = self.draw_pile[:], self.discard[:]
        other.direction, other.wished, other.wish_jack = self.direction, self.wished, self.wish_jack
        other.pending, other.pending_count = self.pending, self.pending_count
        other.pending_optional, other.chain = self.pending_optional, self.chain
        other.bluff, other.bluffer, other.drawn = self.bluff, self.bluffer, self.drawn
        other.phase, other.chooser, other.missed = self.phase, self.chooser, dict(self.missed)
        other.declared, other.out_seat = self.declared[:], self.out_seat
        other.reshuffles, other.outcome = self.reshuffles, self.outcome
        other.penalty_last = self.penalty_last[:]


STATE_FIELDS: Final = fields(MatchState)
"""The declarations, in order; the codec reads its keys and kinds from here."""
