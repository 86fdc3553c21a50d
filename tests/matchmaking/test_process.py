"""``python -m maumau.matchmaking`` as it runs in production (issue 5; ARCHITECTURE.md "Every
service"): configuration from the environment, health, reflection, metrics, SIGTERM."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from maumau.common.redis_server import EmbeddedRedis, free_port

ROOT = Path(__file__).resolve().parents[2]


def start(redis_server: EmbeddedRedis, port: int, **extra: str) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "REDIS_URL": redis_server.url,
        "MAUMAU_TOKEN_SECRET": "process test secret",
        "MAUMAU_MATCHMAKING_PORT": str(port),
        "MAUMAU_MATCHMAKING_METRICS_PORT": str(extra.pop("metrics_port", "0")),
        "MAUMAU_MATCHMAKING_GRACE_SECONDS": "2",
        **extra,
    }
    return subprocess.Popen(
        [sys.executable, "-m", "maumau.matchmaking"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )


async def test_the_service_process_serves_health_reflection_metrics_and_stops_on_sigterm(
    redis_server: EmbeddedRedis,
) -> None:
    port, metrics_port = free_port(), free_port()
    process = start(redis_server, port, metrics_port=str(metrics_port))
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            health = health_pb2_grpc.HealthStub(channel)
            deadline = time.monotonic() + 20
            while True:
                try:
                    reply = await health.Check(
                        health_pb2.HealthCheckRequest(service="maumau.v1.Matchmaking"), timeout=1
                    )
                    if reply.status == health_pb2.HealthCheckResponse.SERVING:
                        break
                except grpc.aio.AioRpcError:
                    pass
                assert time.monotonic() < deadline, "the matchmaker did not come up"
                assert process.poll() is None, process.stdout.read().decode()  # type: ignore[union-attr]
                await asyncio.sleep(0.1)
            stub = reflection_pb2_grpc.ServerReflectionStub(channel)
            call = stub.ServerReflectionInfo()
            await call.write(reflection_pb2.ServerReflectionRequest(list_services=""))
            answer = await call.read()
            await call.done_writing()
            names = {s.name for s in answer.list_services_response.service}
            assert "maumau.v1.Matchmaking" in names
        with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=5) as page:
            text = page.read().decode()
        assert "matchmaking_wait_seconds" in text and "matchmaking_tables_formed" in text
        assert "\nengine_" not in text, "the matchmaker exports none of the engine's series"
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=10) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_an_unusable_setting_stops_the_process_at_start(redis_server: EmbeddedRedis) -> None:
    process = start(redis_server, free_port(), MAUMAU_MATCHMAKING_BOT_LEVEL="genius")
    output, _ = process.communicate(timeout=20)
    assert process.returncode == 2
    assert b"MAUMAU_MATCHMAKING_BOT_LEVEL" in output
