"""The bot arena's policy on its own (issue 27, "The bot arena" and "Limits"): who may be seated,
the tables that form, the daily limit, the pause after repeated timeouts. Pure: entries in,
tables out, the time given."""

from __future__ import annotations

import doctest
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maumau.matchmaking import arena
from maumau.matchmaking.arena import (
    ArenaEntry,
    ArenaRules,
    arena_tables,
    check_seat_counts,
    strikes_pause,
)

RULES = ArenaRules(daily_matches=5, strikes_to_pause=3, strike_window_seconds=100, pause_seconds=50)
NOW = 1000.0
HOUSE = {f"bot{n}" for n in range(4)}
"""The bots of the pools drawn that are the house's (a bot is or is not, in every pool)."""

entries = st.builds(
    ArenaEntry,
    bot_id=st.sampled_from([f"bot{n}" for n in range(12)]),
    preset=st.sampled_from(["classic", "colour"]),
    seat_counts=st.lists(st.integers(2, 8), min_size=1, max_size=4, unique=True).map(tuple),
    waiting_since=st.floats(0, NOW),
    rating=st.floats(-20, 40),
    matches_today=st.integers(0, 7),
    paused_until=st.sampled_from([0.0, NOW - 1, NOW + 1]),
    online=st.booleans(),
).map(lambda entry: replace(entry, house=entry.bot_id in HOUSE))


def test_doctests() -> None:
    assert doctest.testmod(arena).failed == 0


@settings(max_examples=300)
@given(st.lists(entries, max_size=30))
def test_every_table_seats_only_willing_bots_once_at_a_size_they_take(pool) -> None:
    """Each bot at one table at most, every seat a bot's of the pool (no filler), all of one
    preset at a size each of them asked for; a paused bot, one at its daily limit or one whose
    event stream is closed, never; and never a table of the house's bots alone."""
    tables = arena_tables(pool, RULES, NOW)
    seated = [player for table in tables for player, _ in table.seating]
    assert len(seated) == len(set(seated))
    house = {e.bot_id for e in pool if e.house}
    assert not any(all(bot in house for bot, _ in t.seating) for t in tables), "house alone"
    for table in tables:
        assert not table.bot_seats
        assert sorted(seat for _, seat in table.seating) == list(range(table.seats))
        chosen = [ticket.ticket_id for ticket in table.tickets]

        def willing(bot: str, preset: str, size: int = table.seats) -> bool:
            return any(
                e.bot_id == bot
                and e.preset == preset
                and size in e.seat_counts
                and arena.may_play(e, RULES, NOW)
                for e in pool
            )

        assert any(all(willing(bot, preset) for bot in chosen) for preset in ("classic", "colour"))


@settings(max_examples=100)
@given(st.integers(2, 8), st.floats(-20, 40))
def test_bots_that_take_the_same_size_and_wait_long_enough_are_seated(size, rating) -> None:
    """No bot waits forever beside others that would play it: enough bots of one preset
    taking one size, all free to play, form a table however far apart their ratings are once
    they waited long enough (the window widens with the wait)."""
    pool = [
        ArenaEntry(f"bot{n}", "classic", (size,), waiting_since=0.0, rating=rating + 10 * n)
        for n in range(size)
    ]
    [table] = arena_tables(pool, RULES, now=NOW)
    assert table.seats == size and {p for p, _ in table.seating} == {e.bot_id for e in pool}


def test_a_bot_waiting_for_two_presets_sits_at_one_table() -> None:
    pool = [
        ArenaEntry("both", "classic", (2,), 0.0),
        ArenaEntry("both", "colour", (2,), 0.0),
        ArenaEntry("c", "classic", (2,), 1.0),
        ArenaEntry("o", "colour", (2,), 1.0),
    ]
    tables = arena_tables(pool, RULES, NOW)
    assert [sorted(p for p, _ in t.seating) for t in tables] == [["both", "c"]]


def test_the_daily_limit_and_a_pause_keep_a_bot_out() -> None:
    partner = ArenaEntry("p", "classic", (2,), 0.0)
    limited = ArenaEntry("l", "classic", (2,), 0.0, matches_today=RULES.daily_matches)
    paused = ArenaEntry("z", "classic", (2,), 0.0, paused_until=NOW + 1)
    assert arena_tables([partner, limited, paused], RULES, NOW) == []
    one_left = ArenaEntry("l", "classic", (2,), 0.0, matches_today=RULES.daily_matches - 1)
    assert len(arena_tables([partner, one_left], RULES, NOW)) == 1
    pause_over = ArenaEntry("z", "classic", (2,), 0.0, paused_until=NOW)
    assert len(arena_tables([partner, pause_over], RULES, NOW)) == 1
    deaf = ArenaEntry("d", "classic", (2,), 0.0, online=False)
    assert arena_tables([partner, deaf], RULES, NOW) == [], "it would not hear of its seat"


def test_the_house_plays_the_bots_that_come_not_itself_and_knows_no_daily_limit() -> None:
    """issue 27: the platform's levels are bots in the arena to be played: two house bots and a
    guest make the guest's table with one of them, however close the two house bots' ratings;
    house bots alone wait; a house bot past the daily limit still plays."""
    levels = [
        ArenaEntry(f"house-{n}", "classic", (2,), 0.0, rating=10.0, house=True) for n in (1, 2)
    ]
    guest = ArenaEntry("guest", "classic", (2,), 5.0, rating=-30.0)
    [table] = arena_tables([*levels, guest], RULES, NOW)
    seated = {bot for bot, _ in table.seating}
    assert "guest" in seated and len(seated & {"house-1", "house-2"}) == 1
    assert arena_tables(levels, RULES, NOW) == []
    busy = replace(levels[0], matches_today=RULES.daily_matches * 10)
    assert len(arena_tables([busy, guest], RULES, NOW)) == 1


@given(st.lists(st.floats(0, NOW), max_size=10))
def test_a_pause_follows_enough_strikes_within_the_window_and_runs_from_the_latest(strikes):
    recent = [at for at in strikes if NOW - RULES.strike_window_seconds < at <= NOW]
    until = strikes_pause(strikes, RULES, NOW)
    if len(recent) < RULES.strikes_to_pause:
        assert until is None
    else:
        assert until == max(recent) + RULES.pause_seconds
        assert strikes_pause([*strikes, NOW], RULES, NOW) == NOW + RULES.pause_seconds


@pytest.mark.parametrize(
    ("counts", "message"),
    [([], "at least one seat count"), ([1], "seat count 1"), ([2, 9], "seat count 9")],
)
def test_a_seat_count_outside_two_to_eight_says_what_to_send(counts, message) -> None:
    with pytest.raises(ValueError, match=message):
        check_seat_counts(counts)
