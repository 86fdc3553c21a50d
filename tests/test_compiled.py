"""The compiled packages (the rules core, the rating computation): the services load them where
the install compiled them, the switch ``MAUMAU_PURE_PYTHON=1`` and an edit of a source after
compiling both give the pure modules."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import maumau.rating
import maumau.rules

RULES = Path(maumau.rules.__file__).parent
RATING = Path(maumau.rating.__file__).parent
NATIVE = RULES / "_native"
WHICH = (
    "import sys, maumau.rules;"
    "print(maumau.rules.COMPILED, sys.modules['maumau.rules.legal'].__file__)"
)


def python(code: str, pure: str = "", **env: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter (``pure``: its ``MAUMAU_PURE_PYTHON``, else unset)."""
    environ = {k: v for k, v in os.environ.items() if k != "MAUMAU_PURE_PYTHON"}
    if pure:
        environ["MAUMAU_PURE_PYTHON"] = pure
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**environ, **env},
    )


def loaded(code: str, pure: str = "", **env: str) -> tuple[bool, str, str]:
    """Run ``code`` then :data:`WHICH` in a fresh interpreter: whether the compiled core runs,
    the file its ``legal`` module came from, and what it wrote to stderr."""
    run = python(f"{code}\n{WHICH}", pure, **env)
    compiled, file = run.stdout.split()
    return compiled == "True", file, run.stderr


@pytest.fixture(scope="module")
def compiled() -> None:
    if not (NATIVE / "SOURCES").exists() or not (RATING / "_native" / "SOURCES").exists():
        message = "no compiled packages here (installed without a C compiler or mypyc)"
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


RATING_MODULES = ("ladder", "farming", "states")
"""The rating service's compiled modules: its computation per result."""


def rating_files(pure: str = "", **env: str) -> tuple[list[str], str]:
    """The files the rating service's process loads its compiled modules from, and what it
    wrote to stderr."""
    names = ", ".join(f"'maumau.rating.{name}'" for name in RATING_MODULES)
    code = f"import sys, maumau.rating.app\nfor n in ({names}): print(sys.modules[n].__file__)"
    run = python(code, pure, **env)
    return run.stdout.split(), run.stderr


def test_the_rating_service_loads_its_compiled_modules(compiled: None) -> None:
    files, _ = rating_files()
    assert all(file.endswith(".so") and "/rating/_native/" in file for file in files), files
    assert rating_files(pure="1")[0] == [str(RATING / f"{name}.py") for name in RATING_MODULES]


def test_a_rating_source_edited_after_compiling_runs_pure_with_a_warning(
    compiled: None, tmp_path: Path
) -> None:
    copy = tmp_path / "maumau" / "rating"
    shutil.copytree(RATING, copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert all(f.endswith(".so") for f in rating_files(PYTHONPATH=str(tmp_path))[0])
    with (copy / "farming.py").open("a") as source:
        source.write("\n# an edit\n")
    files, warned = rating_files(PYTHONPATH=str(tmp_path))
    assert files == [str(copy / f"{name}.py") for name in RATING_MODULES]
    assert "maumau.rating: the compiled modules are older than the sources" in warned
