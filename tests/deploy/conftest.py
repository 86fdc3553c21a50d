"""Fixtures of the deployment tests: the project's wheels, built once per run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder holding the wheels `make wheel` builds: platform, SDK and rules core."""
    folder = tmp_path_factory.mktemp("wheels")
    subprocess.run(
        [
            *(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps"),
            *("--wheel-dir", str(folder), str(ROOT)),
            *(str(ROOT / "clients" / "python"), str(ROOT / "distributions" / "rules")),
        ],
        check=True,
        cwd=folder,
    )
    return folder


def make_venv(where: Path, *requirements: str, find_links: Path) -> Path:
    """A fresh virtual environment outside the source tree with ``requirements`` installed;
    its python."""
    # Without pip of its own (ensurepip is slow): this environment's pip installs into it.
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    python = where / "bin" / "python"
    subprocess.run(
        [
            *(sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet"),
            *("--find-links", str(find_links), *requirements),
        ],
        check=True,
        cwd=where,
    )
    return python
