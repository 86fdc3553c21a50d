"""``make load``: simulated players against the whole platform, on a single Redis and on a local
Redis Cluster, side by side.

For each store this starts the store in a temporary folder, then the platform as production runs
it (every service a process of its own on loopback ports: one bots service, two replicas of the
engine, the matchmaker and rating), then ``--players`` simulated players in this process. Each
player queues (bots fill a table after two seconds), plays its seat with a think time of 0.2 to
1 s per action, and after each match looks at its profile until the match is counted there. The
run lasts ``--seconds`` per store (default 120; ``make load SECONDS=3600`` for a soak), then
prints a one-screen summary and merges the figures (``load.<store>.*``) into
``bench/latest.json``: moves/s, Act p50/p99, matchmaking wait p50/p99, rating lag p50/p99,
errors by status code, Redis memory and each process's resident memory at the start (after a
warm-up of a tenth of the run) and at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import redis
from grpc_health.v1 import health_pb2, health_pb2_grpc

from bench.__main__ import LATEST, record
from maumau.common.redis_cluster import LocalCluster
from maumau.common.redis_server import EmbeddedRedis, free_port
from maumau.v1 import (
    engine_pb2,
    engine_pb2_grpc,
    game_pb2,
    matchmaking_pb2,
    matchmaking_pb2_grpc,
    players_pb2,
    players_pb2_grpc,
    rating_pb2,
    rating_pb2_grpc,
)

SECRET = "load generator secret"
REPLICAS = {"bots": 1, "engine": 2, "matchmaking": 2, "rating": 2}
RULES = game_pb2.Ruleset(preset="classic", options={"target": "0"})
CALL_SECONDS = 10.0


@dataclass
class Figures:
    act_ms: list[float] = field(default_factory=list)
    wait_s: list[float] = field(default_factory=list)
    rating_lag_s: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    matches: int = 0


@dataclass
class Process:
    name: str
    process: subprocess.Popen[bytes]
    address: str


def bearer(token: str) -> tuple[tuple[str, str]]:
    return (("authorization", f"Bearer {token}"),)


def start_services(redis_url: str, folder: Path) -> list[Process]:
    """The platform's processes, each SERVING before this returns."""
    ports = {(s, n): free_port() for s, count in REPLICAS.items() for n in range(count)}

    def target(service: str) -> str:
        return "ipv4:" + ",".join(f"127.0.0.1:{p}" for (s, _), p in ports.items() if s == service)

    common = {
        "REDIS_URL": redis_url,
        "MAUMAU_TOKEN_SECRET": SECRET,
        "MAUMAU_BOTS_ADDRESS": target("bots"),
        "MAUMAU_MATCHMAKING_ENGINE_ADDRESS": target("engine"),
        "MAUMAU_MATCHMAKING_TURN_SECONDS": "0",
        "MAUMAU_MATCHMAKING_BOT_LEVEL": "random",
        "PYTHONUNBUFFERED": "1",
    }
    started = []
    for (service, n), port in ports.items():
        prefix = f"MAUMAU_{service.upper()}_"
        env = {
            **common,
            f"{prefix}PORT": str(port),
            f"{prefix}METRICS_PORT": "0",
            "MAUMAU_RATING_CONSUMER": f"rating-{n}",
            "MAUMAU_MATCHMAKING_RESULTS_CONSUMER": f"matchmaking-{n}",
        }
        with open(folder / f"{service}-{n}.log", "wb") as log:
            process = subprocess.Popen(
                [sys.executable, "-m", f"maumau.{service}"],
                env={**_environment(), **env},
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        started.append(Process(f"{service}-{n}", process, f"127.0.0.1:{port}"))
    for item in started:
        _wait_serving(item)
    return started


def _environment() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("MAUMAU_")}


def _wait_serving(item: Process) -> None:
    deadline = time.monotonic() + 60
    with grpc.insecure_channel(item.address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)  # type: ignore[no-untyped-call]
        while time.monotonic() < deadline:
            if item.process.poll() is not None:
                raise RuntimeError(f"{item.name} exited at start")
            with contextlib.suppress(grpc.RpcError):
                reply = stub.Check(health_pb2.HealthCheckRequest(), timeout=1)
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            time.sleep(0.1)
    raise RuntimeError(f"{item.name} not SERVING within 60 s")


def stop_services(processes: list[Process]) -> None:
    for item in processes:
        item.process.send_signal(signal.SIGTERM)
    for item in processes:
        try:
            item.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            item.process.kill()
            item.process.wait()


def resident_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def redis_mb(ports: list[int]) -> float:
    """used_memory of every node (masters and replicas), in MB."""
    total = 0
    for port in ports:
        with redis.Redis(host="127.0.0.1", port=port) as client:
            total += int(client.info("memory")["used_memory"])
    return total / 2**20


async def player_loop(
    name: str, engines: list[str], matchmaking: str, rating: str, until: float, figures: Figures
) -> None:
    rng = random.Random(name)
    options = [("grpc.lb_policy_name", "round_robin")]
    async with (
        grpc.aio.insecure_channel(engines[0]) as engine_a,
        grpc.aio.insecure_channel(engines[-1]) as engine_b,
        grpc.aio.insecure_channel(matchmaking, options=options) as mm_channel,
        grpc.aio.insecure_channel(rating, options=options) as rating_channel,
    ):
        stubs = [engine_pb2_grpc.EngineStub(engine_a), engine_pb2_grpc.EngineStub(engine_b)]
        registered = await players_pb2_grpc.PlayersStub(engine_a).Register(
            players_pb2.RegisterRequest(name=name), timeout=CALL_SECONDS
        )
        token, player_id = registered.player_token, registered.player_id
        mm = matchmaking_pb2_grpc.MatchmakingStub(mm_channel)
        ratings = rating_pb2_grpc.RatingStub(rating_channel)
        played = 0
        while time.monotonic() < until:
            try:
                ticket = await mm.Enqueue(
                    matchmaking_pb2.EnqueueRequest(
                        ruleset=RULES, seat_counts=[2, 3, 4], allow_bots=True, bots_after_seconds=2
                    ),
                    metadata=bearer(token),
                    timeout=CALL_SECONDS,
                )
                while ticket.state == "searching":
                    await asyncio.sleep(0.2)
                    ticket = await mm.GetTicket(
                        matchmaking_pb2.TicketRequest(ticket_id=ticket.ticket_id),
                        metadata=bearer(token),
                        timeout=CALL_SECONDS,
                    )
                if ticket.state != "seated":
                    figures.errors[f"ticket {ticket.state}"] += 1
                    continue
                figures.wait_s.append(ticket.waited_seconds)
                await play(stubs, ticket, rng, figures)
                played += 1
                figures.matches += 1
                over = time.monotonic()
                while time.monotonic() - over < 60:
                    profile = await ratings.GetProfile(
                        rating_pb2.GetProfileRequest(player_id=player_id), timeout=CALL_SECONDS
                    )
                    if profile.matches_played >= played:
                        figures.rating_lag_s.append(time.monotonic() - over)
                        break
                    await asyncio.sleep(0.2)
            except grpc.aio.AioRpcError as error:
                figures.errors[error.code().name] += 1
                await asyncio.sleep(1)


async def play(
    stubs: list[engine_pb2_grpc.EngineStub],
    ticket: matchmaking_pb2.Ticket,
    rng: random.Random,
    figures: Figures,
) -> None:
    calls = 0
    token = bearer(ticket.seat_token)
    while True:
        calls += 1
        view = await stubs[calls % 2].GetView(
            engine_pb2.GetViewRequest(match_id=ticket.match_id), metadata=token, timeout=10
        )
        if view.phase == "over":
            return
        waited_for = view.chooser if view.phase == "starter_suit" else view.turn
        if view.seat != waited_for:
            await asyncio.sleep(0.1)
            continue
        await asyncio.sleep(rng.uniform(0.2, 1.0))  # thinking
        plays = [a for a in view.legal if a.WhichOneof("kind") == "play"]
        moves = [a for a in view.legal if a.WhichOneof("kind") not in ("catch_seat", "call")]
        action = rng.choice(plays or moves)
        started = time.perf_counter()
        await stubs[calls % 2].Act(
            engine_pb2.ActRequest(request_id=uuid.uuid4().hex, action=action),
            metadata=token,
            timeout=CALL_SECONDS,
        )
        figures.act_ms.append((time.perf_counter() - started) * 1000)


def percentile(values: list[float], share: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


@contextlib.contextmanager
def store(kind: str, folder: Path) -> Iterator[tuple[str, list[int]]]:
    """The store's URL and the ports of its nodes."""
    if kind == "cluster":
        with LocalCluster(folder / "cluster") as cluster:
            yield cluster.url, [node.port for node in cluster.nodes]
    else:
        with EmbeddedRedis(folder / "redis") as server:
            yield server.url, [server.port]


async def load(kind: str, players: int, seconds: float, folder: Path) -> dict[str, float]:
    with store(kind, folder) as (url, ports):
        processes = await asyncio.to_thread(start_services, url, folder)
        try:
            engines = [p.address for p in processes if p.name.startswith("engine")]

            def target(service: str) -> str:
                found = [p.address for p in processes if p.name.startswith(service)]
                return "ipv4:" + ",".join(found)

            figures = Figures()
            began = time.monotonic()
            until = began + seconds
            tasks = [
                asyncio.create_task(
                    player_loop(
                        f"load-{n}",
                        engines,
                        target("matchmaking"),
                        target("rating"),
                        until,
                        figures,
                    )
                )
                for n in range(players)
            ]
            await asyncio.sleep(seconds / 10)  # warm-up
            rss_start = {p.name: resident_mb(p.process.pid) for p in processes}
            redis_start = redis_mb(ports)
            acts_start = len(figures.act_ms)
            measured_from = time.monotonic()
            await asyncio.gather(*tasks)
            measured = time.monotonic() - measured_from
            rss_end = {p.name: resident_mb(p.process.pid) for p in processes}
            redis_end = redis_mb(ports)
        finally:
            stop_services(processes)
    prefix = f"load.{kind}"
    result = {
        f"{prefix}.players": players,
        f"{prefix}.seconds": seconds,
        f"{prefix}.matches": figures.matches,
        f"{prefix}.moves_per_s": (len(figures.act_ms) - acts_start) / measured,
        f"{prefix}.act_ms.p50": percentile(figures.act_ms, 0.5),
        f"{prefix}.act_ms.p99": percentile(figures.act_ms, 0.99),
        f"{prefix}.matchmaking_wait_s.p50": percentile(figures.wait_s, 0.5),
        f"{prefix}.matchmaking_wait_s.p99": percentile(figures.wait_s, 0.99),
        f"{prefix}.rating_lag_s.p50": percentile(figures.rating_lag_s, 0.5),
        f"{prefix}.rating_lag_s.p99": percentile(figures.rating_lag_s, 0.99),
        f"{prefix}.errors": sum(figures.errors.values()),
        f"{prefix}.redis_mb.start": redis_start,
        f"{prefix}.redis_mb.end": redis_end,
        f"{prefix}.service_rss_mb.start": sum(rss_start.values()),
        f"{prefix}.service_rss_mb.end": sum(rss_end.values()),
    }
    for code, count in figures.errors.items():
        result[f"{prefix}.errors.{code.replace(' ', '_')}"] = count
    for name in rss_start:
        result[f"{prefix}.rss_mb.{name}.start"] = rss_start[name]
        result[f"{prefix}.rss_mb.{name}.end"] = rss_end[name]
    return result


def summary(results: dict[str, dict[str, float]]) -> str:
    rows = [
        ("players", "players", "{:.0f}"),
        ("matches finished", "matches", "{:.0f}"),
        ("player moves/s", "moves_per_s", "{:.1f}"),
        ("Act p50 ms", "act_ms.p50", "{:.1f}"),
        ("Act p99 ms", "act_ms.p99", "{:.1f}"),
        ("matchmaking wait p50 s", "matchmaking_wait_s.p50", "{:.2f}"),
        ("matchmaking wait p99 s", "matchmaking_wait_s.p99", "{:.2f}"),
        ("rating lag p50 s", "rating_lag_s.p50", "{:.2f}"),
        ("rating lag p99 s", "rating_lag_s.p99", "{:.2f}"),
        ("errors", "errors", "{:.0f}"),
        ("Redis MB start", "redis_mb.start", "{:.1f}"),
        ("Redis MB end", "redis_mb.end", "{:.1f}"),
        ("services RSS MB start", "service_rss_mb.start", "{:.0f}"),
        ("services RSS MB end", "service_rss_mb.end", "{:.0f}"),
    ]
    kinds = list(results)
    lines = [f"{'':26}" + "".join(f"{kind:>14}" for kind in kinds)]
    for label, key, form in rows:
        cells = [form.format(results[k].get(f"load.{k}.{key}", 0.0)) for k in kinds]
        lines.append(f"{label:26}" + "".join(f"{cell:>14}" for cell in cells))
    for kind in kinds:
        codes = {
            name.rpartition(".")[2]: value
            for name, value in results[kind].items()
            if name.startswith(f"load.{kind}.errors.")
        }
        if codes:
            lines.append(f"errors on {kind}: {codes}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=120.0, help="per store")
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--stores", nargs="+", default=["single", "cluster"])
    args = parser.parse_args()
    results: dict[str, dict[str, float]] = {}
    for kind in args.stores:
        with tempfile.TemporaryDirectory(prefix=f"maumau-load-{kind}-") as folder:
            print(f"load on {kind}: {args.players} players for {args.seconds:.0f} s", flush=True)
            results[kind] = asyncio.run(load(kind, args.players, args.seconds, Path(folder)))
            record(results[kind], LATEST)
    print(summary(results))
    print(f"figures merged into {LATEST}")


if __name__ == "__main__":
    main()
