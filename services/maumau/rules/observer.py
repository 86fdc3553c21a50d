"""The observer: what one seat may see of a match, and nothing more.

The match knows every card; a :class:`View` holds the seat's own hand, the other hands as sizes,
the open discard pile and the public bookkeeping. Services send only views, so a seat can never
read another's cards from what it receives.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from . import legal
from .actions import Action
from .cards import Card
from .kinds import OVER, STARTER_SUIT, Outcome

if TYPE_CHECKING:
    from .state import MatchState


@dataclass(frozen=True, slots=True, init=False)
class View:
    """What one seat may see (``seat`` None: a spectator, who sees no hand at all).

    The constructor is written out, as the events' are (see ``events``): in the compiled core
    a written one is compiled, the one a dataclass generates interpreted (a view is built on
    every action a service answers)."""

    seat: int | None
    ruleset: str
    round: int
    phase: str
    turn: int
    chooser: int
    """The seat naming the starter's suit in phase 'starter_suit', else -1."""
    to_act: int
    """The seat the match waits for: ``chooser`` in phase 'starter_suit', ``turn`` in 'play' and
    'drawn', -1 once the match is over. It is this seat's move when ``to_act == seat``."""
    dealer: int
    hand: tuple[Card, ...]
    hand_sizes: tuple[int, ...]
    in_round: tuple[bool, ...]
    top: Card
    discard: tuple[Card, ...]
    """The whole discard pile, top card last: every card in it was played in the open."""
    active_suit: str
    wished: str | None
    pending: str
    """'' for none, 'draw' (a 7 or draw-2 chain), 'skip' (an 8 to pass on), 'draw4'."""
    pending_count: int
    direction: int
    draw_pile_size: int
    discard_size: int
    drawn: Card | None
    """The card this seat just drew and may still play (own view only)."""
    owing_call: tuple[int, ...]
    """Seats that missed a call and may be caught now."""
    declared_last: tuple[int, ...]
    totals: tuple[int, ...]
    round_wins: tuple[int, ...]
    teams: bool
    legal: tuple[Action, ...]
    outcome: Outcome | None
    specials: tuple[int, ...] = ()
    """Penalty special cards played per seat this match: with ``round_wins`` and the outcome's
    winners these are the counters experience points are earned by."""
    maumaus: tuple[int, ...] = ()
    """East-Frisian Mau-Mau finishes per seat: the first tie-break after the totals."""
    starter_open: bool = False
    """The starting card's 7 or 8 still stands for the starting seat to take up or ignore (it
    shows as no pending effect, since ignoring it is a plain move)."""

    def __init__(
        self,
        seat: int | None,
        ruleset: str,
        round: int,
        phase: str,
        turn: int,
        chooser: int,
        to_act: int,
        dealer: int,
        hand: tuple[Card, ...],
        hand_sizes: tuple[int, ...],
        in_round: tuple[bool, ...],
        top: Card,
        discard: tuple[Card, ...],
        active_suit: str,
        wished: str | None,
        pending: str,
        pending_count: int,
        direction: int,
        draw_pile_size: int,
        discard_size: int,
        drawn: Card | None,
        owing_call: tuple[int, ...],
        declared_last: tuple[int, ...],
        totals: tuple[int, ...],
        round_wins: tuple[int, ...],
        teams: bool,
        legal: tuple[Action, ...],
        outcome: Outcome | None,
        specials: tuple[int, ...] = (),
        maumaus: tuple[int, ...] = (),
        starter_open: bool = False,
    ) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "ruleset", ruleset)
        object.__setattr__(self, "round", round)
        object.__setattr__(self, "phase", phase)
        object.__setattr__(self, "turn", turn)
        object.__setattr__(self, "chooser", chooser)
        object.__setattr__(self, "to_act", to_act)
        object.__setattr__(self, "dealer", dealer)
        object.__setattr__(self, "hand", hand)
        object.__setattr__(self, "hand_sizes", hand_sizes)
        object.__setattr__(self, "in_round", in_round)
        object.__setattr__(self, "top", top)
        object.__setattr__(self, "discard", discard)
        object.__setattr__(self, "active_suit", active_suit)
        object.__setattr__(self, "wished", wished)
        object.__setattr__(self, "pending", pending)
        object.__setattr__(self, "pending_count", pending_count)
        object.__setattr__(self, "direction", direction)
        object.__setattr__(self, "draw_pile_size", draw_pile_size)
        object.__setattr__(self, "discard_size", discard_size)
        object.__setattr__(self, "drawn", drawn)
        object.__setattr__(self, "owing_call", owing_call)
        object.__setattr__(self, "declared_last", declared_last)
        object.__setattr__(self, "totals", totals)
        object.__setattr__(self, "round_wins", round_wins)
        object.__setattr__(self, "teams", teams)
        object.__setattr__(self, "legal", legal)
        object.__setattr__(self, "outcome", outcome)
        object.__setattr__(self, "specials", specials)
        object.__setattr__(self, "maumaus", maumaus)
        object.__setattr__(self, "starter_open", starter_open)


def to_act(m: MatchState) -> int:
    """The seat the match waits for (see :attr:`View.to_act`): -1 once it is over."""
    phase = m.phase
    if phase is OVER:
        return -1
    return m.chooser if phase is STARTER_SUIT else m.turn


def observe(m: MatchState, seat: int | None) -> View:
    """What ``seat`` may see of ``m``; None gives the spectator view with no hand at all."""
    variant = m.variant
    top = m.discard[-1]
    return View(
        seat=seat,
        ruleset=m.ruleset.text,
        round=m.round,
        phase=m.phase,
        turn=m.turn,
        chooser=m.chooser,
        to_act=to_act(m),
        dealer=m.dealer,
        hand=tuple(m.hands[seat]) if seat is not None else (),
        hand_sizes=tuple(len(hand) for hand in m.hands),
        in_round=tuple(m.in_round),
        top=top,
        discard=tuple(m.discard),
        active_suit=m.wished if m.wished is not None else top.suit,
        wished=m.wished,
        pending="" if m.pending_optional else m.pending,
        pending_count=0 if m.pending_optional else m.pending_count,
        direction=m.direction,
        draw_pile_size=len(m.draw_pile),
        discard_size=len(m.discard),
        drawn=m.drawn if seat == m.turn else None,
        owing_call=tuple(s for s in range(m.seats) if variant.catchable(m, s)),
        declared_last=tuple(s for s in range(m.seats) if m.declared[s]),
        totals=tuple(m.totals),
        round_wins=tuple(m.round_wins),
        teams=m.ruleset.teams,
        legal=tuple(legal.legal(m, seat)) if seat is not None else (),
        outcome=m.outcome,
        specials=tuple(m.specials),
        maumaus=tuple(m.maumaus),
        starter_open=m.pending_optional,
    )
