"""Who sits at which table: the first seating and the East-Frisian table change. Pure, no I/O.

The rule text (``ostfriesland``): players are spread evenly over tables of at most eight; after
every block of rounds the worse half of each table by points leaves and moves on to the next
table. The readings chosen where the text leaves things open:

- *The worse half* of a table of ``n`` is ``n // 2`` players: at an odd table the middle player
  stays (a table of 7 sends 3 on).
- *Worse* is by the tournament so far, not by the block: more penalty points is worse; equal
  points, fewer Mau-Mau finishes is worse (the rule text's own second criterion); still equal,
  the one who sat down at this table later is worse (the last to sit down is the first to go, as
  the text makes the last to sit down the shuffler).
- Movers of table ``i`` go to table ``i + 1``, the last table's to the first. They take the seats
  after the players who stay, best mover first. With one table nobody moves.
- Tables stay balanced: from sizes that differ by at most one, sending ``n // 2`` and receiving
  the previous table's ``n // 2`` keeps them so (a table of ``k`` or ``k + 1`` ends with ``k`` or
  ``k + 1``). Players who left the tournament are not seated again; when that unbalances the
  tables, or fewer tables are needed (``ceil(players / max_per_table)``), the most recent arrival
  at the fullest table (the last table dissolved first) moves to the emptiest one until no two
  tables differ by more than one.
- Tables hold at least three (a table limit of two could leave one player alone).
- The first seating: the entrants are shuffled with the tournament's seed and dealt round the
  tables like cards, so table sizes differ by at most one.
"""

from __future__ import annotations

import math
import random
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

Tables = list[list[str]]
"""Entrant ids per table, in seat order (seat 0 first)."""


@dataclass(frozen=True)
class Score:
    """An entrant's tournament so far: what decides who is worse at a table."""

    points: int = 0
    maumaus: int = 0


@dataclass(frozen=True)
class Move:
    entrant: str
    from_table: int
    to_table: int


@dataclass(frozen=True)
class TableChange:
    tables: Tables
    moves: tuple[Move, ...]


def table_count(players: int, max_per_table: int) -> int:
    """Fewest tables of at most ``max_per_table`` for ``players`` (at least one)."""
    return max(1, math.ceil(players / max_per_table))


def first_seating(entrants: Sequence[str], max_per_table: int, seed: str) -> Tables:
    """Shuffle with ``seed`` and deal round the tables.

    >>> first_seating(["a", "b", "c"], 8, "s")
    [['a', 'c', 'b']]
    >>> [len(t) for t in first_seating([str(i) for i in range(17)], 8, "s")]
    [6, 6, 5]
    """
    shuffled = list(entrants)
    random.Random(seed).shuffle(shuffled)
    count = table_count(len(shuffled), max_per_table)
    return [shuffled[i::count] for i in range(count)]


def worse_half(table: Sequence[str], scores: Mapping[str, Score]) -> list[str]:
    """The ``len(table) // 2`` players who leave ``table``, best of them first.

    >>> worse_half(["a", "b", "c"], {"a": Score(30), "b": Score(10), "c": Score(30)})
    ['c']
    """
    order = sorted(
        range(len(table)),
        key=lambda seat: (scores[table[seat]].points, -scores[table[seat]].maumaus, seat),
    )
    stay = len(table) - len(table) // 2
    return [table[seat] for seat in order[stay:]]


def change_tables(
    tables: Sequence[Sequence[str]],
    scores: Mapping[str, Score],
    playing: Collection[str],
    max_per_table: int,
) -> TableChange:
    """The seating of the next block: the worse half of each table moves one table on, then
    the tables are evened out (see the module's readings). Only entrants in ``playing`` (those
    who have not left) are seated."""
    present = [[e for e in table if e in playing] for table in tables]
    count = len(present)
    moves: list[Move] = []
    if count > 1:
        leaving = [worse_half(table, scores) for table in present]
        staying = [
            [e for e in table if e not in set(go)]
            for table, go in zip(present, leaving, strict=False)
        ]
        for i, go in enumerate(leaving):
            moves.extend(Move(e, i, (i + 1) % count) for e in go)
        present = [staying[i] + leaving[i - 1] for i in range(count)]
    return TableChange(_even_out(present, max_per_table, moves), tuple(moves))


def _even_out(tables: Tables, max_per_table: int, moves: list[Move]) -> Tables:
    """Dissolve tables beyond those needed (the last first), then move the latest arrival of
    the fullest table to the emptiest until sizes differ by at most one."""
    players = sum(len(t) for t in tables)
    needed = table_count(players, max_per_table)
    tables = [list(t) for t in tables]
    while len(tables) > needed:
        dissolved = len(tables) - 1
        for entrant in tables.pop():
            to = min(range(len(tables)), key=lambda i: (len(tables[i]), i))
            tables[to].append(entrant)
            moves.append(Move(entrant, dissolved, to))
    while True:
        fullest = max(range(len(tables)), key=lambda i: (len(tables[i]), -i))
        emptiest = min(range(len(tables)), key=lambda i: (len(tables[i]), i))
        if len(tables[fullest]) - len(tables[emptiest]) <= 1:
            return tables
        entrant = tables[fullest].pop()
        tables[emptiest].append(entrant)
        moves.append(Move(entrant, fullest, emptiest))
