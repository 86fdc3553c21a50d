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
from .kinds import Outcome

if TYPE_CHECKING:
    from .state import MatchState


@dataclass(frozen=True, slots=True)
class View:
    """What one seat may see (``seat`` None: a spectator, who sees no hand at all)."""

    seat: int | None
    ruleset: str
    round: int
    phase: str
    turn: int
    chooser: int
    """The seat naming the starter's suit in phase 'starter_suit', else -1."""
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
