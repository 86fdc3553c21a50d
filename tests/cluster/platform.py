"""The platform as it runs in production, for the failover suites: every service a process of its
own (two replicas of the engine, the matchmaker and rating, one bots service) over one store,
each killable with SIGKILL and restartable on the same ports."""

from __future__ import annotations

import asyncio
import signal
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from maumau.common.redis_server import free_port
from tests.support.processes import kill_if_running, spawn, until_serving

SECRET = "cluster tests secret"

MODULES = {
    "bots": "maumau.bots",
    "engine": "maumau.engine",
    "matchmaking": "maumau.matchmaking",
    "rating": "maumau.rating",
}


@dataclass
class Replica:
    name: str
    service: str
    port: int
    env: dict[str, str]
    log: Path
    process: subprocess.Popen[bytes] | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    async def start(self) -> None:
        self.process = spawn(MODULES[self.service], self.env, self.log)
        await until_serving(self.process, self.address, self.log, timeout=60)

    def kill(self) -> None:
        """SIGKILL, as a crash would: nothing is finished or handed over."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)


@dataclass
class Platform:
    replicas: dict[str, Replica] = field(default_factory=dict)

    def target(self, service: str) -> str:
        """A gRPC target naming every replica of ``service`` (calls go round robin)."""
        ports = [r.port for r in self.replicas.values() if r.service == service]
        return "ipv4:" + ",".join(f"127.0.0.1:{port}" for port in ports)

    def addresses(self, service: str) -> list[str]:
        return [r.address for r in self.replicas.values() if r.service == service]

    def stop(self) -> None:
        for replica in self.replicas.values():
            if replica.process is not None:
                replica.process.terminate()
        for replica in self.replicas.values():
            if replica.process is not None:
                try:
                    replica.process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    kill_if_running(replica.process)


async def start_platform(redis_url: str, folder: Path, replicas: int = 2) -> Platform:
    """Bots, then ``replicas`` engines, matchmakers and rating replicas on free ports."""
    folder.mkdir(parents=True, exist_ok=True)
    platform = Platform()
    ports = {
        f"{service}-{n}": free_port()
        for service in MODULES
        for n in range(1 if service == "bots" else replicas)
    }
    engines = "ipv4:" + ",".join(
        f"127.0.0.1:{port}" for name, port in ports.items() if name.startswith("engine")
    )
    common = {
        "REDIS_URL": redis_url,
        "MAUMAU_TOKEN_SECRET": SECRET,
        "MAUMAU_BOTS_ADDRESS": f"127.0.0.1:{ports['bots-0']}",
        "MAUMAU_ENGINE_BOT_DELAY_MS": "0",
        "MAUMAU_MATCHMAKING_ENGINE_ADDRESS": engines,
        "MAUMAU_MATCHMAKING_TURN_SECONDS": "0",
        "MAUMAU_MATCHMAKING_BOT_LEVEL": "random",
        "MAUMAU_MATCHMAKING_LEASE_SECONDS": "3",
        "MAUMAU_MATCHMAKING_RESULTS_CLAIM_IDLE_SECONDS": "3",
        "MAUMAU_RATING_CLAIM_IDLE_SECONDS": "3",
        "MAUMAU_REDIS_WAIT_MS": "2000",
        "PYTHONUNBUFFERED": "1",
    }
    for name, port in ports.items():
        service = name.split("-")[0]
        prefix = f"MAUMAU_{service.upper()}_"
        env = {
            **common,
            f"{prefix}PORT": str(port),
            f"{prefix}METRICS_PORT": "0",
            f"{prefix}HEALTH_INTERVAL_SECONDS": "0.5",
            "MAUMAU_RATING_CONSUMER": name,
            "MAUMAU_MATCHMAKING_RESULTS_CONSUMER": name,
        }
        platform.replicas[name] = Replica(name, service, port, env, folder / f"{name}.log")
    try:
        for replica in platform.replicas.values():
            if replica.service == "bots":
                await replica.start()
        await asyncio.gather(
            *(r.start() for r in platform.replicas.values() if r.service != "bots")
        )
    except BaseException:
        platform.stop()
        raise
    return platform
