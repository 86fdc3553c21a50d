"""Final places, deciding rounds and championship points. Pure, no I/O; the clock is passed in.

The rule text (``ostfriesland``): the fewest penalty points after all rounds win; a tie goes to
the better Mau-Mau ranking, then to a deciding game. Places 1 to 10 earn championship points
12, 10, 8, 7, 6, 5, 4, 3, 2, 1; the championship year is the calendar year, the most points win,
ties again by the Mau-Mau ranking, then a deciding game. The readings chosen:

- *Mau-Mau ranking* is the number of Mau-Mau finishes (going out with a wishing Jack): more is
  better. In the championship it is the sum over the year's tournaments.
- A *deciding round* is played between the players still tied for a place that earns
  championship points (a tie beyond place 10 changes nobody's points, and those players share
  the place). It is a short match of one round; its points order the group. Players still tied
  after it play another, at most :data:`MAX_DECIDING_ROUNDS` in all; then the earlier
  registration ranks first, so every paid place has one holder.
- A player who left the tournament keeps their points but cannot play a deciding round: in a
  tie they rank after those who stayed, among themselves by registration.
- The championship's deciding game is played for the places up to
  :data:`DECIDED_CHAMPIONSHIP_PLACES` (the podium; further down a tie changes no title, and
  those players share the place). Once the year is over, the service schedules one deciding
  tournament per tied group: the group's players as entrants, a single round, unranked, started
  a set time later so the players can be there (an absent player's seat goes to a bot, as at any
  table). Its final ranking, with its own deciding rounds, orders the group in the championship.
  Until it is played the group shares the place and is marked ``tied``.
- The year of a tournament is the calendar year in the configured time zone (Europe/Berlin by
  default) of the moment its final ranking was made.
"""

from __future__ import annotations

import dataclasses
import datetime
import zoneinfo
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

CHAMPIONSHIP_POINTS: tuple[int, ...] = (12, 10, 8, 7, 6, 5, 4, 3, 2, 1)
"""Championship points of places 1, 2, 3, ... (none beyond the tenth)."""
PAID_PLACES = len(CHAMPIONSHIP_POINTS)
MAX_DECIDING_ROUNDS = 3
DECIDED_CHAMPIONSHIP_PLACES = 3
"""Ties for these places of a championship year are played out in a deciding tournament."""


@dataclass(frozen=True)
class Tally:
    """One entrant's tournament: what the final ranking is made of."""

    entrant: str
    points: int = 0
    maumaus: int = 0
    order: int = 0
    """Registration order, 0 first."""
    left: bool = False
    deciding: tuple[int, ...] = ()
    """Points in each deciding round played, in order."""


@dataclass(frozen=True)
class Placed:
    entrant: str
    place: int
    championship_points: int


def championship_points(place: int) -> int:
    """Championship points of a place.

    >>> [championship_points(p) for p in (1, 2, 3, 10, 11)]
    [12, 10, 8, 1, 0]
    """
    return CHAMPIONSHIP_POINTS[place - 1] if 1 <= place <= PAID_PLACES else 0


def _tie_key(t: Tally) -> tuple[int, int]:
    return (t.points, -t.maumaus)


def _full_key(t: Tally) -> tuple[object, ...]:
    return (t.points, -t.maumaus, t.left, t.deciding, t.order)


def standings_order(tallies: Sequence[Tally]) -> list[Tally]:
    """Best first: fewest points, most Mau-Mau finishes, stayed before left, deciding rounds,
    registration."""
    return sorted(tallies, key=_full_key)


def deciding_groups(tallies: Sequence[Tally]) -> list[list[str]]:
    """The groups that must play a deciding round now: players who did not leave, tied on
    points, Mau-Mau finishes and every deciding round so far, with a place up to
    :data:`PAID_PLACES` among them, and fewer than :data:`MAX_DECIDING_ROUNDS` behind them.

    >>> deciding_groups([Tally("a", 10), Tally("b", 10, order=1), Tally("c", 20, order=2)])
    [['a', 'b']]
    """
    ordered = standings_order(tallies)
    groups: list[list[str]] = []
    start = 0
    while start < len(ordered) and start < PAID_PLACES:
        first = ordered[start]
        end = start + 1
        while end < len(ordered) and _settled_key(ordered[end]) == _settled_key(first):
            end += 1
        if end - start > 1 and not first.left and len(first.deciding) < MAX_DECIDING_ROUNDS:
            groups.append([t.entrant for t in ordered[start:end]])
        start = end
    return groups


def _settled_key(t: Tally) -> tuple[object, ...]:
    return (t.points, -t.maumaus, t.left, t.deciding)


def final_places(tallies: Sequence[Tally]) -> list[Placed]:
    """Places with championship points, best first. Paid places have one holder each; beyond
    them players equal on points and Mau-Mau finishes share a place."""
    ordered = standings_order(tallies)
    placed: list[Placed] = []
    for index, tally in enumerate(ordered):
        place = index + 1
        shares = placed and placed[-1].place > PAID_PLACES
        if shares and _tie_key(ordered[index - 1]) == _tie_key(tally):
            place = placed[-1].place
        placed.append(Placed(tally.entrant, place, championship_points(place)))
    return placed


def championship_year(finished_at: float, zone: str) -> int:
    """The calendar year in ``zone`` of a moment (Unix seconds).

    >>> championship_year(1798758000.0, "Europe/Berlin")  # 2026-12-31 23:00 UTC
    2027
    >>> championship_year(1798758000.0, "UTC")
    2026
    """
    when = datetime.datetime.fromtimestamp(finished_at, tz=zoneinfo.ZoneInfo(zone))
    return when.year


@dataclass(frozen=True)
class ChampionshipEntry:
    """One player's year: championship points and Mau-Mau finishes summed over tournaments."""

    player: str
    points: int
    maumaus: int
    tournaments: int = 1


@dataclass(frozen=True)
class ChampionshipPlace:
    entry: ChampionshipEntry
    place: int
    tied: bool = False
    """Level on points and Mau-Mau finishes with another player: a deciding game is owed."""


def championship_order(
    entries: Sequence[ChampionshipEntry], decided: Mapping[str, int] | None = None
) -> list[ChampionshipPlace]:
    """Most points first, then most Mau-Mau finishes; players level on both share a place unless
    a deciding tournament has ordered them (``decided``: player -> place in it).

    >>> [(p.entry.player, p.place, p.tied) for p in championship_order([
    ...     ChampionshipEntry("a", 12, 1), ChampionshipEntry("b", 20, 0),
    ...     ChampionshipEntry("c", 12, 1)])]
    [('b', 1, False), ('a', 2, True), ('c', 2, True)]
    >>> [(p.entry.player, p.place, p.tied) for p in championship_order([
    ...     ChampionshipEntry("a", 12, 1), ChampionshipEntry("c", 12, 1)], {"a": 2, "c": 1})]
    [('c', 1, False), ('a', 2, False)]
    """
    decided = decided or {}
    ordered = sorted(entries, key=lambda e: (-e.points, -e.maumaus, e.player))
    result: list[ChampionshipPlace] = []
    index = 0
    while index < len(ordered):
        end = index + 1
        key = (ordered[index].points, ordered[index].maumaus)
        while end < len(ordered) and (ordered[end].points, ordered[end].maumaus) == key:
            end += 1
        group = ordered[index:end]
        ranks = [decided.get(e.player) for e in group]
        if len(group) > 1 and None not in ranks and len(set(ranks)) == len(ranks):
            group.sort(key=lambda e: decided[e.player])
            result.extend(ChampionshipPlace(e, index + 1 + n) for n, e in enumerate(group))
        else:
            result.extend(ChampionshipPlace(e, index + 1, len(group) > 1) for e in group)
        index = end
    return result


def championship_deciders(places: Sequence[ChampionshipPlace]) -> list[list[str]]:
    """The groups still tied for a place up to :data:`DECIDED_CHAMPIONSHIP_PLACES`, best first,
    each in championship order.

    >>> championship_deciders(championship_order([
    ...     ChampionshipEntry("a", 12, 1), ChampionshipEntry("b", 12, 1),
    ...     ChampionshipEntry("c", 8, 0), ChampionshipEntry("d", 2, 0),
    ...     ChampionshipEntry("e", 2, 0)]))
    [['a', 'b']]
    """
    groups: dict[int, list[str]] = {}
    for p in places:
        if p.tied and p.place <= DECIDED_CHAMPIONSHIP_PLACES:
            groups.setdefault(p.place, []).append(p.entry.player)
    return [groups[place] for place in sorted(groups)]


def year_over_at(year: int, zone: str) -> float:
    """The moment (Unix seconds) the championship year ends in ``zone``.

    >>> year_over_at(2026, "UTC")
    1798761600.0
    """
    ends = datetime.datetime(year + 1, 1, 1, tzinfo=zoneinfo.ZoneInfo(zone))
    return ends.timestamp()


def merge_deciding(tallies: Sequence[Tally], round_points: Mapping[str, int]) -> list[Tally]:
    """The tallies after a deciding round: each of its players gets its points appended."""
    return [
        dataclasses.replace(t, deciding=(*t.deciding, round_points[t.entrant]))
        if t.entrant in round_points
        else t
        for t in tallies
    ]
