"""Follow streams at scale: many followers of many live matches on one engine process.

``python -m maumau.engine`` runs as a process of its own on a real redis-server. The benchmark
creates MATCHES two-seat matches (and BOT_MATCHES played by bots alone, moved by the engine's
deadline loop), opens FOLLOWERS_PER_MATCH Follow streams on each (both seats and three
spectators), then plays MOVES_PER_SECOND moves spread over the matches for the measured time,
while a health probe asks the engine every HEALTH_INTERVAL seconds. Figures:

- event delivery latency, p50 / p99 / max: from the event's stream id (the Redis server's clock
  when the move was committed, in milliseconds) to its arrival at the follower, for every event
  committed in the measured time, at every follower (goal: p99 <= 100 ms); beside it the same
  latency of a reference in this process: blocking XREADs of the same streams straight from
  Redis (lanes of LANE matches, as the engine reads them), so a busy machine shows in both;
- health: the probes answered, those not SERVING (goal: 0) and those not answered within a
  second (a busy event loop);
- whether every follower ended with its match's last event (no loss);
- the engine's memory per open stream: its resident set after the streams opened, less before,
  per stream; the engine's Redis connections while they are open;
- bot moves per second on the bots' matches during the measurement (the deadline loop's pace).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import random
import secrets
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import grpc
import redis.asyncio
import redis.exceptions
from grpc_health.v1 import health_pb2, health_pb2_grpc

from bench.engine import (
    SECRET,
    SERVICE_TOKEN,
    UNLIMITED,
    Table,
    auth,
    due_seat,
    percentile,
    policy,
    process,
    until_ready,
)
from maumau import fairness
from maumau.common.redis_server import EmbeddedRedis, free_port
from maumau.common.tokens import issue_player_token
from maumau.rules import Match, Ruleset
from maumau.v1 import engine_pb2, engine_pb2_grpc, game_pb2

MATCHES = 1000
FOLLOWERS_PER_MATCH = 5
BOT_MATCHES = 10
BOT_DELAY_MS = 500
MOVES_PER_SECOND = 150
DRIVERS = 30
CHANNELS = 50
OPEN_CONCURRENCY = 200
HEALTH_INTERVAL = 0.1
LANE = 250
PRESET, OPTIONS = "classic", {"target": "10000"}


@dataclass
class Follow:
    """One open stream: the last event id it received."""

    match_id: str
    call: grpc.aio.UnaryStreamCall[engine_pb2.FollowRequest, engine_pb2.FollowResponse]
    last: str = ""
    opened: asyncio.Event | None = None


class Deliveries:
    """Latencies of events committed after ``since_ms`` (Redis clock, milliseconds)."""

    def __init__(self) -> None:
        self.since_ms = float("inf")
        self.until_ms = float("inf")
        self.latencies_ms: list[float] = []

    def arrived(self, entry_id: str) -> None:
        committed = int(entry_id.partition("-")[0])
        if self.since_ms <= committed <= self.until_ms:
            self.latencies_ms.append(time.time() * 1000 - committed)


async def read(follow: Follow, deliveries: Deliveries) -> None:
    assert follow.opened is not None
    with contextlib.suppress(grpc.aio.AioRpcError, asyncio.CancelledError):
        async for item in follow.call:
            follow.last = item.id
            follow.opened.set()
            deliveries.arrived(item.id)


async def read_directly(
    client: redis.asyncio.Redis, match_ids: list[str], deliveries: Deliveries, until: float
) -> None:
    """The reference: one blocking XREAD over the streams of ``match_ids`` at a time, as long
    as the measurement runs, every entry's latency recorded like a follower's."""
    positions = {f"match:{{{match_id}}}:events": "$" for match_id in match_ids}
    async with client.pipeline(transaction=False) as pipe:
        for key in positions:
            pipe.xrevrange(key, count=1)
        last = await pipe.execute()
    for key, entries in zip(list(positions), last, strict=True):
        positions[key] = entries[0][0].decode() if entries else "0"
    while time.monotonic() < until:
        reply = await client.xread(positions, block=500)  # type: ignore[arg-type]
        for key, entries in reply or []:
            positions[key.decode()] = entries[-1][0].decode()
            for entry_id, _ in entries:
                deliveries.arrived(entry_id.decode())


async def create_table(stub: engine_pb2_grpc.EngineServiceStub, index: int) -> Table:
    """A started two-seat match of two made-up players, created as matchmaking does; the
    benchmark mirrors it with the rules core, so every move it makes is one Act."""
    server_seed = secrets.token_hex(32)
    players = [f"bench-{index}-{seat}" for seat in range(2)]
    created = await stub.CreateMatch(
        engine_pb2.CreateMatchRequest(
            ruleset=game_pb2.Ruleset(preset=PRESET, options=OPTIONS),
            seats=2,
            server_seed=server_seed,
            auto_start=True,
            players=[engine_pb2.SeatedPlayer(seat=s, player_id=p) for s, p in enumerate(players)],
        ),
        metadata=auth(SERVICE_TOKEN),
    )
    match = created.match
    seed = fairness.deal_seed(server_seed, list(match.nonces) or ["", ""])
    mirror = Match.new(Ruleset.parse(match.ruleset_text), 2, seed)
    return Table(match.match_id, [created.seat_tokens[s] for s in range(2)], mirror, match.version)


async def create_bot_match(stub: engine_pb2_grpc.EngineServiceStub) -> str:
    created = await stub.CreateMatch(
        engine_pb2.CreateMatchRequest(
            ruleset=game_pb2.Ruleset(preset=PRESET, options=OPTIONS),
            seats=4,
            auto_start=True,
            bots={seat: game_pb2.BOT_LEVEL_RANDOM for seat in range(4)},
        ),
        metadata=auth(SERVICE_TOKEN),
    )
    return str(created.match.match_id)


async def act(stub: engine_pb2_grpc.EngineServiceStub, table: Table) -> None:
    seat = due_seat(table.mirror)
    action = policy(list(table.mirror.legal_actions(seat)))
    await stub.Act(
        engine_pb2.ActRequest(
            request_id=secrets.token_hex(8), action=game_pb2.Action(text=action.text)
        ),
        metadata=auth(table.seat_tokens[seat]),
    )
    table.mirror.apply(seat, action)


async def drive(stub: engine_pb2_grpc.EngineServiceStub, tables: list[Table], until: float) -> int:
    """Moves on ``tables`` in turn, at MOVES_PER_SECOND / DRIVERS, until ``until``."""
    interval = DRIVERS / MOVES_PER_SECOND
    moves, next_at = 0, time.monotonic() + random.uniform(0, interval)
    for table in itertools.cycle(tables):
        await asyncio.sleep(max(0.0, next_at - time.monotonic()))
        if time.monotonic() >= until:
            return moves
        next_at += interval
        if table.mirror.phase != "over":
            await act(stub, table)
            moves += 1
    return moves


class HealthWatch:
    """Asks the engine's health every HEALTH_INTERVAL seconds until stopped."""

    def __init__(self, address: str) -> None:
        self.address = address
        self.answers = 0
        self.failures = 0
        """Answers other than SERVING."""
        self.timeouts = 0
        """Checks not answered within a second (as a probe with a 1 s timeout sees them)."""
        self.slowest = 0.0
        self.stopping = asyncio.Event()

    async def run(self) -> None:
        async with grpc.aio.insecure_channel(self.address) as channel:
            health = health_pb2_grpc.HealthStub(channel)
            while not self.stopping.is_set():
                began = time.perf_counter()
                try:
                    reply = await health.Check(health_pb2.HealthCheckRequest(), timeout=1)
                    self.answers += 1
                    self.failures += reply.status != health_pb2.HealthCheckResponse.SERVING
                except grpc.aio.AioRpcError:
                    self.timeouts += 1
                self.slowest = max(self.slowest, time.perf_counter() - began)
                await asyncio.sleep(HEALTH_INTERVAL)


def resident_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


async def bot_versions(stub: engine_pb2_grpc.EngineServiceStub, match_ids: list[str]) -> int:
    token = issue_player_token(SECRET.encode(), "bench-watcher")
    total = 0
    for match_id in match_ids:
        info = (
            await stub.GetMatch(engine_pb2.GetMatchRequest(match_id=match_id), metadata=auth(token))
        ).match
        total += info.version
    return total


async def run(seconds: float, workdir: Path) -> dict[str, float]:
    server = EmbeddedRedis(workdir / "redis")
    server.start()
    client = redis.asyncio.Redis.from_url(server.url)
    port = free_port()
    env = {
        **os.environ,
        "REDIS_URL": server.url,
        **UNLIMITED,
        "MAUMAU_TOKEN_SECRET": SECRET,
        "MAUMAU_ENGINE_PORT": str(port),
        "MAUMAU_ENGINE_METRICS_PORT": str(free_port()),
        "MAUMAU_ENGINE_BOT_DELAY_MS": str(BOT_DELAY_MS),
        "MAUMAU_BOTS_ADDRESS": "",  # the engine plays its bots itself
    }
    log = workdir / "engine.log"
    address = f"127.0.0.1:{port}"
    channels = [grpc.aio.insecure_channel(address) for _ in range(CHANNELS)]
    follows: list[Follow] = []
    readers: list[asyncio.Task[None]] = []
    reference = Deliveries()
    reference_client = redis.asyncio.Redis.from_url(server.url)
    try:
        with process([sys.executable, "-m", "maumau.engine"], log, env) as engine:
            stub = engine_pb2_grpc.EngineServiceStub(channels[0])

            async def serving() -> bool:
                health = health_pb2_grpc.HealthStub(channels[0])
                reply = await health.Check(health_pb2.HealthCheckRequest(), timeout=1)
                return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)

            await until_ready(serving, "the engine", log)
            gate = asyncio.Semaphore(OPEN_CONCURRENCY)

            async def limited_table(index: int) -> Table:
                async with gate:
                    return await create_table(stub, index)

            tables = list(await asyncio.gather(*(limited_table(i) for i in range(MATCHES))))
            bot_matches = [await create_bot_match(stub) for _ in range(BOT_MATCHES)]
            watch = HealthWatch(address)
            watching = asyncio.create_task(watch.run())
            before = resident_bytes(engine.pid)
            connections_before = int((await client.info("clients"))["connected_clients"])

            deliveries = Deliveries()
            opened_at = time.perf_counter()

            async def open_stream(index: int, table: Table, kind: int) -> None:
                if kind < 2:
                    token, match_id = table.seat_tokens[kind], ""
                else:
                    token = issue_player_token(SECRET.encode(), f"bench-watcher-{index}-{kind}")
                    match_id = table.match_id
                async with gate:
                    stub = engine_pb2_grpc.EngineServiceStub(channels[len(follows) % CHANNELS])
                    call = stub.Follow(
                        engine_pb2.FollowRequest(match_id=match_id), metadata=auth(token)
                    )
                    follow = Follow(table.match_id, call, opened=asyncio.Event())
                    follows.append(follow)
                    readers.append(asyncio.create_task(read(follow, deliveries)))
                    assert follow.opened is not None
                    await asyncio.wait_for(follow.opened.wait(), 60)

            await asyncio.gather(
                *(
                    open_stream(i, table, kind)
                    for i, table in enumerate(tables)
                    for kind in range(FOLLOWERS_PER_MATCH)
                )
            )
            open_seconds = time.perf_counter() - opened_at
            after = resident_bytes(engine.pid)
            connections = int((await client.info("clients"))["connected_clients"])

            measured = max(10.0, 4 * seconds)
            redis_now = await client.time()
            deliveries.since_ms = redis_now[0] * 1000 + redis_now[1] / 1000
            bots_before = await bot_versions(stub, bot_matches)
            reference.since_ms = deliveries.since_ms
            until = time.monotonic() + measured
            shares = [tables[d::DRIVERS] for d in range(DRIVERS)]
            direct = [
                asyncio.create_task(
                    read_directly(
                        reference_client,
                        [t.match_id for t in tables[i : i + LANE]],
                        reference,
                        until + 2,
                    )
                )
                for i in range(0, len(tables), LANE)
            ]
            moves = sum(await asyncio.gather(*(drive(stub, share, until) for share in shares)))
            bots_moved = await bot_versions(stub, bot_matches) - bots_before
            redis_now = await client.time()
            deliveries.until_ms = redis_now[0] * 1000 + redis_now[1] / 1000
            reference.until_ms = deliveries.until_ms
            await asyncio.sleep(2)  # the last events reach their followers
            await asyncio.gather(*direct)
            last = {}
            for table in tables:
                entries = await client.xrevrange(f"match:{{{table.match_id}}}:events", count=1)
                last[table.match_id] = entries[0][0].decode()
            behind = sum(follow.last != last[follow.match_id] for follow in follows)
            ended = sum(reader.done() for reader in readers)
            watch.stopping.set()
            await watching
    finally:
        for reader in readers:
            reader.cancel()
        await asyncio.gather(*readers, return_exceptions=True)
        for channel in channels:
            await channel.close()
        await client.aclose()
        await reference_client.aclose()
        try:
            server.stop()
        except redis.exceptions.RedisError:  # too busy to answer SHUTDOWN in time
            server.kill()

    ordered = sorted(deliveries.latencies_ms)
    direct_ordered = sorted(reference.latencies_ms)
    streams = len(follows)
    figures = {
        "streams.open": streams,
        "streams.matches": MATCHES,
        "streams.open_s": open_seconds,
        "streams.moves_per_s": moves / measured,
        "streams.deliveries": len(ordered),
        "streams.delivery_p50_ms": percentile(ordered, 0.5),
        "streams.delivery_p99_ms": percentile(ordered, 0.99),
        "streams.delivery_max_ms": ordered[-1] if ordered else float("nan"),
        "streams.direct_read_p50_ms": percentile(direct_ordered, 0.5),
        "streams.direct_read_p99_ms": percentile(direct_ordered, 0.99),
        "ratio.streams_delivery_vs_direct_read.p99": percentile(ordered, 0.99)
        / max(1.0, percentile(direct_ordered, 0.99)),
        "streams.followers_behind_at_end": behind,
        "streams.streams_ended_early": ended,
        "streams.health_answers": watch.answers,
        "streams.health_not_serving": watch.failures,
        "streams.health_unanswered_in_1s": watch.timeouts,
        "streams.health_slowest_ms": watch.slowest * 1000,
        "streams.engine_bytes_per_stream": (after - before) / streams,
        "streams.engine_redis_connections_added": connections - connections_before,
        "streams.bot_moves_per_s": bots_moved / measured,
    }
    print(
        f"  {streams:,} streams over {MATCHES:,} matches opened in {open_seconds:.1f} s; "
        f"{moves / measured:.0f} moves/s for {measured:.0f} s, {len(ordered):,} deliveries: "
        f"p50 {figures['streams.delivery_p50_ms']:.1f} ms, "
        f"p99 {figures['streams.delivery_p99_ms']:.1f} ms (goal <= 100), "
        f"max {figures['streams.delivery_max_ms']:.1f} ms; reference (XREAD straight from "
        f"Redis in this process): p50 {figures['streams.direct_read_p50_ms']:.1f} ms, "
        f"p99 {figures['streams.direct_read_p99_ms']:.1f} ms"
    )
    print(
        f"  health: {watch.answers} answers, {watch.failures} not SERVING (goal 0), "
        f"{watch.timeouts} checks unanswered within 1 s, slowest "
        f"{watch.slowest * 1000:.0f} ms; followers behind at the end: {behind}, ended early: "
        f"{ended}; engine memory {figures['streams.engine_bytes_per_stream']:,.0f} B/stream, "
        f"+{connections - connections_before} Redis connections while open; bots "
        f"{bots_moved / measured:.1f} moves/s on {BOT_MATCHES} matches "
        f"(each bot waits {BOT_DELAY_MS} ms before its move)"
    )
    return figures


def bench_streams(seconds: float) -> dict[str, float]:
    """Every Follow-at-scale figure, printed and returned (``make bench`` records them)."""
    print(
        f"engine Follow fan-out: {MATCHES * FOLLOWERS_PER_MATCH:,} streams over {MATCHES:,} "
        "live matches on one engine process:"
    )
    with tempfile.TemporaryDirectory(prefix="maumau-bench-") as workdir:
        return asyncio.run(run(seconds, Path(workdir)))


if __name__ == "__main__":
    print(bench_streams(float(sys.argv[1]) if len(sys.argv) > 1 else 3.0))
