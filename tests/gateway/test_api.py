"""The gateway's JSON commands and WebSocket over a real platform (engine, bots, matchmaker,
rating on real gRPC and Redis), driven by a plain HTTP client as a browser would."""

from __future__ import annotations

import asyncio
import gzip
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from maumau.common.tokens import verify_seat_token
from tests.gateway.support import Gateway, Platform, readiness_once_ready, start_gateway
from tests.support.engine import SECRET


async def client(gateway: Gateway, name: str = "Ada") -> aiohttp.ClientSession:
    """A session with a registered player (the cookie jar keeps the token, as a browser does)."""
    session = aiohttp.ClientSession(base_url=gateway.url, cookie_jar=aiohttp.CookieJar(unsafe=True))
    async with session.post("/api/session", json={"name": name}) as response:
        assert response.status == 200, await response.text()
    return session


@pytest.fixture
async def ada(gateway: Gateway) -> AsyncIterator[aiohttp.ClientSession]:
    session = await client(gateway)
    yield session
    await session.close()


async def play(session: aiohttp.ClientSession, preset: str = "classic", **extra: Any) -> str:
    body = {"ruleset": {"preset": preset, "options": {"target": "0"}}, "computers": 3, **extra}
    async with session.post("/api/play", json=body) as response:
        answer = await response.json()
        assert response.status == 200, answer
    return str(answer["match"]["match_id"])


async def test_the_player_token_is_an_http_only_strict_cookie_and_in_no_body(
    gateway: Gateway,
) -> None:
    async with (
        aiohttp.ClientSession(base_url=gateway.url) as session,
        session.post("/api/session", json={"name": "Bea"}) as response,
    ):
        cookie = response.cookies["maumau_player"]
        body = await response.text()
    assert cookie["httponly"] is True
    assert cookie["samesite"] == "Strict"
    assert cookie.value not in body
    assert set(json.loads(body)) == {"player_id", "name"}


async def test_pages_and_files_carry_a_strict_content_security_policy(gateway: Gateway) -> None:
    async with aiohttp.ClientSession(base_url=gateway.url) as session:
        for path in ("/", "/room/ABCDEF", "/static/app.js", "/static/style.css"):
            async with session.get(path) as response:
                assert response.status == 200, path
                policy = response.headers["Content-Security-Policy"]
                assert "script-src 'self'" in policy and "unsafe-inline" not in policy
                assert response.headers["X-Content-Type-Options"] == "nosniff"
        async with session.get("/") as response:
            page = await response.text()
    assert "<script>" not in page and 'type="module" src="/static/app.js"' in page


async def test_the_page_and_its_scripts_and_styles_go_compressed_and_whole(
    gateway: Gateway,
) -> None:
    web_root = Path(__file__).resolve().parents[2] / "clients" / "web"
    async with aiohttp.ClientSession(base_url=gateway.url, auto_decompress=False) as session:
        for path, file in (("/", "index.html"), ("/static/table.js", "table.js"),
                           ("/static/style.css", "style.css")):  # fmt: skip
            async with session.get(path, headers={"Accept-Encoding": "gzip"}) as response:
                assert response.status == 200, path
                assert response.headers["Content-Encoding"] == "gzip", path
                body = await response.read()
            assert gzip.decompress(body) == (web_root / file).read_bytes(), path
            if file != "index.html":
                assert len(body) < (web_root / file).stat().st_size / 2, path
        async with session.get(
            "/static/table.js", headers={"Accept-Encoding": "identity"}
        ) as plain:
            assert "Content-Encoding" not in plain.headers
            assert await plain.read() == (web_root / "table.js").read_bytes()


async def test_a_seat_token_never_reaches_the_page(
    ada: aiohttp.ClientSession, services: Platform
) -> None:
    match_id = await play(ada)
    bodies = []
    for method, path, body in (
        ("GET", f"/api/matches/{match_id}", None),
        ("GET", f"/api/matches/{match_id}/view", None),
        ("POST", f"/api/matches/{match_id}/tips", {}),
        ("POST", "/api/rooms", {"ruleset": {"preset": "online"}, "seats": 2}),
    ):
        async with ada.request(method, path, json=body) as response:
            bodies.append(await response.text())
    for text in bodies:
        for word in text.replace('"', " ").split():
            with pytest.raises(ValueError):
                verify_seat_token(SECRET, word)
        assert "seat_token" not in text


async def test_a_refused_move_comes_in_the_page_language_with_the_rules_code(
    ada: aiohttp.ClientSession,
) -> None:
    match_id = await play(ada)
    headers = {"X-Maumau-Lang": "de"}
    body = {"request_id": "r-1", "action": "QX"}
    async with ada.post(f"/api/matches/{match_id}/act", json=body, headers=headers) as response:
        answer = await response.json()
    assert response.status == 400
    assert answer["error"]["status"] == "INVALID_ARGUMENT"
    assert answer["error"]["code"] == "bad_card_text" or answer["error"]["code"] == (
        "bad_action_text"
    )
    assert "kein" in answer["error"]["message"]
    body = {"ruleset": {"preset": "skat"}, "computers": 1}
    async with ada.post("/api/play", json=body, headers={"Accept-Language": "de-DE"}) as response:
        answer = await response.json()
    assert response.status == 400
    assert answer["error"] == {
        "status": "INVALID_ARGUMENT",
        "code": "unknown_preset",
        "message": "kein Regelwerk 'skat': wähle eines von classic, online, ostfriesland, colour",
    }


async def test_a_card_that_does_not_fit_is_failed_precondition_in_english(
    ada: aiohttp.ClientSession,
) -> None:
    for _ in range(20):  # a deal where it is our turn and some card of the hand does not fit
        match_id = await play(ada)
        async with ada.get(f"/api/matches/{match_id}/view") as response:
            view = await response.json()
        playable = {a["play"]["card"] for a in view["legal"] if "play" in a}
        refused = [card for card in view["hand"] if card not in playable]
        if view["legal"] and refused:  # on our turn nothing moves until we do
            break
    else:
        pytest.fail("no deal in 20 began with our turn and a card that does not fit")
    body = {"request_id": "x", "action": refused[0]}
    async with ada.post(f"/api/matches/{match_id}/act", json=body) as response:
        answer = await response.json()
    assert response.status == 409
    assert answer["error"]["status"] == "FAILED_PRECONDITION"
    refusals = ("card_does_not_match", "draw_pending", "starter_suit_needed")
    assert answer["error"]["code"] in refusals  # the last: a Jack turned up names the suit first


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("not json", "bad_json"),
        ("[1, 2]", "bad_json"),
        ('{"ruleset": {"preset": "classic"}, "computers": "three"}', "bad_field"),
        ('{"ruleset": {"preset": "classic"}, "computers": 7}', "computers"),
        ('{"ruleset": {"preset": "classic"}, "level": "godlike"}', "level"),
        ('{"ruleset": "classic"}', "bad_field"),
    ],
)
async def test_every_malformed_command_gets_a_json_error(
    ada: aiohttp.ClientSession, body: str, expected: str
) -> None:
    headers = {"Content-Type": "application/json"}
    async with ada.post("/api/play", data=body, headers=headers) as response:
        answer = await response.json()
    assert response.status == 400
    assert answer["error"]["code"] == expected
    assert answer["error"]["message"]


async def test_commands_need_a_session_json_and_this_origin(gateway: Gateway) -> None:
    async with (
        aiohttp.ClientSession(base_url=gateway.url) as anonymous,
        anonymous.post("/api/play", json={}) as response,
    ):
        assert response.status == 401
        assert (await response.json())["error"]["status"] == "UNAUTHENTICATED"
    session = await client(gateway)
    try:
        async with session.post("/api/play", data="name=x") as response:
            assert response.status == 400
            assert (await response.json())["error"]["code"] == "content_type"
        headers = {"Origin": "https://evil.example"}
        async with session.post("/api/play", json={}, headers=headers) as response:
            assert response.status == 403
            assert (await response.json())["error"]["code"] == "origin"
        async with session.get("/api/nothing-here") as response:
            assert response.status == 404
            assert (await response.json())["error"]["status"] == "NOT_FOUND"
    finally:
        await session.close()


async def test_an_oversized_body_is_refused(ada: aiohttp.ClientSession) -> None:
    body = {"name": "x" * 20_000}
    async with ada.post("/api/session", json=body) as response:
        answer = await response.json()
    assert response.status == 413
    assert answer["error"]["status"] == "RESOURCE_EXHAUSTED"


async def test_requests_beyond_the_rate_are_refused_per_session(services: Platform) -> None:
    gateway = await start_gateway(services.settings(rate_burst=5, rate_per_second=0.5))
    session = await client(gateway)
    try:
        codes = []
        for _ in range(10):
            async with session.get("/api/session") as response:
                codes.append(response.status)
        assert codes[:4] == [200] * 4
        assert 429 in codes
        async with session.get("/api/session") as response:
            assert (await response.json())["error"]["code"] == "session_rate"
    finally:
        await session.close()
        await gateway.stop()


async def test_requests_beyond_the_rate_are_refused_per_address(services: Platform) -> None:
    settings = services.settings(address_rate_burst=6, address_rate_per_second=0.5)
    gateway = await start_gateway(settings)
    codes = []
    try:
        for index in range(4):  # a new session each time gets no new budget
            async with aiohttp.ClientSession(
                base_url=gateway.url, cookie_jar=aiohttp.CookieJar(unsafe=True)
            ) as session:
                async with session.post("/api/session", json={"name": f"P{index}"}) as response:
                    codes.append(response.status)
                async with session.get("/api/session") as response:
                    codes.append(response.status)
                    body = await response.json()
    finally:
        await gateway.stop()
    assert codes[:6] == [200] * 6
    assert codes[6:] == [429, 429]
    assert body["error"]["code"] == "address_rate"


async def ws_frames(
    ws: aiohttp.ClientWebSocketResponse, count: int, timeout: float = 10
) -> list[dict[str, Any]]:
    frames = []
    while len(frames) < count:
        message = await asyncio.wait_for(ws.receive(), timeout)
        assert message.type == aiohttp.WSMsgType.TEXT, message
        frames.append(json.loads(message.data))
    return frames


async def test_websocket_upgrades_check_the_origin(
    ada: aiohttp.ClientSession, gateway: Gateway
) -> None:
    for origin in ("https://evil.example", None):
        headers = {"Origin": origin} if origin else {}
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await ada.ws_connect("/ws", headers=headers)
        assert refused.value.status == 403
    async with ada.ws_connect("/ws", origin=gateway.url) as ws:
        assert not ws.closed


async def test_a_reconnected_socket_resumes_with_no_gap_and_no_repeat(
    ada: aiohttp.ClientSession, gateway: Gateway
) -> None:
    match_id = await play(ada, preset="colour")
    async with ada.ws_connect("/ws", origin=gateway.url) as ws:
        await ws.send_json({"op": "follow", "match_id": match_id})
        first = await ws_frames(ws, 6)
    # Play on while disconnected, so events happen in the gap.
    for index in range(3):
        async with ada.get(f"/api/matches/{match_id}/view") as response:
            view = await response.json()
        if view["legal"]:
            action = view["legal"][0]["text"]
            async with ada.post(
                f"/api/matches/{match_id}/act",
                json={"request_id": f"gap-{index}", "action": action},
            ) as response:
                assert response.status == 200
    async with ada.ws_connect("/ws", origin=gateway.url) as ws:
        await ws.send_json({"op": "follow", "match_id": match_id, "after": first[-1]["id"]})
        second = await ws_frames(ws, 4)
    async with ada.ws_connect("/ws", origin=gateway.url) as ws:
        await ws.send_json({"op": "follow", "match_id": match_id})
        whole = await ws_frames(ws, 10)
    ids = [frame["id"] for frame in first + second]
    assert ids == [frame["id"] for frame in whole]
    assert [f["event"] for f in first + second] == [f["event"] for f in whole]


async def test_a_spectator_follows_without_any_hand(
    ada: aiohttp.ClientSession, gateway: Gateway
) -> None:
    match_id = await play(ada)
    bea = await client(gateway, "Bea")
    try:
        async with bea.ws_connect("/ws", origin=gateway.url) as ws:
            await ws.send_json({"op": "follow", "match_id": match_id})
            frames = await ws_frames(ws, 8)
        for frame in frames:
            drew = frame["event"].get("drew")
            if drew:
                assert drew["cards"] == []
        async with bea.get(f"/api/matches/{match_id}/view") as response:
            view = await response.json()
        assert view["seat"] == -1 and view["hand"] == []
        async with bea.post(
            f"/api/matches/{match_id}/act", json={"request_id": "s", "action": "draw"}
        ) as response:
            assert response.status == 403
            assert (await response.json())["error"]["code"] == "no_seat"
    finally:
        await bea.close()


async def test_socket_messages_are_checked(ada: aiohttp.ClientSession, gateway: Gateway) -> None:
    async with ada.ws_connect("/ws", origin=gateway.url) as ws:
        await ws.send_str("hello")
        await ws.send_json({"op": "dance"})
        await ws.send_json({"op": "follow"})
        await ws.send_json({"op": "follow", "match_id": "no-such-match"})
        frames = await ws_frames(ws, 4)
    assert [f["type"] for f in frames] == ["error"] * 4
    assert [f["error"]["code"] for f in frames[:3]] == ["bad_json", "bad_op", "bad_op"]
    assert frames[3]["error"]["status"] == "NOT_FOUND"


async def test_a_socket_follows_a_bounded_number_of_streams(
    ada: aiohttp.ClientSession, gateway: Gateway
) -> None:
    matches = [await play(ada) for _ in range(5)]
    async with ada.ws_connect("/ws", origin=gateway.url) as ws:
        for match_id in matches:
            await ws.send_json({"op": "follow", "match_id": match_id})
        refused = None
        for _ in range(400):
            frame = json.loads((await asyncio.wait_for(ws.receive(), 10)).data)
            if frame["type"] == "error":
                refused = frame
                break
    assert refused is not None
    assert refused["error"]["code"] == "follows"
    assert refused["topic"] == f"match:{matches[4]}"


async def test_rooms_and_tickets_come_without_seat_tokens(
    gateway: Gateway, services: Platform
) -> None:
    host, guest = await client(gateway, "Host"), await client(gateway, "Guest")
    try:
        body = {"ruleset": {"preset": "online"}, "seats": 2, "bot_level": ""}
        async with host.post("/api/rooms", json=body) as response:
            room = await response.json()
        assert room["web_path"] == f"/room/{room['code']}"
        async with host.ws_connect("/ws", origin=gateway.url) as ws:
            await ws.send_json({"op": "follow", "room": room["code"]})
            await ws_frames(ws, 1)
            async with guest.post(f"/api/rooms/{room['code']}/join") as response:
                joined = await response.json()
            assert joined["your_seat"] == 1 and "seat_token" not in joined
            frames = []
            while not any(f["room"]["match_id"] for f in frames):
                frames += await ws_frames(ws, 1)
        assert all("seat_token" not in f["room"] for f in frames)
        match_id = frames[-1]["room"]["match_id"]
        async with guest.get(f"/api/matches/{match_id}/view") as response:
            view = await response.json()
        assert view["seat"] == 1 and len(view["hand"]) > 0
    finally:
        await host.close()
        await guest.close()


async def test_health_and_readiness_follow_the_upstreams(
    gateway: Gateway, services: Platform
) -> None:
    async with aiohttp.ClientSession(base_url=gateway.url) as session:
        async with session.get("/healthz") as response:
            assert response.status == 200
        body = await readiness_once_ready(session)
    assert body["ready"] is True
    assert body["upstreams"] == {
        "engine": True,
        "matchmaking": True,
        "bots": True,
        "rating": True,
        "tournaments": True,
        "accounts": True,
    }
    lost = await start_gateway(services.settings(engine_address="127.0.0.1:1"))
    try:
        async with (
            aiohttp.ClientSession(base_url=lost.url) as session,
            session.get("/readyz") as response,
        ):
            body = await response.json()
        assert response.status == 503
        assert body["upstreams"]["engine"] is False
    finally:
        await lost.stop()


async def test_shutdown_tells_open_pages_to_reconnect(services: Platform) -> None:
    gateway = await start_gateway(services.settings())
    session = await client(gateway)
    try:
        ws = await session.ws_connect("/ws", origin=gateway.url)
        stopping = asyncio.create_task(gateway.stop())
        message = await asyncio.wait_for(ws.receive(), 10)
        await stopping
        assert message.type == aiohttp.WSMsgType.CLOSE
        assert message.data == 1012
    finally:
        await session.close()


async def test_the_ranked_queue_seats_a_player_and_keeps_the_seat_token(
    ada: aiohttp.ClientSession, gateway: Gateway
) -> None:
    body = {"ruleset": {"preset": "online"}, "seats": 2, "ranked": True, "bots_after_seconds": 0}
    async with ada.ws_connect("/ws", origin=gateway.url) as ws:
        async with ada.post("/api/queue", json=body) as response:
            ticket = await response.json()
            assert response.status == 200, ticket
        await ws.send_json({"op": "follow", "ticket_id": ticket["ticket_id"]})
        frames: list[dict[str, Any]] = []
        while not frames or frames[-1]["type"] != "end":
            frames += await ws_frames(ws, 1)
    seated = frames[-2]["ticket"]
    assert seated["state"] == "seated" and seated["match_id"]
    assert all("seat_token" not in f.get("ticket", {}) for f in frames)
    async with ada.get(f"/api/matches/{seated['match_id']}/view") as response:
        view = await response.json()
    assert view["seat"] == seated["seat"] and view["hand"]


async def test_a_queue_request_of_the_wrong_shape_is_refused(ada: aiohttp.ClientSession) -> None:
    body = {"ruleset": {"preset": "online"}, "seats": 2, "bots_after_seconds": "soon"}
    async with ada.post("/api/queue", json=body) as response:
        answer = await response.json()
    assert response.status == 400
    assert answer["error"]["code"] == "bad_field"


async def test_profiles_and_leaderboards_come_from_the_rating_service(
    ada: aiohttp.ClientSession,
) -> None:
    async with ada.get("/api/leaderboard?preset=colour&limit=5") as response:
        page = await response.json()
    assert response.status == 200 and page["preset"] == "colour"
    async with ada.get("/api/leaderboard?preset=chess") as response:
        assert response.status == 400
    async with ada.get("/api/leaderboard?limit=many") as response:
        assert (await response.json())["error"]["code"] == "limit"
    async with ada.get("/api/leaderboard?preset=colour&ladder=bots") as response:
        page = await response.json()
    assert response.status == 200 and page["ladder"] == "LADDER_BOTS"
    async with ada.get("/api/leaderboard?ladder=robots") as response:
        refused = await response.json()
    assert response.status == 400 and refused["error"]["code"] == "ladder"
    async with ada.get("/api/profile") as response:
        status = response.status
        answer = await response.json()
    # A new player: the rating service knows them once registered, or says NOT_FOUND.
    assert (status == 200 and answer["level"] == 1) or answer["error"]["status"] == "NOT_FOUND"


async def test_behind_a_proxy_the_forwarded_address_is_limited(services: Platform) -> None:
    settings = services.settings(
        forwarded_hops=1, address_rate_burst=3, address_rate_per_second=0.1
    )
    gateway = await start_gateway(settings)
    codes: dict[str, list[int]] = {"10.0.0.1": [], "10.0.0.2": []}
    try:
        async with aiohttp.ClientSession(base_url=gateway.url) as session:
            for address, seen in [*codes.items(), *codes.items()] * 2:
                headers = {"X-Forwarded-For": f"203.0.113.9, {address}"}
                async with session.get("/api/session", headers=headers) as response:
                    seen.append(response.status)
    finally:
        await gateway.stop()
    assert codes == {"10.0.0.1": [401, 401, 401, 429], "10.0.0.2": [401, 401, 401, 429]}
