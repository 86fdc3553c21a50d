"""The whole platform as a user starts it (``python -m maumau.run``), every service on a free port,
with its own embedded Redis in a temporary folder: what the docs' commands, the terminal
client's subcommands and the SDK's matchmaking and rating calls are tested against."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from maumau.common.redis_server import free_port
from maumau.run import SERVICES

ROOT = Path(__file__).parents[2]


@dataclass
class RunningPlatform:
    process: subprocess.Popen[bytes]
    ports: dict[str, int]
    folder: Path

    def address(self, service: str) -> str:
        return f"127.0.0.1:{self.ports[service]}"

    @property
    def env(self) -> dict[str, str]:
        """The environment of a client: its own home folder for the player it registers."""
        return {**os.environ, "PYTHONPATH": str(ROOT), "MAUMAU_HOME": str(self.folder / "home")}

    def client_args(self) -> list[str]:
        """The terminal client's options naming this platform's services."""
        return [
            "--address",
            self.address("engine"),
            "--matchmaking-address",
            self.address("matchmaking"),
            "--rating-address",
            self.address("rating"),
            "--accounts-address",
            self.address("accounts"),
        ]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start_platform(folder: Path, **settings: str) -> RunningPlatform:
    """Start ``maumau.run`` with every service on a free port; wait for its banner."""
    ports = {service.name: free_port() for service in SERVICES}
    env = {**os.environ, "MAUMAU_DATA_DIR": str(folder / "data"), **settings}
    for name, port in ports.items():
        env[f"MAUMAU_{name.upper()}_PORT"] = str(port)
        env[f"MAUMAU_{name.upper()}_METRICS_PORT"] = str(free_port())
    for name in ("REDIS_URL", "MAUMAU_TOKEN_SECRET", "MAUMAU_BOTS_ADDRESS"):
        env.pop(name, None)
    out = folder / "run.out"
    with open(out, "wb") as stdout, open(folder / "run.err", "wb") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "maumau.run"], env=env, cwd=folder, stdout=stdout, stderr=stderr
        )
    platform = RunningPlatform(process, ports, folder)
    deadline = time.monotonic() + 120
    while "Press Ctrl-C" not in out.read_text():
        if process.poll() is not None or time.monotonic() > deadline:
            platform.stop()
            raise AssertionError(
                "maumau.run did not start:\n" + (folder / "run.err").read_text()[-3000:]
            )
        time.sleep(0.2)
    return platform


FAST = {
    "MAUMAU_ENGINE_BOT_DELAY_MS": "0",
    "MAUMAU_MATCHMAKING_TURN_SECONDS": "0",
    "MAUMAU_MATCHMAKING_BOT_LEVEL": "random",
    "MAUMAU_MATCHMAKING_SMALLER_AFTER_SECONDS": "1",
    "MAUMAU_RATING_CLAIM_IDLE_SECONDS": "5",
}
"""Settings for tests: bots move at once, no turn timers, queued tables form quickly."""
