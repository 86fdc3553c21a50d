"""Each account's events in Redis, the contract between whoever tells an account something (the
arena's challenges, the matchmaker's bot arena pool) and the Arena service's ``Events`` stream
that delivers it.

An account's events are the Redis stream ``events:{<player_id>}``: one entry per
``maumau.v1.AccountEvent``, its field ``event`` the event's serialized bytes (``event_id`` left
empty: the entry's id is the event's id). Every add trims the stream to about
:data:`MAX_EVENTS` entries (XADD MAXLEN ~) and sets its EXPIRE to :data:`TTL_SECONDS` (a day),
so an account nobody tells anything keeps nothing. Writers call :func:`publish`; the one reader
is :func:`read_after`, which a resuming stream calls with the last id it delivered.

Who is listening is the sorted set ``online:{<player_id>}``: a member per listener (an Accounts
replica with a stream of the account open, see ``maumau.accounts.event_feeds``), scored by when
its presence lapses (Unix ms) unless renewed; a bot's is also in ``arena:online-bots`` (bot ->
lapse), which ListOnlineBots pages through. :func:`online` reads them, so the matchmaker seats
only bots that would hear their seat; a listener of its own (the house's bots,
``maumau.bots.house``) keeps its presence with :func:`present` and :func:`absent`.

A match started for bot accounts (a challenge's, the arena pool's) is marked
``arena:match:{<match_id>}`` (what started it) by :func:`mark_match`, kept
:data:`MARK_SECONDS`: the Accounts replicas tell each seat of a marked match its end
(``MatchFinished``, ``maumau.accounts.match_results``) and drop the mark."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import prometheus_client
import redis.asyncio as redis

from maumau.v1 import arena_pb2

MAX_EVENTS = 500
"""About how many events an account's stream keeps (trimmed with MAXLEN ~)."""
TTL_SECONDS = 24 * 3600
"""An account's stream ends this long after its latest event."""
FIELD = b"event"
ONLINE_BOTS = "arena:online-bots"
MARK_SECONDS = 8 * 86400
"""How long a started match stays marked: longer than any match is played."""

PUBLISHED = prometheus_client.Counter(
    "maumau_account_events_published_total",
    "Events added to accounts' event streams, by kind.",
    ["kind"],
)


def events_key(player_id: str) -> str:
    """The account's event stream (see the module's docstring)."""
    return f"events:{{{player_id}}}"


async def publish(client: redis.Redis, player_id: str, event: arena_pb2.AccountEvent) -> str:
    """Add ``event`` to the account's stream; the entry's id (the event's id)."""
    key = events_key(player_id)
    stored = arena_pb2.AccountEvent()
    stored.CopyFrom(event)
    stored.event_id = ""
    async with client.pipeline(transaction=True) as pipe:
        pipe.xadd(key, {FIELD: stored.SerializeToString()}, maxlen=MAX_EVENTS, approximate=True)
        pipe.expire(key, TTL_SECONDS)
        entry_id, _ = cast(tuple[bytes, Any], await pipe.execute())
    PUBLISHED.labels(event.WhichOneof("kind") or "none").inc()
    return entry_id.decode()


async def read_after(
    client: redis.Redis, player_id: str, after_id: str, *, count: int, block_ms: int | None
) -> Sequence[arena_pb2.AccountEvent]:
    """Up to ``count`` events after ``after_id`` (an entry id, or "$" for only new ones), each
    with its ``event_id``; waits up to ``block_ms`` for one (None: does not wait). An id older
    than the kept events reads from the oldest kept."""
    answer = cast(
        list[tuple[bytes, list[tuple[bytes, dict[bytes, bytes]]]]] | None,
        await client.xread({events_key(player_id): after_id}, count=count, block=block_ms),
    )
    events: list[arena_pb2.AccountEvent] = []
    for _key, entries in answer or []:
        for entry_id, fields in entries:
            event = arena_pb2.AccountEvent.FromString(fields[FIELD])
            event.event_id = entry_id.decode()
            events.append(event)
    return events


async def last_id(client: redis.Redis, player_id: str) -> str:
    """The id of the account's latest event, or "0-0" when it has none: where "from now on"
    starts, so nothing added between two reads is missed."""
    latest = cast(list[tuple[bytes, Any]], await client.xrevrange(events_key(player_id), count=1))
    return latest[0][0].decode() if latest else "0-0"


def online_key(player_id: str) -> str:
    """The account's listeners, each scored by when it lapses (see the module's docstring)."""
    return f"online:{{{player_id}}}"


async def online(client: redis.Redis, player_ids: Sequence[str], now: float) -> set[str]:
    """Those of ``player_ids`` with a listener whose presence has not lapsed at ``now`` (Unix
    seconds); one key each, so it works on a Redis Cluster."""
    if not player_ids:
        return set()
    now_ms = int(now * 1000)
    async with client.pipeline(transaction=False) as pipe:
        for player_id in player_ids:
            pipe.zcount(online_key(player_id), now_ms, "+inf")
        counts = await pipe.execute()
    return {player for player, count in zip(player_ids, counts, strict=True) if int(count)}


async def present(client: redis.Redis, bot_id: str, listener: str, until: float) -> None:
    """``listener`` hears the bot's events until ``until`` (Unix seconds) unless renewed."""
    lapse = int(until * 1000)
    key = online_key(bot_id)
    async with client.pipeline(transaction=False) as pipe:
        pipe.zadd(key, {listener: lapse})
        pipe.pexpireat(key, lapse)
        pipe.zadd(ONLINE_BOTS, {bot_id: lapse}, gt=True)
        await pipe.execute()


async def absent(client: redis.Redis, bot_id: str, listener: str) -> None:
    """``listener`` stopped hearing the bot's events (others may still)."""
    await client.zrem(online_key(bot_id), listener)
    if not await client.zcard(online_key(bot_id)):
        await client.zrem(ONLINE_BOTS, bot_id)


def match_mark_key(match_id: str) -> str:
    """The mark of a match whose end its seats' accounts hear (see the module's docstring)."""
    return f"arena:match:{{{match_id}}}"


async def mark_match(client: redis.Redis, match_id: str, started_by: str) -> None:
    """Note that ``match_id`` was started for bot accounts, so its end is told to its seats."""
    await client.set(match_mark_key(match_id), started_by, ex=MARK_SECONDS)
