"""What the page needs to play a solo match on the device: Pyodide's files (from the ``pyodide``
npm package in ``MAUMAU_GATEWAY_PYODIDE_DIR``), the rules core with the bot levels and
``maumau.solo`` as one zip built from the pure modules at start-up, and the worker that runs
them. Without Pyodide's files ``/api/solo`` says so and the page plays its solo matches on the
server.

Pyodide's files and the zip are served under names that change with their content (Pyodide's
version, the zip's digest), so the browser keeps them for a year and asks once. The worker alone
may compile WebAssembly (``'wasm-unsafe-eval'`` in its own Content-Security-Policy); the page's
policy stays as strict as before.
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import io
import json
import logging
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from aiohttp import web

from maumau.gateway.pages import WEB_ROOT

log = logging.getLogger(__name__)

PYODIDE_FILES = {
    "pyodide.mjs": "text/javascript",
    "pyodide.asm.js": "text/javascript",
    "pyodide.asm.wasm": "application/wasm",
    "python_stdlib.zip": "application/zip",
    "pyodide-lock.json": "application/json",
}
"""What loading Pyodide fetches (no package from its repository is loaded: the rules core needs
the standard library alone)."""
PACKAGES = ("rules", "policies")
"""The ``maumau`` packages the solo match imports, besides ``maumau/solo.py`` itself."""
MAUMAU_ROOT = Path(__file__).resolve().parents[1]
"""The ``maumau`` package's folder, where ``solo.py`` and the packages lie (read as files: the
gateway serves them to the page and never imports them)."""
FOREVER = "public, max-age=31536000, immutable"
WORKER = WEB_ROOT / "solo-worker.js"


def package_zip(root: Path) -> bytes:
    """The pure modules of ``maumau.solo``, the rules core and the bot levels, as a zip for
    Pyodide's file system: only ``.py`` files (the compiled ``_native`` modules are CPython's),
    with fixed dates, so the same sources give the same bytes and the same name."""
    names = [root / "solo.py"]
    for package in PACKAGES:
        names += sorted((root / package).glob("*.py"))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in names:
            entry = zipfile.ZipInfo(
                f"maumau/{path.relative_to(root).as_posix()}", (2020, 1, 1, 0, 0, 0)
            )
            archive.writestr(entry, path.read_bytes(), zipfile.ZIP_DEFLATED)
    return out.getvalue()


@dataclass
class SoloFiles:
    """Pyodide's files found in ``folder`` (none: solo play stays on the server) and the zip."""

    folder: Path | None
    version: str = ""
    package: bytes = b""
    digest: str = ""
    _gzipped: dict[str, bytes] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path | None) -> SoloFiles:
        if path is None or not all((path / name).is_file() for name in PYODIDE_FILES):
            if path is not None:
                log.warning("no Pyodide in %s: solo matches are played on the server", path)
            return cls(None)
        version = json.loads((path / "package.json").read_text()).get("version", "")
        package = package_zip(MAUMAU_ROOT)
        return cls(path, str(version), package, hashlib.sha256(package).hexdigest()[:16])

    @property
    def available(self) -> bool:
        return self.folder is not None

    def describe(self) -> dict[str, object]:
        """Where the page finds what it needs, or that solo play stays on the server."""
        if not self.available:
            return {"available": False}
        return {
            "available": True,
            "worker": "/solo/worker.js",
            "pyodide": f"/solo/pyodide/{self.version}/",
            "package": f"/solo/maumau-{self.digest}.zip",
        }

    async def gzipped(self, name: str, data: bytes) -> bytes:
        """A file compressed once (off the event loop), then kept."""
        if name not in self._gzipped:
            self._gzipped[name] = await asyncio.to_thread(gzip.compress, data, 6, mtime=0)
        return self._gzipped[name]


SOLO_FILES = web.AppKey("solo_files", SoloFiles)


def accepts_gzip(request: web.Request) -> bool:
    return "gzip" in request.headers.get("Accept-Encoding", "").lower()


async def immutable(request: web.Request, name: str, data: bytes, kind: str) -> web.Response:
    """One of the solo files, compressed where that helps, kept by the browser for a year."""
    response = web.Response(content_type=kind)
    response.headers["Cache-Control"] = FOREVER
    response.headers["Vary"] = "Accept-Encoding"
    if name.endswith((".js", ".mjs", ".wasm", ".json")) and accepts_gzip(request):
        response.body = await request.app[SOLO_FILES].gzipped(name, data)
        response.headers["Content-Encoding"] = "gzip"
    else:
        response.body = data
    return response


async def describe(request: web.Request) -> web.Response:
    return web.json_response(request.app[SOLO_FILES].describe())


async def pyodide_file(request: web.Request) -> web.Response:
    files = request.app[SOLO_FILES]
    name = request.match_info["name"]
    if files.folder is None or request.match_info["version"] != files.version:
        raise web.HTTPNotFound()
    if name not in PYODIDE_FILES:
        raise web.HTTPNotFound()
    data = await asyncio.to_thread((files.folder / name).read_bytes)
    return await immutable(request, name, data, PYODIDE_FILES[name])


async def package(request: web.Request) -> web.Response:
    files = request.app[SOLO_FILES]
    if files.folder is None or request.match_info["digest"] != files.digest:
        raise web.HTTPNotFound()
    return await immutable(request, "maumau.zip", files.package, "application/zip")


async def worker(request: web.Request) -> web.StreamResponse:
    if not request.app[SOLO_FILES].available:
        raise web.HTTPNotFound()
    response = web.FileResponse(WORKER)
    response.headers["Cache-Control"] = "no-cache"
    return response


def add_routes(app: web.Application, folder: Path | None) -> None:
    app[SOLO_FILES] = SoloFiles.load(folder)
    app.router.add_get("/api/solo", describe)
    app.router.add_get("/solo/worker.js", worker)
    app.router.add_get("/solo/pyodide/{version}/{name}", pyodide_file)
    app.router.add_get("/solo/maumau-{digest}.zip", package)
