"""``make load``: simulated players against the whole platform, as ``make run`` starts it.

The platform starts as ``python -m maumau.run`` does for a user (every service a process of its
own, its own data folder and free loopback ports; ``--cluster``: the local Redis Cluster of
``make run CLUSTER=1``), with short retention so finished matches expire within the run (and
as short a window of the ladder's rule against familiar opponents, so the meetings each player's
rating state remembers stop growing within it, as they do after a day in production). This
process then plays ``--players`` simulated players over gRPC: each registers, queues through the
matchmaker (ranked or casual, 2-4 seats, bots fill a table after ``--bots-after`` seconds),
follows its match and plays its seat with a think time of 0.5-2 s per action, and after a match
now and then looks at profiles, histories and ladders. One player of every finished match polls
its profile until the match is counted there (the rating lag).

Memory is read at the start (platform up, no players), after the warm-up and at the end: Redis
``used_memory`` (all nodes; also without the buffers Redis sizes to traffic and connections,
such as a master's replication backlog) and each process's resident memory from ``/proc``, with
the key families Redis holds, so whatever grows is named. The run prints a one-screen summary
(beside the other store's latest figures) and merges its figures (``load.single.*`` or
``load.cluster.*``) into ``bench/latest.json``; ``--save`` (``make load SAVE=1``) into
``bench/results.json`` too.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import json
import os
import random
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar
from urllib.parse import urlsplit

import grpc
import redis

from bench.__main__ import LATEST, RESULTS, record
from maumau.common.redis_server import free_port
from maumau.run import SERVICES
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

T = TypeVar("T")

QUEUES: list[tuple[game_pb2.Ruleset, bool]] = [
    # (ruleset, ranked): one-round matches, so a player plays several within a run
    (game_pb2.Ruleset(preset="classic", options={"target": "0"}), False),
    (game_pb2.Ruleset(preset="classic", options={"target": "0"}), True),
    (game_pb2.Ruleset(preset="online", options={"wins": "1"}), False),
    (game_pb2.Ruleset(preset="online", options={"wins": "1"}), True),
]
WAKE = {"round_started", "round_over", "match_over", "seed_revealed", "match_started"}
"""Events after which a waiting player reads its view again (besides its own turn starting)."""
MINE = {"turn_started", "timed_out", "handed_to_bot"}
CALL_SECONDS = 30.0
ENQUEUE_ATTEMPTS = 3
TRANSIENT = frozenset({grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.UNAVAILABLE})
"""Failures after which a player tries the same Enqueue again (each is still counted)."""
CHANNELS = 8
"""gRPC connections per service the players are spread over."""
PLATFORM_START_SECONDS = 240.0


@dataclass
class Options:
    players: int = 1000
    seconds: float = 120.0
    warmup: float | None = None
    """Seconds before the warm-up memory reading; None: the retention plus 480 s (the first
    matches finish, then their records expire as fast as new ones come, and most players have
    played every queue), at most a third of the run."""
    ramp: float | None = None
    """Players start spread over this many seconds; None: a tenth of the run, at most 30."""
    think: tuple[float, float] = (0.5, 2.0)
    bots_after: float = 10.0
    browse_share: float = 0.3
    retention: float | None = None
    """Seconds finished matches and ended tickets stay; None: an eighth of the run, 60-300."""
    cluster: bool = False
    env: dict[str, str] = field(default_factory=dict)
    """More environment for the platform (e.g. a shorter bot delay in tests)."""

    @property
    def kind(self) -> str:
        return "cluster" if self.cluster else "single"

    def warmup_seconds(self) -> float:
        if self.warmup is not None:
            return self.warmup
        return min(self.seconds / 3, self.retention_seconds() + 480.0)

    def ramp_seconds(self) -> float:
        return self.ramp if self.ramp is not None else min(self.seconds / 10, 30.0)

    def retention_seconds(self) -> int:
        if self.retention is not None:
            return int(self.retention)
        return int(min(max(self.seconds / 8, 60.0), 300.0))


# ------------------------------------------------------------------------------ the platform


class PlatformError(Exception):
    """The platform did not start or died during the run."""


class Platform:
    """``python -m maumau.run`` in a folder of its own: its process, its children and its Redis."""

    def __init__(self, folder: Path, options: Options) -> None:
        self.folder = folder
        self.ports = {s.name: (free_port(), free_port()) for s in SERVICES}
        retention = str(options.retention_seconds())
        self.env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("MAUMAU_")},
            "MAUMAU_DATA_DIR": str(folder / "data"),
            "MAUMAU_ENGINE_RETENTION_SECONDS": retention,
            "MAUMAU_MATCHMAKING_RETENTION_SECONDS": retention,
            "MAUMAU_RATING_MATCH_RETENTION_SECONDS": retention,
            "MAUMAU_RATING_FARMING_WINDOW_SECONDS": retention,
            # Every simulated player calls from loopback, as through a gateway relaying many
            # clients: no per-address rate limit for it (the per-player limits still hold).
            "MAUMAU_RATE_EXEMPT_ADDRESSES": "127.0.0.1/32,::1/128",
            "PYTHONUNBUFFERED": "1",
        }
        self.env.pop("REDIS_URL", None)
        for name, (port, metrics) in self.ports.items():
            self.env[f"MAUMAU_{name.upper()}_PORT"] = str(port)
            self.env[f"MAUMAU_{name.upper()}_METRICS_PORT"] = str(metrics)
        if options.cluster:
            self.env["MAUMAU_REDIS_CLUSTER"] = "1"
        else:
            self.env["MAUMAU_REDIS_PORT"] = str(free_port())
        self.env.update(options.env)
        self.process: subprocess.Popen[bytes] | None = None
        self.redis_url = ""
        self.out = folder / "run.out"
        self.err = folder / "run.err"

    def address(self, service: str) -> str:
        return f"127.0.0.1:{self.ports[service][0]}"

    def start(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        with open(self.out, "wb") as out, open(self.err, "wb") as err:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "maumau.run"],
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                start_new_session=True,
            )
        deadline = time.monotonic() + PLATFORM_START_SECONDS
        while "Press Ctrl-C" not in self.out.read_text():
            if self.process.poll() is not None:
                raise PlatformError(f"maumau.run exited at start: {self.tail()}")
            if time.monotonic() > deadline:
                raise PlatformError(f"not running within {PLATFORM_START_SECONDS:.0f} s")
            time.sleep(0.2)
        for line in self.out.read_text().splitlines():
            words = line.split()
            if len(words) >= 2 and words[0] == "redis":
                self.redis_url = words[1].rstrip(",")
        if not self.redis_url:
            raise PlatformError("maumau.run printed no Redis URL")

    def tail(self) -> str:
        return " | ".join(self.err.read_text().strip().splitlines()[-5:])

    def check(self) -> None:
        if self.process is None or self.process.poll() is not None:
            raise PlatformError(f"maumau.run stopped during the run: {self.tail()}")

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=90)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def processes(self) -> dict[str, int]:
        """Every process of the platform by name (services by their module, Redis nodes by
        port), found among the children of maumau.run."""
        found: dict[str, int] = {}
        redis_nodes: list[int] = []
        if self.process is None:
            return found
        pending = [self.process.pid]
        while pending:
            pid = pending.pop()
            with contextlib.suppress(OSError):
                children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
                pending += [int(child) for child in children]
            with contextlib.suppress(OSError):
                argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
                words = [arg.decode(errors="replace") for arg in argv if arg]
                if "-m" in words and words.index("-m") + 1 < len(words):
                    module = words[words.index("-m") + 1]
                    if module.startswith("maumau.") and module != "maumau.run":
                        found[module.removeprefix("maumau.")] = pid
                elif words and "redis-server" in words[0]:
                    redis_nodes.append(pid)
        # Redis nodes by start order, so a figure's name holds from one run to the next.
        redis_nodes.sort()
        for number, pid in enumerate(redis_nodes, 1):
            found["redis" if len(redis_nodes) == 1 else f"redis-{number}"] = pid
        return found

    def redis_nodes(self) -> list[tuple[str, int, bool]]:
        """(host, port, master) of every Redis node."""
        parts = urlsplit(self.redis_url)
        host, port = parts.hostname or "127.0.0.1", parts.port or 6379
        with redis.Redis(host=host, port=port, socket_timeout=10) as client:
            if not int(client.info("cluster").get("cluster_enabled", 0)):
                return [(host, port, True)]
            text = client.execute_command("CLUSTER NODES")
        if isinstance(text, bytes):
            text = text.decode()
        if isinstance(text, dict):  # redis-py parses it into {address: facts}
            return [
                (a.rsplit(":", 1)[0], int(a.rsplit(":", 1)[1]), "master" in facts["flags"])
                for a, facts in text.items()
            ]
        nodes = []
        for line in str(text).splitlines():
            words = line.split()
            address = words[1].split("@")[0]
            nodes.append(
                (address.rsplit(":", 1)[0], int(address.rsplit(":", 1)[1]), "master" in words[2])
            )
        return nodes


# ------------------------------------------------------------------------------ readings


def resident_bytes(pid: int) -> int:
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def cpu_seconds(pid: int) -> float:
    with contextlib.suppress(OSError):
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return 0.0


REDIS_BUFFERS = ("replication_backlog", "clients_slaves", "clients_normal", "aof_buffer")
"""The ``INFO memory`` fields (``mem_<part>``) that grow with traffic and connections, not data."""
ID_LIKE = re.compile(r"^(?=.*\d)[\w.-]{6,}$|^[\w-]{16,}$")


def key_family(key: bytes) -> str:
    """The key with its ids left out: ``match:{x1y2}:events`` -> ``match:{}:events``."""
    text = re.sub(r"\{[^}]*\}", "{}", key.decode(errors="replace"))
    return ":".join("*" if ID_LIKE.match(part) else part for part in text.split(":"))


@dataclass
class Reading:
    at: float
    redis_used: int
    redis_rss: int
    redis_buffers: int
    """Of ``redis_used``, what Redis sizes to its traffic and connections, not to the data it
    holds: replication backlogs, replicas' and clients' buffers, the AOF buffer."""
    resident: dict[str, int]
    cpu: dict[str, float]
    families: Counter[str]
    """Keys per family."""
    family_bytes: Counter[str]
    """``MEMORY USAGE`` summed per family (streams and large sets sampled, as Redis does)."""


def redis_data(reading: Reading) -> int:
    """Redis's memory without its buffers: what the platform's keys cost."""
    return reading.redis_used - reading.redis_buffers


def services_resident(reading: Reading) -> int:
    """The platform's processes' resident bytes, Redis's left out."""
    return sum(size for name, size in reading.resident.items() if not name.startswith("redis"))


def read(platform: Platform, at: float, families: bool) -> Reading:
    used = rss = buffers = 0
    counted: Counter[str] = Counter()
    sized: Counter[str] = Counter()
    for host, port, master in platform.redis_nodes():
        with redis.Redis(host=host, port=port, socket_timeout=30) as client:
            info = client.info("memory")
            used += int(info["used_memory"])
            rss += int(info["used_memory_rss"])
            buffers += sum(int(info.get(f"mem_{part}", 0)) for part in REDIS_BUFFERS)
            if families and master:
                keys = list(client.scan_iter(count=1000))
                for start in range(0, len(keys), 1000):
                    batch = keys[start : start + 1000]
                    with client.pipeline(transaction=False) as pipe:
                        for key in batch:
                            pipe.memory_usage(key)
                        sizes = pipe.execute()
                    for key, size in zip(batch, sizes, strict=True):
                        if size is None:  # expired since the scan found it: no longer held
                            continue
                        family = key_family(key)
                        counted[family] += 1
                        sized[family] += size
    pids = platform.processes()
    return Reading(
        at=at,
        redis_used=used,
        redis_rss=rss,
        redis_buffers=buffers,
        resident={name: resident_bytes(pid) for name, pid in pids.items()},
        cpu={name: cpu_seconds(pid) for name, pid in pids.items()},
        families=counted,
        family_bytes=sized,
    )


# ------------------------------------------------------------------------------ players


@dataclass
class Stats:
    calls: Counter[str] = field(default_factory=Counter)
    errors: Counter[tuple[str, str]] = field(default_factory=Counter)
    act_ms: list[float] = field(default_factory=list)
    wait_s: list[float] = field(default_factory=list)
    rating_lag_s: list[float] = field(default_factory=list)
    moves: int = 0
    overtaken: int = 0
    """Actions refused because another seat acted first (a catch, a timer): the view was old."""
    registered: int = 0
    seated: int = 0
    tickets: Counter[str] = field(default_factory=Counter)
    finished: set[str] = field(default_factory=set)
    unrated: int = 0

    async def call(self, method: str, pending: Awaitable[T]) -> T:
        """Await one gRPC call, counting it and its status."""
        self.calls[method] += 1
        try:
            return await pending
        except grpc.aio.AioRpcError as error:
            self.errors[(method, error.code().name)] += 1
            raise


@dataclass
class Stubs:
    players: players_pb2_grpc.PlayersServiceStub
    engine: engine_pb2_grpc.EngineServiceStub
    matchmaking: matchmaking_pb2_grpc.MatchmakingServiceStub
    rating: rating_pb2_grpc.RatingServiceStub


def bearer(token: str) -> tuple[tuple[str, str]]:
    return (("authorization", f"Bearer {token}"),)


def choose(view: game_pb2.View, rng: random.Random) -> game_pb2.Action:
    """A plausible player: plays a card when it can (mostly), else draws, passes or accepts."""
    plays = [a for a in view.legal if a.WhichOneof("kind") == "play"]
    others = [a for a in view.legal if a.WhichOneof("kind") not in ("play", "catch_seat", "call")]
    if plays and (not others or rng.random() < 0.9):
        return rng.choice(plays)
    return rng.choice(others or list(view.legal))


class Player:
    def __init__(self, number: int, stubs: Stubs, options: Options, stats: Stats) -> None:
        self.number = number
        self.rng = random.Random(number)
        self.stubs = stubs
        self.options = options
        self.stats = stats
        self.player_id = ""
        self.token = ""

    async def run(self) -> None:
        await asyncio.sleep(self.rng.uniform(0, self.options.ramp_seconds()))
        while not self.player_id:
            with contextlib.suppress(grpc.aio.AioRpcError):
                registered = await self.stats.call(
                    "Register",
                    self.stubs.players.Register(
                        players_pb2.RegisterRequest(name=f"load-{self.number}"),
                        timeout=CALL_SECONDS,
                    ),
                )
                self.player_id, self.token = registered.player_id, registered.player_token
                self.stats.registered += 1
                break
            await asyncio.sleep(1 + self.rng.random())
        while True:
            try:
                await self.one_match()
            except grpc.aio.AioRpcError:
                await asyncio.sleep(1 + self.rng.random())  # counted by Stats.call

    async def one_match(self) -> None:
        ruleset, ranked = self.rng.choice(QUEUES)
        queued = time.monotonic()
        request = matchmaking_pb2.EnqueueRequest(
            ruleset=ruleset,
            seat_counts=[2, 3, 4],
            preferred_seats=self.rng.choice([2, 3, 4]),
            ranked=ranked,
            allow_bots=True,
            bots_after_seconds=self.options.bots_after,
            request_id=uuid.uuid4().hex,
        )
        for attempt in range(ENQUEUE_ATTEMPTS):  # a retry answers the ticket a lost call queued
            try:
                ticket = (
                    await self.stats.call(
                        "Enqueue",
                        self.stubs.matchmaking.Enqueue(
                            request, metadata=bearer(self.token), timeout=CALL_SECONDS
                        ),
                    )
                ).ticket
                break
            except grpc.aio.AioRpcError as error:
                if error.code() not in TRANSIENT or attempt + 1 == ENQUEUE_ATTEMPTS:
                    raise
            await asyncio.sleep(1 + self.rng.random())
        stream = self.stubs.matchmaking.FollowTicket(
            matchmaking_pb2.FollowTicketRequest(ticket_id=ticket.ticket_id),
            metadata=bearer(self.token),
            timeout=600,
        )
        self.stats.calls["FollowTicket"] += 1
        try:
            async for message in stream:
                ticket = message.ticket
                if ticket.state != "searching":
                    break
        except grpc.aio.AioRpcError as error:
            self.stats.errors[("FollowTicket", error.code().name)] += 1
            with contextlib.suppress(grpc.aio.AioRpcError):
                await self.stats.call(
                    "CancelTicket",
                    self.stubs.matchmaking.CancelTicket(
                        matchmaking_pb2.CancelTicketRequest(ticket_id=ticket.ticket_id),
                        metadata=bearer(self.token),
                        timeout=CALL_SECONDS,
                    ),
                )
            raise
        finally:
            stream.cancel()
        self.stats.tickets[ticket.state] += 1
        if ticket.state != "seated":
            return
        self.stats.seated += 1
        self.stats.wait_s.append(time.monotonic() - queued)
        view = await self.play(ticket)
        finished = time.monotonic()
        self.stats.finished.add(ticket.match_id)
        players = [s.player_id for s in view.seats if s.player_id]
        rated = False
        if players and players[0] == self.player_id:
            rated = await self.measure_rating_lag(ticket.match_id, finished)
        if self.rng.random() < self.options.browse_share:
            await self.browse(view.ruleset.split()[0], ranked and rated)
        await asyncio.sleep(self.rng.uniform(1.0, 3.0))

    async def play(self, ticket: matchmaking_pb2.Ticket) -> game_pb2.View:
        """Play the seat to the end of the match; answers the last view."""
        token = bearer(ticket.seat_token)
        changed = asyncio.Event()
        follower = asyncio.create_task(self.follow(ticket.match_id, ticket.seat, token, changed))
        request = engine_pb2.GetViewRequest(match_id=ticket.match_id)
        try:
            view = (
                await self.stats.call(
                    "GetView",
                    self.stubs.engine.GetView(request, metadata=token, timeout=CALL_SECONDS),
                )
            ).view
            while view.phase != "over":
                acting = view.chooser if view.phase == "starter_suit" else view.turn
                if acting == view.seat:
                    await asyncio.sleep(self.rng.uniform(*self.options.think))
                    started = time.perf_counter()
                    self.stats.calls["Act"] += 1
                    try:
                        answer = await self.stubs.engine.Act(
                            engine_pb2.ActRequest(
                                request_id=uuid.uuid4().hex, action=choose(view, self.rng)
                            ),
                            metadata=token,
                            timeout=CALL_SECONDS,
                        )
                    except grpc.aio.AioRpcError as error:
                        code = error.code()
                        if code == grpc.StatusCode.FAILED_PRECONDITION:
                            now = (
                                await self.stats.call(
                                    "GetView",
                                    self.stubs.engine.GetView(
                                        request, metadata=token, timeout=CALL_SECONDS
                                    ),
                                )
                            ).view
                            if now.version != view.version:  # another seat acted first
                                self.stats.overtaken += 1
                                view = now
                                continue
                        self.stats.errors[("Act", code.name)] += 1
                        if code != grpc.StatusCode.FAILED_PRECONDITION:
                            raise
                    else:
                        self.stats.act_ms.append((time.perf_counter() - started) * 1000)
                        self.stats.moves += 1
                        view = answer.view
                        continue
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(changed.wait(), 5.0)
                changed.clear()
                view = (
                    await self.stats.call(
                        "GetView",
                        self.stubs.engine.GetView(request, metadata=token, timeout=CALL_SECONDS),
                    )
                ).view
            return view
        finally:
            follower.cancel()
            # gather, not a suppressed await: a cancel of this player itself must go through
            await asyncio.gather(follower, return_exceptions=True)

    async def follow(
        self, match_id: str, seat: int, token: tuple[tuple[str, str]], changed: asyncio.Event
    ) -> None:
        """Wake the player when something it must answer happened; resume a broken stream."""
        last = ""
        while True:
            self.stats.calls["Follow"] += 1
            stream = self.stubs.engine.Follow(
                engine_pb2.FollowRequest(match_id=match_id, after_event_id=last),
                metadata=token,
            )
            try:
                async for item in stream:
                    last = item.id
                    kind = item.event.WhichOneof("kind")
                    if kind in WAKE or (
                        kind in MINE and getattr(item.event, kind).seat == seat  # type: ignore[arg-type]
                    ):
                        changed.set()
                    if kind == "seed_revealed":
                        return
                return
            except grpc.aio.AioRpcError as error:
                self.stats.errors[("Follow", error.code().name)] += 1
                if error.code() not in (grpc.StatusCode.ABORTED, grpc.StatusCode.UNAVAILABLE):
                    return  # the player goes on by reading its view every few seconds
                await asyncio.sleep(0.5)
            finally:
                stream.cancel()

    async def measure_rating_lag(self, match_id: str, finished: float) -> bool:
        """Poll the profile until the match is counted; answers whether it was."""
        request = rating_pb2.GetProfileRequest(player_id=self.player_id, recent=1)
        while time.monotonic() - finished < 120:
            profile = (
                await self.stats.call(
                    "GetProfile", self.stubs.rating.GetProfile(request, timeout=CALL_SECONDS)
                )
            ).profile
            if profile.recent and profile.recent[0].match_id == match_id:
                self.stats.rating_lag_s.append(time.monotonic() - finished)
                return True
            await asyncio.sleep(0.2)
        self.stats.unrated += 1
        return False

    async def browse(self, preset: str, on_ladder: bool) -> None:
        """What a player looks at between matches; Around only on a ladder it is on."""
        rating = self.stubs.rating
        looks = ["Leaderboard", "History", "GetProfile"] + (["Around"] if on_ladder else [])
        look = self.rng.choice(looks)
        if look == "Leaderboard":
            request = rating_pb2.LeaderboardRequest(preset=preset, limit=10)
            await self.stats.call(look, rating.Leaderboard(request, timeout=CALL_SECONDS))
        elif look == "History":
            history = rating_pb2.HistoryRequest(player_id=self.player_id, limit=10)
            await self.stats.call(look, rating.History(history, timeout=CALL_SECONDS))
        elif look == "GetProfile":
            profile = rating_pb2.GetProfileRequest(player_id=self.player_id)
            await self.stats.call(look, rating.GetProfile(profile, timeout=CALL_SECONDS))
        else:
            around = rating_pb2.AroundRequest(player_id=self.player_id, preset=preset, radius=5)
            await self.stats.call(look, rating.Around(around, timeout=CALL_SECONDS))


def channels(address: str) -> list[grpc.aio.Channel]:
    # A local subchannel pool: each channel its own connection, not one shared by all.
    options = [("grpc.use_local_subchannel_pool", 1)]
    return [grpc.aio.insecure_channel(address, options=options) for _ in range(CHANNELS)]


# ------------------------------------------------------------------------------ the run


def percentile(values: list[float], share: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def growth(before: float, after: float) -> float:
    return (after - before) / before * 100 if before else 0.0


@dataclass
class Report:
    figures: dict[str, float]
    readings: list[Reading]
    errors: Counter[tuple[str, str]]
    series: list[Reading]
    """Readings (without key families) every 1/24 of the run."""


async def drive(platform: Platform, options: Options) -> Report:
    stats = Stats()
    engine, matchmaking, rating = (
        channels(platform.address(name)) for name in ("engine", "matchmaking", "rating")
    )
    readings = [await asyncio.to_thread(read, platform, 0.0, True)]
    series = [readings[0]]
    began = time.monotonic()
    own_cpu = resource.getrusage(resource.RUSAGE_SELF)
    tasks = []
    for number in range(options.players):
        n = number % CHANNELS
        stubs = Stubs(
            players_pb2_grpc.PlayersServiceStub(engine[n]),
            engine_pb2_grpc.EngineServiceStub(engine[n]),
            matchmaking_pb2_grpc.MatchmakingServiceStub(matchmaking[n]),
            rating_pb2_grpc.RatingServiceStub(rating[n]),
        )
        tasks.append(asyncio.create_task(Player(number, stubs, options, stats).run()))
    warm_at = began + options.warmup_seconds()
    end_at = began + options.seconds
    step = max(5.0, options.seconds / 24)
    warm: tuple[float, int] | None = None
    try:
        while (now := time.monotonic()) < end_at:
            await asyncio.sleep(min(step, end_at - now))
            platform.check()
            now = time.monotonic()
            if warm is None and now >= warm_at:
                readings.append(await asyncio.to_thread(read, platform, now - began, True))
                warm = (len(stats.act_ms), stats.moves)
            reading = await asyncio.to_thread(read, platform, now - began, False)
            series.append(reading)
        readings.append(await asyncio.to_thread(read, platform, time.monotonic() - began, True))
    finally:
        for task in tasks:
            task.cancel()
        _, stuck = await asyncio.wait(tasks, timeout=30)
        if stuck:
            print(f"make load: {len(stuck)} players did not stop within 30 s", file=sys.stderr)
        for channel in (*engine, *matchmaking, *rating):
            await channel.close()
    elapsed = readings[-1].at
    used = resource.getrusage(resource.RUSAGE_SELF)
    generator_cpu = used.ru_utime + used.ru_stime - own_cpu.ru_utime - own_cpu.ru_stime
    if warm is None:  # a run shorter than its warm-up: the start stands in
        readings.insert(1, readings[0])
        warm = (0, 0)
    start, warmed, end = readings[0], readings[1], readings[-1]
    measured = max(end.at - warmed.at, 1e-9)
    prefix = f"load.{options.kind}"
    figures: dict[str, float] = {
        f"{prefix}.players": options.players,
        f"{prefix}.seconds": options.seconds,
        f"{prefix}.registered": stats.registered,
        f"{prefix}.seated": stats.seated,
        f"{prefix}.matches_finished": len(stats.finished),
        f"{prefix}.moves": stats.moves,
        f"{prefix}.acts_overtaken": stats.overtaken,
        f"{prefix}.moves_per_s": (stats.moves - warm[1]) / measured if warm[1] else 0.0,
        f"{prefix}.moves_per_s.whole_run": stats.moves / elapsed,
        f"{prefix}.act_ms.p50": percentile(stats.act_ms, 0.5),
        f"{prefix}.act_ms.p99": percentile(stats.act_ms, 0.99),
        f"{prefix}.matchmaking_wait_s.p50": percentile(stats.wait_s, 0.5),
        f"{prefix}.matchmaking_wait_s.p99": percentile(stats.wait_s, 0.99),
        f"{prefix}.rating_lag_s.p50": percentile(stats.rating_lag_s, 0.5),
        f"{prefix}.rating_lag_s.p99": percentile(stats.rating_lag_s, 0.99),
        f"{prefix}.rating_lag.samples": len(stats.rating_lag_s),
        f"{prefix}.unrated_after_120s": stats.unrated,
        f"{prefix}.calls": sum(stats.calls.values()),
        f"{prefix}.errors": sum(stats.errors.values()),
        f"{prefix}.generator_cpu_share": generator_cpu / elapsed,
        # Other work on the machine takes CPU from the platform: the 1-minute load average at
        # the end, beside the cores the machine has, says how much.
        f"{prefix}.machine_load_avg": os.getloadavg()[0],
        f"{prefix}.machine_cores": os.cpu_count() or 1,
        f"{prefix}.retention_s": options.retention_seconds(),
        f"{prefix}.warmup_s": warmed.at,
    }
    for (_, code), count in stats.errors.items():
        figures[f"{prefix}.errors.{code}"] = figures.get(f"{prefix}.errors.{code}", 0) + count
    for state, count in stats.tickets.items():
        figures[f"{prefix}.tickets.{state}"] = count
    for stage, reading in (("start", start), ("warm", warmed), ("end", end)):
        figures[f"{prefix}.redis_mb.{stage}"] = reading.redis_used / 2**20
        figures[f"{prefix}.redis_data_mb.{stage}"] = redis_data(reading) / 2**20
        figures[f"{prefix}.redis_keys.{stage}"] = sum(reading.families.values())
        for name, size in reading.resident.items():
            figures[f"{prefix}.rss_mb.{name}.{stage}"] = size / 2**20
        figures[f"{prefix}.services_rss_mb.{stage}"] = services_resident(reading) / 2**20
    figures[f"{prefix}.redis_growth_pct"] = growth(warmed.redis_used, end.redis_used)
    figures[f"{prefix}.redis_data_growth_pct"] = growth(redis_data(warmed), redis_data(end))
    # One reading against another is at the mercy of how many matches are live at the two
    # moments; the readings of the second half after the warm-up against those of the first
    # are not.
    after = [reading for reading in series if reading.at >= warmed.at]
    halves = (after[: len(after) // 2], after[len(after) // 2 :])
    measures: list[tuple[str, Callable[[Reading], int]]] = [
        ("redis", lambda reading: reading.redis_used),
        ("redis_data", redis_data),
        ("services_rss", services_resident),
    ]
    for name, measure in measures:
        first, second = (sum(map(measure, half)) / max(len(half), 1) for half in halves)
        figures[f"{prefix}.{name}_trend_pct"] = growth(first, second)
    figures[f"{prefix}.services_rss_growth_pct"] = growth(
        figures[f"{prefix}.services_rss_mb.warm"], figures[f"{prefix}.services_rss_mb.end"]
    )
    for name in end.cpu:
        busy = end.cpu[name] - start.cpu.get(name, 0.0)
        figures[f"{prefix}.cpu_share.{name}"] = busy / elapsed
    return Report(figures, readings, stats.errors, series)


def run(options: Options, folder: Path, attempts: int = 3) -> Report:
    """Start the platform (again on fresh ports when a port chosen free was taken meanwhile
    by another program), play the players against it, stop it."""
    for attempt in range(1, attempts + 1):
        platform = Platform(folder / f"attempt-{attempt}", options)
        try:
            platform.start()
        except PlatformError as error:
            platform.stop()
            if attempt == attempts:
                raise
            print(f"make load: {error}; starting again on other ports", file=sys.stderr)
            continue
        try:
            return asyncio.run(drive(platform, options))
        finally:
            platform.stop()
    raise AssertionError("unreachable")


def cluster_available() -> bool:
    """Whether this tree has the local Redis Cluster that ``make run CLUSTER=1`` starts."""
    return importlib.util.find_spec("maumau.common.redis_cluster") is not None


# ------------------------------------------------------------------------------ the summary


def growing(report: Report, limit: int = 6) -> list[str]:
    """The key families whose bytes grew after the warm-up, most first, with their keys."""
    warm, end = report.readings[1], report.readings[-1]
    grew = sorted(
        (
            (end.family_bytes[f] - warm.family_bytes.get(f, 0), f)
            for f in end.family_bytes
            if end.family_bytes[f] > warm.family_bytes.get(f, 0)
        ),
        reverse=True,
    )
    return [
        f"{family} {size / 1024:+,.0f} KB ({end.families[family] - warm.families.get(family, 0):+,}"
        " keys)"
        for size, family in grew[:limit]
    ]


def summary(report: Report, options: Options, other: dict[str, float]) -> str:
    kind = options.kind
    other_kind = "single" if options.cluster else "cluster"
    figures = report.figures

    def cell(values: dict[str, float], kind: str, key: str, form: str) -> str:
        name = f"load.{kind}.{key}"
        return form.format(values[name]) if name in values else "-"

    rows = [  # (label, the figures shown, split by "/", without "load.<kind>.")
        ("players", "players", "{:,.0f}"),
        ("matches finished", "matches_finished", "{:,.0f}"),
        ("player moves/s after warm-up", "moves_per_s", "{:,.1f}"),
        ("Act p50 / p99 ms", "act_ms.p50 act_ms.p99", "{:,.1f}"),
        ("matchmaking wait p50 / p99 s", "matchmaking_wait_s.p50 matchmaking_wait_s.p99", "{:.2f}"),
        ("rating lag p50 / p99 s", "rating_lag_s.p50 rating_lag_s.p99", "{:.2f}"),
        ("errors / calls", "errors calls", "{:,.0f}"),
        ("Redis MB start / warm / end", "redis_mb.start redis_mb.warm redis_mb.end", "{:.1f}"),
        ("Redis growth after warm-up %", "redis_growth_pct", "{:+.1f}"),
        (
            "Redis MB without buffers s/w/e",
            "redis_data_mb.start redis_data_mb.warm redis_data_mb.end",
            "{:.1f}",
        ),
        ("  its growth / half on half %", "redis_data_growth_pct redis_data_trend_pct", "{:+.1f}"),
        (
            "services RSS MB start/warm/end",
            "services_rss_mb.start services_rss_mb.warm services_rss_mb.end",
            "{:.0f}",
        ),
        ("services RSS growth %", "services_rss_growth_pct", "{:+.1f}"),
        ("after warm-up, half on half %", "redis_trend_pct services_rss_trend_pct", "{:+.1f}"),
        ("load generator CPU (cores)", "generator_cpu_share", "{:.2f}"),
    ]
    lines = [
        f"make load: {options.players:,} players, {options.seconds:.0f} s, warm-up "
        f"{options.warmup_seconds():.0f} s, retention and farming window "
        f"{options.retention_seconds()} s",
        f"{'':32}{kind + ' (this run)':>24}{other_kind + ' (latest)':>24}",
    ]
    for label, keys, form in rows:
        names = keys.split()
        this = " / ".join(cell(figures, kind, k, form) for k in names)
        that = " / ".join(cell(other, other_kind, k, form) for k in names)
        lines.append(f"{label:32}{this:>24}{that:>24}")
    cpu = {k.rsplit(".", 1)[1]: v for k, v in figures.items() if ".cpu_share." in k}
    lines.append(
        f"CPU (cores; machine: {figures[f'load.{kind}.machine_cores']:.0f} cores, load average "
        f"{figures[f'load.{kind}.machine_load_avg']:.1f}): "
        + ", ".join(f"{n} {v:.2f}" for n, v in sorted(cpu.items(), key=lambda x: -x[1]))
    )
    end = report.readings[-1]
    lines.append(
        "RSS MB at end: "
        + ", ".join(f"{n} {v / 2**20:.0f}" for n, v in sorted(end.resident.items()))
    )
    if report.errors:
        lines.append(
            "errors: " + ", ".join(f"{m} {c} x{n}" for (m, c), n in report.errors.most_common(8))
        )
    lines.append(
        "Redis MB over time: "
        + " ".join(f"{reading.redis_used / 2**20:.0f}" for reading in report.series)
    )
    lines.append(
        "Redis MB without buffers over time: "
        + " ".join(f"{redis_data(reading) / 2**20:.0f}" for reading in report.series)
    )
    lines.append(
        "services RSS MB over time: "
        + " ".join(f"{services_resident(reading) / 2**20:.0f}" for reading in report.series)
    )
    lines.append(
        "engine RSS MB over time: "
        + " ".join(f"{reading.resident.get('engine', 0) / 2**20:.0f}" for reading in report.series)
    )
    grew = growing(report)
    lines.append("key families grown after warm-up: " + (", ".join(grew) if grew else "none"))
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument(
        "--warmup",
        type=float,
        default=None,
        help="default: retention + 480 s, at most a third of the run",
    )
    parser.add_argument("--retention", type=float, default=None, help="finished matches, seconds")
    parser.add_argument("--bots-after", type=float, default=10.0)
    parser.add_argument("--cluster", action="store_true", help="on the local Redis Cluster")
    parser.add_argument("--save", action="store_true", help="into bench/results.json too")
    args = parser.parse_args()
    if args.players < 1 or args.seconds <= 0:
        sys.exit("--players must be 1 or more and --seconds more than 0")
    if args.cluster and not cluster_available():
        sys.exit(
            "cluster mode is not available yet: this tree has no local Redis Cluster "
            "(maumau.common.redis_cluster, `make run CLUSTER=1`); run `make load` without CLUSTER=1"
        )
    options = Options(
        players=args.players,
        seconds=args.seconds,
        warmup=args.warmup,
        retention=args.retention,
        bots_after=args.bots_after,
        cluster=args.cluster,
    )
    print(
        f"make load: starting the platform ({options.kind} Redis), then {options.players:,} "
        f"players for {options.seconds:.0f} s",
        flush=True,
    )
    with tempfile.TemporaryDirectory(prefix=f"maumau-load-{options.kind}-") as folder:
        try:
            report = run(options, Path(folder))
        except PlatformError as error:
            sys.exit(f"make load: {error}")
    family = f"load.{options.kind}."
    record(report.figures, LATEST, family)
    other = json.loads(LATEST.read_text())
    print(summary(report, options, other))
    print(f"figures merged into {LATEST}")
    if args.save:
        record(report.figures, RESULTS, family)
        print(f"and into {RESULTS}")


if __name__ == "__main__":
    main()
