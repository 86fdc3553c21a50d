"""One replica's arena tick: read each pool, form tables (:mod:`maumau.matchmaking.arena`, pure),
lease their bots, create the rated matches on the engine as the queue does, and tell each bot its
seat. Each started match counts against its bots' daily bot-vs-bot limit; a bot at the limit,
paused, or without an open event stream is not seated (:func:`maumau.matchmaking.arena.may_play`).

A table's bots are leased for ``claim_seconds`` while its match is created, then for
``match_seconds`` (the longest a match may last) once it is; a replica that dies in between
leaves nothing behind: the lease runs out and the bots are free again (:mod:`arena_pool`).
Telling a bot its seat is ``announce``'s (:func:`account_notices`: the account's event stream,
a SeatMatchStarted event with the seat token); a match is created once per formation id, so a
retried creation seats nobody twice. Each match is marked as one of bot accounts
(:func:`maumau.common.account_events.mark_match`), so the Accounts service tells every seat its
end (MatchFinished), as it does a challenge's.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace

import grpc
import prometheus_client
import redis.asyncio as redis

from maumau.common import account_events, daily_limits
from maumau.common.lifecycle import pause
from maumau.matchmaking.arena import (
    MAX_SEATS,
    MIN_SEATS,
    ArenaRules,
    arena_tables,
    strikes_pause,
)
from maumau.matchmaking.arena_pool import ArenaPool
from maumau.matchmaking.forming import Table
from maumau.matchmaking.ratings import RatingLookup
from maumau.matchmaking.tables import MatchPlan, Tables, new_seed
from maumau.v1 import arena_pb2, game_pb2

log = logging.getLogger(__name__)

ARENA_POOL = prometheus_client.Gauge(
    "matchmaking_arena_pool_size", "Bots free to be seated in the arena, per preset.", ["preset"]
)
ARENA_PAUSES = prometheus_client.Counter(
    "matchmaking_arena_pauses_total", "Bots paused from the arena for repeated timeouts."
)
ARENA_MATCHES = prometheus_client.Counter(
    "matchmaking_arena_matches_total", "Arena matches created, by table size.", ["seats"]
)
for _seats in range(MIN_SEATS, MAX_SEATS + 1):
    ARENA_MATCHES.labels(str(_seats))  # each series from 0, so rates and panels have data at once


@dataclass(frozen=True)
class Seated:
    """A bot's seat at a new arena match, for its MatchStarted event."""

    bot_id: str
    match_id: str
    seat: int
    seat_token: str
    preset: str
    seats: int


Announce = Callable[[Seated], Awaitable[None]]
Paused = Callable[[str, float], Awaitable[None]]
"""(bot id, paused until, Unix seconds): tell the bot it is paused (an ArenaPaused event)."""


def account_notices(client: redis.Redis) -> tuple[Announce, Paused]:
    """Seats and pauses told on each bot account's event stream (:mod:`account_events`): a
    SeatMatchStarted with the seat token, an ArenaPaused with when the pause ends."""

    async def seat(seated: Seated) -> None:
        started = arena_pb2.SeatMatchStarted(
            match_id=seated.match_id,
            seat=seated.seat,
            seat_token=seated.seat_token,
            ruleset_text=seated.preset,
            rated=True,
            arena=True,
        )
        await account_events.publish(
            client, seated.bot_id, arena_pb2.AccountEvent(match_started=started)
        )

    async def paused(bot_id: str, until: float) -> None:
        pause = arena_pb2.ArenaPaused(until_unix_ms=round(until * 1000), reason=PAUSE_REASON)
        await account_events.publish(client, bot_id, arena_pb2.AccountEvent(arena_paused=pause))

    return seat, paused


PAUSE_REASON = "timeouts"
"""ArenaPaused.reason of a pause for turns that timed out until the stand-in took the seat."""


class ArenaFormer:
    """The arena's part of a matchmaker replica's loop: :meth:`tick` once per tick."""

    def __init__(
        self,
        pool: ArenaPool,
        tables: Tables,
        ratings: RatingLookup,
        announce: Announce,
        paused: Paused,
        rules: ArenaRules,
        presets: Sequence[str],
        claim_seconds: float = 10.0,
        match_seconds: float = 3 * 3600.0,
        turn_seconds: int = 0,
    ) -> None:
        self.pool = pool
        self.tables = tables
        self.ratings = ratings
        self.announce = announce
        self.paused = paused
        self.rules = rules
        self.presets = presets
        self.claim_seconds = claim_seconds
        self.match_seconds = match_seconds
        self.turn_seconds = turn_seconds
        """The matches' turn timer (0: none), so a bot that stops answering is timed out."""

    async def run(self, stopping: asyncio.Event, tick_seconds: float) -> None:
        """Tick every ``tick_seconds`` until ``stopping`` is set; a tick in progress finishes
        first, and one that fails is tried again a tick later."""
        while not stopping.is_set():
            try:
                await self.tick(time.time())
            except (redis.ConnectionError, redis.TimeoutError) as error:
                log.warning("arena paused: Redis unreachable (%s)", error)
            except Exception:
                log.exception("arena tick failed; trying again")
            await pause(stopping, tick_seconds)

    async def result(self, result: game_pb2.MatchResult) -> list[str]:
        """:meth:`match_over` now: what the results consumer calls for every result."""
        return await self.match_over(result, time.time())

    async def tick(self, now: float) -> list[Seated]:
        """Form and create every arena table that may form at ``now``; the seats announced."""
        seated: list[Seated] = []
        for preset in self.presets:
            waiting = await self.pool.waiting(preset, now)
            ARENA_POOL.labels(preset).set(len(waiting))
            if len(waiting) < 2:
                continue
            ladder = preset.split()[0]  # ratings are kept per preset name, as the queue's
            rated = await self.ratings(ladder, [entry.bot_id for entry in waiting])
            entries = [replace(e, rating=r) for e, r in zip(waiting, rated, strict=True)]
            claimed = []
            for table in arena_tables(entries, self.rules, now):
                bots = [bot for bot, _ in table.seating]
                if await self.pool.claim(preset, bots, now, now + self.claim_seconds):
                    claimed.append(table)
            if claimed:
                seated += await self._create(preset, claimed, now)
        return seated

    async def match_over(self, result: game_pb2.MatchResult, now: float) -> list[str]:
        """A finished match (the results stream's): each of its bots that played it for the
        arena is free again, waiting from ``now``; a seat that left (its turns timed out until
        the engine's stand-in took it) is a strike, and a bot with enough strikes is paused and
        told so. The bots paused now."""
        if result.ruleset not in self.presets:
            return []
        paused = []
        for seat in result.seats:
            if not seat.player_id:
                continue
            bot = seat.player_id
            if await self.pool.requeue(bot, result.ruleset, now) < 0 or not seat.left:
                continue
            window = self.rules.strike_window_seconds
            strikes = await self.pool.strike(bot, result.match_id, now, window)
            until = strikes_pause(strikes, self.rules, now)
            if until is not None:
                await self.pool.pause(bot, until, now)
                await self.paused(bot, until)
                ARENA_PAUSES.inc()
                paused.append(bot)
        return paused

    async def _create(self, preset: str, claimed: list[Table], now: float) -> list[Seated]:
        """Create the matches of ``claimed`` (their leases held meanwhile) and announce them;
        on an engine that cannot answer the leases run out and the bots wait again."""
        plans = [
            (
                MatchPlan(
                    ruleset=preset,
                    seats=t.seats,
                    seating=t.seating,
                    bots={},
                    ranked=True,
                    turn_seconds=self.turn_seconds,
                ),
                new_seed()[0],
                f"arena-{secrets.token_hex(12)}",
            )
            for t in claimed
        ]
        try:
            match_ids = await self.tables.create_many(plans)
        except grpc.aio.AioRpcError as error:
            log.warning("arena: %d %s matches not created: %s", len(plans), preset, error)
            return []
        seated = []
        for table, match_id in zip(claimed, match_ids, strict=True):
            bots = [bot for bot, _ in table.seating]
            await self.pool.extend(preset, bots, now + self.match_seconds)
            ARENA_MATCHES.labels(str(table.seats)).inc()
            await account_events.mark_match(self.pool.redis, match_id, "arena")
            for bot in bots:
                await self._count(bot, now)
            for bot, seat in table.seating:
                token = self.tables.seat_token(match_id, seat, bot)
                seat_of = Seated(bot, match_id, seat, token, preset, table.seats)
                await self.announce(seat_of)
                seated.append(seat_of)
        return seated

    async def _count(self, bot: str, now: float) -> None:
        """Count a started match against the bot's daily bot-vs-bot limit. Its pool entry was
        under the limit when read; a challenge started since may have reached it, and then the
        match is played all the same."""
        with contextlib.suppress(daily_limits.DailyLimitReached):
            await daily_limits.spend(
                self.pool.redis, bot, daily_limits.BOT_MATCHES, self.rules.daily_matches, now
            )
