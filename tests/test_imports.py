"""Services meet only through contracts (docs/architecture.md, "Services meet only through
contracts"; issue 9, section 1): a service package imports the generated protos, the rules core,
the wire translation, common, service-neutral libraries and its own modules, never another
service's package. Only a process entry point (``__main__.py``) may compose several services.

Every module of ``services/maumau`` is parsed and each of its imports resolved to a package, so a
new service package (a folder under ``services/maumau`` that is not listed as neutral) is checked
from the day it appears.

Nor do two modules need each other to be imported (issue 25, "One contract per thing"): the
modules' imports form no cycle, and no import moved into a function hides one. What two modules
share belongs in a third that both import (as ``gateway.context`` holds what ``gateway.app`` and
``gateway.live`` share). Imports under ``if TYPE_CHECKING:`` run only for the type checker, so
they may go either way; a lazy import inside a function is fine when it closes no cycle.
"""

import ast
import subprocess
import sys
from collections.abc import Iterator
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


# ---------------------------------------------------------------- import cycles


def module_name(path: Path, package: Path = PACKAGE) -> str:
    """``services/maumau/gateway/app.py`` -> ``maumau.gateway.app``; a package's
    ``__init__.py`` is the package itself."""
    parts = path.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_type_checking(test: ast.expr) -> bool:
    """``if TYPE_CHECKING:`` or ``if typing.TYPE_CHECKING:``."""
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def import_statements(tree: ast.AST) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement with whether it runs only when a function is called (False: it
    runs when the module is imported, at its top or in a class body, an ``if`` or a ``try``).
    Those under ``if TYPE_CHECKING:`` never run and are left out."""

    def walk(
        node: ast.AST, in_function: bool
    ) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import | ast.ImportFrom):
                yield child, in_function
            elif isinstance(child, ast.If) and is_type_checking(child.test):
                for statement in child.orelse:
                    yield from walk(ast.Module(body=[statement], type_ignores=[]), in_function)
            else:
                function = isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
                yield from walk(child, in_function or function)

    yield from walk(tree, False)


def imported_modules(
    node: ast.Import | ast.ImportFrom, module: str, is_package: bool, known: set[str]
) -> set[str]:
    """The modules of ``known`` that ``node``, in ``module``, makes Python import: each one
    named (``from maumau.gateway import live`` names the module ``maumau.gateway.live``,
    ``from maumau.rules import Match`` the package ``maumau.rules``) and the packages above it,
    whose ``__init__`` runs first, apart from those above ``module`` (they are running already;
    a name taken from one of them is a need of its own, as the one named)."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        if node.level:
            here = module.split(".") if is_package else module.split(".")[:-1]
            base = ".".join(
                here[: len(here) - node.level + 1] + ([node.module] if node.module else [])
            )
        else:
            base = node.module or ""
        names = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
    found = set()
    running = {".".join(module.split(".")[:n]) for n in range(1, module.count(".") + 1)}
    for name in names:
        parts = name.split(".")
        while parts and ".".join(parts) not in known:
            parts.pop()  # a name inside a module
        if parts:
            found.add(".".join(parts))
        found |= {".".join(parts[:n]) for n in range(1, len(parts))} - running
    return found


def import_graph(package: Path = PACKAGE) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """The modules each module of ``package`` imports when it is imported, and those it
    imports only inside a function."""
    paths = {module_name(p, package): p for p in sorted(package.rglob("*.py"))}
    known = set(paths)
    at_import: dict[str, set[str]] = {module: set() for module in paths}
    in_functions: dict[str, set[str]] = {module: set() for module in paths}
    for module, path in paths.items():
        tree = ast.parse(path.read_text(), str(path))
        for node, in_function in import_statements(tree):
            targets = imported_modules(node, module, path.name == "__init__.py", known)
            (in_functions if in_function else at_import)[module] |= targets - {module}
    return at_import, in_functions


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The graph's strongly connected components of more than one module (Tarjan), each
    sorted: modules that each need another of them to be imported first."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for target in sorted(graph.get(module, ())):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            component = [stack.pop()]
            while component[-1] != module:
                component.append(stack.pop())
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return sorted(found)


def path_between(graph: dict[str, set[str]], start: str, end: str) -> list[str] | None:
    """The shortest chain of imports from ``start`` to ``end``, if there is one."""
    previous: dict[str, str | None] = {start: None}
    queue = [start]
    for module in queue:
        if module == end:
            chain = [module]
            while (before := previous[chain[-1]]) is not None:
                chain.append(before)
            return chain[::-1]
        for target in sorted(graph.get(module, ())):
            if target not in previous:
                previous[target] = module
                queue.append(target)
    return None


def dodges(at_import: dict[str, set[str]], in_functions: dict[str, set[str]]) -> list[str]:
    """Each import inside a function that, moved to its module's top, would close a cycle: the
    module it imports already imports the importing module, directly or through others."""
    found = []
    for module, targets in sorted(in_functions.items()):
        for target in sorted(targets):
            chain = path_between(at_import, target, module)
            if chain is not None:
                found.append(f"{module} imports {target} in a function: {' -> '.join(chain)}")
    return found


def test_the_modules_import_one_another_in_no_cycle() -> None:
    at_import, _ = import_graph()
    assert len(at_import) > 100  # every module of services/maumau was read
    found = [" <-> ".join(component) for component in cycles(at_import)]
    assert not found, "modules importing one another: " + "; ".join(found)


def test_no_import_inside_a_function_dodges_a_cycle() -> None:
    found = dodges(*import_graph())
    assert not found, "; ".join(found)


def test_the_cycle_check_sees_each_form(tmp_path: Path) -> None:
    """A cycle through a relative import and a package's ``__init__``; a type-only import and a
    lazy one that close no cycle; a function's import that dodges one."""
    package = tmp_path / "maumau"
    for name, text in {
        "__init__.py": "",
        "a.py": "from maumau import b\n",
        "b.py": "from typing import TYPE_CHECKING\n"
        "from . import a\n"
        "if TYPE_CHECKING:\n    from maumau.c import C\n",
        "c.py": "import maumau.b\ndef late():\n    from maumau.d import thing\n",
        "d/__init__.py": "from .e import thing\n",
        "d/e.py": "try:\n    import maumau.c\nexcept ImportError:\n    pass\nthing = 1\n",
        "f.py": "class F:\n    import maumau.g.h\n",
        "g/i.py": "from . import j\n",
        "g/j.py": "from maumau.g import lazy\n",
        "g/__init__.py": "def lazy():\n    import maumau.f\n",
        "g/h.py": "def lazy():\n    import maumau.a\n",
    }.items():
        (package / name).parent.mkdir(parents=True, exist_ok=True)
        (package / name).write_text(text)
    at_import, in_functions = import_graph(package)
    assert at_import["maumau.b"] == {"maumau.a"}  # not maumau.c: for the type checker only
    assert at_import["maumau.f"] == {"maumau.g", "maumau.g.h"}  # the package's __init__ too
    assert at_import["maumau.g.i"] == {"maumau.g.j"}  # not its own package: that runs already
    assert at_import["maumau.g.j"] == {"maumau.g"}  # a name its own package defines
    assert in_functions["maumau.g"] == {"maumau.f"}
    assert cycles(at_import) == [["maumau.a", "maumau.b"]]
    assert dodges(at_import, in_functions) == [
        "maumau.c imports maumau.d in a function: maumau.d -> maumau.d.e -> maumau.c",
        "maumau.g imports maumau.f in a function: maumau.f -> maumau.g",
    ]
