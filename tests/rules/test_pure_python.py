"""The rules tests once more, against the pure-Python modules, when this run has the compiled
ones: the pure modules are the source of truth and the fallback where no compiler is at hand."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from maumau import rules

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(not rules.COMPILED, reason="the pure modules ran this folder already")
def test_the_rules_tests_pass_on_the_pure_modules() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/rules"],
        env={**os.environ, "MAUMAU_PURE_PYTHON": "1"},
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout[-5000:] + run.stderr[-2000:]
    assert " passed" in run.stdout and "1 skipped" in run.stdout, run.stdout[-500:]
