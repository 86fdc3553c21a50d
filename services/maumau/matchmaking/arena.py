"""The bot arena's policy, pure: which bots of the pool may be seated now, the tables they form,
and when a bot whose turns keep timing out is paused. No I/O and no clock of its own (``now`` is
passed in), as :mod:`maumau.matchmaking.forming`, which forms the tables: the pool's adapter
reads the entries from Redis and applies what these functions compute.

An entry is one bot account waiting in the arena for one preset: the seat counts it takes (2-8,
the one to try first first), since when it waits (it joined, or its last arena match ended), its
rating on the bots' ladder, its bot-vs-bot matches today, until when it is paused and whether
its event stream is open (a bot that would not hear of its seat is not seated). Tables form as
a ranked queue's do (closest ratings first, the window widening with the wait), with no bot
filling a seat: every seat is an entry's, and no table is of the house's bots alone (the
platform's levels play the bots that come, not one another). A bot waiting for several presets
sits at one table at a time per tick.

>>> rules = ArenaRules()
>>> pool = [ArenaEntry("a", "classic", (2,), 0.0), ArenaEntry("b", "classic", (2, 4), 1.0)]
>>> [table.seating for table in arena_tables(pool, rules, now=2.0)]
[(('a', 0), ('b', 1))]
>>> strikes_pause([10.0, 20.0, 30.0], rules, now=40.0)
1830.0
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from maumau.matchmaking.forming import Policy, Table, Waiting, form_tables

MIN_SEATS = 2
MAX_SEATS = 8


@dataclass(frozen=True)
class ArenaEntry:
    """A bot waiting in the arena for tables of one preset."""

    bot_id: str
    preset: str
    seat_counts: tuple[int, ...]
    """The table sizes it takes, the one to try first first (:func:`check_seat_counts`)."""
    waiting_since: float
    rating: float = 0.0
    """Its ordinal on the bots' ladder of the preset (0 for a new bot)."""
    matches_today: int = 0
    """Bot-vs-bot matches it started today (UTC), against the daily limit."""
    paused_until: float = 0.0
    """Unix seconds until which it is paused for letting turns time out (0: not paused)."""
    online: bool = True
    """Whether its event stream is open, so it hears of a seat."""
    house: bool = False
    """Whether it is one of the platform's own levels (``maumau.bots.house``): those play the
    other bots, never one another alone, and no daily limit holds them back."""


@dataclass(frozen=True)
class ArenaRules:
    """The arena's settings (the matchmaker's environment sets them)."""

    daily_matches: int = 100
    """Bot-vs-bot matches per bot per day (UTC): the arena's and challenges' together."""
    strikes_to_pause: int = 3
    """Matches within ``strike_window_seconds`` in which a bot's turns timed out until the
    engine's stand-in bot took its seat, after which it is paused."""
    strike_window_seconds: float = 3600.0
    pause_seconds: float = 1800.0
    policy: Policy = field(
        default_factory=lambda: Policy(
            ranked=True, smaller_after=10.0, window=10.0, widen_per_second=1.0, max_window=100.0
        )
    )


def check_seat_counts(counts: Iterable[int]) -> tuple[int, ...]:
    """The table sizes a bot asked for, each once in the order given; ValueError saying what
    to send instead.

    >>> check_seat_counts([4, 2, 4])
    (4, 2)
    >>> check_seat_counts([9])
    Traceback (most recent call last):
    ...
    ValueError: seat count 9: an arena table has 2 to 8 seats
    """
    chosen = tuple(dict.fromkeys(counts))
    if not chosen:
        raise ValueError(f"name at least one seat count from {MIN_SEATS} to {MAX_SEATS}")
    for count in chosen:
        if not MIN_SEATS <= count <= MAX_SEATS:
            raise ValueError(
                f"seat count {count}: an arena table has {MIN_SEATS} to {MAX_SEATS} seats"
            )
    return chosen


def may_play(entry: ArenaEntry, rules: ArenaRules, now: float) -> bool:
    """Whether ``entry`` may be seated now: online, not paused, and under the daily limit (a
    house bot has none: it plays whoever comes)."""
    under_limit = entry.house or entry.matches_today < rules.daily_matches
    return entry.online and entry.paused_until <= now and under_limit


def arena_tables(entries: Sequence[ArenaEntry], rules: ArenaRules, now: float) -> list[Table]:
    """Every table that may form now, each bot at one table at most (and once per preset, by
    its first entry); presets in name order."""
    seated: set[str] = set()
    tables: list[Table] = []
    for preset in sorted({entry.preset for entry in entries}):
        free: dict[str, ArenaEntry] = {}
        for entry in entries:
            if (
                entry.preset == preset
                and entry.bot_id not in seated
                and entry.seat_counts
                and may_play(entry, rules, now)
            ):
                free.setdefault(entry.bot_id, entry)
        for table in _tables_with_a_guest(list(free.values()), rules, now):
            tables.append(table)
            seated.update(player for player, _ in table.seating)
    return tables


def _tables_with_a_guest(free: list[ArenaEntry], rules: ArenaRules, now: float) -> list[Table]:
    """The tables of ``free`` (one preset's) with at least one bot that is not the house's:
    a table of house bots alone is not played; its first house bot sits this tick out and the
    tables form again, so a guest beside them still finds its house opponent."""
    while True:
        waiting = [
            Waiting(
                ticket_id=entry.bot_id,
                players=(entry.bot_id,),
                sizes=frozenset(entry.seat_counts),
                preferred=entry.seat_counts[0],
                bots_after=None,
                enqueued_at=entry.waiting_since,
                rating=entry.rating,
            )
            for entry in free
        ]
        tables = form_tables(waiting, rules.policy, now)
        house = {entry.bot_id for entry in free if entry.house}
        alone = [t for t in tables if all(bot in house for bot, _ in t.seating)]
        if not alone:
            return tables
        out = {t.seating[0][0] for t in alone}
        free = [entry for entry in free if entry.bot_id not in out]


def strikes_pause(strikes: Iterable[float], rules: ArenaRules, now: float) -> float | None:
    """Until when a bot is paused, given when its recent strikes happened (arena matches whose
    turns timed out until the stand-in took its seat); None while it has fewer than
    ``strikes_to_pause`` within the window. The pause runs from the latest strike."""
    recent = sorted(at for at in strikes if now - rules.strike_window_seconds < at <= now)
    if len(recent) < rules.strikes_to_pause:
        return None
    return recent[-1] + rules.pause_seconds
