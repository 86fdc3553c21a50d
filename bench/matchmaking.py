"""The matchmaker seating a full queue: 10,000 tickets waiting, how fast they all sit at tables.

The tickets (mixed presets, sizes, ranked with spread ratings, parties of two, bots allowed after
a short wait for the tail) are queued first, through the matchmaker's own queue layer (the Redis
writes an Enqueue call makes, without gRPC); then matchmaker replicas start and the clock runs
until every ticket is seated. Two measurements on a real ``redis-server``:

- formation alone: planning, the atomic claims, seating commits and notifications, with match
  creation replaced by a stub that answers at once (what the matchmaker itself costs);
- with the engine: every table created on real engines (``python -m maumau.engine`` processes,
  round robin), i.e. ``CreateMatch`` with every seat assigned and the first round dealt.

Figures: time to seat all, tables formed per second, wait p50/p99 (from the start of the
matchmaker to the table's forming), duplicates (tickets seated twice plus players at more
matches than tickets; must be 0).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import secrets
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import grpc
import redis.asyncio
from grpc_health.v1 import health_pb2, health_pb2_grpc

from bench.engine import percentile, process, until_ready
from maumau.common.redis_server import EmbeddedRedis, free_port, pooled
from maumau.matchmaking.notify import Notifier
from maumau.matchmaking.queue import TicketQueue
from maumau.matchmaking.ratings import rating_key, redis_ratings
from maumau.matchmaking.settings import Settings
from maumau.matchmaking.tables import MatchPlan, Tables
from maumau.matchmaking.tickets import SEATED, QueueInfo, TicketSpec, TicketStatus
from maumau.matchmaking.worker import Former

TICKETS = 10_000
ENGINES = 2
REPLICAS = 2
SECRET = "bench-matchmaking-" + "x" * 32
MIX = [
    # weight, ruleset, ranked, sizes, preferred, party sizes
    (3, "classic", False, (2, 3, 4), 4, (1, 1, 1, 2)),
    (2, "online", False, (2, 3, 4), 2, (1,)),
    (2, "ostfriesland", False, (4, 5, 6, 7, 8), 6, (1, 1, 2)),
    (1, "colour teams=true", False, (4,), 4, (1, 2)),
    (2, "classic", True, (2, 3, 4), 4, (1,)),
]


class InstantTables(Tables):
    """Match creation stubbed out: a fresh id at once, for measuring the matchmaker alone."""

    def __init__(self) -> None:
        self.created = 0

    async def create(self, plan: MatchPlan, server_seed: str) -> str:
        self.created += 1
        return secrets.token_urlsafe(16)

    async def create_many(self, tables: Sequence[tuple[MatchPlan, str, str]]) -> list[str]:
        return [await self.create(plan, seed) for plan, seed, _ in tables]


async def queue_tickets(client: redis.asyncio.Redis, rng: random.Random) -> dict[str, float]:
    """Queue TICKETS tickets; answers enqueues per second."""
    queue = TicketQueue(client, lease_seconds=10, retention_seconds=600)
    weights = [m[0] for m in MIX]
    started = time.perf_counter()
    players = 0

    async def one(n: int) -> None:
        nonlocal players
        _, rules, ranked, sizes, preferred, parties = rng.choices(MIX, weights)[0]
        party = tuple(f"p{n}-{k}" for k in range(rng.choice(parties)))
        players += len(party)
        if ranked:
            for player in party:
                await client.set(rating_key("classic", player), rng.gauss(15, 8))
        now = time.time()
        spec = TicketSpec(party, sizes, preferred, 0.25, now, now + 600)
        await queue.enqueue(QueueInfo(rules, ranked), spec)

    for start in range(0, TICKETS, 200):
        await asyncio.gather(*(one(n) for n in range(start, min(start + 200, TICKETS))))
    elapsed = time.perf_counter() - started
    return {"enqueue_per_s": TICKETS / elapsed, "players": players}


async def seat_all(
    client: redis.asyncio.Redis, tables: list[Tables], settings: Settings
) -> dict[str, float]:
    """Run the replicas until every queued ticket is seated; the figures."""
    stopping = asyncio.Event()
    formers = []
    for n, maker in enumerate(tables):
        queue = TicketQueue(client, settings.lease_seconds, settings.retention_seconds)
        notifier = Notifier(client)
        formers.append(
            Former(queue, maker, notifier, settings, redis_ratings(client), f"bench-{n}")
        )
    infos = await TicketQueue(client, settings.lease_seconds, settings.retention_seconds).known()
    started = time.time()
    tasks = [asyncio.create_task(former.run(stopping)) for former in formers]
    while True:
        async with client.pipeline(transaction=False) as pipe:
            for info in infos:
                pipe.zcard(info.key("done"))
            done = sum(await pipe.execute())
        if done >= TICKETS:
            break
        if time.time() - started > 120:
            raise RuntimeError(f"only {done} of {TICKETS} tickets seated after 120 s")
        await asyncio.sleep(0.005)
    elapsed = time.time() - started
    stopping.set()
    await asyncio.gather(*tasks)
    return {**await check(client, infos, started), "seat_all_s": elapsed}


async def check(
    client: redis.asyncio.Redis, infos: list[QueueInfo], started: float
) -> dict[str, float]:
    """Waits, tables and duplicates, from what Redis holds."""
    waits: list[float] = []
    matches: set[str] = set()
    seats_of_player: Counter[str] = Counter()
    duplicates = 0
    for info in infos:
        statuses = await client.hgetall(info.key("status"))
        for raw in statuses.values():
            status = TicketStatus.from_json(raw)
            if status.state != SEATED:
                duplicates += 1  # every ticket must be seated
                continue
            waits.append(status.at - started)
            matches.add(status.match_id)
            seats_of_player.update(status.seats.keys())
        duplicates += len(statuses) != len(set(statuses))
    duplicates += sum(count - 1 for count in seats_of_player.values() if count > 1)
    waits.sort()
    elapsed = max(waits)
    return {
        "tables": len(matches),
        "tables_per_s": len(matches) / max(elapsed, 1e-9),
        "wait_p50_ms": percentile(waits, 0.5) * 1000,
        "wait_p99_ms": percentile(waits, 0.99) * 1000,
        "duplicates": duplicates,
    }


async def engine_duplicates(client: redis.asyncio.Redis, players: list[str]) -> int:
    """Players the engine seated at more than one match (its per-player match index)."""
    extra = 0
    for start in range(0, len(players), 1000):
        async with client.pipeline(transaction=False) as pipe:
            for player in players[start : start + 1000]:
                pipe.zcard(f"player:{{{player}}}:matches")
            extra += sum(max(0, n - 1) for n in await pipe.execute())
    return extra


async def run(workdir: Path) -> dict[str, float]:
    figures: dict[str, float] = {}
    settings = Settings(
        tick_seconds=0.01,
        smaller_after_seconds=0.25,
        rating_widen_per_second=20.0,
        batch=2000,
        create_concurrency=64,
    )
    server = EmbeddedRedis(workdir / "redis")
    server.start()
    client = pooled(redis.asyncio.Redis.from_url(server.url), 200, wait_seconds=20)
    try:
        print(f"  {TICKETS:,} tickets queued, then {REPLICAS} matchmaker replicas start:")
        queued = await queue_tickets(client, random.Random(1))
        figures["enqueue_per_s"] = queued["enqueue_per_s"]
        alone = await seat_all(client, [InstantTables() for _ in range(REPLICAS)], settings)
        for name, value in alone.items():
            figures[f"formation_only.{name}"] = value
        report("formation alone (match creation stubbed)", alone)

        await client.flushdb()
        await queue_tickets(client, random.Random(1))
        ports = [free_port() for _ in range(ENGINES)]
        env = {
            **os.environ,
            "REDIS_URL": server.url,
            "MAUMAU_TOKEN_SECRET": SECRET,
            "MAUMAU_ENGINE_BOT_DELAY_MS": "1000",
        }
        logs = [workdir / f"engine-{n}.log" for n in range(ENGINES)]
        with contextlib.ExitStack() as stack:
            for port, log in zip(ports, logs, strict=True):
                child_env = {
                    **env,
                    "MAUMAU_ENGINE_PORT": str(port),
                    "MAUMAU_ENGINE_METRICS_PORT": str(free_port()),
                }
                stack.enter_context(
                    process([sys.executable, "-m", "maumau.engine"], log, child_env)
                )
            for port, log in zip(ports, logs, strict=True):
                await wait_serving(f"127.0.0.1:{port}", log)
            target = "ipv4:" + ",".join(f"127.0.0.1:{port}" for port in ports)
            channels = [
                grpc.aio.insecure_channel(target, options=[("grpc.lb_policy_name", "round_robin")])
                for _ in range(REPLICAS)
            ]
            try:
                engines = [Tables(c, SECRET.encode(), timeout=5) for c in channels]
                with_engine = await seat_all(client, engines, settings)
            finally:
                for channel in channels:
                    await channel.close()
            players = [
                player
                for info in await TicketQueue(client, 1.0, 1.0).known()
                for player in await seated_players(client, info)
            ]
            with_engine["duplicates"] += await engine_duplicates(client, players)
        for name, value in with_engine.items():
            figures[f"with_engine.{name}"] = value
        report(f"with the engine ({ENGINES} engine processes, real CreateMatch)", with_engine)
    finally:
        await client.aclose()
        server.kill()  # nothing to keep; a SHUTDOWN could wait for the append-only file
    return figures


async def seated_players(client: redis.asyncio.Redis, info: QueueInfo) -> list[str]:
    statuses = await client.hgetall(info.key("status"))
    return [p for raw in statuses.values() for p in TicketStatus.from_json(raw).seats]


async def wait_serving(address: str, log: Path, what: str = "an engine") -> None:
    async with grpc.aio.insecure_channel(address) as channel:
        health = health_pb2_grpc.HealthStub(channel)

        async def serving() -> bool:
            reply = await health.Check(health_pb2.HealthCheckRequest(), timeout=1)
            return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)

        await until_ready(serving, what, log)


def report(title: str, figures: dict[str, float]) -> None:
    print(
        f"    {title}: all seated in {figures['seat_all_s']:.2f} s (goal <= 5), "
        f"{figures['tables']:,.0f} tables, {figures['tables_per_s']:,.0f} tables/s, "
        f"wait p50 {figures['wait_p50_ms']:,.0f} ms p99 {figures['wait_p99_ms']:,.0f} ms, "
        f"duplicates {figures['duplicates']:.0f}"
    )


def bench_matchmaking() -> dict[str, float]:
    """Every matchmaking figure, printed and returned (prefixed ``matchmaking.``)."""
    print("matchmaking: a full queue seated:")
    with tempfile.TemporaryDirectory(prefix="maumau-bench-") as workdir:
        figures = asyncio.run(run(Path(workdir)))
    return {f"matchmaking.{name}": value for name, value in figures.items()}


if __name__ == "__main__":
    for name, value in bench_matchmaking().items():
        print(f"{name} = {value:,.3f}")
