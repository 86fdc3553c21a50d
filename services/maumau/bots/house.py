"""The platform's own levels playing as bots: each level a bot account of the house that waits in
the arena's pools and plays every seat it is given to its end through the engine's Follow,
GetView and Act with the seat's token, as any third-party bot plays, each decision the level's
(:func:`maumau.policies.decide`). So every level has an honest rating on the bots' ladder.

Playing through the SDK (``maumau_sdk.Seat.play``) keeps the house bots honest: they see what a
bot author's program sees, resume broken streams the same way and are refused the same way, so
their ratings on the bots' ladder are those of programs like the others.

The house runs in the Bots service's process when ``MAUMAU_BOTS_HOUSE_LEVELS`` names levels
(:class:`House`). Its accounts are made once and found again through the hash ``bots:house``
(level -> player id): each is a player of the directory (``player:{<id>}``) named as its level
is shown (``Random``, ``Heuristic``, ``Strong``: names no person may claim) and marked ``bot``
and ``house``, so it is shown as BOT and rated on the bots' ladder like any bot account; the
arena seats it beside other bots only (the levels play whoever comes, not one another alone)
and holds it to no daily limit. One Bots replica at a
time plays each level, holding ``bots:house-lease:<level>`` (its replica id, expiring
:data:`LEASE_SECONDS` after its latest renewal). A house bot needs no sign-in:
it hears its seats from its account's event stream in Redis and keeps its presence there
(:mod:`maumau.common.account_events`), and joins the arena with a player token the house issues
itself (JoinArena, as any bot does).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import Sequence

import grpc
import prometheus_client
import redis.asyncio as redis

from maumau.bots.service import DEFAULT_BUDGET_MS, budget_for
from maumau.common import account_events, tokens
from maumau.common.lifecycle import pause
from maumau.common.players import BOT, HOUSE, player_key
from maumau.common.redis_client import connect
from maumau.policies import decide
from maumau.rules import Action, Ruleset
from maumau.rules.errors import BadInput
from maumau.v1 import arena_pb2, matchmaking_pb2, matchmaking_pb2_grpc
from maumau.wire import BOT_LEVELS
from maumau_sdk import Platform, Player, View

log = logging.getLogger(__name__)

HOUSE_KEY = "bots:house"
"""The house's accounts: a hash of level -> player id (written once per level)."""
LEASE_SECONDS = 15.0
"""How long a Bots replica plays a level's house bot without renewing its lease (it does every
few seconds): one replica at a time plays each level, another takes over when it dies."""
LISTENER = "house"
"""The house's member of each of its accounts' ``online:{<id>}``."""
SEAT_COUNTS = (2, 3, 4)
"""The table sizes the house takes, those a pool's ruleset is played at, the smallest first."""
PRESENT_SECONDS = 30.0
"""How long a house bot's presence lasts unless renewed (it is, with the lease)."""
READ_MS = 1000
"""How long one read of a house bot's events waits for one."""
TOKEN_SECONDS = 3600
"""The lifetime of the player token a house bot joins the arena with (issued again hourly)."""

HOUSE_SEATS = prometheus_client.Counter(
    "bots_house_seats_total",
    "Arena seats the house played to the end, or failed to, by level.",
    ["level", "outcome"],
)
for _level in BOT_LEVELS:
    for _outcome in ("played", "failed"):
        HOUSE_SEATS.labels(_level, _outcome)  # each series from 0, so panels have data at once


# KEYS[1] a level's lease; ARGV[1] the replica, ARGV[2] ms. Renews it if the replica holds it.
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
"""
# KEYS[1] a level's lease; ARGV[1] the replica. Ends it if the replica holds it.
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


def lease_key(level: str) -> str:
    """Which Bots replica plays the house bot of ``level`` now."""
    return f"bots:house-lease:{level}"


def display_name(level: str) -> str:
    """The name a level's house bot is shown with: the level's, as the tables show it.

    >>> display_name("heuristic")
    'Heuristic'
    """
    return level.capitalize()


async def house_account(client: redis.Redis, level: str) -> str:
    """The player id of the house bot of ``level``, made the first time it is asked for (every
    replica finds the same one); its directory entry written each time, so it stays a bot of
    its level's name."""
    await client.hsetnx(HOUSE_KEY, level, tokens.new_id())
    found = await client.hget(HOUSE_KEY, level)
    assert found is not None
    player_id = found.decode() if isinstance(found, bytes) else str(found)
    await client.hset(
        player_key(player_id), mapping={"name": display_name(level), BOT: "1", HOUSE: "1"}
    )
    return player_id


async def play_seat(
    player: Player,
    match_id: str,
    seat: int,
    seat_token: str,
    level: str,
    rng: random.Random,
    budget_seconds: float = DEFAULT_BUDGET_MS / 1000,
) -> View:
    """Play ``seat`` of ``match_id`` as ``level`` until the match is over; the final view. A
    decision runs in a worker thread: ``strong`` thinks for ``budget_seconds`` (a fifth of a
    second by default), which would stall every other seat the runner plays."""
    table = await player.seat_at(match_id, seat, seat_token)

    async def choose(view: View) -> Action:
        return await asyncio.to_thread(decide, view.rules, level, rng, budget_seconds)

    return await table.play(choose)


def seat_counts(ruleset: str) -> list[int]:
    """The sizes of :data:`SEAT_COUNTS` ``ruleset`` is played at.

    >>> seat_counts("online"), seat_counts("colour target=0 teams=true")
    ([2, 3, 4], [4])
    """
    parsed = Ruleset.parse(ruleset)
    sizes = []
    for size in SEAT_COUNTS:
        with contextlib.suppress(BadInput):
            parsed.check_seats(size)
            sizes.append(size)
    return sizes


class House:
    """The house's bots of ``levels``: :meth:`run` until stopped."""

    def __init__(
        self,
        redis_url: str,
        secret: bytes,
        levels: Sequence[str],
        engine_address: str,
        matchmaking_address: str,
        max_budget_ms: int = DEFAULT_BUDGET_MS,
    ) -> None:
        self.redis_url = redis_url
        # the operator's ceiling on a decision's thinking holds for the house's seats too
        self.budget_seconds = budget_for(0, max_budget_ms) / 1000
        self.redis: redis.Redis
        """The platform's Redis while :meth:`run` runs (a cluster's client on a cluster)."""
        self.secret = secret
        self.replica = tokens.new_id(8)
        self.levels = tuple(levels)
        self.engine_address = engine_address
        self.matchmaking_address = matchmaking_address

    async def run(self, stopping: asyncio.Event) -> None:
        """Every level's bot listens, joins the arena's pools and plays its seats until
        ``stopping``; then it leaves the pools (seats in play are given up: the engine's
        stand-in plays them)."""
        self.redis = await connect(self.redis_url)
        try:
            await self._run(stopping)
        finally:
            await self.redis.aclose()

    async def _run(self, stopping: asyncio.Event) -> None:
        async with (
            Platform.connect(
                self.engine_address, matchmaking_address=self.matchmaking_address
            ) as platform,
            grpc.aio.insecure_channel(self.matchmaking_address) as channel,
        ):
            arena = matchmaking_pb2_grpc.MatchmakingServiceStub(channel)
            async with asyncio.TaskGroup() as group:
                for level in self.levels:
                    group.create_task(self._bot(level, platform, arena, stopping))

    async def _bot(
        self,
        level: str,
        platform: Platform,
        arena: matchmaking_pb2_grpc.MatchmakingServiceAsyncStub,
        stopping: asyncio.Event,
    ) -> None:
        """One level's bot, kept running through failures of Redis or the services."""
        bot_id = ""
        seats: set[asyncio.Task[None]] = set()
        while not stopping.is_set():
            try:
                bot_id = bot_id or await house_account(self.redis, level)
                if await self._lease(level, take=True):
                    await self._serve(level, bot_id, platform, arena, seats, stopping)
                else:  # another replica plays it
                    await pause(stopping, LEASE_SECONDS / 3)
            except grpc.aio.AioRpcError as error:
                log.warning(
                    "house %s: %s %s; trying again", level, error.code().name, error.details()
                )
                await pause(stopping, 1.0)
            except (redis.RedisError, OSError) as error:
                log.warning("house %s: %r; trying again", level, error)
                await pause(stopping, 1.0)
        for task in seats:
            task.cancel()
        with contextlib.suppress(redis.RedisError, grpc.aio.AioRpcError):
            if bot_id and await self._lease(level, take=False):
                await account_events.absent(self.redis, bot_id, LISTENER)
                await arena.LeaveArena(
                    matchmaking_pb2.LeaveArenaRequest(),
                    metadata=tokens.bearer_metadata(self._token(bot_id)),
                    timeout=5,
                )
                await self.redis.eval(_RELEASE, 1, lease_key(level), self.replica)

    async def _lease(self, level: str, *, take: bool) -> bool:
        """Renew this replica's lease on ``level`` (and with ``take`` take a free one);
        whether this replica holds it."""
        key, ms = lease_key(level), int(LEASE_SECONDS * 1000)
        if take and await self.redis.set(key, self.replica, nx=True, px=ms):
            return True
        return bool(await self.redis.eval(_RENEW, 1, key, self.replica, ms))

    def _token(self, bot_id: str) -> str:
        """A player token of the house bot, for its own calls alone (never handed out)."""
        return tokens.issue_player_token(self.secret, bot_id, ttl_seconds=TOKEN_SECONDS)

    async def _serve(
        self,
        level: str,
        bot_id: str,
        platform: Platform,
        arena: matchmaking_pb2_grpc.MatchmakingServiceAsyncStub,
        seats: set[asyncio.Task[None]],
        stopping: asyncio.Event,
    ) -> None:
        """Listen first (the arena seats a bot only while it is present), then join every pool
        and renew the entries halfway to their end, playing each seat as it is told."""
        after = await account_events.last_id(self.redis, bot_id)
        player = platform.player(bot_id, self._token(bot_id), display_name(level))
        rng = random.Random()
        present_at = renew_at = 0.0
        token_at = time.time() + TOKEN_SECONDS / 2
        while not stopping.is_set():
            now = time.time()
            if now >= present_at:
                if not await self._lease(level, take=False):
                    return  # another replica took the level over; seats in play play on
                await account_events.present(self.redis, bot_id, LISTENER, now + PRESENT_SECONDS)
                present_at = now + LEASE_SECONDS / 3
            if now >= token_at:
                player.token = self._token(bot_id)
                token_at = now + TOKEN_SECONDS / 2
            metadata = tokens.bearer_metadata(player.token)
            if now >= renew_at:
                renew_at = await self._join(arena, metadata, level, now)
            for event in await account_events.read_after(
                self.redis, bot_id, after, count=100, block_ms=READ_MS
            ):
                after = event.event_id
                if event.WhichOneof("kind") == "match_started":
                    task = asyncio.create_task(self._play(player, level, event.match_started, rng))
                    seats.add(task)
                    task.add_done_callback(seats.discard)

    async def _join(
        self,
        arena: matchmaking_pb2_grpc.MatchmakingServiceAsyncStub,
        metadata: tuple[tuple[str, str], ...],
        level: str,
        now: float,
    ) -> float:
        """Join (or renew) every pool of the arena; when to renew next. A refused join (the
        day's matches played) is tried again a minute later."""
        listed = await arena.ListArenaPools(
            matchmaking_pb2.ListArenaPoolsRequest(),
            metadata=metadata,
            timeout=10,
            wait_for_ready=True,  # the matchmaker may start after the Bots service
        )
        renew = now + 60.0
        for pool in listed.pools:
            sizes = seat_counts(pool.ruleset_text)
            if not sizes:
                continue  # a pool of larger tables only: the house plays small ones
            request = matchmaking_pb2.JoinArenaRequest(ruleset=pool.ruleset, seat_counts=sizes)
            try:
                joined = await arena.JoinArena(
                    request, metadata=metadata, timeout=10, wait_for_ready=True
                )
            except grpc.aio.AioRpcError as error:
                if error.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
                    raise
                log.info("house %s: %s", level, error.details())
                continue
            renew = min(renew, now + (joined.renew_before_unix_ms / 1000 - now) / 2)
        return renew

    async def _play(
        self, player: Player, level: str, started: arena_pb2.SeatMatchStarted, rng: random.Random
    ) -> None:
        try:
            await play_seat(
                player,
                started.match_id,
                started.seat,
                started.seat_token,
                level,
                rng,
                self.budget_seconds,
            )
        except Exception as error:  # one seat's failure is no reason to stop the others
            HOUSE_SEATS.labels(level, "failed").inc()
            log.warning("house %s: seat %d of %s: %r", level, started.seat, started.match_id, error)
            return
        HOUSE_SEATS.labels(level, "played").inc()
