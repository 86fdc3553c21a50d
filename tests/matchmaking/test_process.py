"""``python -m maumau.matchmaking`` as it runs in production (issue 5; docs/architecture.md,
"Services meet only through contracts", "Every service"): configuration from the environment,
health, reflection, metrics, SIGTERM."""

from __future__ import annotations

import signal
import urllib.request
from pathlib import Path
from subprocess import Popen

import grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from maumau.common.redis_server import EmbeddedRedis, free_port
from tests.support.processes import kill_if_running, spawn, until_serving


def start(redis_server: EmbeddedRedis, port: int, log: Path, **extra: str) -> Popen[bytes]:
    env = {
        "REDIS_URL": redis_server.url,
        "MAUMAU_TOKEN_SECRET": "process test secret",
        "MAUMAU_MATCHMAKING_PORT": str(port),
        "MAUMAU_MATCHMAKING_METRICS_PORT": str(extra.pop("metrics_port", "0")),
        "MAUMAU_MATCHMAKING_GRACE_SECONDS": "2",
        **extra,
    }
    return spawn("maumau.matchmaking", env, log)


async def test_the_service_process_serves_health_reflection_metrics_and_stops_on_sigterm(
    redis_server: EmbeddedRedis, tmp_path: Path
) -> None:
    port, metrics_port = free_port(), free_port()
    log = tmp_path / "matchmaking.log"
    process = start(redis_server, port, log, metrics_port=str(metrics_port))
    try:
        await until_serving(process, f"127.0.0.1:{port}", log, "maumau.v1.MatchmakingService")
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = reflection_pb2_grpc.ServerReflectionStub(channel)
            call = stub.ServerReflectionInfo()
            await call.write(reflection_pb2.ServerReflectionRequest(list_services=""))
            answer = await call.read()
            await call.done_writing()
            names = {s.name for s in answer.list_services_response.service}
            assert "maumau.v1.MatchmakingService" in names
        with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=5) as page:
            text = page.read().decode()
        assert "matchmaking_wait_seconds" in text and "matchmaking_tables_formed" in text
        assert "\nengine_" not in text, "the matchmaker exports none of the engine's series"
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=10) == 0
    finally:
        kill_if_running(process)


def test_an_unusable_setting_stops_the_process_at_start(
    redis_server: EmbeddedRedis, tmp_path: Path
) -> None:
    log = tmp_path / "matchmaking.log"
    process = start(redis_server, free_port(), log, MAUMAU_MATCHMAKING_BOT_LEVEL="genius")
    assert process.wait(timeout=20) == 2
    assert "MAUMAU_MATCHMAKING_BOT_LEVEL" in log.read_text()
