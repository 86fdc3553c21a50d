"""The protos keep old clients working: `buf breaking` (protos/buf.yaml, FILE rules) passes
against the latest release (.ci/buf-breaking: its tag, or the commit "Release <version>") and
fails on a change that breaks a client, here a renumbered field and a renamed method.

buf is the binary of the TypeScript client's @bufbuild/buf package (`make buf-lint` or
`make buf-breaking` installs it with npm ci); without it the test is skipped, or fails with
``MAUMAU_TEST_REQUIRE_ALL=1``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.xdist_group("clients/typescript")  # its npm folder, on one worker

ROOT = Path(__file__).resolve().parent.parent
BUF = ROOT / "clients" / "typescript" / "node_modules" / ".bin" / "buf"


@pytest.fixture
def buf() -> Path:
    if not BUF.exists():
        message = f"{BUF.relative_to(ROOT)} is missing: make buf-lint installs it (npm ci)"
        if os.environ.get("MAUMAU_TEST_REQUIRE_ALL") == "1":
            pytest.fail(message + " [MAUMAU_TEST_REQUIRE_ALL=1]")
        pytest.skip(message)
    return BUF


def breaking(buf: Path, protos: Path) -> subprocess.CompletedProcess[str]:
    """buf breaking of ``protos`` against the protos of this work tree."""
    return subprocess.run(
        [
            str(buf),
            "breaking",
            str(protos),
            "--against",
            str(ROOT / "protos"),
            "--error-format=msvs",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_protos_keep_the_clients_of_the_latest_release_working(buf: Path) -> None:
    done = subprocess.run(
        [str(ROOT / ".ci" / "buf-breaking")],
        env={**os.environ, "BUF": str(buf)},
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "against the release" in done.stdout


@pytest.mark.parametrize(
    ("before", "after", "rule"),
    [
        (  # a field renumbered
            "message StartMatchRequest { string match_id = 1; }",
            "message StartMatchRequest { string match_id = 2; }",
            "FIELD_NO_DELETE",
        ),
        ("rpc GetView(GetViewRequest)", "rpc ReadView(GetViewRequest)", "RPC_NO_DELETE"),
    ],
)
def test_a_change_that_breaks_a_client_fails(
    buf: Path, tmp_path: Path, before: str, after: str, rule: str
) -> None:
    protos = tmp_path / "protos"
    shutil.copytree(ROOT / "protos", protos)
    engine = protos / "maumau" / "v1" / "engine.proto"
    text = engine.read_text()
    assert text.count(before) == 1, before
    engine.write_text(text.replace(before, after))
    done = breaking(buf, protos)
    assert done.returncode != 0 and rule in done.stdout, done.stdout + done.stderr
    assert breaking(buf, ROOT / "protos").returncode == 0


def test_the_release_image_kept_for_shallow_clones_accepts_the_protos(buf: Path) -> None:
    """A clone without the release's tag or commit compares with its image in protos/releases/
    (built from the tag when the release was made): the protos keep its clients working."""
    images = sorted((ROOT / "protos" / "releases").glob("v*.binpb"))
    assert images, "no release image in protos/releases/"
    done = subprocess.run(
        [str(buf), "breaking", str(ROOT / "protos"), "--against", str(images[-1])],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
