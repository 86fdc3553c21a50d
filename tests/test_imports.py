"""Services meet only through contracts (docs/architecture.md, "Services meet only through
contracts"; issue 9, section 1): a service package imports the generated protos, the rules core,
the wire translation, common, service-neutral libraries and its own modules, never another
service's package. Only a process entry point (``__main__.py``) may compose several services.

Every module of ``services/maumau`` is parsed and each of its imports resolved to a package, so a
new service package (a folder under ``services/maumau`` that is not listed as neutral) is checked
from the day it appears.
"""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "services" / "maumau"
NEUTRAL = {"v1", "rules", "wire", "common", "policies", "fairness"}
"""What every service may import: generated protos, the rules core and shared libraries."""
COMPOSING = {"run", "demo"}
"""Top-level programs that start or combine several services; they are no service."""


def service_packages() -> list[str]:
    return sorted(
        p.name
        for p in PACKAGE.iterdir()
        if p.is_dir() and (p / "__init__.py").exists() and p.name not in NEUTRAL
    )


def imported_packages(path: Path, package: Path = PACKAGE) -> set[str]:
    """The ``maumau.<package>`` names a module of ``package`` imports (absolute and relative)."""
    module_parts = path.relative_to(package.parent).with_suffix("").parts
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = list(module_parts[: len(module_parts) - node.level])
                names = [".".join([*base, node.module] if node.module else base)]
            else:
                names = [node.module or ""]
            if names == ["maumau"]:  # from maumau import fairness, wire
                names = [f"maumau.{alias.name}" for alias in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] == "maumau" and len(parts) > 1:
                found.add(parts[1])
    return found


def test_the_service_packages_are_found() -> None:
    assert {"engine", "bots", "matchmaking", "rating"} <= set(service_packages())


@pytest.mark.parametrize("service", service_packages())
def test_a_service_imports_no_other_service(service: str) -> None:
    trespasses = []
    for path in sorted((PACKAGE / service).rglob("*.py")):
        if path.name == "__main__.py":
            continue
        for package in imported_packages(path) - NEUTRAL - {service}:
            trespasses.append(f"{path.relative_to(ROOT)} imports maumau.{package}")
    assert not trespasses, "; ".join(trespasses)


@pytest.mark.parametrize("neutral", sorted(NEUTRAL - {"v1"}))
def test_a_neutral_package_imports_no_service(neutral: str) -> None:
    path = PACKAGE / neutral
    files = sorted(path.rglob("*.py")) if path.is_dir() else [path.with_suffix(".py")]
    services = set(service_packages()) | COMPOSING
    trespasses = [
        f"{file.relative_to(ROOT)} imports maumau.{package}"
        for file in files
        for package in imported_packages(file) & services
    ]
    assert not trespasses, "; ".join(trespasses)


def test_the_check_sees_a_trespass_in_each_form(tmp_path: Path) -> None:
    module = tmp_path / "maumau" / "rating" / "example.py"
    module.parent.mkdir(parents=True)
    module.write_text(
        "import maumau.engine.store\n"
        "from maumau.bots import policies\n"
        "from maumau import matchmaking, wire\n"
        "from ..players import directory\n"
        "from . import store\n"
    )
    found = imported_packages(module, tmp_path / "maumau")
    assert found == {"engine", "bots", "matchmaking", "wire", "players", "rating"}


def test_matchmaking_metrics_hold_no_engine_series() -> None:
    """Importing the matchmaker (as its process does) registers no ``engine_*`` metric: it
    neither imports the engine nor counts the engine's work."""
    code = (
        "import prometheus_client, maumau.matchmaking.app\n"
        "names = [m.name for m in prometheus_client.REGISTRY.collect()]\n"
        "print('\\n'.join(n for n in names if n.startswith(('engine', 'bots', 'rating'))))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert out.stdout.strip() == ""
