"""The services' back-pressure through the gateway, over a real engine on real gRPC and Redis:
a quota's wait reaches the page as HTTP's Retry-After (and in socket frames), and a Follow the
engine ends because it fell behind is reopened by the gateway with no gap and no repeat."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp

from maumau.common.quotas import Rates
from maumau.common.redis_server import EmbeddedRedis
from maumau.engine.app import EngineApp
from maumau.engine.matches import EngineSettings
from maumau.gateway.live import RESUMED
from tests.gateway.support import Gateway, Platform, start_gateway
from tests.gateway.test_api import client, play, ws_frames
from tests.support.engine import GENEROUS, start_engine, stop_engine


@contextlib.asynccontextmanager
async def gateway_before(
    services: Platform, redis_url: str, settings: EngineSettings
) -> AsyncIterator[tuple[Gateway, EngineApp]]:
    """A gateway in front of an engine replica of its own with ``settings`` (the other
    services are the shared ones)."""
    engine, redis_client = await start_engine(redis_url, settings)
    gateway = await start_gateway(services.settings(engine_address=f"127.0.0.1:{engine.port}"))
    try:
        yield gateway, engine
    finally:
        await gateway.stop()
        await stop_engine(engine, redis_client)


async def test_a_quota_refusal_says_when_to_try_again(
    services: Platform, redis_server: EmbeddedRedis
) -> None:
    """Past the engine's per-player quota on creating matches, the page gets 429 with
    Retry-After in whole seconds (rounded up from the service's retry-after-ms) and the
    engine's own words; a second Follow past the per-player cap on streams comes back over the
    socket with the wait in the frame."""
    rates = Rates("2/minute", GENEROUS.per_address, GENEROUS.registrations_per_address)
    settings = EngineSettings(bot_delay_seconds=0, rates=rates, follow_streams_per_player=1)
    async with gateway_before(services, redis_server.url, settings) as (gateway, _):
        ada = await client(gateway)
        try:
            matches = [await play(ada), await play(ada)]
            body = {"ruleset": {"preset": "classic"}, "computers": 1}
            async with ada.post("/api/play", json=body) as response:
                answer = await response.json()
                retry_after = response.headers.get("Retry-After")
            assert response.status == 429
            error = answer["error"]
            assert error["status"] == "RESOURCE_EXHAUSTED"
            assert "over its limit of 2 per minute" in error["message"]
            assert 0 < error["retry_after_ms"] <= 60_000
            assert retry_after == str(-(-error["retry_after_ms"] // 1000))
            async with ada.ws_connect("/ws", origin=gateway.url) as ws:
                await ws.send_json({"op": "follow", "match_id": matches[0]})
                await ws_frames(ws, 1)
                await ws.send_json({"op": "follow", "match_id": matches[1]})
                refused = await first_error(ws)
            assert refused["topic"] == f"match:{matches[1]}"
            assert refused["error"]["status"] == "RESOURCE_EXHAUSTED"
            assert "already follows 1 streams" in refused["error"]["message"]
            assert refused["error"]["retry_after_ms"] == 5000
        finally:
            await ada.close()


async def test_the_gateways_own_rate_limit_says_when_to_try_again(services: Platform) -> None:
    gateway = await start_gateway(services.settings(rate_burst=2, rate_per_second=0.25))
    session = await client(gateway)
    try:
        statuses = []
        for _ in range(3):
            async with session.get("/api/session") as response:
                statuses.append(response.status)
                retry_after = response.headers.get("Retry-After")
                answer = await response.json()
    finally:
        await session.close()
        await gateway.stop()
    assert statuses[-1] == 429
    assert answer["error"]["code"] == "session_rate"
    assert retry_after is not None and 1 <= int(retry_after) <= 4


async def first_error(ws: aiohttp.ClientWebSocketResponse) -> dict[str, Any]:
    for _ in range(500):
        message = await asyncio.wait_for(ws.receive(), 10)
        frame = json.loads(message.data)
        if frame["type"] == "error":
            return dict(frame)
    raise AssertionError("no error frame came")


async def test_a_follow_that_fell_behind_is_resumed_with_no_gap_and_no_repeat(
    services: Platform, redis_server: EmbeddedRedis
) -> None:
    """The engine ends a Follow ABORTED once it is more than follow_queue_events behind (here
    one, so every move that writes two events at once does it): the gateway opens it again
    from the last event it forwarded, and the page gets exactly the match's stored events."""
    settings = EngineSettings(bot_delay_seconds=0, follow_queue_events=1)
    async with gateway_before(services, redis_server.url, settings) as (gateway, _):
        ada = await client(gateway)
        resumed_before = RESUMED._value.get()
        try:
            match_id = await play(ada)
            async with ada.ws_connect("/ws", origin=gateway.url) as ws:
                await ws.send_json({"op": "follow", "match_id": match_id})
                for index in range(12):
                    if not await act_if_due(ada, match_id, f"move-{index}"):
                        break
                async with ada.ws_connect("/ws", origin=gateway.url) as whole:
                    await whole.send_json({"op": "follow", "match_id": match_id})
                    await asyncio.sleep(0.5)  # the bots' answers are written
                    stored = await frames_until_quiet(whole)
                received = await frames_until_quiet(ws)
        finally:
            await ada.close()
    assert RESUMED._value.get() > resumed_before, "no Follow was ended ABORTED and resumed"
    assert len(stored) > 12
    assert [f["id"] for f in received] == [f["id"] for f in stored]
    assert [f["event"] for f in received] == [f["event"] for f in stored]


async def act_if_due(session: aiohttp.ClientSession, match_id: str, request_id: str) -> bool:
    """Play the first legal action if the seat is due (waiting briefly for the bots); False
    once the match is over."""
    for _ in range(100):
        async with session.get(f"/api/matches/{match_id}/view") as response:
            view = await response.json()
        if view["phase"] == "over":
            return False
        if view["legal"]:
            body = {"request_id": request_id, "action": view["legal"][0]["text"]}
            async with session.post(f"/api/matches/{match_id}/act", json=body) as response:
                return response.status == 200
        await asyncio.sleep(0.05)
    return False


async def frames_until_quiet(
    ws: aiohttp.ClientWebSocketResponse, quiet: float = 1.5
) -> list[dict[str, Any]]:
    """The event frames that come until none came for ``quiet`` seconds."""
    frames = []
    while True:
        try:
            message = await asyncio.wait_for(ws.receive(), quiet)
        except TimeoutError:
            return frames
        frame = json.loads(message.data)
        assert frame["type"] in ("event", "end"), frame
        if frame["type"] == "event":
            frames.append(frame)
