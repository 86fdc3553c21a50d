"""The platform's services as processes on free ports, as `make run` starts them, for the
deployment tests: from the dev environment or from a virtual environment built from the wheel."""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from maumau.common.redis_server import free_port
from maumau.run import SERVICES, web_ready

START_TIMEOUT_SECONDS = 90.0


@dataclass
class Process:
    name: str
    port: int
    metrics_port: int
    process: subprocess.Popen[bytes]
    log: Path
    web: bool = False
    """An HTTP service (the gateway): ready when /readyz answers 200."""

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"


def wait_serving(service: Process, timeout: float = START_TIMEOUT_SECONDS) -> None:
    deadline = time.monotonic() + timeout
    request = health_pb2.HealthCheckRequest(service="")
    with grpc.insecure_channel(service.address) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        while time.monotonic() < deadline:
            if service.process.poll() is not None:
                raise AssertionError(
                    f"{service.name} exited with {service.process.returncode}:\n"
                    + service.log.read_text()[-3000:]
                )
            if service.web:
                if web_ready(service.address):
                    return
            else:
                with contextlib.suppress(grpc.RpcError):
                    status = health.Check(request, timeout=1).status
                    if status == health_pb2.HealthCheckResponse.SERVING:
                        return
            time.sleep(0.1)
    raise AssertionError(f"{service.name} not SERVING within {timeout} s")


@contextlib.contextmanager
def platform(
    python: str | Path, redis_url: str, workdir: Path, extra_env: dict[str, str] | None = None
) -> Iterator[dict[str, Process]]:
    """Every service of maumau.run.SERVICES, started with ``python -I -m <module>`` in
    ``workdir`` (isolated: nothing from this source tree is importable unless installed)."""
    ports = {s.name: (free_port(), free_port()) for s in SERVICES}
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("MAUMAU_", "PYTHON", "REDIS_")) and key != "VIRTUAL_ENV"
    }
    env |= {
        "REDIS_URL": redis_url,
        "MAUMAU_TOKEN_SECRET": "deploy-test-secret",
        "MAUMAU_BOTS_ADDRESS": f"127.0.0.1:{ports['bots'][0]}",
        "MAUMAU_ENGINE_BOT_DELAY_MS": "20",
        "PYTHONUNBUFFERED": "1",
        **(extra_env or {}),
    }
    # Every caller's target of every callee (MAUMAU_<CALLER>_<CALLEE>_ADDRESS; a service
    # ignores the variables it has no setting for).
    for caller in ports:
        for callee, (port, _) in ports.items():
            env[f"MAUMAU_{caller.upper()}_{callee.upper()}_ADDRESS"] = f"127.0.0.1:{port}"
    for name, (port, metrics_port) in ports.items():
        env[f"MAUMAU_{name.upper()}_PORT"] = str(port)
        env[f"MAUMAU_{name.upper()}_METRICS_PORT"] = str(metrics_port)
        env[f"MAUMAU_{name.upper()}_GRACE_SECONDS"] = "2"
    workdir.mkdir(parents=True, exist_ok=True)
    started: dict[str, Process] = {}
    try:
        for service in SERVICES:
            log = workdir / f"{service.name}.log"
            with open(log, "wb") as out:
                process = subprocess.Popen(
                    [str(python), "-I", "-m", service.module],
                    env=env,
                    cwd=workdir,
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                )
            started[service.name] = Process(
                service.name, *ports[service.name], process, log, service.web
            )
        for service in started.values():
            wait_serving(service)
        yield started
    finally:
        for service in reversed(started.values()):
            service.process.terminate()
        for service in started.values():
            try:
                service.process.wait(10)
            except subprocess.TimeoutExpired:
                service.process.kill()
                service.process.wait()
