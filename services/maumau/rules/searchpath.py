"""How a package compiled at install (``build_support.py``: the rules core, the rating service's
computation) chooses its compiled modules: by putting their folder ``_native`` first on its
search path. Never compiled itself: it runs before that choice. It lives in the rules core
because the rules-core wheel ships that package alone, and every other package needs it too."""

import hashlib
import os
import warnings


def search_compiled_first(path: list[str], init: str, package: str) -> None:
    """Put the folder of ``package``'s compiled modules first on its search ``path`` (its
    ``__path__``; ``init`` its ``__init__`` file) if they are there, wanted and built from these
    very sources (the digest ``build_support.sources_digest`` recorded)."""
    if os.environ.get("MAUMAU_PURE_PYTHON") == "1":
        return
    here = os.path.dirname(init)
    native = os.path.join(here, "_native")
    try:
        with open(os.path.join(native, "SOURCES")) as recorded:
            built_from = recorded.read().strip()
    except OSError:
        return
    digest = hashlib.sha256()
    for name in sorted(n for n in os.listdir(here) if n.endswith(".py")):
        with open(os.path.join(here, name), "rb") as module:
            digest.update(name.encode() + b"\0" + module.read() + b"\0")
    if digest.hexdigest() != built_from:
        warnings.warn(
            f"{package}: the compiled modules are older than the sources, so the pure ones run;"
            " `make` (or `python build_support.py`) compiles them again",
            RuntimeWarning,
            stacklevel=3,
        )
        return
    path.insert(0, native)
