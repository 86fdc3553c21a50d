"""Calls and catches: a seat that owes a call and misses it may be caught by another seat.

Two kinds exist. Calls carried by a play ('Mau', 'Mau Mau', 'Letzte Karte') are owed by the play
itself; a missed one stays catchable until the end of the next turn played (its window, kept in
``missed``). The colour game's 'last' button is pressed on its own and is catchable for as long as
the seat holds one card without having pressed it (``declared``). Between the two, an East-Frisian
seat that a penalty card leaves with one card owes 'Letzte Karte' with no play to carry it: it may
say it on its own, and it is catchable in a window as a missed call is (``penalty_last``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import turns
from .events import Called, Caught, Event
from .kinds import (
    DRAWN,
    OVER,
    PLAYING,
)

if TYPE_CHECKING:
    from .state import MatchState


def owes_last(m: MatchState, seat: int) -> bool:
    """Whether ``seat`` holds one card without having pressed 'last' (so it may be caught)."""
    return (
        len(m.hands[seat]) == 1
        and not m.declared[seat]
        and m.in_round[seat]
        and m.phase is not OVER
    )


def may_press_last(m: MatchState, seat: int) -> bool:
    """'last' may be pressed with one card at any time, or with two on one's own turn."""
    if m.declared[seat] or m.phase is OVER:
        return False
    size = len(m.hands[seat])
    return size == 1 or (size == 2 and seat == m.turn and (m.phase is PLAYING or m.phase is DRAWN))


def call(m: MatchState, seat: int, word: str, events: list[Event]) -> None:
    """``seat`` makes the call ``word`` on its own: the call it owed is made."""
    m.declared[seat] = True
    if m.penalty_last[seat]:
        m.penalty_last[seat] = False
        m.missed.pop(seat, None)
    events.append(Called(seat, word))


def catch(m: MatchState, seat: int, target: int, events: list[Event]) -> None:
    """``seat`` catches ``target``: the penalty cards, and a seat that went out without its call
    loses that finish (the next uncaught seat out of cards takes its place)."""
    word = m.missed.pop(target, ("last", 0))[0]
    m.penalty_last[target] = False
    events.append(Caught(seat, target, word))
    turns.give(m, target, m.ruleset.call_penalty, "caught", events)
    if m.out_seat == target:
        m.out_seat = next((s for s in m.missed if not m.hands[s]), None)
    m.variant.after_penalty(m, target)
