"""The engine under load, measured against the ceiling of its own stack in the same run.

- Ceiling: a bare ``grpc.aio`` unary handler (a generic handler, no protos) that runs one EVALSHA
  per call on the same Redis: a Lua script writing a hash field and appending to a stream, the
  least a move can cost on this stack (one gRPC call, one atomic Redis script).
- Engine: ``python -m maumau.engine`` as it runs in production, and its Act with N concurrent
  clients, each playing both seats of its own 2-seat match (classic, target 10000, so no match
  ends within a measurement). A client mirrors its match with the rules core (the deal seed comes
  from the server seed it chose and the empty nonces, as a fairness check does), so every call it
  makes is an Act: a card if one fits, else draw, accept or pass, else the first legal action.
- Memory: Redis ``used_memory`` per live four-seat match at three points: 600 matches started
  (enough that connection buffers and table growth do not blur the figure), then 200 of them after
  40 moves and at their end (what playing added, per match, on top of a
  started one); and the mean MEMORY USAGE of those 200 matches' keys at each point.

Both servers run as processes of their own, the clients in this one, each client with a channel of
its own; latency is client-side (call to answer). Ceiling and engine take turns in three slices
per measurement, so both meet the same background load. Redis is a real redis-server with the
append-only file on (``everysec``), as in production.

``python -m bench.engine ceiling PORT REDIS_URL`` serves the ceiling (the benchmark starts it);
``python -m bench.engine memory`` measures only the memory (printed, not recorded).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import redis.asyncio
from grpc_health.v1 import health_pb2, health_pb2_grpc

from maumau import fairness
from maumau.common.redis_server import EmbeddedRedis, free_port
from maumau.common.tokens import issue_service_token
from maumau.rules import Action, Draw, Match, Play, Ruleset
from maumau.rules.actions import Accept, Pass
from maumau.v1 import engine_pb2, engine_pb2_grpc, game_pb2, players_pb2, players_pb2_grpc

ROOT = Path(__file__).resolve().parent.parent
SECRET = "bench-secret-" + "x" * 32
UNLIMITED = {
    "MAUMAU_RATE_EXEMPT_ADDRESSES": "127.0.0.0/8,::1/128",
    "MAUMAU_RATE_PER_PLAYER": "1000000/minute",
}
"""The rate limits off for a benchmark's own clients, which all call from this machine."""
SERVICE_TOKEN = issue_service_token(SECRET.encode(), "bench")
CONCURRENCY = (16, 64)
PRESET, OPTIONS = "classic", {"target": "10000"}
MEMORY_MATCHES = 600
MEMORY_PLAYED = 200
MEMORY_MOVES = 40
MEMORY_CLIENTS = 10
MATCH_MOVES_CAP = 5000
WARMUP_SECONDS = 0.3
SLICES = 3

CEILING_SCRIPT = """
redis.call('HSET', KEYS[1], 'state', ARGV[1])
return redis.call('XADD', KEYS[2], '*', 'e', ARGV[1])
"""
CEILING_METHOD = "/bench.Ceiling/Move"


# ------------------------------------------------------------------------------ ceiling server


async def serve_ceiling(port: int, redis_url: str) -> None:
    """One gRPC method: the request names a match; one EVALSHA writes it; the reply is the
    stream entry id. Runs until SIGTERM."""
    client = redis.asyncio.Redis.from_url(redis_url)
    script = client.register_script(CEILING_SCRIPT)

    async def move(request: bytes, context: grpc.aio.ServicerContext[bytes, bytes]) -> bytes:
        match = request.split(b":", 1)[0].decode()
        entry: bytes = await script(
            keys=[f"ceiling:{{{match}}}", f"ceiling:{{{match}}}:events"], args=[request]
        )
        return entry

    handler = grpc.method_handlers_generic_handler(
        "bench.Ceiling", {"Move": grpc.unary_unary_rpc_method_handler(move)}
    )
    server = grpc.aio.server()
    server.add_generic_rpc_handlers((handler,))
    server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    stopping = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stopping.set)
    await stopping.wait()
    await server.stop(1)
    await client.aclose()


# ------------------------------------------------------------------------------ processes


@contextlib.contextmanager
def process(
    args: list[str], log: Path, env: dict[str, str] | None = None
) -> Iterator[subprocess.Popen[bytes]]:
    """A child process for the duration of the block; SIGTERM (then kill) at its end."""
    with open(log, "wb") as out:
        child = subprocess.Popen(
            args, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=out
        )
    try:
        yield child
    finally:
        child.terminate()
        try:
            child.wait(10)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


async def until_ready(check: Callable[[], Awaitable[bool]], what: str, log: Path) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with contextlib.suppress(grpc.RpcError):
            if await check():
                return
        await asyncio.sleep(0.1)
    raise RuntimeError(f"{what} did not come up within 30 s; see {log}:\n{log.read_text()}")


# ------------------------------------------------------------------------------ measuring


class Worker:
    """One client: ``ready`` (not timed) prepares the next call, ``move`` (timed) makes it."""

    async def ready(self) -> None:
        return None

    async def move(self) -> None:
        raise NotImplementedError


async def measure(
    workers: list[Worker], seconds: float, calls: list[int] | None = None
) -> list[float]:
    """Every worker calls in a loop for a warm-up and then ``seconds``; returns the latencies of
    the calls that ended within the measured window, and appends to ``calls`` how many calls
    the slice made in all, warm-up included (what the server's CPU over the slice paid for)."""
    start = time.perf_counter() + WARMUP_SECONDS
    end = start + seconds
    latencies: list[float] = []
    made = 0

    async def loop(worker: Worker) -> None:
        nonlocal made
        while True:
            await worker.ready()
            began = time.perf_counter()
            if began >= end:
                return
            await worker.move()
            done = time.perf_counter()
            made += 1
            if start <= done <= end:
                latencies.append(done - began)

    await asyncio.gather(*(loop(worker) for worker in workers))
    if calls is not None:
        calls.append(made)
    return latencies


def cpu_seconds(pid: int) -> float:
    """The user and system CPU time a process has used so far, from /proc (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def summary(latencies: list[float], seconds: float) -> dict[str, float]:
    ordered = sorted(latencies)
    return {
        "moves_per_s": len(ordered) / seconds,
        "p50_ms": 1000 * percentile(ordered, 0.50),
        "p99_ms": 1000 * percentile(ordered, 0.99),
    }


def percentile(ordered: list[float], q: float) -> float:
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


# ------------------------------------------------------------------------------ clients


def auth(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


class CeilingWorker(Worker):
    def __init__(self, channel: grpc.aio.Channel, name: str) -> None:
        self.call = channel.unary_unary(CEILING_METHOD)
        self.name = name
        # As heavy on the wire as an Act: a bearer token of the same size and a request id.
        self.metadata = auth("t" * 180)

    async def move(self) -> None:
        await self.call(f"{self.name}:{uuid.uuid4().hex}".encode(), metadata=self.metadata)


def policy(actions: list[Action]) -> Action:
    """A card if one fits, else draw, accept or pass, else the first legal action."""
    for kind in (Play, Draw, Accept, Pass):
        for action in actions:
            if type(action) is kind:
                return action
    return actions[0]


def due_seat(match: Match) -> int:
    return match.chooser if match.phase == "starter_suit" else match.turn


@dataclass
class Table:
    """A match whose every seat this client holds, mirrored with the rules core."""

    match_id: str
    seat_tokens: list[str]
    mirror: Match
    version: int


@dataclass
class EngineClient:
    channel: grpc.aio.Channel
    players: list[tuple[str, str]] = field(default_factory=list)
    """(player id, player token) per seat it plays."""
    engine: engine_pb2_grpc.EngineServiceStub = field(init=False)
    """Made once, as the ceiling's client makes its one method once."""

    def __post_init__(self) -> None:
        self.engine = engine_pb2_grpc.EngineServiceStub(self.channel)

    async def register(self, seats: int) -> None:
        stub = players_pb2_grpc.PlayersServiceStub(self.channel)
        for seat in range(seats):
            reply = await stub.Register(players_pb2.RegisterRequest(name=f"bench {seat}"))
            self.players.append((reply.player_id, reply.player_token))

    async def new_table(self, preset: str, options: dict[str, str]) -> Table:
        """A started match with the client's players in every seat, created as matchmaking
        does (with a service token, which may also choose the server seed)."""
        seats = len(self.players)
        server_seed = secrets.token_hex(32)
        created = await self.engine.CreateMatch(
            engine_pb2.CreateMatchRequest(
                ruleset=game_pb2.Ruleset(preset=preset, options=options),
                seats=seats,
                server_seed=server_seed,
                auto_start=True,
                players=[
                    engine_pb2.SeatedPlayer(seat=seat, player_id=player_id)
                    for seat, (player_id, _) in enumerate(self.players)
                ],
            ),
            metadata=auth(SERVICE_TOKEN),
        )
        match = created.match
        assert match.status == "playing", match.status
        deal_seed = fairness.deal_seed(server_seed, list(match.nonces) or [""] * seats)
        mirror = Match.new(Ruleset.parse(match.ruleset_text), seats, deal_seed)
        tokens = [created.seat_tokens[seat] for seat in range(seats)]
        return Table(match.match_id, tokens, mirror, match.version)

    async def act(self, table: Table) -> None:
        """The seat the match waits for plays; the answer must agree with the mirror."""
        seat = due_seat(table.mirror)
        action = policy(list(table.mirror.legal_actions(seat)))
        reply = await self.engine.Act(
            engine_pb2.ActRequest(
                request_id=uuid.uuid4().hex, action=game_pb2.Action(text=action.text)
            ),
            metadata=auth(table.seat_tokens[seat]),
        )
        table.mirror.apply(seat, action)
        table.version += 1
        if reply.version != table.version or len(reply.view.hand) != len(table.mirror.hands[seat]):
            raise AssertionError(f"match {table.match_id}: the engine and the rules core disagree")


class EngineWorker(Worker):
    def __init__(self, client: EngineClient) -> None:
        self.client = client
        self.table: Table | None = None

    async def ready(self) -> None:
        if self.table is None or self.table.mirror.phase == "over":
            self.table = await self.client.new_table(PRESET, OPTIONS)

    async def move(self) -> None:
        assert self.table is not None
        await self.client.act(self.table)


# ------------------------------------------------------------------------------ the run


async def redis_memory(client: redis.asyncio.Redis) -> int:
    """Redis's ``used_memory`` less what its clients' buffers and the append-only file's buffer
    hold at the moment (tens of KB that come and go with the traffic of the last second, more
    than what a few matches add): the memory the data takes."""
    info: dict[str, Any] = await client.info("memory")
    buffers = ("mem_clients_normal", "mem_clients_slaves", "mem_aof_buffer")
    return int(info["used_memory"]) - sum(int(info.get(name, 0)) for name in buffers)


MATCH_KEYS = ("hash", "events", "request_ids", "published")


async def key_sizes(client: redis.asyncio.Redis, match_ids: list[str]) -> dict[str, float]:
    """Mean MEMORY USAGE (exact: every stream node counted) of the matches' keys: the hash (with
    the kept answers), the event stream, the request ids, the published marker."""
    totals = dict.fromkeys(MATCH_KEYS, 0.0)
    for match_id in match_ids:
        key = f"match:{{{match_id}}}"
        names = (key, f"{key}:events", f"{key}:request_ids", f"{key}:published")
        for part, name in zip(MATCH_KEYS, names, strict=True):
            totals[part] += await client.memory_usage(name, samples=0) or 0
    return {part: total / len(match_ids) for part, total in totals.items()}


POINTS = ("started", f"after_{MEMORY_MOVES}_moves", "over")


async def memory_per_match(address: str, client: redis.asyncio.Redis) -> dict[str, float]:
    """Redis memory per live 4-seat match at three points: started (600 matches, used_memory
    delta), after 40 moves and at the end (200 of them played on: what they added, per match, on
    top of a started one); and the mean MEMORY USAGE of those 200 matches' keys at each point."""
    channels = [grpc.aio.insecure_channel(address) for _ in range(MEMORY_CLIENTS)]
    try:
        clients = [EngineClient(channel) for channel in channels]
        for engine_client in clients:
            await engine_client.register(4)
        per_client = MEMORY_MATCHES // MEMORY_CLIENTS
        played_tables = MEMORY_PLAYED // MEMORY_CLIENTS

        async def start(engine_client: EngineClient) -> list[Table]:
            return [await engine_client.new_table("classic", {}) for _ in range(per_client)]

        async def play(engine_client: EngineClient, table: Table, moves: int) -> int:
            made = 0
            while made < moves and table.mirror.phase != "over":
                await engine_client.act(table)
                made += 1
            return made

        async def play_all(moves: int) -> int:
            """Every played table at once (none waits long enough for its turn timer)."""
            plays = (
                play(c, table, moves)
                for c, own in zip(clients, tables, strict=True)
                for table in own[:played_tables]
            )
            return sum(await asyncio.gather(*plays))

        before = await redis_memory(client)
        tables = await asyncio.gather(*(start(c) for c in clients))
        played = [table.match_id for own in tables for table in own[:played_tables]]
        used = {"started": await redis_memory(client)}
        sizes = {"started": await key_sizes(client, played)}
        first_moves = await play_all(MEMORY_MOVES)
        used[POINTS[1]] = await redis_memory(client)
        sizes[POINTS[1]] = await key_sizes(client, played)
        moves = first_moves + await play_all(MATCH_MOVES_CAP)
        unfinished = sum(t.mirror.phase != "over" for own in tables for t in own[:played_tables])
        if unfinished:
            raise RuntimeError(f"{unfinished} matches not over after {MATCH_MOVES_CAP} moves")
        used["over"] = await redis_memory(client)
        sizes["over"] = await key_sizes(client, played)
    finally:
        for channel in channels:
            await channel.close()
    started = (used["started"] - before) / (per_client * MEMORY_CLIENTS)
    figures = {
        "bytes_per_4seat_match": started,
        "bytes_per_move": (used[POINTS[1]] - used["started"]) / first_moves,
        "moves_per_match": moves / len(played),
    }
    for point in POINTS:
        if point != "started":
            figures[f"bytes_per_4seat_match.{point}"] = started + (
                used[point] - used["started"]
            ) / len(played)
        for name, size in sizes[point].items():
            figures[f"sample_{point}.{name}_bytes"] = size
    return figures


async def run(seconds: float, workdir: Path, memory_only: bool = False) -> dict[str, float]:
    figures: dict[str, float] = {}
    server = EmbeddedRedis(workdir / "redis")
    server.start()
    client = redis.asyncio.Redis.from_url(server.url)
    ceiling_port, engine_port = free_port(), free_port()
    engine_env = {
        **os.environ,
        "REDIS_URL": server.url,
        **UNLIMITED,
        "MAUMAU_TOKEN_SECRET": SECRET,
        "MAUMAU_ENGINE_PORT": str(engine_port),
        "MAUMAU_ENGINE_METRICS_PORT": str(free_port()),
    }
    ceiling_log, engine_log = workdir / "ceiling.log", workdir / "engine.log"
    try:
        with (
            process(
                [sys.executable, "-m", "bench.engine", "ceiling", str(ceiling_port), server.url],
                ceiling_log,
            ) as ceiling_child,
            process(
                [sys.executable, "-m", "maumau.engine"], engine_log, engine_env
            ) as engine_child,
        ):
            ceiling_address = f"127.0.0.1:{ceiling_port}"
            engine_address = f"127.0.0.1:{engine_port}"
            await wait_for_servers(ceiling_address, ceiling_log, engine_address, engine_log)

            memory = await memory_per_match(engine_address, client)
            for name, value in memory.items():
                figures[f"engine.redis.{name}"] = value
            print(
                "  Redis memory per live 4-seat match (goal <= 4096 B): "
                f"{memory['bytes_per_4seat_match']:,.0f} B started, "
                f"{memory[f'bytes_per_4seat_match.{POINTS[1]}']:,.0f} B after {MEMORY_MOVES} "
                f"moves, {memory['bytes_per_4seat_match.over']:,.0f} B over "
                f"({memory['moves_per_match']:.0f} moves); {memory['bytes_per_move']:,.0f} B/move"
            )
            for point in POINTS:
                print(
                    f"    keys {point.replace('_', ' '):14} "
                    + ", ".join(
                        f"{name} {memory[f'sample_{point}.{name}_bytes']:,.0f}"
                        for name in MATCH_KEYS
                    )
                    + " B"
                )
            if memory_only:
                return figures

            for concurrency in CONCURRENCY:
                ceiling, engine = await compare(
                    Server(ceiling_address, ceiling_child.pid),
                    Server(engine_address, engine_child.pid),
                    concurrency,
                    seconds,
                )
                for name, value in ceiling.items():
                    figures[f"ceiling.c{concurrency}.{name}"] = value
                for name, value in engine.items():
                    figures[f"engine.act.c{concurrency}.{name}"] = value
                throughput = engine["moves_per_s"] / ceiling["moves_per_s"]
                p99 = engine["p99_ms"] / ceiling["p99_ms"]
                figures[f"ratio.engine_vs_ceiling.c{concurrency}.throughput"] = throughput
                figures[f"ratio.engine_vs_ceiling.c{concurrency}.p99"] = p99
                cpu = engine["cpu_ms_per_call"] / ceiling["cpu_ms_per_call"]
                figures[f"ratio.engine_vs_ceiling.c{concurrency}.cpu_per_call"] = cpu
                print(
                    f"  concurrency {concurrency:2}: "
                    f"ceiling {ceiling['moves_per_s']:7,.0f} moves/s "
                    f"p50 {ceiling['p50_ms']:5.1f} ms p99 {ceiling['p99_ms']:5.1f} ms | "
                    f"engine Act {engine['moves_per_s']:7,.0f} moves/s "
                    f"p50 {engine['p50_ms']:5.1f} ms p99 {engine['p99_ms']:5.1f} ms | "
                    f"throughput {throughput:.2f}x (goal >= 0.8), p99 {p99:.2f}x (goal <= 1.5)"
                )
                print(
                    f"                  server CPU per call: ceiling "
                    f"{ceiling['cpu_ms_per_call']:.3f} ms | engine Act "
                    f"{engine['cpu_ms_per_call']:.3f} ms | {cpu:.2f}x (goal <= 1.5)"
                )
    finally:
        await client.aclose()
        server.stop()
    return figures


async def wait_for_servers(
    ceiling_address: str, ceiling_log: Path, engine_address: str, engine_log: Path
) -> None:
    async with grpc.aio.insecure_channel(ceiling_address) as channel:
        call = channel.unary_unary(CEILING_METHOD)

        async def ceiling_answers() -> bool:
            await call(b"probe:0", timeout=1)
            return True

        await until_ready(ceiling_answers, "the ceiling server", ceiling_log)
    async with grpc.aio.insecure_channel(engine_address) as channel:
        health = health_pb2_grpc.HealthStub(channel)

        async def engine_serving() -> bool:
            reply = await health.Check(health_pb2.HealthCheckRequest(), timeout=1)
            return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)

        await until_ready(engine_serving, "the engine", engine_log)


@dataclass(frozen=True)
class Server:
    """A server the benchmark started: where to call it, and its process, whose CPU it reads."""

    address: str
    pid: int


async def compare(
    ceiling_server: Server, engine_server: Server, concurrency: int, seconds: float
) -> tuple[dict[str, float], dict[str, float]]:
    """``concurrency`` clients of each server, each client with a channel of its own, calling as
    fast as answers come. The two take turns in SLICES slices, so that both meet the same
    background load of the machine. Each side's figures include the server process's CPU
    seconds per call over its own slices (``cpu_ms_per_call``)."""
    channels: list[grpc.aio.Channel] = []
    try:
        ceiling: list[Worker] = []
        engine: list[Worker] = []
        for i in range(concurrency):
            channels.append(grpc.aio.insecure_channel(ceiling_server.address))
            ceiling.append(CeilingWorker(channels[-1], f"c{concurrency}-{i}"))
            channels.append(grpc.aio.insecure_channel(engine_server.address))
            engine_client = EngineClient(channels[-1])
            await engine_client.register(2)
            worker = EngineWorker(engine_client)
            await worker.ready()
            engine.append(worker)
        sides = {"ceiling": (ceiling, ceiling_server), "engine": (engine, engine_server)}
        latencies: dict[str, list[float]] = {name: [] for name in sides}
        calls: dict[str, list[int]] = {name: [] for name in sides}
        cpu = dict.fromkeys(sides, 0.0)
        for _ in range(SLICES):
            for name, (workers, server) in sides.items():
                before = cpu_seconds(server.pid)
                latencies[name] += await measure(workers, seconds / SLICES, calls[name])
                cpu[name] += cpu_seconds(server.pid) - before
        figures = {name: summary(latencies[name], seconds) for name in sides}
        for name in sides:
            figures[name]["cpu_ms_per_call"] = 1000 * cpu[name] / max(1, sum(calls[name]))
        return figures["ceiling"], figures["engine"]
    finally:
        for channel in channels:
            await channel.close()


def bench_engine(seconds: float, memory_only: bool = False) -> dict[str, float]:
    """Every engine figure (or only the memory ones), printed and returned (``make bench``
    records them)."""
    print("engine over gRPC and Redis (servers in processes of their own):")
    with tempfile.TemporaryDirectory(prefix="maumau-bench-") as workdir:
        return asyncio.run(run(seconds, Path(workdir), memory_only))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "ceiling":
        asyncio.run(serve_ceiling(int(sys.argv[2]), sys.argv[3]))
    elif sys.argv[1:] == ["memory"]:
        print(bench_engine(0, memory_only=True))
    else:
        figures = bench_engine(float(sys.argv[1]) if len(sys.argv) > 1 else 3.0)
        print(figures)
