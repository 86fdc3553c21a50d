"""Build steps shared by the project's three distributions (see README, "Distributions").

- :func:`generate_protos` runs ``grpc_tools.protoc`` (a build requirement) over ``protos/`` into
  the wheel's build folder, so a wheel carries ``maumau.v1`` while git carries only the protos.
- :class:`BuildPlatform` also copies the browser client (``clients/web``) into
  ``maumau/gateway/web``, where an installed gateway serves it from.
- :data:`VERSION` is the one version of protos, SDK, rules core and services (file ``VERSION``).

Each ``setup.py`` imports this file by path; it runs only while a wheel is built.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
PROTOS = ROOT / "protos"
VERSION = (ROOT / "VERSION").read_text().strip()


def generate_protos(build_lib: Path) -> list[Path]:
    """Generate the Python messages, stubs and type stubs of every proto under ``build_lib``."""
    from grpc_tools import protoc  # a build requirement, absent at run time

    protos = sorted(PROTOS.glob("maumau/v1/*.proto"))
    if not protos:
        raise RuntimeError(f"no .proto files under {PROTOS}")
    include = Path(protoc.__file__).parent / "_proto"  # google/protobuf/*.proto
    args = [
        "protoc",
        f"-I{PROTOS}",
        f"-I{include}",
        f"--python_out={build_lib}",
        f"--pyi_out={build_lib}",
        f"--grpc_python_out={build_lib}",
        *map(str, protos),
    ]
    if protoc.main(args) != 0:
        raise RuntimeError("grpc_tools.protoc failed on " + " ".join(p.name for p in protos))
    return sorted((build_lib / "maumau" / "v1").glob("*_pb2*.py*"))


class BuildPyWithProtos(build_py):
    """``build_py`` that also generates ``maumau.v1`` into the wheel.

    In an editable install it adds nothing: there ``make proto`` writes the generated code into
    the source tree, where the editable install finds it.
    """

    def run(self) -> None:
        super().run()
        if not getattr(self, "editable_mode", False):
            generate_protos(Path(self.build_lib))


class BuildPlatform(BuildPyWithProtos):
    """The platform wheel's ``build_py``: generated code plus the browser client's files."""

    def run(self) -> None:
        super().run()
        if not getattr(self, "editable_mode", False):
            target = Path(self.build_lib) / "maumau" / "gateway" / "web"
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(
                ROOT / "clients" / "web", target, ignore=shutil.ignore_patterns("screenshots")
            )
