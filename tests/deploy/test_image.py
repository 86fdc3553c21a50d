"""The container image's recipe (deploy/docker) and `make image` where no engine works.

No container engine runs on the test machine, so the image itself is not built here; what the
issue asks of its Dockerfile is checked line by line, and the build script's refusal is run."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from tests.deploy.kube import DEPLOY, ROOT

DOCKERFILE = (DEPLOY / "docker" / "Dockerfile").read_text()


def stages() -> list[str]:
    return re.split(r"^FROM ", DOCKERFILE, flags=re.MULTILINE)[1:]


def test_two_stages_the_wheel_built_first_and_no_compiler_at_run_time() -> None:
    build, runtime = stages()
    assert build.startswith("${PYTHON_IMAGE} AS build")
    assert "pip wheel" in build and "build-essential" in build
    assert "COPY --from=build /opt/maumau /opt/maumau" in runtime
    for forbidden in ("build-essential", "gcc", "apt-get install", "COPY . "):
        assert forbidden not in runtime


def test_runtime_runs_as_a_fixed_non_root_user_without_bytecode_or_secrets() -> None:
    runtime = stages()[-1]
    assert re.search(r"^USER 10001:10001$", runtime, flags=re.MULTILINE)
    assert "PYTHONDONTWRITEBYTECODE=1" in runtime
    assert "SECRET" not in DOCKERFILE and "REDIS_URL=" not in DOCKERFILE
    base = re.search(r"^ARG PYTHON_IMAGE=(\S+)$", DOCKERFILE, flags=re.MULTILINE)
    assert base and re.fullmatch(r"python:3\.11\.\d+-slim-\w+", base.group(1)), "pin the base"
    ignored = (ROOT / ".dockerignore").read_text().split()
    # The image compiles its own rules core, never the build tree's.
    assert {".venv", "data", "services/maumau/v1", "services/maumau/rules/_native"} <= set(ignored)


def shell_tools_only(tmp_path: Path) -> Path:
    """A folder for PATH with the tools build.sh uses, and neither docker nor podman."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("sh", "cat", "dirname", "pwd"):
        found = shutil.which(tool)
        if found:
            (bin_dir / tool).symlink_to(found)
    return bin_dir


def build(bin_dir: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(bin_dir / "sh"), str(DEPLOY / "docker" / "build.sh")],
        env={**os.environ, "PATH": str(bin_dir)},
        capture_output=True,
        text=True,
    )


def test_make_image_says_what_to_install_when_neither_docker_nor_podman_works(
    tmp_path: Path,
) -> None:
    done = build(shell_tools_only(tmp_path))
    assert done.returncode == 1
    assert "neither docker nor podman" in done.stderr


def test_make_image_says_when_an_engine_is_installed_but_not_answering(tmp_path: Path) -> None:
    bin_dir = shell_tools_only(tmp_path)
    fake = bin_dir / "podman"
    fake.write_text("#!/bin/sh\necho 'cannot connect' >&2\nexit 125\n")
    fake.chmod(0o755)
    done = build(bin_dir)
    assert done.returncode == 1
    assert "podman is installed but does not answer" in done.stderr


def test_the_gateway_in_the_image_serves_pyodide_for_solo_matches_in_the_page() -> None:
    """Only the files the gateway serves (solo_files.PYODIDE_FILES, and package.json for the
    version) reach the runtime, from clients/pyodide's committed lock."""
    from maumau.gateway.solo_files import PYODIDE_FILES

    build, runtime = stages()
    assert "npm ci" in build and "cd clients/pyodide" in build
    copied = re.search(r"cp (.+?) /opt/pyodide/", build, flags=re.DOTALL)
    assert copied and set(copied.group(1).replace("\\", " ").split()) == {
        "package.json",
        *PYODIDE_FILES,
    }
    assert "COPY --from=build /opt/pyodide /opt/pyodide" in runtime
    assert "MAUMAU_GATEWAY_PYODIDE_DIR=/opt/pyodide" in runtime
    assert "npm" not in runtime
