"""Forming tables from the waiting tickets of one queue: pure, no I/O, no clock of its own.

The oldest ticket not yet at a table is the *anchor*; for each table size the anchor accepts now
(its preferred size first, then the others largest first) the other tickets that accept that size
now are added, oldest first (ranked: closest rating first), while they fit. The first table that
is full forms. When none is, and the anchor lets bots in by now, the same is tried with only the
tickets that let bots in by now, and bots take the empty seats. Otherwise the anchor waits, and
the next oldest ticket is tried.

What a ticket accepts grows with its wait:

- sizes: only its preferred size, and every size it named once it waited ``smaller_after``;
- bots: once it waited its own ``bots_after`` (never when it allows no bots);
- ranked: a table's rating spread (highest minus lowest ticket rating) is at most the window of
  each of its tickets, ``window + widen_per_second * waited``, capped at ``max_window``.

A party takes adjacent seats. In a team game (colour with teams: four seats, 0+2 against 1+3) a
party of two is one team.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Waiting:
    """A ticket as table forming sees it."""

    ticket_id: str
    players: tuple[str, ...]
    sizes: frozenset[int]
    preferred: int
    bots_after: float | None
    """Seconds of waiting after which bots may fill; None: never."""
    enqueued_at: float
    rating: float = 0.0
    """The mean rating of the ticket's players (ranked queues)."""


@dataclass(frozen=True)
class Policy:
    ranked: bool = False
    teams: bool = False
    smaller_after: float = 20.0
    window: float = 5.0
    widen_per_second: float = 0.5
    max_window: float = 50.0

    def window_of(self, ticket: Waiting, now: float) -> float:
        waited = max(0.0, now - ticket.enqueued_at)
        return min(self.max_window, self.window + self.widen_per_second * waited)

    def sizes_now(self, ticket: Waiting, now: float) -> list[int]:
        """The table sizes the ticket accepts now, the one to try first first."""
        if now - ticket.enqueued_at < self.smaller_after:
            return [ticket.preferred]
        others = sorted(ticket.sizes - {ticket.preferred}, reverse=True)
        return [ticket.preferred, *others]

    def bots_now(self, ticket: Waiting, now: float) -> bool:
        return ticket.bots_after is not None and now - ticket.enqueued_at >= ticket.bots_after


@dataclass(frozen=True)
class Table:
    tickets: tuple[Waiting, ...]
    seats: int
    seating: tuple[tuple[str, int], ...]
    """(player id, seat) for every player at the table."""
    bot_seats: tuple[int, ...]
    formed_at: float

    @property
    def rating(self) -> float:
        """The mean rating of the players at the table."""
        players = sum(len(t.players) for t in self.tickets)
        return sum(t.rating * len(t.players) for t in self.tickets) / players

    @property
    def spread(self) -> float:
        ratings = [t.rating for t in self.tickets]
        return max(ratings) - min(ratings)


def form_tables(waiting: Sequence[Waiting], policy: Policy, now: float) -> list[Table]:
    """Every table that may form now from ``waiting``, each ticket at one table at most."""
    pool = sorted(waiting, key=lambda t: (t.enqueued_at, t.ticket_id))
    sizes = [policy.sizes_now(t, now) for t in pool]
    bots_now = [policy.bots_now(t, now) for t in pool]
    by_age = _Chain(list(range(len(pool))))
    by_rating = _Chain(sorted(range(len(pool)), key=lambda i: pool[i].rating))
    taken: set[int] = set()
    tables: list[Table] = []

    def candidates(anchor: int) -> Iterator[int]:
        if not policy.ranked:
            yield from by_age.walk()
            return
        # Outward from the anchor's rating, closest first, within the anchor's window.
        reach = policy.window_of(pool[anchor], now)
        rating = pool[anchor].rating
        below, above = by_rating.prev_of(anchor), by_rating.next_of(anchor)
        while below is not None or above is not None:
            take_below = above is None or (
                below is not None and rating - pool[below].rating <= pool[above].rating - rating
            )
            index = below if take_below else above
            assert index is not None
            if abs(pool[index].rating - rating) > reach:
                return  # the closer side is out of reach, so is everything further
            if take_below:
                below = by_rating.prev_of(index)
            else:
                above = by_rating.next_of(index)
            yield index

    def fill(anchor: int, size: int, bots: bool) -> list[int] | None:
        """The tickets of a table of ``size`` around the anchor, or None. ``bots``: a table
        whose empty seats bots fill, of the tickets that let them in now."""
        first = pool[anchor]
        if len(first.players) > size or (bots and not bots_now[anchor]):
            return None
        chosen, free = [anchor], size - len(first.players)
        low = high = first.rating
        window = policy.window_of(first, now)
        for index in candidates(anchor):
            if free == 0:
                break
            ticket = pool[index]
            if index == anchor or len(ticket.players) > free or size not in sizes[index]:
                continue
            if bots and not bots_now[index]:
                continue
            if policy.ranked:
                lo, hi = min(low, ticket.rating), max(high, ticket.rating)
                narrowest = min(window, policy.window_of(ticket, now))
                if hi - lo > narrowest:
                    continue
                low, high, window = lo, hi, narrowest
            chosen.append(index)
            free -= len(ticket.players)
        return chosen if free == 0 or bots else None

    for anchor in range(len(pool)):
        if anchor in taken:
            continue
        for size, bots in [(size, bots) for bots in (False, True) for size in sizes[anchor]]:
            chosen = fill(anchor, size, bots)
            if chosen is None:
                continue
            tables.append(seat([pool[i] for i in chosen], size, policy.teams, now))
            for index in chosen:
                taken.add(index)
                by_age.remove(index)
                by_rating.remove(index)
            break
    return tables


def seat(tickets: Sequence[Waiting], size: int, teams: bool, now: float) -> Table:
    """Seats for the players of ``tickets`` (parties side by side; in a team game a party of
    two as a team), bots in the seats left over."""
    free = list(range(size))
    seating: list[tuple[str, int]] = []
    ordered = list(tickets)
    if teams and size == 4:
        pairs = [t for t in ordered if len(t.players) == 2]
        for ticket, team in zip(pairs, ((0, 2), (1, 3)), strict=False):
            seating += zip(ticket.players, team, strict=True)
            free = [s for s in free if s not in team]
        ordered = [t for t in ordered if len(t.players) != 2]
    for ticket in ordered:
        for player in ticket.players:
            seating.append((player, free.pop(0)))
    return Table(tuple(tickets), size, tuple(seating), tuple(free), now)


class _Chain:
    """Indices in a fixed order, from which taken ones are unlinked in O(1)."""

    def __init__(self, order: list[int]) -> None:
        self._next: dict[int, int | None] = {}
        self._prev: dict[int, int | None] = {}
        self._head: int | None = order[0] if order else None
        for k, index in enumerate(order):
            self._prev[index] = order[k - 1] if k else None
            self._next[index] = order[k + 1] if k + 1 < len(order) else None

    def next_of(self, index: int) -> int | None:
        return self._next[index]

    def prev_of(self, index: int) -> int | None:
        return self._prev[index]

    def walk(self) -> Iterator[int]:
        index = self._head
        while index is not None:
            following = self._next[index]
            yield index
            index = following

    def remove(self, index: int) -> None:
        before, after = self._prev[index], self._next[index]
        if before is None:
            self._head = after
        else:
            self._next[before] = after
        if after is not None:
            self._prev[after] = before


def closest_bot_level(rating: float, bot_ratings: Mapping[str, float], fallback: str) -> str:
    """The bot level whose rating is closest to a ranked table's ``rating``, so that a table is
    not filled with bots far weaker (or stronger) than its players; ``fallback`` wins a tie,
    then the level listed first.

    >>> closest_bot_level(12.0, {"random": -4.0, "heuristic": 9.0, "strong": 20.0}, "strong")
    'heuristic'
    >>> closest_bot_level(0.0, {"random": 0.0, "heuristic": 0.0}, "heuristic")
    'heuristic'
    """
    levels = list(bot_ratings)
    return min(
        levels,
        key=lambda level: (
            abs(bot_ratings[level] - rating),
            level != fallback,
            levels.index(level),
        ),
    )
