"""The gateway's tournament commands over the real platform (tournaments service included): the
list, one tournament with its standings, registration by the session's player, the player's seat
(its token kept in the gateway), the championship table, and their refusals as JSON."""

from __future__ import annotations

from typing import Any

import aiohttp

from maumau.common.tokens import new_id
from maumau.v1 import game_pb2
from tests.gateway.support import (
    Gateway,
    Platform,
    organizer,
    readiness_once_ready,
    start_gateway,
    wait_for,
)
from tests.gateway.test_api import client


async def answer(response: aiohttp.ClientResponse) -> tuple[int, dict[str, Any]]:
    return response.status, await response.json()


async def test_a_player_registers_and_withdraws_and_sees_the_standings(
    gateway: Gateway, services: Platform
) -> None:
    async with organizer(services) as org:
        created = await org.create("Spring cup", rounds=2, change_every=1, max_per_table=4)
        await org.add_bots(created.tournament_id, ["Ann", "Ben"])
    tid = created.tournament_id
    ada = await client(gateway, "Ada")
    try:
        async with ada.get("/api/session") as response:
            me = (await response.json())["player_id"]
        async with ada.get("/api/tournaments") as response:
            status, listed = await answer(response)
        assert status == 200
        mine = next(t for t in listed["tournaments"] if t["tournament_id"] == tid)
        assert mine["status"] == "registration" and len(mine["entrants"]) == 2

        async with ada.post(f"/api/tournaments/{tid}/register") as response:
            status, registered = await answer(response)
        assert status == 200, registered
        assert [e["entrant_id"] for e in registered["entrants"]][-1] == me
        assert registered["entrants"][-1]["name"] == "Ada"

        async with ada.post(f"/api/tournaments/{tid}/register") as response:
            status, refused = await answer(response)
        assert status == 409 and refused["error"]["status"] == "FAILED_PRECONDITION"
        assert refused["error"]["message"].startswith("Not possible right now")

        async with ada.get(f"/api/tournaments/{tid}") as response:
            status, shown = await answer(response)
        assert status == 200
        assert shown["tournament"]["tournament_id"] == tid
        assert {r["name"] for r in shown["standings"]["rows"]} == {"Ann", "Ben", "Ada"}
        assert shown["standings"]["final"] is False

        async with ada.post(f"/api/tournaments/{tid}/unregister") as response:
            status, withdrawn = await answer(response)
        assert status == 200
        assert me not in [e["entrant_id"] for e in withdrawn["entrants"]]
    finally:
        await ada.close()


async def test_the_seat_of_the_running_block_plays_through_the_match_routes(
    gateway: Gateway, services: Platform
) -> None:
    async with organizer(services) as org:
        created = await org.create(
            "Seat cup",
            ruleset=game_pb2.Ruleset(preset="ostfriesland"),
            rounds=1,
            change_every=1,
            max_per_table=4,
        )
        tid = created.tournament_id
        await org.add_bots(tid, ["Cid", "Dan", "Eve"])
        ada = await client(gateway, "Ada")
        try:
            async with ada.get(f"/api/tournaments/{tid}/seat") as response:
                status, refused = await answer(response)
            assert status == 409 and refused["error"]["status"] == "FAILED_PRECONDITION"
            async with ada.post(f"/api/tournaments/{tid}/register") as response:
                assert response.status == 200
            await org.start(tid)
            seat: dict[str, Any] = {}

            async def seated() -> bool:
                async with ada.get(f"/api/tournaments/{tid}/seat") as response:
                    seat.update(await response.json())
                return response.status == 200 and bool(seat.get("match_id"))

            await wait_for(seated, 20)
            assert "seat_token" not in seat
            match_id = seat["match_id"]
            async with ada.get(f"/api/matches/{match_id}/view") as response:
                status, view = await answer(response)
            assert status == 200, view
            assert view["seat"] == seat["seat"] and view["hand"]
            # Leaving after the start: the points so far stay, a bot plays the seat out.
            async with ada.post(f"/api/tournaments/{tid}/unregister") as response:
                status, left = await answer(response)
            assert status == 200
            assert [e["left"] for e in left["entrants"] if e["name"] == "Ada"] == [True]
        finally:
            await ada.close()


async def test_tournament_refusals_are_json_in_the_pages_language(gateway: Gateway) -> None:
    unknown = new_id()
    async with aiohttp.ClientSession(base_url=gateway.url) as anonymous:
        async with anonymous.post(f"/api/tournaments/{unknown}/register", json={}) as response:
            status, refused = await answer(response)
        assert status == 401 and refused["error"]["code"] == "no_session"
        async with anonymous.get(f"/api/tournaments/{unknown}") as response:
            status, refused = await answer(response)
        assert status == 404 and refused["error"]["status"] == "NOT_FOUND"
        headers = {"X-Maumau-Lang": "de"}
        async with anonymous.get("/api/championship?year=1999", headers=headers) as response:
            status, refused = await answer(response)
        assert status == 400 and refused["error"]["message"].startswith(
            "Diese Anfrage ist ungültig"
        )
        for query in ("year=abc", "year=99999999999999999999", "limit=-1"):
            async with anonymous.get(f"/api/championship?{query}") as response:
                status, refused = await answer(response)
            assert status == 400 and refused["error"]["status"] == "INVALID_ARGUMENT", query
        async with anonymous.get("/api/tournaments?status=sleeping") as response:
            status, refused = await answer(response)
        assert status == 400 and "status must be one of" in refused["error"]["message"]
        async with anonymous.get("/api/championship") as response:
            status, table = await answer(response)
        assert status == 200 and table["year"] >= 2026 and isinstance(table["rows"], list)


async def test_a_missing_tournaments_service_degrades_only_the_tournaments_pages(
    services: Platform,
) -> None:
    lost = await start_gateway(services.settings(tournaments_address="127.0.0.1:1"))
    try:
        async with aiohttp.ClientSession(base_url=lost.url) as session:
            ready = await readiness_once_ready(session)
            assert ready["ready"] is True and ready["upstreams"]["tournaments"] is False
            async with session.get("/api/tournaments") as response:
                status, refused = await answer(response)
            assert status == 503 and refused["error"]["status"] == "UNAVAILABLE"
            async with session.get("/api/leaderboard") as response:
                assert response.status == 200
    finally:
        await lost.stop()
