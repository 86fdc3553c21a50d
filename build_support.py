"""Build steps shared by the project's three distributions (see README, "Distributions").

- :func:`generate_protos` runs ``grpc_tools.protoc`` (a build requirement) over ``protos/`` into
  the wheel's build folder, so a wheel carries ``maumau.v1`` while git carries only the protos.
- :class:`BuildPlatform` also copies the browser client (``clients/web``) into
  ``maumau/gateway/web``, where an installed gateway serves it from.
- :func:`compile_package` compiles a package's pure modules to C with mypyc into its folder
  ``_native``, which the package puts first on its search path (``maumau.rules.searchpath``):
  the rules core (``maumau/rules/_native``) and the rating service's per-result computation
  (``maumau/rating/_native``), the packages of :data:`COMPILED`; without mypyc or a C compiler,
  or when compiling fails, the pure modules are what runs.
- :data:`VERSION` is the one version of protos, SDK, rules core and services (file ``VERSION``).

Each ``setup.py`` imports this file by path, and ``make`` runs it as a script to compile a package
of the source tree again after an edit (``python build_support.py maumau.rating``; every package
of :data:`COMPILED` without an argument).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import sysconfig
import tempfile
from dataclasses import dataclass
from pathlib import Path

from setuptools import Distribution
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
PROTOS = ROOT / "protos"
SERVICES = ROOT / "services"
VERSION = (ROOT / "VERSION").read_text().strip()
NATIVE = "_native"
"""The folder, inside each compiled package, of its compiled modules."""
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


def sources_digest(folder: Path) -> str:
    """The digest a compiled package compares at import (``maumau.rules.searchpath``): its
    modules' names and text, in order."""
    digest = hashlib.sha256()
    for module in sorted(folder.glob("*.py")):
        digest.update(module.name.encode() + b"\0" + module.read_bytes() + b"\0")
    return digest.hexdigest()


@dataclass(frozen=True)
class Package:
    """A package whose pure modules mypyc compiles into its folder :data:`NATIVE`."""

    name: str
    """Dotted, as imported (``maumau.rules``)."""
    only: tuple[str, ...] = ()
    """The modules compiled, if not every one."""
    never: tuple[str, ...] = ("__init__.py",)
    """Modules never compiled; the package's ``__init__`` chooses the compiled or pure ones."""

    @property
    def folder(self) -> Path:
        return SERVICES.joinpath(*self.name.split("."))

    def modules(self) -> list[str]:
        """The modules, as paths under ``services/``, that mypyc compiles."""
        return sorted(
            str(path.relative_to(SERVICES))
            for path in self.folder.glob("*.py")
            if path.name not in self.never and (not self.only or path.name in self.only)
        )


RULES = Package("maumau.rules", never=("__init__.py", "narrate.py", "reasons.py", "searchpath.py"))
"""The rules core, but for the texts for people (events told, reasons rendered), off every hot
path, and the choice between compiled and pure modules."""

RATING = Package("maumau.rating", only=("farming.py", "ladder.py", "states.py"))
"""The rating service's pure computation per result (its I/O and ``pool`` stay pure Python)."""

COMPILED = (RULES, RATING)
"""Every package compiled; a package compiles and falls back on its own."""


def can_compile() -> bool:
    """Whether mypyc and a C compiler are at hand (compiling may still fail)."""
    try:
        import mypyc.build  # noqa: F401  (a build requirement; a dev dependency of the tree)
    except ImportError:
        return False
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    return shutil.which(os.environ.get("CC", compiler).split()[0]) is not None


def compile_package(package: Package, target: Path) -> bool:
    """Compile ``package`` with mypyc into ``target`` (a ``_native`` folder): one extension per
    module plus their shared library, and the digest of the sources. On any failure the folder
    is removed, a warning printed, and False returned: the pure modules then run."""
    digest = sources_digest(package.folder)
    if is_compiled(target, digest):
        return True
    shutil.rmtree(target, ignore_errors=True)
    tree = package.folder / NATIVE
    if target != tree and is_compiled(tree, digest):
        # The source tree's compiled modules (an editable install's) of these very sources and
        # this interpreter: a wheel built from the tree takes them as they are.
        shutil.copytree(tree, target)
        return True
    if os.environ.get("MAUMAU_PURE_PYTHON") == "1" or not can_compile():
        print(f"{package.name}: no mypyc or C compiler; the pure-Python modules will run")
        return False
    try:
        with tempfile.TemporaryDirectory(prefix="maumau-mypyc-") as work:
            built = _build_extensions(package, Path(work))
            target.mkdir(parents=True)
            for library in built.glob("*" + sysconfig.get_config_var("EXT_SUFFIX")):
                shutil.copy2(library, target / library.name)
        (target / DIGEST).write_text(digest + "\n")
    except (Exception, SystemExit) as error:  # mypyc exits on errors; any failure: pure modules
        shutil.rmtree(target, ignore_errors=True)
        print(f"{package.name}: compiling failed ({error}); the pure-Python modules will run")
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


def _build_extensions(package: Package, work: Path) -> Path:
    """Run mypyc and the C compiler in ``work``; the folder holding the built libraries."""
    from mypyc.build import mypycify

    # Not the project's mypy config (strict, with plugins: `make lint`'s). Modules imported but
    # not compiled only lend their types (errors there, and in the generated maumau.v1, are
    # `make lint`'s); those the build has no types for (a wheel's build has neither openskill
    # nor maumau.v1) are Any: the compiled code calls them as Python does.
    config = work / "mypy.ini"
    config.write_text(
        "[mypy]\nexplicit_package_bases = True\nfollow_imports = silent\n"
        "ignore_missing_imports = True\n[mypy-maumau.v1.*]\nignore_errors = True\n"
    )
    here = Path.cwd()
    os.chdir(SERVICES)  # module names follow from paths under services/ (maumau.rules.x)
    try:
        extensions = mypycify(
            [f"--config-file={config}", *package.modules()],
            opt_level="3",
            group_name=f"{package.name}.native",  # its shared library sits beside the modules
            target_dir=str(work / "c"),
        )
    finally:
        os.chdir(here)
    command = build_ext(Distribution({"ext_modules": extensions, "script_name": "setup.py"}))
    command.build_lib = str(work / "lib")
    command.build_temp = str(work / "temp")
    command.ensure_finalized()
    command.run()
    return work.joinpath("lib", *package.name.split("."))


class CompiledRulesDistribution(Distribution):
    """A distribution that carries the compiled rules core: its wheel is tagged for this Python
    and platform when a compiler is at hand."""

    def has_ext_modules(self) -> bool:
        return can_compile() and os.environ.get("MAUMAU_PURE_PYTHON") != "1"


class BuildPlatformCompiled(BuildPlatform):
    """The platform's ``build_py`` with every package of :data:`COMPILED` compiled: into the
    wheel, or, in an editable install, into the source tree (``services/maumau/*/_native``,
    git-ignored)."""

    def run(self) -> None:
        super().run()
        for package in COMPILED:
            if getattr(self, "editable_mode", False):
                compile_package(package, package.folder / NATIVE)
            else:
                compile_package(package, Path(self.build_lib, *package.name.split("."), NATIVE))


class BuildRulesCompiled(build_py):
    """The rules-core wheel's ``build_py``: its modules plus the compiled ones."""

    def run(self) -> None:
        super().run()
        if not getattr(self, "editable_mode", False):
            compile_package(RULES, Path(self.build_lib, "maumau", "rules", NATIVE))


if __name__ == "__main__":
    wanted = [p for p in COMPILED if p.name in sys.argv[1:]] if sys.argv[1:] else list(COMPILED)
    sys.exit(0 if wanted and all([compile_package(p, p.folder / NATIVE) for p in wanted]) else 1)
