"""What the gateway serves for solo play on the device: where the page finds Pyodide and the
rules core, Pyodide's own files alone under a versioned path kept for a year, the rules core and
bot levels as a zip of their pure modules, and WebAssembly allowed in the solo worker's policy
only; without Pyodide, /api/solo says solo play stays on the server."""

from __future__ import annotations

import gzip
import io
import zipfile
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from maumau.gateway.solo_files import PYODIDE_FILES, package_zip
from tests.gateway.support import Gateway, Platform, installed_pyodide, start_gateway

pytestmark = pytest.mark.xdist_group("clients/pyodide")  # its npm folder, on one worker

SOURCES = Path(__file__).resolve().parents[2] / "services" / "maumau"


@pytest.fixture(scope="module")
async def solo_gateway(services: Platform) -> AsyncIterator[Gateway]:
    started = await start_gateway(services.settings(pyodide_dir=str(installed_pyodide())))
    yield started
    await started.stop()


async def described(session: aiohttp.ClientSession) -> dict[str, str]:
    async with session.get("/api/solo") as response:
        assert response.status == 200
        answer: dict[str, str] = await response.json()
        return answer


async def test_pyodide_files_are_served_compressed_and_kept_for_a_year(solo_gateway: Gateway):
    async with aiohttp.ClientSession(solo_gateway.url, auto_decompress=False) as session:
        where = await described(session)
        assert where["available"] is True
        assert where["pyodide"] == "/solo/pyodide/0.29.0/"
        for name, kind in PYODIDE_FILES.items():
            async with session.get(where["pyodide"] + name) as response:
                assert response.status == 200, name
                assert response.content_type == kind
                assert response.headers["Cache-Control"] == "public, max-age=31536000, immutable"
                body = await response.read()
                if name.endswith((".js", ".mjs", ".wasm", ".json")):
                    assert response.headers["Content-Encoding"] == "gzip"
                    body = gzip.decompress(body)
                assert body == (installed_pyodide() / name).read_bytes()
        for missing in ("package.json", "pyodide.js.map", "..%2Fpackage.json", "console.html"):
            async with session.get(where["pyodide"] + missing) as response:
                assert response.status == 404, missing
        async with session.get("/solo/pyodide/0.1.0/pyodide.mjs") as response:
            assert response.status == 404


async def test_the_rules_core_goes_as_a_zip_of_its_pure_modules_named_by_its_digest(
    solo_gateway: Gateway,
):
    async with aiohttp.ClientSession(solo_gateway.url) as session:
        where = await described(session)
        async with session.get(where["package"]) as response:
            assert response.status == 200
            assert response.headers["Cache-Control"].endswith("immutable")
            archive = zipfile.ZipFile(io.BytesIO(await response.read()))
        async with session.get("/solo/maumau-0000000000000000.zip") as response:
            assert response.status == 404
    names = set(archive.namelist())
    assert "maumau/solo.py" in names and "maumau/rules/match.py" in names
    assert "maumau/policies/levels.py" in names
    assert all(name.endswith(".py") for name in names), "never the compiled modules"
    assert not any("_native" in name or "/v1/" in name for name in names)
    for name in names:
        assert archive.read(name) == (SOURCES / name.removeprefix("maumau/")).read_bytes()
    assert package_zip(SOURCES) == package_zip(SOURCES), "the same sources, the same bytes"


async def test_only_the_solo_worker_may_compile_webassembly(solo_gateway: Gateway):
    async with aiohttp.ClientSession(solo_gateway.url) as session:
        async with session.get("/solo/worker.js") as response:
            assert response.status == 200
            worker_policy = response.headers["Content-Security-Policy"]
        async with session.get("/") as response:
            page_policy = response.headers["Content-Security-Policy"]
    assert "script-src 'self' 'wasm-unsafe-eval'" in worker_policy
    assert "wasm-unsafe-eval" not in page_policy
    assert "'unsafe-eval'" not in worker_policy, "WebAssembly only, never JavaScript's eval"


async def test_without_pyodide_solo_play_stays_on_the_server(gateway: Gateway):
    async with aiohttp.ClientSession(gateway.url) as session:
        assert await described(session) == {"available": False}
        for path in ("/solo/worker.js", "/solo/pyodide/0.29.0/pyodide.mjs"):
            async with session.get(path) as response:
                assert response.status == 404
