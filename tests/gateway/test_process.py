"""``python -m maumau.gateway`` as it runs in production: settings from the environment, metrics
on its own port, and a SIGTERM that tells open pages to reconnect before it exits."""

from __future__ import annotations

import asyncio
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import aiohttp

from maumau.common.redis_server import free_port
from tests.gateway.support import Platform
from tests.support.engine import SECRET

ROOT = Path(__file__).resolve().parents[2]


def gateway_env(services: Platform, port: int, metrics_port: int) -> dict[str, str]:
    settings = services.settings()
    return {
        **os.environ,
        "MAUMAU_TOKEN_SECRET": SECRET.decode(),
        "MAUMAU_GATEWAY_PORT": str(port),
        "MAUMAU_GATEWAY_METRICS_PORT": str(metrics_port),
        "MAUMAU_GATEWAY_ENGINE_ADDRESS": settings.engine_address,
        "MAUMAU_GATEWAY_MATCHMAKING_ADDRESS": settings.matchmaking_address,
        "MAUMAU_GATEWAY_BOTS_ADDRESS": settings.bots_address,
        "MAUMAU_GATEWAY_RATING_ADDRESS": settings.rating_address,
        "MAUMAU_GATEWAY_TOURNAMENTS_ADDRESS": settings.tournaments_address,
        "MAUMAU_GATEWAY_GRACE_SECONDS": "3",
    }


def low_open_files_limit() -> None:
    """The usual soft limit of 1024 open files (or lower), under a higher hard limit."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(1024, hard // 2), hard))


def open_files_limits(pid: int) -> tuple[str, str]:
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max open files"):
            soft, hard = line.split()[3:5]
            return soft, hard
    raise AssertionError("no open-files line")


async def test_the_process_serves_metrics_and_stops_with_a_reconnect_code(
    services: Platform, tmp_path: Path
) -> None:
    """... and lifts its soft limit on open files to the hard one, as every page holds a
    socket."""
    port, metrics_port = free_port(), free_port()
    base = f"http://127.0.0.1:{port}"
    with open(tmp_path / "gateway.log", "wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "maumau.gateway"],
            env=gateway_env(services, port, metrics_port),
            cwd=ROOT,
            stdout=log,
            stderr=log,
            preexec_fn=low_open_files_limit,
        )
    try:
        async with aiohttp.ClientSession(
            base_url=base, cookie_jar=aiohttp.CookieJar(unsafe=True)
        ) as session:
            for _ in range(200):
                try:
                    async with session.get("/readyz") as response:
                        if response.status == 200:
                            break
                except aiohttp.ClientError:
                    pass
                await asyncio.sleep(0.1)
            soft, hard = open_files_limits(process.pid)
            assert soft == hard, "the soft limit on open files was not lifted"
            async with session.post("/api/session", json={"name": "Ada"}) as response:
                assert response.status == 200
            async with session.get(f"http://127.0.0.1:{metrics_port}/metrics") as response:
                metrics = await response.text()
            assert 'gateway_http_requests_total{code="200",route="/api/session"}' in metrics
            ws = await session.ws_connect("/ws", origin=base)
            process.send_signal(signal.SIGTERM)
            message = await asyncio.wait_for(ws.receive(), 10)
            assert message.type == aiohttp.WSMsgType.CLOSE and message.data == 1012
        assert await asyncio.to_thread(process.wait, 15) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_an_unusable_setting_stops_it_at_start_naming_the_variable() -> None:
    env = {**os.environ, "MAUMAU_GATEWAY_RATE_BURST": "plenty"}
    done = subprocess.run(
        [sys.executable, "-m", "maumau.gateway"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "MAUMAU_GATEWAY_RATE_BURST='plenty'" in done.stderr
