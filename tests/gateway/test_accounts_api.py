"""The gateway's account commands over HTTP against the real platform (Accounts over gRPC, Redis):
claim with a password or a passkey and sign in from a second cookie jar as the same player,
the account's sessions, access tokens, export and delete, and hostile requests refused with the
Accounts service's stable code, its text in the page's language, and nothing changed."""

from __future__ import annotations

import json
import secrets
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from hypothesis import given
from hypothesis import strategies as st

from maumau.common.redis_server import EmbeddedRedis
from maumau.gateway.account_commands import device_of
from tests.accounts.authenticator import Authenticator
from tests.accounts.support import ORIGIN, start_accounts, stop_accounts
from tests.gateway.support import Gateway, Platform, start_gateway

PASSWORD = "a long walk by the sea"


def jar(gateway: Gateway) -> aiohttp.ClientSession:
    """A browser's cookie jar of its own (a second device)."""
    return aiohttp.ClientSession(base_url=gateway.url, cookie_jar=aiohttp.CookieJar(unsafe=True))


async def registered(gateway: Gateway, name: str = "Anon") -> aiohttp.ClientSession:
    session = jar(gateway)
    async with session.post("/api/session", json={"name": name}) as response:
        assert response.status == 200, await response.text()
    return session


async def answer(
    session: aiohttp.ClientSession, method: str, path: str, **options: Any
) -> tuple[int, Any]:
    async with session.request(method, path, **options) as response:
        return response.status, await response.json()


def username() -> str:
    return "u" + secrets.token_hex(5)


@pytest.fixture
async def claimed(gateway: Gateway) -> AsyncIterator[tuple[aiohttp.ClientSession, str, str]]:
    """A browser whose player claimed an account with a password: (session, username, id)."""
    session = await registered(gateway)
    name = username()
    status, body = await answer(
        session, "POST", "/api/account/claim", json={"username": name, "password": PASSWORD}
    )
    assert status == 200, body
    yield session, name, body["account"]["player_id"]
    await session.close()


async def test_a_claimed_player_signs_in_with_the_password_on_another_device(
    gateway: Gateway, claimed: tuple[aiohttp.ClientSession, str, str]
) -> None:
    first, name, player_id = claimed
    status, account = await answer(first, "GET", "/api/account")
    assert status == 200 and account["username"] == name and account["has_password"] is True
    async with jar(gateway) as second:
        status, body = await answer(
            second, "POST", "/api/account/sign-in", json={"username": name, "password": "nope!nope"}
        )
        assert status == 401 and body["error"]["code"] == "sign_in_failed"
        assert body["error"]["message"] == "wrong username or password"
        status, body = await answer(
            second,
            "POST",
            "/api/account/sign-in",
            json={"username": name, "password": "nope!nope"},
            headers={"X-Maumau-Lang": "de"},
        )
        assert body["error"]["message"] == "falscher Benutzername oder falsches Passwort"
        status, body = await answer(
            second, "POST", "/api/account/sign-in", json={"username": name, "password": PASSWORD}
        )
        assert status == 200 and body == {"player_id": player_id, "username": name}
        status, me = await answer(second, "GET", "/api/session")
        assert status == 200 and me["player_id"] == player_id


async def test_the_password_is_changed_with_the_current_one(
    gateway: Gateway, claimed: tuple[aiohttp.ClientSession, str, str]
) -> None:
    session, name, _ = claimed
    changed = {"password": "another walk, by the lake", "current_password": "not it at all"}
    status, body = await answer(session, "POST", "/api/account/password", json=changed)
    assert (status, body["error"]["code"]) == (403, "password_wrong")
    changed["current_password"] = PASSWORD
    assert (await answer(session, "POST", "/api/account/password", json=changed))[0] == 200
    async with jar(gateway) as other:
        old = {"username": name, "password": PASSWORD}
        assert (await answer(other, "POST", "/api/account/sign-in", json=old))[0] == 401
        new = {"username": name, "password": changed["password"]}
        assert (await answer(other, "POST", "/api/account/sign-in", json=new))[0] == 200


async def test_a_passkey_claims_and_signs_in_as_the_same_player(gateway: Gateway) -> None:
    authenticator = Authenticator(ORIGIN)
    async with await registered(gateway) as first, jar(gateway) as second:
        name = username()
        status, body = await answer(first, "POST", "/api/account/claim", json={"username": name})
        assert status == 200 and body["account"]["has_password"] is False
        player_id = body["account"]["player_id"]
        status, begun = await answer(first, "POST", "/api/account/passkeys/register/begin")
        assert status == 200 and begun["options"]["rp"]["id"] == "localhost"
        credential = json.loads(authenticator.create(json.dumps(begun["options"])))
        finish = {"challenge_id": begun["challenge_id"], "credential": credential, "name": "Key"}
        status, passkey = await answer(
            first, "POST", "/api/account/passkeys/register/finish", json=finish
        )
        assert status == 200 and passkey["name"] == "Key"
        replayed = await answer(first, "POST", "/api/account/passkeys/register/finish", json=finish)
        assert replayed[0] == 409 and replayed[1]["error"]["code"] == "challenge_unknown"

        status, begun = await answer(second, "POST", "/api/account/passkeys/sign-in/begin")
        assertion = json.loads(authenticator.get(json.dumps(begun["options"])))
        status, body = await answer(
            second,
            "POST",
            "/api/account/passkeys/sign-in/finish",
            json={"challenge_id": begun["challenge_id"], "credential": assertion},
        )
        assert status == 200 and body == {"player_id": player_id, "username": name}
        status, account = await answer(second, "GET", "/api/account")
        assert [p["name"] for p in account["passkeys"]] == ["Key"]


async def test_sessions_tokens_export_and_delete(
    gateway: Gateway, claimed: tuple[aiohttp.ClientSession, str, str]
) -> None:
    first, name, _ = claimed
    async with jar(gateway) as second:
        sign_in = {"username": name, "password": PASSWORD}
        assert (await answer(second, "POST", "/api/account/sign-in", json=sign_in))[0] == 200
        status, listed = await answer(first, "GET", "/api/account/sessions")
        sessions = listed["sessions"]
        assert status == 200 and len(sessions) == 2
        other = next(s for s in sessions if not s["current"])
        assert other["how"] == "password" and other["device"]
        status, _ = await answer(first, "DELETE", f"/api/account/sessions/{other['session_id']}")
        assert status == 200
        status, body = await answer(second, "GET", "/api/account")
        assert status == 401, body

    status, created = await answer(
        first, "POST", "/api/account/tokens", json={"name": "script", "scope": "read"}
    )
    assert status == 200 and created["access_token"] and created["token"]["scope"] == "read"
    status, listed = await answer(first, "GET", "/api/account/tokens")
    assert [t["name"] for t in listed["tokens"]] == ["script"]
    assert "access_token" not in json.dumps(listed)
    token_id = created["token"]["token_id"]
    assert (await answer(first, "DELETE", f"/api/account/tokens/{token_id}"))[0] == 200
    assert (await answer(first, "GET", "/api/account/tokens"))[1] == {"tokens": []}

    async with first.get("/api/account/export") as response:
        assert response.status == 200
        assert "attachment" in response.headers["Content-Disposition"]
        exported = json.loads(await response.text())
    assert exported["account"]["username"] == name

    status, body = await answer(first, "POST", "/api/account/delete", json={"username": name + "x"})
    assert status == 400 and body["error"]["code"] == "delete_confirm"
    assert (await answer(first, "GET", "/api/account"))[1]["username"] == name
    status, body = await answer(first, "POST", "/api/account/delete", json={"username": name})
    assert status == 200 and body["name_free_at"] >= body["deleted_at"]
    assert (await answer(first, "GET", "/api/account"))[0] == 401


HOSTILE: list[tuple[str, str, dict[str, Any], int, str]] = [
    ("POST", "/api/account/sign-in", {"data": b"{not json", "headers": {
        "Content-Type": "application/json"}}, 400, "bad_json"),
    ("POST", "/api/account/sign-in", {"json": {"username": 5, "password": "x"}}, 400, "bad_field"),
    ("POST", "/api/account/sign-in", {"json": {"username": "a" * 5000, "password": "x"}}, 400,
     "bad_field"),
    ("POST", "/api/account/sign-in", {"data": "{}", "headers": {"Content-Type": "text/plain"}},
     400, "content_type"),
    ("POST", "/api/account/sign-in", {"json": {"username": "a", "password": "b"},
     "headers": {"Origin": "https://evil.example"}}, 403, "origin"),
    ("POST", "/api/account/sign-in", {"json": {"username": "x" * 9000}}, 413, "too_large"),
    ("POST", "/api/account/passkeys/sign-in/finish", {"json": {"challenge_id": "x",
     "credential": "not an object"}}, 400, "bad_field"),
    ("POST", "/api/account/passkeys/sign-in/finish", {"json": {"challenge_id": "x",
     "credential": {"id": "x"}}}, 409, "challenge_unknown"),
    ("POST", "/api/account/tokens", {"json": {"name": "t", "scope": "admin"}}, 400, "scope"),
    ("POST", "/api/account/tokens", {"json": {"name": "t", "scope": "play", "ttl_days": True}},
     400, "bad_field"),
    ("POST", "/api/account/tokens", {"json": {"name": "", "scope": "play"}}, 400, "token_name"),
    ("POST", "/api/account/claim", {"json": {"username": "admin"}}, 409, "already_claimed"),
    ("DELETE", "/api/account/sessions/nope", {}, 404, "session_unknown"),
    ("DELETE", "/api/account/tokens/nope", {}, 404, "token_unknown"),
    ("POST", "/api/account/providers/nope/begin", {"json": {}}, 400, "provider_unknown"),
    ("POST", "/api/account/delete", {"json": {}}, 400, "bad_field"),
    ("POST", "/api/account/password", {"json": {"password": "short"}}, 400, "password_length"),
    ("POST", "/api/account/password", {"json": {"password": "password123"}}, 400,
     "password_common"),
]  # fmt: skip


@pytest.mark.parametrize(("method", "path", "options", "status", "code"), HOSTILE)
async def test_hostile_requests_are_refused_clearly_and_change_nothing(
    claimed: tuple[aiohttp.ClientSession, str, str],
    method: str,
    path: str,
    options: dict[str, Any],
    status: int,
    code: str,
) -> None:
    session, _, _ = claimed
    before = await answer(session, "GET", "/api/account")
    got, body = await answer(session, method, path, **options)
    assert (got, body["error"]["code"]) == (status, code), body
    assert body["error"]["message"]
    assert await answer(session, "GET", "/api/account") == before


async def test_the_account_needs_a_signed_in_browser(gateway: Gateway) -> None:
    async with jar(gateway) as nobody, await registered(gateway) as anonymous:
        assert (await answer(nobody, "GET", "/api/account"))[1]["error"]["code"] == "no_session"
        status, body = await answer(anonymous, "GET", "/api/account")
        assert (status, body["error"]["code"]) == (409, "no_account")


@given(st.text(max_size=2000))
def test_a_device_name_is_short_whatever_the_browser_says(agent: str) -> None:
    device = device_of(agent)
    assert 0 < len(device) <= 64 and device.isprintable()


@pytest.fixture
async def relayed(services: Platform, redis_server: EmbeddedRedis) -> AsyncIterator[Gateway]:
    """A gateway behind one proxy (``X-Forwarded-For``) in front of an Accounts replica that
    allows three sign-in attempts per address and trusts the gateway as a relay by its service
    token alone (no address of it listed)."""
    accounts = await start_accounts(
        redis_server.url, f"127.0.0.1:{services.engine.port}", sign_ins_per_address="3 per minute"
    )
    gateway = await start_gateway(
        services.settings(accounts_address=f"127.0.0.1:{accounts.port}", forwarded_hops=1)
    )
    yield gateway
    await gateway.stop()
    await stop_accounts(accounts)


async def test_sign_in_attempts_are_limited_per_browser_address_through_the_gateway(
    relayed: Gateway,
) -> None:
    """The gateway names the browser's address to the Accounts service: one address past its
    limit is refused with the wait, another is not."""
    guess = {"username": username(), "password": "not the password"}
    base = secrets.randbelow(2**16)  # windows nobody else counts in
    one, other = ({"X-Forwarded-For": f"2001:db8::{base:x}:{n}"} for n in (5, 6))
    async with jar(relayed) as session:
        for _ in range(3):
            status, body = await answer(
                session, "POST", "/api/account/sign-in", json=guess, headers=one
            )
            assert (status, body["error"]["code"]) == (401, "sign_in_failed")
        async with session.post("/api/account/sign-in", json=guess, headers=one) as response:
            body = await response.json()
            assert response.status == 429 and int(response.headers["Retry-After"]) >= 1
        assert body["error"]["code"] == "sign_in_limited" and body["error"]["retry_after_ms"] > 0
        assert body["error"]["message"].startswith("too many sign-in attempts")
        status, body = await answer(
            session, "POST", "/api/account/sign-in", json=guess, headers=other
        )
        assert (status, body["error"]["code"]) == (401, "sign_in_failed")
