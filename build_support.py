"""Build steps shared by the project's three distributions (see README, "Distributions").

- :func:`generate_protos` runs ``grpc_tools.protoc`` (a build requirement) over ``protos/`` into
  the wheel's build folder, so a wheel carries ``maumau.v1`` while git carries only the protos.
- :class:`BuildPlatform` also copies the browser client (``clients/web``) into
  ``maumau/gateway/web``, where an installed gateway serves it from.
- :func:`compile_rules` compiles the rules core to C with mypyc into ``maumau/rules/_native``,
  which ``maumau.rules`` puts first on its search path (see its docstring); without mypyc or a C
  compiler, or when compiling fails, the pure modules are what runs.
- :data:`VERSION` is the one version of protos, SDK, rules core and services (file ``VERSION``).

Each ``setup.py`` imports this file by path, and ``make`` runs it as a script to compile the
rules core of the source tree again after an edit (``python build_support.py``).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import sysconfig
import tempfile
from pathlib import Path

from setuptools import Distribution
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
PROTOS = ROOT / "protos"
SERVICES = ROOT / "services"
RULES = SERVICES / "maumau" / "rules"
VERSION = (ROOT / "VERSION").read_text().strip()
NATIVE = "_native"
"""The folder, inside ``maumau/rules``, of the compiled modules."""
DIGEST = "SOURCES"
"""The file, in that folder, naming the digest of the sources the modules were compiled from."""


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


def rules_digest(folder: Path) -> str:
    """The digest ``maumau.rules`` compares at import: its modules' names and text, in order."""
    digest = hashlib.sha256()
    for module in sorted(folder.glob("*.py")):
        digest.update(module.name.encode() + b"\0" + module.read_bytes() + b"\0")
    return digest.hexdigest()


PURE_ONLY = ("__init__.py", "narrate.py", "reasons.py")
"""Modules never compiled: the package's ``__init__``, which chooses between the compiled and the
pure modules, and the texts for people (events told, reasons rendered), off every hot path."""


def compiled_modules() -> list[str]:
    """The rules core's modules, as paths under ``services/``, that mypyc compiles."""
    return sorted(
        str(path.relative_to(SERVICES)) for path in RULES.glob("*.py") if path.name not in PURE_ONLY
    )


def can_compile() -> bool:
    """Whether mypyc and a C compiler are at hand (compiling may still fail)."""
    try:
        import mypyc.build  # noqa: F401  (a build requirement; a dev dependency of the tree)
    except ImportError:
        return False
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    return shutil.which(os.environ.get("CC", compiler).split()[0]) is not None


def compile_rules(target: Path) -> bool:
    """Compile the rules core with mypyc into ``target`` (a ``_native`` folder): one extension
    per module plus their shared library, and the digest of the sources. On any failure the
    folder is removed, a warning printed, and False returned: the pure modules then run."""
    digest = rules_digest(RULES)
    if is_compiled(target, digest):
        return True
    shutil.rmtree(target, ignore_errors=True)
    if target != RULES / NATIVE and is_compiled(RULES / NATIVE, digest):
        # The source tree's compiled modules (an editable install's) of these very sources and
        # this interpreter: a wheel built from the tree takes them as they are.
        shutil.copytree(RULES / NATIVE, target)
        return True
    if os.environ.get("MAUMAU_PURE_PYTHON") == "1" or not can_compile():
        print("maumau.rules: no mypyc or C compiler; the pure-Python rules core will run")
        return False
    try:
        with tempfile.TemporaryDirectory(prefix="maumau-mypyc-") as work:
            built = _build_extensions(Path(work))
            target.mkdir(parents=True)
            for library in built.glob("*" + sysconfig.get_config_var("EXT_SUFFIX")):
                shutil.copy2(library, target / library.name)
        (target / DIGEST).write_text(digest + "\n")
    except (Exception, SystemExit) as error:  # mypyc exits on errors; any failure: pure core
        shutil.rmtree(target, ignore_errors=True)
        print(f"maumau.rules: compiling failed ({error}); the pure-Python rules core will run")
        return False
    return True


def is_compiled(target: Path, digest: str) -> bool:
    """Whether ``target`` holds this interpreter's compiled modules of the sources ``digest``
    names (a reinstall of the same sources then skips the compiler)."""
    try:
        recorded = (target / DIGEST).read_text().strip()
    except OSError:
        return False
    return recorded == digest and any(target.glob("*" + sysconfig.get_config_var("EXT_SUFFIX")))


def _build_extensions(work: Path) -> Path:
    """Run mypyc and the C compiler in ``work``; the folder holding the built libraries."""
    from mypyc.build import mypycify

    here = Path.cwd()
    os.chdir(SERVICES)  # module names follow from paths under services/ (maumau.rules.x)
    try:
        extensions = mypycify(
            # No config file: the project's (strict, with plugins) is for `make lint`.
            ["--config-file=", "--explicit-package-bases", *compiled_modules()],
            opt_level="3",
            group_name="maumau.rules.native",  # its shared library sits beside the modules
            target_dir=str(work / "c"),
        )
    finally:
        os.chdir(here)
    command = build_ext(Distribution({"ext_modules": extensions, "script_name": "setup.py"}))
    command.build_lib = str(work / "lib")
    command.build_temp = str(work / "temp")
    command.ensure_finalized()
    command.run()
    return work / "lib" / "maumau" / "rules"


class CompiledRulesDistribution(Distribution):
    """A distribution that carries the compiled rules core: its wheel is tagged for this Python
    and platform when a compiler is at hand."""

    def has_ext_modules(self) -> bool:
        return can_compile() and os.environ.get("MAUMAU_PURE_PYTHON") != "1"


class BuildPlatformCompiled(BuildPlatform):
    """The platform's ``build_py`` with the rules core compiled: into the wheel, or, in an
    editable install, into the source tree (``services/maumau/rules/_native``, git-ignored)."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            compile_rules(RULES / NATIVE)
        else:
            compile_rules(Path(self.build_lib) / "maumau" / "rules" / NATIVE)


class BuildRulesCompiled(build_py):
    """The rules-core wheel's ``build_py``: its modules plus the compiled ones."""

    def run(self) -> None:
        super().run()
        if not getattr(self, "editable_mode", False):
            compile_rules(Path(self.build_lib) / "maumau" / "rules" / NATIVE)


if __name__ == "__main__":
    sys.exit(0 if compile_rules(RULES / NATIVE) else 1)
