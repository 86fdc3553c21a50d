"""Counts per account and UTC day, for the limits a day resets: challenges an account makes per
day (the Arena service's CreateChallenge) and bot-vs-bot matches a bot plays per day (challenges
between bots and the matchmaker's bot arena pool count against the same limit,
:data:`BOT_MATCHES`).

Each count is the key ``daily:{<player_id>}:<limit>:<YYYYMMDD>`` (a string counter), expiring a
day after its day ends, so nothing is kept for long. :func:`spend` adds one unless the count
reached ``most`` (one script, so concurrent calls never pass the limit), :func:`remaining` reads
without counting. Past the limit they raise :class:`DailyLimitReached`, which names the limit's
key and when it resets; every service answers it alike (:class:`DailyLimitExhausted`:
RESOURCE_EXHAUSTED ``daily_limit`` with both in the error's details).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from contextlib import contextmanager

import redis.asyncio as redis

from maumau.common.error_codes import MESSAGES
from maumau.common.errors import Exhausted

CHALLENGES = "challenges_per_day"
"""The limit of challenges an account creates per UTC day."""
BOT_MATCHES = "bot_matches_per_day"
"""The limit of bot-vs-bot matches (no person at the table) a bot account plays per UTC day."""
KEPT_SECONDS = 86400
"""How long a day's count is kept after the day ended."""

# KEYS[1] the count; ARGV[1] most, ARGV[2] Unix seconds it expires. The new count, or -1.
_SPEND = """
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n >= tonumber(ARGV[1]) then return -1 end
n = redis.call('INCR', KEYS[1])
redis.call('EXPIREAT', KEYS[1], ARGV[2])
return n
"""


class DailyLimitReached(Exception):
    """A daily limit is reached: ``limit`` (its key), ``most`` a day, ``resets_at`` (Unix s)."""

    def __init__(self, limit: str, most: int, resets_at: int) -> None:
        super().__init__(f"{limit}: at most {most} a day, again from {resets_at}")
        self.limit = limit
        self.most = most
        self.resets_at = resets_at


class DailyLimitExhausted(Exhausted):
    """How a service refuses a call past a daily limit: RESOURCE_EXHAUSTED with the code
    ``daily_limit``; ``ErrorInfo`` holds ``limit``, ``most``, ``resets_at`` (ISO 8601, UTC
    midnight) and ``resets_at_unix``, ``RetryInfo`` the wait until then."""

    code = "daily_limit"

    def __init__(self, reached: DailyLimitReached, now: float) -> None:
        resets = dt.datetime.fromtimestamp(reached.resets_at, dt.UTC)
        self.params = {
            "limit": reached.limit,
            "most": reached.most,
            "resets_at": resets.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "resets_at_unix": reached.resets_at,
        }
        self.message = MESSAGES["en"][self.code].format(**self.params)
        super().__init__(self.message, max(1.0, reached.resets_at - now))


@contextmanager
def refused_past_limit(now: float) -> Iterator[None]:
    """Answer a :class:`DailyLimitReached` inside as :class:`DailyLimitExhausted`."""
    try:
        yield
    except DailyLimitReached as reached:
        raise DailyLimitExhausted(reached, now) from None


def day_of(now: float) -> str:
    """The UTC day of ``now`` (Unix seconds).

    >>> day_of(0.0), day_of(86399.9), day_of(86400.0)
    ('19700101', '19700101', '19700102')
    """
    return dt.datetime.fromtimestamp(now, dt.UTC).strftime("%Y%m%d")


def resets_at(now: float) -> int:
    """When the day of ``now`` ends: the next UTC midnight (Unix seconds).

    >>> resets_at(0.0), resets_at(86399.0), resets_at(86400.0)
    (86400, 86400, 172800)
    """
    return (int(now) // 86400 + 1) * 86400


def count_key(player_id: str, limit: str, now: float) -> str:
    return f"daily:{{{player_id}}}:{limit}:{day_of(now)}"


async def spend(client: redis.Redis, player_id: str, limit: str, most: int, now: float) -> int:
    """Count one against the player's ``limit`` today; the count so far, or DailyLimitReached
    (nothing counted) when it is ``most`` already."""
    ends = resets_at(now)
    counted = int(
        await client.eval(_SPEND, 1, count_key(player_id, limit, now), most, ends + KEPT_SECONDS)
    )
    if counted < 0:
        raise DailyLimitReached(limit, most, ends)
    return counted


async def remaining(client: redis.Redis, player_id: str, limit: str, most: int, now: float) -> int:
    """How many the player may still spend today; DailyLimitReached when none."""
    used = int(await client.get(count_key(player_id, limit, now)) or 0)
    if used >= most:
        raise DailyLimitReached(limit, most, resets_at(now))
    return most - used
