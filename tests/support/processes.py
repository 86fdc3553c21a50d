"""Services as they run in production: ``python -m maumau.<service>`` in a process of its own,
configured from the environment, its output in a log file."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

from tests.support.rpc import serving

ROOT = Path(__file__).resolve().parents[2]


def spawn(module: str, env: Mapping[str, str], log: Path) -> subprocess.Popen[bytes]:
    """Start ``python -m module`` with ``env`` over this process's environment."""
    with log.open("wb") as out:
        return subprocess.Popen(
            [sys.executable, "-m", module],
            cwd=ROOT,
            env={**os.environ, **env},
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
        )


async def until_serving(
    process: subprocess.Popen[bytes],
    address: str,
    log: Path,
    service: str = "",
    timeout: float = 30.0,
) -> None:
    """Wait until the process's health says SERVING; fail with its log when it exits first or
    takes longer than ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not await serving(address, service):
        if process.poll() is not None:
            raise AssertionError(
                f"{process.args} exited with {process.returncode}:\n{log.read_text()}"
            )
        if time.monotonic() > deadline:
            raise AssertionError(
                f"{process.args} not SERVING within {timeout} s:\n{log.read_text()}"
            )
        await asyncio.sleep(0.1)


def kill_if_running(process: subprocess.Popen[bytes]) -> None:
    """For a test's clean-up: whatever became of the process, it is gone afterwards."""
    if process.poll() is None:
        process.kill()
        process.wait(timeout=10)
