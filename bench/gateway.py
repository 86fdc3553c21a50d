"""The gateway: what it adds to an action, and how many live pages one process holds.

- Added latency: the same 2-seat matches (classic, target 10000, so none ends) played through
  the gateway (HTTP POST /api/matches/ID/act with the session cookie) and directly (gRPC Act with
  the seat token), by N clients each playing both seats of its own match. Only the Act is timed;
  finding the move (a view, then the first legal card, draw, accept or pass) is not. The two
  paths take turns in slices, so both meet the same background load. CPU per Act, which a busy
  machine blurs far less than it blurs latency: the gateway process's (user and system, from
  /proc) per Act through it, against what a direct Act costs its client (this process) and its
  engines together; each Act with the view its move was found in, on both paths.
- Sessions: SESSIONS pages, each a registered player with a match against one computer (the
  engine's default bot delay), each following its match over its own WebSocket, all open at
  once. Memory per session is the gateway process's resident set growth divided by the sessions.
  While all of them stay open, PLAYERS of them play on, and the time from sending each Act to
  the first WebSocket frame of that move on its page is measured (with every socket open).
- First load: the front page in a fresh Chromium, its bytes and paint figures
  (``bench/page_load.py``).
- Solo on the device: Pyodide with the rules core loaded in the page's worker, the first time and
  from the cache, and the computers' moves in the page per level (``bench/solo.py``).

Engine replicas (ENGINES) and the gateway run as processes of their own (``python -m
maumau.engine``, ``python -m maumau.gateway``) on a real redis-server; the clients run in this
process.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import resource
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import grpc

from bench.engine import (
    ROOT,
    SECRET,
    SERVICE_TOKEN,
    UNLIMITED,
    Worker,
    auth,
    cpu_seconds,
    measure,
    process,
    summary,
)
from bench.page_load import first_load
from bench.solo import solo_figures
from maumau.common.redis_server import EmbeddedRedis, free_port
from maumau.v1 import engine_pb2, engine_pb2_grpc, game_pb2

CONCURRENCY = 8
SESSIONS = 1000
PLAYERS = 50
ENGINES = 2
"""Engine replicas behind the gateway (round robin): each page's Follow costs its engine a
re-read of the match every 2 s, which one engine process on a shared machine cannot do for a
thousand matches while it also creates them."""
OPEN_BATCH = 25
OPEN_ATTEMPTS = 3
RETRIED = (429, 503, 504)
"""Answers after which a page asks for its match again (a busy platform), as a person would."""
SLICES = 3
PREFERRED = ("play", "draw", "accept", "pass")


def first_move(view: dict[str, Any]) -> str:
    """A card if one fits, else draw, accept or pass, else the first legal action."""
    legal = view["legal"]
    for kind in PREFERRED:
        for action in legal:
            if kind in action:
                return str(action["text"])
    return str(legal[0]["text"])


def first_move_pb(view: game_pb2.View) -> str:
    for kind in PREFERRED:
        for action in view.legal:
            if action.WhichOneof("kind") == kind:
                return str(action.text)
    return str(view.legal[0].text)


def rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


class Page:
    """A browser's session with the gateway: the cookie jar holds the player token."""

    def __init__(self, base: str) -> None:
        self.http = aiohttp.ClientSession(base_url=base, cookie_jar=aiohttp.CookieJar(unsafe=True))
        self.player_id = ""

    async def register(self, name: str) -> None:
        async with self.http.post("/api/session", json={"name": name}) as response:
            if response.status != 200:
                raise RuntimeError(f"register: {response.status} {await response.text()}")
            self.player_id = (await response.json())["player_id"]

    async def view(self, match_id: str) -> dict[str, Any]:
        async with self.http.get(f"/api/matches/{match_id}/view") as response:
            if response.status != 200:
                raise RuntimeError(f"view: {response.status} {await response.text()}")
            return dict(await response.json())

    async def act(self, match_id: str, action: str) -> dict[str, Any]:
        body = {"request_id": uuid.uuid4().hex, "action": action}
        async with self.http.post(f"/api/matches/{match_id}/act", json=body) as response:
            if response.status != 200:
                raise RuntimeError(f"act: {response.status} {await response.text()}")
            return dict(await response.json())

    async def close(self) -> None:
        await self.http.close()


class Table:
    """One 2-seat match, both seats held by this client, played through either path."""

    def __init__(self, stub: engine_pb2_grpc.EngineServiceStub, pages: list[Page]) -> None:
        self.stub = stub
        self.pages = pages
        self.match_id = ""
        self.tokens: dict[int, str] = {}

    async def create(self) -> None:
        players = [
            engine_pb2.SeatedPlayer(seat=seat, player_id=page.player_id, name=f"p{seat}")
            for seat, page in enumerate(self.pages)
        ]
        created = await self.stub.CreateMatch(
            engine_pb2.CreateMatchRequest(
                ruleset=game_pb2.Ruleset(preset="classic", options={"target": "10000"}),
                seats=2,
                players=players,
                auto_start=True,
            ),
            metadata=auth(SERVICE_TOKEN),
        )
        self.match_id = created.match.match_id
        self.tokens = dict(created.seat_tokens)

    async def turn(self) -> int:
        info = (
            await self.stub.GetView(
                engine_pb2.GetViewRequest(match_id=self.match_id), metadata=auth(self.tokens[0])
            )
        ).view
        return int(info.turn) if info.phase != "starter_suit" else int(info.chooser)


class DirectWorker(Worker):
    def __init__(self, table: Table) -> None:
        self.table = table
        self.request: engine_pb2.ActRequest | None = None
        self.seat = 0

    async def ready(self) -> None:
        self.seat = await self.table.turn()
        view = (
            await self.table.stub.GetView(
                engine_pb2.GetViewRequest(match_id=self.table.match_id),
                metadata=auth(self.table.tokens[self.seat]),
            )
        ).view
        self.request = engine_pb2.ActRequest(
            request_id=uuid.uuid4().hex, action=game_pb2.Action(text=first_move_pb(view))
        )

    async def move(self) -> None:
        await self.table.stub.Act(self.request, metadata=auth(self.table.tokens[self.seat]))


class GatewayWorker(Worker):
    def __init__(self, table: Table) -> None:
        self.table = table
        self.action = ""
        self.page = table.pages[0]

    async def ready(self) -> None:
        self.page = self.table.pages[await self.table.turn()]
        self.action = first_move(await self.page.view(self.table.match_id))

    async def move(self) -> None:
        await self.page.act(self.table.match_id, self.action)


async def added_latency(
    base: str, engine_address: str, seconds: float, gateway_pid: int, engine_pids: list[int]
) -> dict[str, float]:
    figures: dict[str, float] = {}
    cpu = {"direct": 0.0, "gateway": 0.0}
    calls: dict[str, list[int]] = {"direct": [], "gateway": []}

    async def timed(path: str, workers: list[Worker]) -> list[float]:
        pids = [gateway_pid] if path == "gateway" else engine_pids
        before = sum(map(cpu_seconds, pids)) + (time.process_time() if path == "direct" else 0)
        latencies = await measure(workers, seconds / SLICES, calls[path])
        after = sum(map(cpu_seconds, pids)) + (time.process_time() if path == "direct" else 0)
        cpu[path] += after - before
        return latencies

    async with grpc.aio.insecure_channel(engine_address) as channel:
        stub = engine_pb2_grpc.EngineServiceStub(channel)
        pages: list[Page] = []
        direct: list[Worker] = []
        gateway: list[Worker] = []
        try:
            for index in range(2 * CONCURRENCY):
                seats = [Page(base), Page(base)]
                pages += seats
                for seat, page in enumerate(seats):
                    await page.register(f"b{index}-{seat}")
                table = Table(stub, seats)
                await table.create()
                (direct if index % 2 else gateway).append(
                    DirectWorker(table) if index % 2 else GatewayWorker(table)
                )
            latencies: dict[str, list[float]] = {"direct": [], "gateway": []}
            for _ in range(SLICES):
                latencies["direct"] += await timed("direct", direct)
                latencies["gateway"] += await timed("gateway", gateway)
        finally:
            for page in pages:
                await page.close()
    direct_figures = summary(latencies["direct"], seconds)
    gateway_figures = summary(latencies["gateway"], seconds)
    for name, value in direct_figures.items():
        figures[f"gateway.act_direct.c{CONCURRENCY}.{name}"] = value
    for name, value in gateway_figures.items():
        figures[f"gateway.act_via_gateway.c{CONCURRENCY}.{name}"] = value
    for q in ("p50_ms", "p99_ms"):
        figures[f"gateway.added_latency.{q}"] = gateway_figures[q] - direct_figures[q]
    per_act = {path: 1000 * cpu[path] / max(1, sum(calls[path])) for path in cpu}
    figures["gateway.cpu_per_act_ms"] = per_act["gateway"]
    figures["gateway.direct_cpu_per_act_ms"] = per_act["direct"]
    figures["ratio.gateway_cpu_vs_direct_act"] = per_act["gateway"] / per_act["direct"]
    print(
        f"  Act, {CONCURRENCY} clients each: direct p50 {direct_figures['p50_ms']:.1f} ms "
        f"p99 {direct_figures['p99_ms']:.1f} ms ({direct_figures['moves_per_s']:,.0f}/s) | "
        f"through the gateway p50 {gateway_figures['p50_ms']:.1f} ms "
        f"p99 {gateway_figures['p99_ms']:.1f} ms ({gateway_figures['moves_per_s']:,.0f}/s) | "
        f"added p50 {figures['gateway.added_latency.p50_ms']:.1f} ms, "
        f"p99 {figures['gateway.added_latency.p99_ms']:.1f} ms"
    )
    print(
        f"  CPU per Act with its view: the gateway's {per_act['gateway']:.2f} ms, a direct Act's "
        f"client and engine {per_act['direct']:.2f} ms "
        f"(x{figures['ratio.gateway_cpu_vs_direct_act']:.2f})"
    )
    return figures


class LivePage(Page):
    """A page with a match against a computer, following it over a WebSocket."""

    def __init__(self, base: str) -> None:
        super().__init__(base)
        self.base = base
        self.match_id = ""
        self.socket: aiohttp.ClientWebSocketResponse | None = None
        self.frames = 0
        self.retries = 0
        self.arrivals: list[float] = []
        self.reader: asyncio.Task[None] | None = None

    async def open(self, name: str) -> None:
        await self.register(name)
        body = {"ruleset": {"preset": "classic", "options": {"target": "10000"}}, "computers": 1}
        for attempt in range(OPEN_ATTEMPTS):
            async with self.http.post("/api/play", json=body) as response:
                if response.status in RETRIED and attempt + 1 < OPEN_ATTEMPTS:
                    # As a person would try again: the engines are slow to create matches on
                    # a loaded machine (504), which says nothing of what the gateway holds.
                    self.retries += 1
                    await asyncio.sleep(float(response.headers.get("Retry-After", "1")))
                    continue
                response.raise_for_status()
                self.match_id = (await response.json())["match"]["match_id"]
                break
        self.socket = await self.http.ws_connect("/ws", origin=self.base, heartbeat=None)
        await self.socket.send_json({"op": "follow", "match_id": self.match_id})
        self.reader = asyncio.create_task(self.read())

    async def read(self) -> None:
        assert self.socket is not None
        async for message in self.socket:
            if message.type != aiohttp.WSMsgType.TEXT:
                break
            self.frames += 1
            self.arrivals = [*self.arrivals[-7:], time.perf_counter()]

    @property
    def open_now(self) -> bool:
        return self.socket is not None and not self.socket.closed

    async def close(self) -> None:
        if self.socket is not None:
            await self.socket.close()
        if self.reader is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self.reader
        await super().close()


async def sessions(base: str, pid: int, seconds: float) -> dict[str, float]:
    before = rss_bytes(pid)
    pages = [LivePage(base) for _ in range(SESSIONS)]
    failures: list[BaseException] = []
    try:
        for start in range(0, SESSIONS, OPEN_BATCH):
            batch = pages[start : start + OPEN_BATCH]
            outcomes = await asyncio.gather(
                *(page.open(f"s{start + i}") for i, page in enumerate(batch)),
                return_exceptions=True,
            )
            failures += [o for o in outcomes if isinstance(o, Exception)]
        await asyncio.sleep(2)  # the first bot moves settle
        held = sum(page.open_now for page in pages)
        per_session = (rss_bytes(pid) - before) / SESSIONS
        delivery: list[float] = []
        moves = 0
        end = time.perf_counter() + seconds

        async def play(page: LivePage) -> None:
            nonlocal moves
            while time.perf_counter() < end:
                try:
                    view = await page.view(page.match_id)
                except RuntimeError as error:
                    failures.append(error)
                    await asyncio.sleep(0.1)
                    continue
                if not view["legal"] or view["turn"] != view["seat"]:
                    await asyncio.sleep(0.05)
                    continue
                frames = page.frames
                sent = time.perf_counter()
                try:
                    await page.act(page.match_id, first_move(view))
                except RuntimeError as error:
                    failures.append(error)
                    continue
                while page.frames == frames and time.perf_counter() < sent + 5:
                    await asyncio.sleep(0.001)
                first = page.arrivals[-(page.frames - frames)] if page.frames > frames else None
                delivery.append((first or time.perf_counter()) - sent)
                moves += 1

        playing = [page for page in pages if page.open_now][:PLAYERS]
        await asyncio.gather(*(play(page) for page in playing))
        still = sum(page.open_now for page in pages)
    finally:
        for start in range(0, len(pages), 100):
            await asyncio.gather(*(page.close() for page in pages[start : start + 100]))
    ordered = sorted(delivery)
    figures = {
        "gateway.sessions.held": float(min(held, still)),
        "gateway.sessions.refused_calls": float(len(failures)),
        "gateway.sessions.retried_opens": float(sum(page.retries for page in pages)),
        "gateway.sessions.bytes_per_session": per_session,
        "gateway.sessions.moves_per_s": moves / seconds,
        "gateway.sessions.event_delivery_p50_ms": 1000 * ordered[len(ordered) // 2]
        if ordered
        else float("nan"),
        "gateway.sessions.event_delivery_p99_ms": 1000 * ordered[int(0.99 * len(ordered))]
        if ordered
        else float("nan"),
    }
    print(
        f"  {SESSIONS} pages, each with a live match and its WebSocket: {held} held, "
        f"{still} still open after play (goal 1,000); "
        f"{per_session / 1024:,.1f} KiB of gateway memory per session"
    )
    retried = sum(page.retries for page in pages)
    if retried:
        print(f"  {retried} match creations answered 429/503/504 and were asked again")
    if failures:
        print(f"  {len(failures)} calls refused meanwhile, e.g. {failures[0]}")
    print(
        f"  {PLAYERS} of them playing meanwhile: {moves / seconds:,.0f} moves/s; from sending a "
        f"move to its first frame on the page p50 "
        f"{figures['gateway.sessions.event_delivery_p50_ms']:.1f} ms "
        f"p99 {figures['gateway.sessions.event_delivery_p99_ms']:.1f} ms"
    )
    return figures


async def wait_http(url: str, log: Path) -> None:
    deadline = time.monotonic() + 30
    async with aiohttp.ClientSession() as http:
        while time.monotonic() < deadline:
            with contextlib.suppress(aiohttp.ClientError):
                async with http.get(url) as response:
                    if response.status == 200:
                        return
            await asyncio.sleep(0.1)
    raise RuntimeError(f"{url} did not answer within 30 s; see {log}:\n{log.read_text()}")


async def run(seconds: float, workdir: Path) -> dict[str, float]:
    server = EmbeddedRedis(workdir / "redis")
    server.start()
    engine_ports, gateway_port = [free_port() for _ in range(ENGINES)], free_port()
    engines = ",".join(f"127.0.0.1:{port}" for port in engine_ports)
    env = {
        **os.environ,
        # Every page's Follow holds one Redis connection of the engine (a blocking XREAD); the
        # client's default pool of 100 would refuse the 101st, so the pool is sized in the URL.
        "REDIS_URL": f"{server.url}?max_connections={2 * SESSIONS}",
        **UNLIMITED,
        "MAUMAU_TOKEN_SECRET": SECRET,
        "MAUMAU_BOTS_ADDRESS": "",
        "MAUMAU_GATEWAY_PORT": str(gateway_port),
        "MAUMAU_GATEWAY_METRICS_PORT": str(free_port()),
        "MAUMAU_GATEWAY_ENGINE_ADDRESS": f"ipv4:{engines}",
        # One benchmark client is one address and opens every session: no per-address caps.
        "MAUMAU_GATEWAY_ADDRESS_RATE_PER_SECOND": "1000000",
        "MAUMAU_GATEWAY_ADDRESS_RATE_BURST": "1000000",
        "MAUMAU_GATEWAY_SOCKETS_PER_ADDRESS": str(SESSIONS * 2),
        "MAUMAU_GATEWAY_RATE_PER_SECOND": "1000000",
        "MAUMAU_GATEWAY_RATE_BURST": "1000000",
    }
    base = f"http://127.0.0.1:{gateway_port}"
    figures: dict[str, float] = {}
    try:
        with contextlib.ExitStack() as stack:
            engine_pids = []
            for index, port in enumerate(engine_ports):
                engine_env = {
                    **env,
                    "MAUMAU_ENGINE_PORT": str(port),
                    "MAUMAU_ENGINE_METRICS_PORT": str(free_port()),
                }
                command = [sys.executable, "-m", "maumau.engine"]
                log = workdir / f"engine-{index}.log"
                engine_pids.append(stack.enter_context(process(command, log, engine_env)).pid)
            gw = stack.enter_context(
                started([sys.executable, "-m", "maumau.gateway"], workdir / "gateway.log", env)
            )
            await wait_http(f"{base}/healthz", workdir / "gateway.log")
            figures.update(await first_load(base))
            figures.update(await solo_figures(base))
            figures.update(
                await added_latency(base, f"ipv4:{engines}", seconds, gw.pid, engine_pids)
            )
            figures.update(await sessions(base, gw.pid, seconds))
    finally:
        server.stop()
    return figures


@contextlib.contextmanager
def started(args: list[str], log: Path, env: dict[str, str]) -> Iterator[subprocess.Popen[bytes]]:
    """A child process (its pid is measured) for the block; SIGTERM, then kill, at its end."""
    with open(log, "wb") as out:
        child = subprocess.Popen(
            args, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=out
        )
    try:
        yield child
    finally:
        child.terminate()
        try:
            child.wait(15)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


def bench_gateway(seconds: float) -> dict[str, float]:
    """Every gateway figure, printed and returned (``make bench`` records them)."""
    # The pages live in this process: each holds a WebSocket and a keep-alive connection, more
    # than the usual soft limit of 1024 open files allows; the gateway lifts its own.
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    print("gateway (aiohttp) in front of the engine (processes of their own):")
    with tempfile.TemporaryDirectory(prefix="maumau-bench-") as workdir:
        return asyncio.run(run(seconds, Path(workdir)))


if __name__ == "__main__":
    print(bench_gateway(float(sys.argv[1]) if len(sys.argv) > 1 else 3.0))
