"""`make run` as a user runs it: the platform starts, serves, and Ctrl-C stops all of it."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

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
)

pytestmark = pytest.mark.skipif(not Path("/proc/self").exists(), reason="reads /proc")


def children(pid: int) -> list[int]:
    text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    return [int(child) for child in text.split()]


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead, merely not yet reaped by its parent.
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"


def wait_serving(
    address: str, process: subprocess.Popen[bytes], out: Path, timeout: float = 150
) -> None:
    """Until the service answers SERVING and run.py printed its banner."""
    deadline = time.monotonic() + timeout
    with grpc.insecure_channel(address) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        while time.monotonic() < deadline:
            assert process.poll() is None, "maumau.run exited while starting"
            try:
                reply = health.Check(health_pb2.HealthCheckRequest(service=""), timeout=1)
                serving = reply.status == health_pb2.HealthCheckResponse.SERVING
                if serving and "Press Ctrl-C" in out.read_text():
                    return
            except grpc.RpcError:
                pass
            time.sleep(0.1)
    raise AssertionError(f"nothing SERVING at {address} within {timeout} s")


def start_run(tmp_path: Path, port: int, metrics_port: int) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "MAUMAU_ENGINE_PORT": str(port),
        "MAUMAU_ENGINE_METRICS_PORT": str(metrics_port),
        "MAUMAU_DATA_DIR": str(tmp_path / "data"),
    }
    for service in SERVICES:  # the others on free ports too, away from a running platform
        if service.name != "engine":
            env[f"MAUMAU_{service.name.upper()}_PORT"] = str(free_port())
            env[f"MAUMAU_{service.name.upper()}_METRICS_PORT"] = str(free_port())
    env.pop("REDIS_URL", None)
    env.pop("MAUMAU_TOKEN_SECRET", None)
    with open(tmp_path / "out", "wb") as out, open(tmp_path / "err", "wb") as err:
        return subprocess.Popen(
            [sys.executable, "-m", "maumau.run"], env=env, cwd=tmp_path, stdout=out, stderr=err
        )


def reap(process: subprocess.Popen[bytes], started: list[int]) -> list[int]:
    """Kill what is still running (run.py, then its children); return the children that
    outlived it."""
    if process.poll() is None:
        process.kill()
        process.wait()
    deadline = time.monotonic() + 5
    while any(alive(pid) for pid in started) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = [pid for pid in started if alive(pid)]
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    return left


def test_run_serves_the_engine_and_stops_cleanly_on_ctrl_c(tmp_path: Path) -> None:
    port, metrics_port = free_port(), free_port()
    address = f"127.0.0.1:{port}"
    process = start_run(tmp_path, port, metrics_port)
    started: list[int] = []
    try:
        wait_serving(address, process, tmp_path / "out")
        started = children(process.pid)
        assert len(started) == 1 + len(SERVICES)  # redis-server and every service

        with grpc.insecure_channel(address) as channel:
            player = players_pb2_grpc.PlayersServiceStub(channel).Register(
                players_pb2.RegisterRequest(name="Ada"), timeout=5
            )
            assert player.player_id and player.player_token
            created = engine_pb2_grpc.EngineServiceStub(channel).CreateMatch(
                engine_pb2.CreateMatchRequest(
                    ruleset=game_pb2.Ruleset(preset="classic"),
                    seats=2,
                    bots={1: game_pb2.BOT_LEVEL_RANDOM},
                    auto_start=True,
                ),
                metadata=(("authorization", f"Bearer {player.player_token}"),),
                timeout=5,
            )
            assert created.match.status == "playing"
        matchmaker = re.search(r"^  matchmaking +(\S+)", (tmp_path / "out").read_text(), re.M)
        assert matchmaker is not None
        with grpc.insecure_channel(matchmaker.group(1)) as channel:
            arena = matchmaking_pb2_grpc.MatchmakingServiceStub(channel)
            deadline = time.monotonic() + 60  # a hang, not a speed: the house joins at once
            waiting = 0
            while not waiting and time.monotonic() < deadline:
                pools = arena.ListArenaPools(
                    matchmaking_pb2.ListArenaPoolsRequest(),
                    metadata=(("authorization", f"Bearer {player.player_token}"),),
                    timeout=5,
                ).pools
                waiting = sum(pool.waiting for pool in pools)
                time.sleep(0.2)
            assert waiting, "the house's levels wait in the arena"
        with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=5) as r:
            assert b"grpc_server_handled_total" in r.read()
        assert (tmp_path / "data" / "redis" / "appendonly.aof").exists()

        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=60) == 0  # seven services stop one after another
    finally:
        left = reap(process, started)
    assert not left, f"processes left running: {left}"
    output = (tmp_path / "out").read_text()
    assert address in output
    assert f"http://127.0.0.1:{metrics_port}/metrics" in output
    assert f"grpcurl -plaintext {address} list" in output
    assert "Play in your browser:\n  http://127.0.0.1:" in output
    assert "join the arena (docs/arena.md)" in output
    assert "Ctrl-C" in output


def test_run_stops_everything_when_a_service_dies(tmp_path: Path) -> None:
    port = free_port()
    process = start_run(tmp_path, port, free_port())
    started: list[int] = []
    try:
        wait_serving(f"127.0.0.1:{port}", process, tmp_path / "out")
        started = children(process.pid)
        engine = next(pid for pid in started if b"maumau.engine" in cmdline(pid))
        os.kill(engine, signal.SIGKILL)
        assert process.wait(timeout=15) == 1
    finally:
        left = reap(process, started)
    assert not left, f"processes left running: {left}"
    assert "engine exited unexpectedly" in (tmp_path / "err").read_text()


def cmdline(pid: int) -> bytes:
    return Path(f"/proc/{pid}/cmdline").read_bytes()
