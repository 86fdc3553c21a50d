"""Driving tournaments: one replica at a time per tournament, under a lease.

Every replica runs :meth:`Driver.run`. Tournaments that need a replica sit in the sorted set
``tournaments:due`` (store module); a replica claims the due ones (one Lua script pushes each a
lease into the future), takes the tournament's owner key, and drives it until it is over or the
lease is lost: it starts the block (one engine match per table, created under the lease), follows
each match's events to count its rounds as they end, waits for every table's result from the
results stream, re-seats and starts the next block, plays the deciding rounds, makes the final
ranking, and adds it to the championship. Every step is a compare-and-set of an idempotent change
(:mod:`maumau.tournaments.state`), so a replica that dies anywhere leaves a state another one
continues from, after the lease: no round is counted twice, and no block's match is created
twice (see :mod:`maumau.tournaments.engine`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial

import grpc
import prometheus_client
import redis.asyncio as redis

from maumau.common.lifecycle import pause
from maumau.rules import Ruleset
from maumau.tournaments import ranking
from maumau.tournaments.engine import Engine, new_seed
from maumau.tournaments.settings import Settings
from maumau.tournaments.state import (
    CANCELLED,
    DECIDING,
    FINISHED,
    OVER,
    PLAYING,
    REGISTRATION,
    Events,
    Tournament,
    championship_decider,
)
from maumau.tournaments.store import AlreadyExists, NotFound, TournamentStore

log = logging.getLogger(__name__)

DRIVEN = prometheus_client.Gauge(
    "tournaments_driven", "Tournaments this replica drives now (holds the lease of)."
)
STUCK = prometheus_client.Gauge(
    "tournaments_stuck",
    "Tournaments overdue for a replica for longer than STUCK_AFTER_SECONDS: between blocks or "
    "mid-block with nobody driving them (alert when above 0).",
)
BLOCKS_STARTED = prometheus_client.Counter(
    "tournaments_blocks_started_total", "Block and deciding-round matches created on the engine."
)
ROUNDS_COUNTED = prometheus_client.Counter(
    "tournaments_rounds_counted_total", "Rounds of tournament tables counted into the standings."
)
TAKEOVERS = prometheus_client.Counter(
    "tournaments_match_takeovers_total",
    "Match creations of a replica that died, taken over (repeated with the same request id).",
)
DECIDERS_SCHEDULED = prometheus_client.Counter(
    "tournaments_championship_deciders_total",
    "Deciding tournaments scheduled for championship ties.",
)
BETWEEN_BLOCKS = prometheus_client.Histogram(
    "tournaments_between_blocks_seconds",
    "Time from the last table of a block being done to every table of the next one created.",
    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60),
)
FINISHED_TOTAL = prometheus_client.Counter(
    "tournaments_finished_total", "Tournaments that ended, by status.", ["status"]
)

Clock = Callable[[], float]
FALLBACK_RESULT_SECONDS = 5.0
"""A match seen over without its result from the results stream for this long (e.g. adopted
after its result went by) is counted from its own final event instead."""
MAINTENANCE_SECONDS = 5.0
DECIDERS_SETTLE_SECONDS = 600.0
"""The championship's deciding tournaments are made this long after the year ends, when the
tournaments that finished just before it are counted."""


@dataclass
class Hooks:
    """Test seam: awaited after a block's match is created, before it is recorded."""

    after_create: Callable[[str, str], Awaitable[None]] | None = None


class Driver:
    def __init__(
        self,
        store: TournamentStore,
        engine: Engine,
        settings: Settings,
        replica: str,
        clock: Clock = time.time,
        hooks: Hooks | None = None,
    ) -> None:
        self.store = store
        self.engine = engine
        self.settings = settings
        self.replica = replica
        self.clock = clock
        self.hooks = hooks or Hooks()
        self._driving: dict[str, asyncio.Task[None]] = {}
        self._stopping = asyncio.Event()
        self._deciders_scheduled_for = 0
        """The last championship year whose deciding tournaments this replica has scheduled."""

    async def run(self, stopping: asyncio.Event) -> None:
        self._stopping = stopping
        try:
            await self._claim_until(stopping)
        finally:  # also when cancelled: no tournament's task outlives the worker
            tasks = list(self._driving.values())
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    async def _claim_until(self, stopping: asyncio.Event) -> None:
        """Each tick, claim the due tournaments and drive each in a task of its own."""
        next_maintenance = 0.0
        while not stopping.is_set():
            try:
                now = self.clock()
                for tournament_id in await self.store.claim_due(
                    now, self.settings.lease_seconds, 50
                ):
                    if tournament_id not in self._driving:
                        task = asyncio.create_task(self._drive(tournament_id))
                        self._driving[tournament_id] = task
                        task.add_done_callback(partial(self._ended, tournament_id))
                if now >= next_maintenance:
                    next_maintenance = now + MAINTENANCE_SECONDS
                    await self.store.forget_expired(now)
                    await self._schedule_championship_deciders(now)
                    STUCK.set(await self.store.count_due(now - self.settings.stuck_after_seconds))
            except (redis.ConnectionError, redis.TimeoutError) as error:
                log.warning("driving paused: Redis unreachable (%s)", error)
            except Exception:
                log.exception("claiming tournaments failed; trying again")
            await pause(stopping, self.settings.tick_seconds)

    def _ended(self, tournament_id: str, _task: asyncio.Task[None]) -> None:
        self._driving.pop(tournament_id, None)
        DRIVEN.set(len(self._driving))

    # ---------------------------------------------------------------- one tournament

    async def _drive(self, tournament_id: str) -> None:
        DRIVEN.set(len(self._driving))
        watchers: dict[str, asyncio.Task[None]] = {}
        lease = self.settings.lease_seconds
        try:
            while not self._stopping.is_set():
                if not await self.store.hold(tournament_id, self.replica, lease):
                    return  # another replica drives it; its lease keeps the due entry ahead
                await self.store.set_due(tournament_id, self.clock() + lease)
                try:
                    if not await self._step(tournament_id, watchers):
                        return
                except NotFound:
                    await self.store.drop_due(tournament_id)
                    return
                except (redis.ConnectionError, redis.TimeoutError, grpc.aio.AioRpcError) as error:
                    log.warning("tournament %s: %s; trying again", tournament_id, error)
                    await pause(self._stopping, 0.5)
                except Exception:
                    log.exception("tournament %s: step failed; trying again", tournament_id)
                    await pause(self._stopping, 0.5)
                await pause(self._stopping, self.settings.tick_seconds)
        finally:
            for task in watchers.values():
                task.cancel()
            await asyncio.gather(*watchers.values(), return_exceptions=True)
            with contextlib.suppress(redis.RedisError):
                await self.store.let_go(tournament_id, self.replica)

    async def _step(self, tournament_id: str, watchers: dict[str, asyncio.Task[None]]) -> bool:
        """One look at the tournament; False when this replica is done with it."""
        t = (await self.store.load(tournament_id)).tournament
        now = self.clock()
        if t.status == REGISTRATION:
            abandoned_at = t.created_at + self.settings.retention_seconds
            if not t.due_to_start(now) and now < abandoned_at:
                # Nothing to do before the start time (or the organizer's start, which sets it
                # due); a tournament nobody starts is cancelled after the retention time.
                await self.store.set_due(tournament_id, t.config.start_at or abandoned_at)
                return False
            if t.due_to_start(now):
                t = await self._change(tournament_id, lambda x: x.start(now))
            else:
                t = await self._change(tournament_id, lambda x: x.cancel("never started", now))
        if t.status in OVER:
            await self._wrap_up(t)
            return False
        targets = t.tables if t.status == PLAYING else [t.decider] if t.decider else []
        for index, match in enumerate(targets):
            if match is None:
                continue
            if not match.match_id:
                await self._create(t, index if t.status == PLAYING else -1)
            elif not match.done(t.rounds_of(match)) and match.match_id not in watchers:
                watchers[match.match_id] = asyncio.create_task(
                    self._watch(tournament_id, match.match_id)
                )
        for match_id in [m for m, task in watchers.items() if task.done()]:
            watchers.pop(match_id)
        ready = (t.status == PLAYING and t.block_done()) or (
            t.status == DECIDING and (t.decider is None or t.decider.done(1))
        )
        if ready:
            waited_from = time.monotonic()
            t = await self._change(tournament_id, lambda x: x.advance(now, self.settings.time_zone))
            BETWEEN_BLOCKS.observe(time.monotonic() - waited_from)
            if t.status in OVER:
                await self._wrap_up(t)
                return False
        return True

    async def _change(
        self, tournament_id: str, change: Callable[[Tournament], Events]
    ) -> Tournament:
        t, _ = await self.store.update(tournament_id, lambda x: (change(x), None))
        return t

    # ---------------------------------------------------------------- matches

    async def _create(self, t: Tournament, table: int) -> None:
        """Create the match of a table (``-1``: the deciding round) under this replica's lease."""
        match = t.tables[table] if table >= 0 else t.decider
        assert match is not None
        tournament_id = t.tournament_id
        people = [(seat, e) for seat, e in enumerate(match.entrants) if not _is_bot(t, e)]
        seed, commitment = new_seed()
        if match.commitment:
            # A creation of a replica that died (or of this one, failed): the same request id
            # answers with its match if the engine made one, or makes it now.
            TAKEOVERS.inc()
            commitment = match.commitment
        else:

            def begin(x: Tournament) -> Events:
                target = x.tables[table] if table >= 0 else x.decider
                if target is None or target.match_id or target.entrants != match.entrants:
                    return []
                x.begin_creation(target, commitment)
                return []

            t = await self._change(tournament_id, begin)
            target = t.tables[table] if table >= 0 else t.decider
            if target is None or target.commitment != commitment:
                return
        rounds = 1 if table < 0 else t.config.change_every
        ruleset = Ruleset.parse(t.config.ruleset)
        options = {**dict(ruleset.options), "rounds": rounds}
        bots = {
            seat: (entrant.bot_level or "heuristic") if (entrant := t.entrant(e)) else "heuristic"
            for seat, e in enumerate(match.entrants)
            if _is_bot(t, e)
        }
        match_id = await self.engine.create(
            Ruleset.create(ruleset.preset, options).text,
            people,
            bots,
            len(match.entrants),
            t.config.turn_seconds,
            seed,
            request_id=f"tournament:{tournament_id}:{commitment}",
        )
        BLOCKS_STARTED.inc()
        if self.hooks.after_create is not None:
            await self.hooks.after_create(tournament_id, match_id)
        await self._record(t, table, commitment, match_id)

    async def _record(self, t: Tournament, table: int, commitment: str, match_id: str) -> None:
        await self.store.remember_match(match_id, t.tournament_id)

        def record(x: Tournament) -> Events:
            target = x.tables[table] if table >= 0 else x.decider
            if target is None:
                return []
            return x.set_match(target, commitment, match_id, table)

        await self._change(t.tournament_id, record)

    async def _watch(self, tournament_id: str, match_id: str) -> None:
        """Count the match's rounds as they end (a repeat from a takeover is ignored); if its
        result never comes through the results stream, count the final totals seen here."""
        totals: list[int] | None = None
        while not self._stopping.is_set():
            try:
                async for event in self.engine.follow(match_id):
                    kind = event.WhichOneof("kind")
                    if kind == "round_over":
                        r = event.round_over
                        _, counted = await self.store.update(
                            tournament_id,
                            partial(_round, match_id, r.round, r.winner, r.finish, list(r.points)),
                        )
                        if counted:
                            ROUNDS_COUNTED.inc()
                    elif kind == "match_over":
                        totals = list(event.match_over.totals)
                break
            except grpc.aio.AioRpcError as error:
                log.warning("following match %s: %s; again", match_id, error.details())
                await pause(self._stopping, 0.5)
        if totals is None:
            return
        await pause(self._stopping, FALLBACK_RESULT_SECONDS)
        if not self._stopping.is_set():
            final = totals
            await self._change(tournament_id, lambda x: x.apply_result(match_id, final))

    # ---------------------------------------------------------------- the championship

    async def _schedule_championship_deciders(self, now: float) -> None:
        """Once last year is over (and its last tournaments counted), create the deciding
        tournament of each tie for a podium place, once: its id is made of the year and the
        players, so a second replica or a repeat finds the first."""
        zone = self.settings.time_zone
        year = ranking.championship_year(now, zone) - 1
        over = ranking.year_over_at(year, zone)
        if now < over + DECIDERS_SETTLE_SECONDS or year == self._deciders_scheduled_for:
            return  # a finished year's ties do not change: one pass per year is enough
        scheduled, decided = await self.store.deciders(year)
        rows = await self.store.championship(year, 1000)
        places = ranking.championship_order(
            [ranking.ChampionshipEntry(r.player, r.points, r.maumaus) for r in rows], decided
        )
        names = {r.player: r.name for r in rows}
        keep = self.settings.championship_retention_seconds
        for group in ranking.championship_deciders(places):
            if all(player in scheduled for player in group):
                continue
            decider = championship_decider(
                year,
                [(player, names[player]) for player in group],
                now,
                over + self.settings.championship_decider_start_seconds,
            )
            with contextlib.suppress(AlreadyExists):
                await self.store.create(decider, [])
            await self.store.set_due(decider.tournament_id, decider.config.start_at)
            await self.store.schedule_decider(year, group, decider.tournament_id, keep)
            DECIDERS_SCHEDULED.inc()
        self._deciders_scheduled_for = year

    # ---------------------------------------------------------------- the end

    async def _wrap_up(self, t: Tournament) -> None:
        """Add a finished tournament to the championship and the histories (each once), free
        the organizer's quota, schedule the index cleanup, and stop driving it."""
        if t.status == FINISHED and not t.awarded:
            keep = self.settings.championship_retention_seconds
            entrants = {e.entrant_id: e for e in t.entrants}
            if t.config.ranked:
                rows = [
                    (
                        p["entrant"],
                        p["championship_points"],
                        t.maumaus.get(p["entrant"], 0),
                        entrants[p["entrant"]].name,
                    )
                    for p in t.final
                ]
                await self.store.award(t, rows, keep)
            for p in t.final:
                place = {
                    "tournament_id": t.tournament_id,
                    "name": t.config.name,
                    "place": p["place"],
                    "points": t.points.get(p["entrant"], 0),
                    "championship_points": p["championship_points"] if t.config.ranked else 0,
                    "year": t.year,
                    "finished_at": t.finished_at,
                }
                await self.store.record_history(p["entrant"], t, place, keep)

            def awarded(x: Tournament) -> Events:
                x.awarded = True
                return []

            if t.config.decides_year:
                decided = {p["entrant"]: p["place"] for p in t.final}
                await self.store.record_decided(t.config.decides_year, decided, keep)
            await self._change(t.tournament_id, awarded)
            FINISHED_TOTAL.labels(FINISHED).inc()
        elif t.status == CANCELLED:
            FINISHED_TOTAL.labels(CANCELLED).inc()
        await self.store.release_organizer(t.config.organizer_id, t.tournament_id)
        await self.store.mark_expiring(
            t.tournament_id, (t.finished_at or self.clock()) + self.settings.retention_seconds
        )
        await self.store.drop_due(t.tournament_id)


def _round(
    match_id: str, number: int, winner: int, finish: str, points: list[int], t: Tournament
) -> tuple[Events, bool]:
    """Count a round; True when it was new."""
    events = t.apply_round(match_id, number, winner, finish, points)
    return events, bool(events)


def _is_bot(t: Tournament, entrant_id: str) -> bool:
    entrant = t.entrant(entrant_id)
    return entrant is None or bool(entrant.bot_level) or entrant.left
