"""Scoring: what cards left in hand count, round points, and who wins a match on totals.

The variants pick from these pieces (see :mod:`.variants`); none of them changes a match except
:func:`lowest_total`, which seats a deciding round when the lowest total is shared.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from .cards import ALL_CARDS, Card
from .kinds import Outcome, Reason, Scoring

if TYPE_CHECKING:
    from .state import MatchState

_CLASSIC_POINTS: Final = {"A": 10, "K": 10, "Q": 10, "J": 10}
_OSTFRIESLAND_POINTS: Final = {
    "10": 5, "Q": 5, "K": 5, "A": 5, "7": 10, "8": 10, "9": 10, "J": 20,
}  # fmt: skip
_COLOUR_POINTS: Final = {"skip": 20, "rev": 20, "+2": 20, "W": 50, "W+4": 50}


def _points(card: Card, scoring: Scoring | str) -> int:
    if scoring == Scoring.OSTFRIESLAND:
        return _OSTFRIESLAND_POINTS.get(card.rank, 0)
    if scoring == Scoring.COLLECT:
        return _COLOUR_POINTS.get(card.rank) or int(card.rank)
    return _CLASSIC_POINTS.get(card.rank) or int(card.rank)


def _table(scoring: Scoring) -> tuple[int, ...]:
    """What every card counts under ``scoring``, by code; -1 for a card it gives no value."""
    points = []
    for card in ALL_CARDS:
        try:
            points.append(_points(card, scoring))
        except ValueError:  # a face card of the other family
            points.append(-1)
    return tuple(points)


_TABLES: Final[dict[str, tuple[int, ...]]] = {scoring: _table(scoring) for scoring in Scoring}
"""The points of every card under each scoring system, by code, looked up as rounds end."""


def card_points(card: Card, scoring: Scoring | str) -> int:
    """What ``card`` left in a hand counts under a scoring system (number cards their face)."""
    return _counted(_TABLES[scoring], card, scoring)


def _counted(table: tuple[int, ...], card: Card, scoring: Scoring | str) -> int:
    points = table[card.code]
    return points if points >= 0 else _points(card, scoring)  # the latter raises ValueError


def _sum_points(cards: list[Card], scoring: Scoring) -> int:
    """What ``cards`` count together; the table is looked up once (an enumeration member as a
    key hashes in interpreted code)."""
    table = _TABLES[scoring]
    total = 0
    for card in cards:
        total += _counted(table, card, scoring)
    return total


def team_of(m: MatchState, seat: int) -> tuple[int, ...]:
    """The seats that win together with ``seat``: its team (0+2, 1+3), or the seat alone."""
    if m.ruleset.teams:
        return (seat % 2, seat % 2 + 2)
    return (seat,)


def hand_points(m: MatchState, winner: int, scoring: Scoring) -> list[int]:
    """Penalty points: every other seat dealt in scores the cards left in its hand."""
    points = [0] * m.seats
    for seat in range(m.seats):
        if seat != winner and m.in_round[seat]:
            points[seat] = _sum_points(m.hands[seat], scoring)
    return points


def collected_points(m: MatchState, winner: int) -> list[int]:
    """The winner's side collects the card points of the other side's hands, each seat of it."""
    team = team_of(m, winner)
    gained = sum(
        _sum_points(m.hands[seat], Scoring.COLLECT) for seat in range(m.seats) if seat not in team
    )
    points = [0] * m.seats
    for seat in team:
        points[seat] = gained
    return points


def lowest_total(m: MatchState, reason: Reason, tie_break: Sequence[int]) -> Outcome | None:
    """The seat with the lowest total wins; among the tied the most ``tie_break`` (if given);
    a tie left over seats a deciding round among the tied (None then)."""
    best = min(m.totals)
    tied = [s for s in range(m.seats) if m.totals[s] == best]
    if len(tied) > 1 and tie_break:
        most = max(tie_break[s] for s in tied)
        tied = [s for s in tied if tie_break[s] == most]
    if len(tied) == 1:
        return Outcome((tied[0],), reason)
    m.deciding = True
    m.in_round = [s in tied for s in range(m.seats)]
    return None
