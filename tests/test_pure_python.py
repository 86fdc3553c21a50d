"""The tests of each compiled package once more, against its pure-Python modules, when this run
has the compiled ones: the pure modules are the source of truth and the fallback where no
compiler is at hand (build_support.py compiles the packages)."""

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

PURE_RUNS = {
    "maumau.rules.match": ["tests/rules"],
    # The rating tests of the compiled computation: directly, and through the store and service.
    "maumau.rating.states": [
        "tests/rating/test_ladder.py",
        "tests/rating/test_farming.py",
        "tests/rating/test_anti_farming.py",
        "tests/rating/test_retention.py",
    ],
}
"""A compiled module of each package, and the tests run again on the package's pure modules."""

PURE_PROFILE = {"MAUMAU_HYPOTHESIS_PROFILE": "default"}
"""The rule properties play their default number of random matches on the pure modules: every
test runs there, while the many more matches of CI's profile explore the rules once, on the
compiled modules (the same source, so the same behaviour), instead of twice."""


@pytest.mark.parametrize("module", PURE_RUNS)
def test_the_tests_pass_on_the_pure_modules(module: str) -> None:
    if (importlib.import_module(module).__file__ or ".py").endswith(".py"):
        pytest.skip("the pure modules ran these tests already")
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *PURE_RUNS[module]],
        env={**os.environ, "MAUMAU_PURE_PYTHON": "1", **PURE_PROFILE},
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout[-5000:] + run.stderr[-2000:]
    assert " passed" in run.stdout and "skipped" not in run.stdout, run.stdout[-500:]
