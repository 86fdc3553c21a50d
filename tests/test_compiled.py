"""The compiled rules core: the services load it where the install compiled it, the switch
``MAUMAU_PURE_PYTHON=1`` and an edit of a source after compiling both give the pure modules."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import maumau.rules

RULES = Path(maumau.rules.__file__).parent
NATIVE = RULES / "_native"
WHICH = (
    "import sys, maumau.rules;"
    "print(maumau.rules.COMPILED, sys.modules['maumau.rules.legal'].__file__)"
)


def loaded(code: str, pure: str = "", **env: str) -> tuple[bool, str, str]:
    """Run ``code`` then :data:`WHICH` in a fresh interpreter: whether the compiled core runs,
    the file its ``legal`` module came from, and what it wrote to stderr."""
    environ = {k: v for k, v in os.environ.items() if k != "MAUMAU_PURE_PYTHON"}
    if pure:
        environ["MAUMAU_PURE_PYTHON"] = pure
    run = subprocess.run(
        [sys.executable, "-c", f"{code}\n{WHICH}"],
        capture_output=True,
        text=True,
        check=True,
        env={**environ, **env},
    )
    compiled, file = run.stdout.split()
    return compiled == "True", file, run.stderr


@pytest.fixture(scope="module")
def compiled() -> None:
    if not (NATIVE / "SOURCES").exists():
        message = "no compiled rules core here (installed without a C compiler or mypyc)"
        if os.environ.get("MAUMAU_TEST_REQUIRE_ALL") == "1":
            pytest.fail(message)
        pytest.skip(message)


@pytest.mark.parametrize("service", ["engine", "bots", "matchmaking", "rating", "tournaments"])
def test_each_service_loads_the_compiled_core(compiled: None, service: str) -> None:
    is_compiled, file, _ = loaded(f"import maumau.{service}.app")
    assert is_compiled and file.endswith(".so") and "_native" in file, file


def test_the_switch_gives_the_pure_modules(compiled: None) -> None:
    is_compiled, file, _ = loaded("import maumau.engine.app", pure="1")
    assert not is_compiled and file == str(RULES / "legal.py")


def test_a_source_edited_after_compiling_runs_pure_with_a_warning(
    compiled: None, tmp_path: Path
) -> None:
    copy = tmp_path / "maumau" / "rules"
    shutil.copytree(RULES, copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert loaded("", PYTHONPATH=str(tmp_path))[0]  # the copy as it was: compiled
    with (copy / "legal.py").open("a") as source:
        source.write("\n# an edit\n")
    is_compiled, file, warned = loaded("", PYTHONPATH=str(tmp_path))
    assert not is_compiled and file == str(copy / "legal.py")
    assert "compiled modules are older than the sources" in warned
