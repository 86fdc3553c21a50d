"""One replica's table forming: plan tables, claim their tickets, create the matches, seat them.

Every replica runs this loop over the queues holding live tickets. Each tick, per queue:

1. plan tables from the oldest waiting tickets (:mod:`maumau.matchmaking.forming`), claim them
   (one Lua script: all tickets of a table or none), create the matches on the engine and seat
   their tickets, in chunks of ``create_concurrency`` tables (one CreateMatches call each), so a
   lease only runs while its table is being created;
2. every MAINTENANCE_SECONDS: take over formations whose lease ran out (their replica died or
   hung): if the match was created (left by a late replica, or found by its seed commitment)
   seat the tickets there, else put them back in the queue; and expire the tickets whose wait
   is up.

A replica that claimed tickets owns them for ``lease_seconds``; the seating commits only while
it still does, so a ticket is seated once, by whichever replica holds its lease.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import prometheus_client
import redis.asyncio as redis

from maumau.common.lifecycle import pause
from maumau.matchmaking.forming import Policy, closest_bot_level, form_tables
from maumau.matchmaking.notify import Notifier
from maumau.matchmaking.queue import TicketQueue
from maumau.matchmaking.ratings import BOT_PREFIX, RatingLookup
from maumau.matchmaking.settings import Settings
from maumau.matchmaking.tables import MatchPlan, Tables, new_seed
from maumau.matchmaking.tickets import Formation, QueueInfo
from maumau.rules import Ruleset
from maumau.wire import BOT_LEVELS

log = logging.getLogger(__name__)

QUEUE_DEPTH = prometheus_client.Gauge(
    "matchmaking_queue_depth", "Tickets waiting, per queue (ruleset and mode).", ["queue"]
)
WAIT_SECONDS = prometheus_client.Histogram(
    "matchmaking_wait_seconds",
    "Time from queueing to the table being formed, per seated ticket.",
    ["mode"],
    buckets=(0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300),
)
TABLES_FORMED = prometheus_client.Counter(
    "matchmaking_tables_formed_total", "Tables seated, by size.", ["seats"]
)
BOT_SEATS = prometheus_client.Counter(
    "matchmaking_bot_seats_filled_total", "Seats of queued tables given to bots."
)
TICKETS_ENDED = prometheus_client.Counter(
    "matchmaking_tickets_ended_total", "Tickets cancelled or expired.", ["state"]
)
TAKEOVERS = prometheus_client.Counter(
    "matchmaking_lease_takeovers_total",
    "Formations taken over after their lease ran out: the match found (adopted) or not "
    "(returned to the queue).",
    ["outcome"],
)
TICKS = prometheus_client.Counter("matchmaking_ticks_total", "Forming ticks run.")
QUEUE_VISITS = prometheus_client.Counter(
    "matchmaking_queue_visits_total",
    "Queues visited by the forming ticks: one per queue holding live tickets, per tick.",
)
ABANDONED = prometheus_client.Counter(
    "matchmaking_abandoned_matches_total",
    "Matches created after their lease ran out and seated elsewhere; their seats go to bots.",
)

MAINTENANCE_SECONDS = 0.2
"""How often a replica takes over stalled formations and room starts, and expires tickets."""
FORGET_SECONDS = 5.0
"""How often a replica forgets tickets that ended longer ago than their retention."""

Hook = Callable[[Formation], Awaitable[None]]


@dataclass
class Hooks:
    """Test seams: awaited after a claim, and once a formation's match exists (before seating):
    created by this replica, or found by it after another's lease ran out."""

    after_claim: Hook | None = None
    after_create: Callable[[Formation, str], Awaitable[None]] | None = None


class Former:
    """The table-forming loop of one replica."""

    def __init__(
        self,
        queue: TicketQueue,
        tables: Tables,
        notifier: Notifier,
        settings: Settings,
        ratings: RatingLookup,
        replica: str,
        hooks: Hooks | None = None,
        sweep: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self.queue = queue
        self.tables = tables
        self.notifier = notifier
        self.settings = settings
        self.ratings = ratings
        self.replica = replica
        self.hooks = hooks or Hooks()
        self.sweep = sweep
        """Work of others to do each tick (the rooms' sweep of stalled starts)."""
        self._next_maintenance = 0.0
        self._next_forget = 0.0
        self._adopted = False

    async def run(self, stopping: asyncio.Event) -> None:
        """Tick until ``stopping`` is set; a tick in progress finishes first."""
        while not stopping.is_set():
            wait = self.settings.tick_seconds
            try:
                await self.tick()
            except (redis.ConnectionError, redis.TimeoutError) as error:
                log.warning("forming paused: Redis unreachable (%s)", error)
                wait = max(wait, 0.5)
            except Exception:
                log.exception("forming tick failed; trying again")
                wait = max(wait, 0.5)
            await pause(stopping, wait)

    async def tick(self) -> None:
        """Visit the queues holding live tickets (only those: a queue whose tickets are gone
        costs nothing), and every FORGET_SECONDS those with ended tickets due to be forgotten."""
        now = time.time()
        if not self._adopted:
            await self.queue.adopt_legacy()
            self._adopted = True
        queues = await self.queue.active()
        self.queue.keep_only(queues)
        random.shuffle(queues)  # replicas start on different queues
        maintain = now >= self._next_maintenance
        forget = now >= self._next_forget
        TICKS.inc()
        QUEUE_VISITS.inc(len(queues))
        for info in queues:
            if maintain:
                await self.take_over(info)
                await self.expire(info)
            if await self.form(info) == 0 and maintain:
                await self.queue.settle(info)
        if forget:
            for info in await self.queue.due_to_forget(now):
                await self.queue.forget(info, now)
        if maintain:
            self._next_maintenance = now + MAINTENANCE_SECONDS
            if self.sweep is not None:
                await self.sweep()
        if forget:
            self._next_forget = now + FORGET_SECONDS

    # ---------------------------------------------------------------- forming

    def policy(self, info: QueueInfo) -> Policy:
        s = self.settings
        return Policy(
            ranked=info.ranked,
            teams=Ruleset.parse(info.ruleset).teams,
            smaller_after=s.smaller_after_seconds,
            window=s.rating_window,
            widen_per_second=s.rating_widen_per_second,
            max_window=s.rating_max_window,
        )

    async def form(self, info: QueueInfo) -> int:
        """Seat what tables the queue's waiting tickets make; the number of tickets waiting."""
        ratings = self.ratings if info.ranked else None
        waiting = await self.queue.waiting(info, self.settings.batch, ratings)
        depth = len(waiting)
        if depth >= self.settings.batch:
            depth = await self.queue.depth(info)
        QUEUE_DEPTH.labels(info.name).set(depth)
        tables = form_tables(waiting, self.policy(info), time.time())
        chunk = self.settings.create_concurrency
        for start in range(0, len(tables), chunk):
            seeds: dict[str, str] = {}
            formations = []
            for table in tables[start : start + chunk]:
                seed, commitment = new_seed()
                formation = Formation.of(table, commitment)
                seeds[formation.formation_id] = seed
                formations.append(formation)
            lease_until = time.time() + self.settings.lease_seconds
            claimed = await self.queue.claim(info, formations, self.replica, lease_until)
            created = await self.create(info, claimed, seeds)
            await self.seat(info, [(f, m) for f, m in zip(claimed, created, strict=True) if m])
        return depth

    async def create(
        self, info: QueueInfo, claimed: list[Formation], seeds: dict[str, str]
    ) -> list[str | None]:
        """Create the claimed tables' matches (CreateMatches, each formation's id its request
        id); their ids. None each on failure: the formations stay leased, and when the lease
        runs out a replica finds the match or returns the tickets."""
        if not claimed:
            return []
        if self.hooks.after_claim is not None:
            for formation in claimed:
                await self.hooks.after_claim(formation)
        try:
            levels = await asyncio.gather(*(self.bot_level(info, f) for f in claimed))
            match_ids = await self.tables.create_many(
                [
                    (self.plan(info, f, level), seeds[f.formation_id], f.formation_id)
                    for f, level in zip(claimed, levels, strict=True)
                ]
            )
        except Exception as error:
            log.warning(
                "creating tables %s failed (%r); retried after their lease",
                ", ".join(f.formation_id for f in claimed),
                error,
            )
            return [None] * len(claimed)
        if self.hooks.after_create is not None:
            for formation, match_id in zip(claimed, match_ids, strict=True):
                await self.hooks.after_create(formation, match_id)
        return list(match_ids)

    async def bot_level(self, info: QueueInfo, formation: Formation) -> str:
        """The bots of a table: in a ranked one the level whose rating is closest to the
        table's (bot levels are rated as ``bot:<level>``), else the configured level."""
        if not info.ranked or not formation.bot_seats:
            return self.settings.bot_level
        found = await self.ratings(info.preset, [BOT_PREFIX + level for level in BOT_LEVELS])
        ratings = dict(zip(BOT_LEVELS, found, strict=True))
        return closest_bot_level(formation.rating, ratings, self.settings.bot_level)

    def plan(self, info: QueueInfo, formation: Formation, bot_level: str) -> MatchPlan:
        return MatchPlan(
            ruleset=info.ruleset,
            seats=formation.seats,
            seating=formation.seating,
            bots={seat: bot_level for seat in formation.bot_seats},
            ranked=info.ranked,
            turn_seconds=self.settings.turn_seconds,
        )

    async def seat(self, info: QueueInfo, seatings: list[tuple[Formation, str]]) -> None:
        """Seat each formation's tickets at its match while its lease is this replica's."""
        outcomes = await self.queue.commit(info, seatings, self.replica)
        seated: list[str] = []
        mode = "ranked" if info.ranked else "casual"
        for (formation, match_id), (outcome, first) in zip(seatings, outcomes, strict=True):
            if outcome == "ok":
                TABLES_FORMED.labels(str(formation.seats)).inc()
                BOT_SEATS.inc(len(formation.bot_seats))
                for ticket_id, queued_at, _ in formation.tickets:
                    WAIT_SECONDS.labels(mode).observe(formation.formed_at - queued_at)
                    seated.append(f"t:{ticket_id}")
            elif outcome == "gone" and (first is None or first.match_id != match_id):
                # The lease ran out, and the replica that took over returned the tickets to
                # the queue: nobody will be told of this match.
                log.warning("match %s was created too late for its table; abandoning it", match_id)
                ABANDONED.inc()
                await self.tables.abandon(match_id, formation.seating)
        await self.notifier.publish(seated)

    # ---------------------------------------------------------------- recovery

    async def take_over(self, info: QueueInfo) -> None:
        for formation, left in await self.queue.reclaim(info, self.replica, time.time()):
            try:
                match_id = left or await self.tables.find(
                    formation.seating[0][0], formation.commitment
                )
            except Exception as error:
                log.warning("looking up table %s: %r", formation.formation_id, error)
                continue  # this replica's lease now; looked at again when it runs out
            if match_id is None:
                outcome, match_id = await self.queue.give_back(info, formation, self.replica)
                if outcome == "returned":
                    TAKEOVERS.labels("returned").inc()
                    continue
                if outcome == "lost":
                    continue
            TAKEOVERS.labels("adopted").inc()
            if self.hooks.after_create is not None:
                await self.hooks.after_create(formation, match_id)
            await self.seat(info, [(formation, match_id)])

    async def expire(self, info: QueueInfo) -> None:
        expired = await self.queue.expire(info, time.time())
        if expired:
            TICKETS_ENDED.labels("expired").inc(len(expired))
            await self.notifier.publish(f"t:{ticket_id}" for ticket_id in expired)
