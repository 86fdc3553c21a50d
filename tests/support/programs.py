"""Debian programs some tests need: installed when running as root and missing, else the test
skips naming the packages (with MAUMAU_TEST_REQUIRE_ALL=1 that skip is a failure)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

_attempted: set[tuple[str, ...]] = set()


def require_program(program: str, packages: tuple[str, ...]) -> str:
    """The path of ``program``, installing ``packages`` with apt-get first when root and the
    program is missing; skips (or fails under MAUMAU_TEST_REQUIRE_ALL=1) when it stays missing."""
    found = _find(program)
    if (
        found is None
        and os.geteuid() == 0
        and shutil.which("apt-get")
        and packages not in _attempted
    ):
        _attempted.add(packages)
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        install = ["apt-get", "install", "-y", "-q", "--no-install-recommends", *packages]
        if subprocess.run(install, env=env, capture_output=True, check=False).returncode != 0:
            subprocess.run(["apt-get", "update", "-q"], env=env, capture_output=True, check=False)
            subprocess.run(install, env=env, capture_output=True, check=False)
        found = _find(program)
    if found is None:
        message = f"{program} is missing: install the Debian package(s) {', '.join(packages)}"
        if os.environ.get("MAUMAU_TEST_REQUIRE_ALL") == "1":
            pytest.fail(message + " (MAUMAU_TEST_REQUIRE_ALL=1)")
        pytest.skip(message)
    return found


def _find(program: str) -> str | None:
    if Path(program).is_absolute():
        return program if os.access(program, os.X_OK) else None
    return shutil.which(program)
