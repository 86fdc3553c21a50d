"""openskill's model and the rating objects every match reuses, kept out of the compiled modules:
openskill's ``rate()`` wants its teams a ``list``, and a class that subclasses ``list`` cannot be
one of mypyc's native classes (``build_support.py`` compiles ``ladder`` but not this module)."""

from __future__ import annotations

from typing import Any

from openskill.models import PlackettLuce

MODEL = PlackettLuce()
"""openskill's defaults: mu 25, sigma 25/3, beta 25/6, tau 25/300 (sigma grows back a little
before each match, so a rating never freezes)."""

RATINGS = [MODEL.rating() for _ in range(8)]
"""openskill rating objects refilled for each match (one per seat): building one draws a uuid4,
which costs a good part of a rating update."""

_COPIES = [MODEL.rating() for _ in range(8)]
"""The objects ``rate()`` works on and answers with, refilled by :class:`Teams` for each match."""


class Teams(list[list[Any]]):
    """The teams handed to openskill's ``rate()``, which deep-copies them before it computes (so
    a caller's ratings never change): a copy of these refills the pooled :data:`_COPIES` instead
    of building new rating objects, each with a uuid4 (half of a bare ``rate()`` call). The
    update is the same to the bit (tests/rating/test_ladder.py); the answer is read at once."""

    def __deepcopy__(self, memo: dict[int, Any]) -> list[list[Any]]:
        copies = iter(_COPIES)
        teams = []
        for team in self:
            copied = []
            for rating in team:
                copy = next(copies)
                copy.mu, copy.sigma = rating.mu, rating.sigma
                copied.append(copy)
            teams.append(copied)
        return teams
