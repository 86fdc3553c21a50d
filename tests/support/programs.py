"""Programs from Debian packages that some tests need (kubectl, promtool, chromium, ...).

:func:`require` returns the program's path. When it is missing and the tests run as root, it
installs the package with apt-get first; otherwise the test is skipped with a message naming the
package. With ``MAUMAU_TEST_REQUIRE_ALL=1`` (CI) a missing program fails the test instead.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

APT_TIMEOUT_SECONDS = 900
APT_LOCK = Path(tempfile.gettempdir()) / "maumau-tests-apt.lock"
"""Held while installing, so that the test workers of one run (pytest-xdist) take turns:
apt-get's own locks make a second apt-get fail rather than wait while the first updates."""
_lock = threading.Lock()
_updated = False
_failed: dict[str, str] = {}


def require(program: str, package: str) -> str:
    """The path of ``program``, installing Debian's ``package`` when root; else skip (or fail)."""
    path = shutil.which(program)
    if path is not None:
        return path
    with _lock, _installing():
        path = shutil.which(program)
        if path is None and os.geteuid() == 0 and shutil.which("apt-get"):
            if package not in _failed:
                _failed[package] = _apt_install(package) or ""
            path = shutil.which(program)
    if path is not None:
        return path
    why = _failed.get(package) or "not running as root"
    message = f"`{program}` is missing: apt-get install {package} (Debian package); {why}"
    if os.environ.get("MAUMAU_TEST_REQUIRE_ALL") == "1":
        pytest.fail(message + " [MAUMAU_TEST_REQUIRE_ALL=1]")
    pytest.skip(message)


@contextlib.contextmanager
def _installing() -> Iterator[None]:
    with open(APT_LOCK, "a") as lock:  # closing it lets the lock go
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _apt_install(package: str) -> str | None:
    """Install ``package``; None when it worked, else what went wrong."""
    global _updated
    if not _updated:
        failure = _apt("update", "-qq")
        if failure:
            return failure
        _updated = True
    return _apt("install", "-y", "-qq", "--no-install-recommends", package)


def _apt(*args: str) -> str | None:
    # Another apt-get (a test run in another checkout) may hold the lock for a while: wait.
    command = ["apt-get", "-o", "DPkg::Lock::Timeout=600", *args]
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    try:
        done = subprocess.run(
            command, env=env, capture_output=True, text=True, timeout=APT_TIMEOUT_SECONDS
        )
    except subprocess.TimeoutExpired:
        return f"`{' '.join(command)}` took over {APT_TIMEOUT_SECONDS} s"
    if done.returncode != 0:
        return f"`{' '.join(command)}` failed: {done.stderr.strip()[-500:]}"
    return None
