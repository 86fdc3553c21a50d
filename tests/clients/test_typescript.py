"""The TypeScript client package (clients/typescript) as a client author builds and tests it:
``npm ci`` from its committed package-lock.json (which generates its code from protos/ with buf
and compiles it), then ``npm test``, whose tests start their own platform (``python -m
maumau.run`` through clients/typescript/test/start_platform.py, run with this Python) and play
whole matches on it to the end; and every TypeScript sample of the docs is code of the package
that those tests run.

node and npm are Debian's packages nodejs and npm, installed when missing (as root); otherwise the
test is skipped naming them, or fails with ``MAUMAU_TEST_REQUIRE_ALL=1``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.clients.platform import ROOT
from tests.support.programs import require

pytestmark = pytest.mark.xdist_group("clients/typescript")  # its npm folder, on one worker

PACKAGE = ROOT / "clients" / "typescript"
NPM_CI_SECONDS = 600
NPM_TEST_SECONDS = 600
SAMPLES = [ROOT / "docs" / "clients.md", ROOT / "docs" / "write-a-bot.md", PACKAGE / "README.md"]
FENCE = re.compile(r"^```typescript\n(.*?)^```\n", re.DOTALL | re.MULTILINE)


def npm(*args: str, timeout: float) -> subprocess.CompletedProcess[str]:
    require("node", "nodejs")
    command = [require("npm", "npm"), *args, "--no-audit", "--no-fund"]
    env = {**os.environ, "MAUMAU_PYTHON": sys.executable}
    return subprocess.run(
        command, cwd=PACKAGE, env=env, capture_output=True, text=True, timeout=timeout
    )


@pytest.mark.timeout(NPM_CI_SECONDS + NPM_TEST_SECONDS)
def test_npm_test_plays_matches_to_the_end_against_a_real_platform() -> None:
    installed = npm("ci", timeout=NPM_CI_SECONDS)
    if installed.returncode != 0:
        message = f"`npm ci` in clients/typescript failed:\n{installed.stderr[-3000:]}"
        offline = "ENOTFOUND" in installed.stderr or "EAI_AGAIN" in installed.stderr
        if offline and os.environ.get("MAUMAU_TEST_REQUIRE_ALL") != "1":
            pytest.skip(message)  # no registry here: nothing to build the package from
        pytest.fail(message)
    tested = npm("test", timeout=NPM_TEST_SECONDS)
    output = tested.stdout + tested.stderr
    assert tested.returncode == 0, output[-6000:]
    summary = dict(re.findall(r"^# (pass|fail|cancelled|skipped) (\d+)$", output, re.MULTILINE))
    assert summary.get("fail") == "0" and summary.get("cancelled") == "0", output[-6000:]
    assert int(summary.get("pass", "0")) >= 9, output[-6000:]
    assert "is what the example plays to its end" in output


def package_sources() -> dict[str, str]:
    return {
        path.relative_to(ROOT).as_posix(): path.read_text()
        for folder in ("examples", "src")
        for path in sorted((PACKAGE / folder).glob("*.ts"))
    }


@pytest.mark.parametrize("path", SAMPLES, ids=lambda path: path.relative_to(ROOT).as_posix())
def test_every_typescript_sample_is_code_that_npm_test_runs(path: Path) -> None:
    """A sample is the whole or a part (whole lines, in order) of a file of examples/ or src/:
    the example is run by npm test's "is what the example plays to its end", src/ by all of it."""
    samples = FENCE.findall(path.read_text())
    assert samples, f"{path.name} shows no TypeScript"
    sources = package_sources()
    for sample in samples:
        found = [name for name, text in sources.items() if "\n" + sample in "\n" + text]
        assert found, f"a sample of {path.name} is not in {sorted(sources)}:\n{sample}"
