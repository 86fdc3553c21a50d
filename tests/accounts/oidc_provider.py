"""The real OpenID Connect provider of the tests: the npm package oidc-provider (a certified
implementation), installed into tests/accounts/oidc with ``npm ci`` from its committed
package-lock.json, started with ``node`` on a free loopback port, and a browser's walk through
it (redirects followed with cookies kept, as a browser does)."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import aiohttp
import pytest

from tests.support.programs import require

FOLDER = Path(__file__).with_name("oidc")
NPM_SECONDS = 600
_installed = threading.Lock()


@dataclass(frozen=True)
class RunningProvider:
    issuer: str
    client_id: str
    client_secret: str
    redirect_uri: str

    def setting(self, name: str = "testid") -> str:
        """MAUMAU_ACCOUNTS_OIDC_PROVIDERS naming this provider."""
        return json.dumps(
            [
                {
                    "name": name,
                    "display_name": "Test ID",
                    "issuer": self.issuer,
                    "client_id": self.client_id,
                    "client_secret": self.client_secret,
                }
            ]
        )


def _install(npm: str) -> None:
    with _installed:
        if (FOLDER / "node_modules" / "oidc-provider").is_dir():
            return
        done = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund"],
            cwd=FOLDER,
            capture_output=True,
            text=True,
            timeout=NPM_SECONDS,
        )
        if done.returncode != 0:
            message = f"`npm ci` of oidc-provider failed: {done.stderr.strip()[-500:]}"
            if os.environ.get("MAUMAU_TEST_REQUIRE_ALL") == "1":
                pytest.fail(message)
            pytest.skip(message)


@contextlib.contextmanager
def oidc_provider(redirect_uri: str) -> Iterator[RunningProvider]:
    """oidc-provider on loopback with one client for ``redirect_uri`` (skipped, naming the
    package, when node or npm are missing and cannot be installed)."""
    node = require("node", "nodejs")
    _install(require("npm", "npm"))
    client = {"client_id": "maumau", "client_secret": "a secret only the tests know"}
    process = subprocess.Popen(
        [node, "provider.mjs", json.dumps({**client, "redirect_uri": redirect_uri})],
        cwd=FOLDER,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        if not line:
            raise AssertionError(f"oidc-provider did not start (exit {process.wait(10)})")
        yield RunningProvider(json.loads(line)["issuer"], **client, redirect_uri=redirect_uri)
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


async def walk(authorization_url: str, redirect_uri: str, login: str) -> dict[str, str]:
    """What the provider sends back to ``redirect_uri`` (code and state, or error) once a
    browser follows ``authorization_url`` and ``login`` signs in."""
    url = f"{authorization_url}&login_hint={login}"
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as browser:
        for _ in range(20):
            if url.startswith(redirect_uri):
                query = parse_qs(urlsplit(url).query)
                return {key: values[0] for key, values in query.items()}
            async with browser.get(url, allow_redirects=False) as response:
                location = response.headers.get("Location")
                if location is None:
                    raise AssertionError(f"{url}: {response.status} {await response.text()}")
                url = str(response.url.join(aiohttp.client.URL(location)))
    raise AssertionError("the provider kept redirecting")
