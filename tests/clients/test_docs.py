"""Every command and code sample of README.md, the pages in docs/ and clients/python/README.md
runs as written, against a platform this test starts (``python -m maumau.run``, every service on
a free port), so none can go stale; and the docs hold together: README.md stays a front door of
at most 200 lines, every relative link points at a file that exists (and at a heading of it that
exists), and every page of docs/ is in mkdocs.yml's nav.

- ```bash blocks run as bash scripts (``set -eo pipefail``) from the project folder, with the
  default addresses (127.0.0.1:50051-50056, the example bot's port 7000) replaced by this
  platform's; a block with npm commands needs node and npm (installed or skipped as for
  tests/clients/test_typescript.py). The lines listed in :data:`NOT_RUN` are left out, each for
  the reason given there.
- ```python blocks run with ``.venv/bin/python``: a whole program as it is, a fragment (one with
  a top-level ``await``) inside a harness that opens a match for it (``platform``, ``player``,
  ``seat``).
- ```text blocks are reference listings and commands for other machines (a Kubernetes cluster,
  a container registry), not run here.
- ```typescript blocks are code of the TypeScript package's examples/ or src/, which its own
  tests run against a platform of their own: tests/clients/test_typescript.py holds each block
  to that code and runs them.

grpcurl is a Go program that Debian does not package: when it is not installed, the scripts find
``tests/clients/grpcurl_standin.py`` under that name, which does the same through server
reflection. jq is Debian's package, installed when missing (as root).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import yaml

from maumau.common.redis_server import free_port
from tests.clients.platform import ROOT, RunningPlatform
from tests.support.programs import require

pytestmark = pytest.mark.xdist_group("clients/typescript")  # its npm folder, on one worker

PAGES = sorted((ROOT / "docs").glob("*.md"))
DOCS = [ROOT / "README.md", *PAGES, ROOT / "clients" / "python" / "README.md"]
FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.DOTALL | re.MULTILINE)
NOT_RUN = {
    "make run": "it serves until stopped; this test starts the same platform (python -m "
    "maumau.run, which make run runs), and tests/test_run.py starts make run's platform and "
    "stops it with Ctrl-C",
    "make test": "it runs this test suite, this test included",
    "MAUMAU_BOTS_ADDRESS_STRONG=127.0.0.1:7000 make run": "the engine with the example bot for "
    "the strong level: tests/clients/test_bot_server.py starts both that way and plays a match",
}
"""Command lines of the docs that are not run here, and why."""
HARNESS = """
import asyncio
from maumau_sdk import MauMauError, Platform

async def main():
    async with Platform.connect("127.0.0.1:50051") as platform:
        player = await platform.register("Docs")
        seat = await player.create_match("classic", 2, bots=["random"], options={{"target": 0}})
{body}

asyncio.run(main())
"""


def blocks() -> list[tuple[str, int, str, str]]:
    """Every fenced block: (file name, line, language, code)."""
    found = []
    for path in DOCS:
        text = path.read_text()
        for match in FENCE.finditer(text):
            line = text[: match.start()].count("\n") + 1
            found.append((path.relative_to(ROOT).as_posix(), line, match.group(1), match.group(2)))
    return found


BLOCKS = blocks()


def prose(text: str) -> str:
    """``text`` without its fenced blocks and code spans, where a link is only text."""
    return re.sub(r"`[^`\n]*`", "", FENCE.sub("", text))


LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*$", re.MULTILINE)


def slug(heading: str) -> str:
    """A heading's anchor as mkdocs (Python-Markdown's toc) and GitHub both make it."""
    text = re.sub(r"`|\*\*|\[([^\]]*)\]\([^)]*\)", r"\1", heading).lower()
    return re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "", text).strip())


def anchors(path: Path) -> set[str]:
    return {slug(heading) for heading in HEADING.findall(FENCE.sub("", path.read_text()))}


def test_the_readme_is_a_front_door_of_at_most_200_lines():
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines: move the rest into docs/"


@pytest.mark.parametrize(
    "path", [*DOCS, ROOT / "deploy" / "README.md"], ids=lambda p: p.relative_to(ROOT).as_posix()
)
def test_every_relative_link_points_at_a_file_that_exists(path: Path):
    broken = []
    for target in LINK.findall(prose(path.read_text())):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:: not a file
            continue
        name, _, anchor = target.partition("#")
        linked = (path.parent / name).resolve() if name else path
        if not linked.exists():
            broken.append(f"{target} (no {linked.relative_to(ROOT)})")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            broken.append(f"{target} (no heading #{anchor} in {linked.relative_to(ROOT)})")
    assert not broken, f"{path.relative_to(ROOT)}: broken links {broken}"


def test_every_page_of_docs_is_in_the_mkdocs_nav():
    def leaves(nav: object) -> list[str]:
        if isinstance(nav, str):
            return [nav]
        items = nav.values() if isinstance(nav, dict) else nav
        return [page for item in items for page in leaves(item)]

    nav = leaves(yaml.safe_load((ROOT / "mkdocs.yml").read_text())["nav"])
    assert sorted(nav) == sorted(page.name for page in PAGES)


def command(line: str) -> str:
    """A line without its trailing comment."""
    return re.sub(r"\s+#.*$", "", line).strip()


def test_every_block_is_of_a_kind_this_test_runs_and_every_exemption_is_used():
    assert {language for _, _, language, _ in BLOCKS} <= {"bash", "python", "text", "typescript"}
    lines = {command(line) for _, _, language, code in BLOCKS for line in code.splitlines()}
    assert set(NOT_RUN) <= lines, "an exemption names a command the docs no longer have"


@pytest.fixture(scope="module")
def tools(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder for PATH with grpcurl (the stand-in when it is not installed) and jq."""
    require("jq", "jq")
    folder = tmp_path_factory.mktemp("bin")
    if shutil.which("grpcurl") is None:
        standin = folder / "grpcurl"
        script = Path(__file__).with_name("grpcurl_standin.py")
        standin.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{script}" "$@"\n')
        standin.chmod(standin.stat().st_mode | stat.S_IXUSR)
    return folder


def localize(code: str, platform: RunningPlatform, bot_port: int) -> str:
    """The docs' default addresses replaced by the test platform's."""
    for service, port in (("engine", 50051), ("bots", 50052), ("matchmaking", 50053),
                          ("rating", 50054), ("tournaments", 50055),
                          ("accounts", 50056)):  # fmt: skip
        code = code.replace(f"127.0.0.1:{port}", platform.address(service))
    return code.replace("7000", str(bot_port))


def run(
    args: list[str],
    platform: RunningPlatform,
    tools: Path,
    home: Path,
    background: str | None = None,
) -> str:
    """Run a program as a reader of the docs would; ``background``: what a server the script
    leaves running prints once it serves."""
    env = {
        **platform.env,
        "PATH": f"{tools}{os.pathsep}{os.environ['PATH']}",
        "MAUMAU_HOME": str(home),
        "MAUMAU_ADDRESS": platform.address("engine"),
        "MAUMAU_MATCHMAKING_ADDRESS": platform.address("matchmaking"),
        "MAUMAU_RATING_ADDRESS": platform.address("rating"),
        "MAUMAU_BOTS_ADDRESS": platform.address("bots"),
        "MAUMAU_ACCOUNTS_ADDRESS": platform.address("accounts"),
    }
    log = home / "output"
    with open(log, "w") as out:
        process = subprocess.Popen(
            args,
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # what a script starts in the background is stopped too
        )
    try:
        process.wait(timeout=240)
        for _ in range(100):  # a server started in the background: until it says it serves
            if background is None or background in log.read_text():
                break
            time.sleep(0.2)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        process.wait()
    output = log.read_text()
    assert process.returncode == 0, output[-4000:]
    if background is not None:
        assert background in output, output[-4000:]
    return output


@pytest.mark.parametrize(
    ("where", "code"),
    [(f"{name}:{line}", code) for name, line, language, code in BLOCKS if language == "bash"],
)
def test_bash_block_runs(where, code, whole_platform, tools, tmp_path):
    kept = [line for line in code.splitlines() if command(line) not in NOT_RUN]
    assert not any(command(line).startswith("make ") for line in kept), "a command not run"
    if any(command(line).startswith("npm ") for line in kept):  # the TypeScript package
        require("node", "nodejs")
        require("npm", "npm")
    script = localize("\n".join(kept), whole_platform, free_port())
    serves = "my bot serves maumau.v1.BotsService" if "bot_server.py" in script else None
    output = run(["bash", "-eo", "pipefail", "-c", script], whole_platform, tools, tmp_path, serves)
    if "maumau.v1.EngineService/GetView" in script:  # the grpcurl session
        assert "maumau.v1.EngineService" in output and '"legal"' in output
        assert re.search(r'"turn": \d+', output) and '"version"' in output


@pytest.mark.parametrize(
    ("where", "code"),
    [(f"{name}:{line}", code) for name, line, language, code in BLOCKS if language == "python"],
)
def test_python_block_runs(where, code, whole_platform, tools, tmp_path):
    fragment = re.search(r"^await |^\s+await ", code, re.MULTILINE) and "asyncio.run(" not in code
    if fragment:
        code = HARNESS.format(body=textwrap.indent(code, " " * 8))
    python = ROOT / ".venv" / "bin" / "python"
    interpreter = str(python) if python.exists() else sys.executable
    script = localize(code, whole_platform, free_port())
    run([interpreter, "-c", script], whole_platform, tools, tmp_path)
