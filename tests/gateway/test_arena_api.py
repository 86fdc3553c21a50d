"""The gateway's arena commands over HTTP and the tab's WebSocket against the whole platform
(Accounts and its Arena service over gRPC, Redis), with bot accounts online in the test process:
a person lists the bots online, challenges one and hears over the socket that it accepted (the
seat kept in the gateway: the view is the person's seat) or declined with its reason; one
challenge followed per account at a time; and hostile requests (no session, a player with no
account, a bot account's session, a bot:play token as the cookie, a bad ruleset, an unknown
account, cancelling another's challenge) refused with their status and code, nothing changed."""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from maumau.gateway.arena_commands import ARENA_STREAMS, outcome
from maumau.v1 import arena_pb2
from tests.gateway.arena_bots import PASSWORD, WAIT_SECONDS, OnlineBot, online_bot
from tests.gateway.support import Gateway, Platform
from tests.gateway.test_accounts_api import answer, jar, registered

CLASSIC = {"preset": "classic", "options": {"target": "0"}}


async def person(gateway: Gateway) -> aiohttp.ClientSession:
    """A browser whose player claimed an account."""
    session = await registered(gateway, "Ada")
    status, body = await answer(
        session,
        "POST",
        "/api/account/claim",
        json={"username": "ada" + secrets.token_hex(4), "password": PASSWORD},
    )
    assert status == 200, body
    return session


@pytest.fixture
async def ada(gateway: Gateway) -> AsyncIterator[aiohttp.ClientSession]:
    session = await person(gateway)
    yield session
    await session.close()


@pytest.fixture
async def quiet(services: Platform) -> AsyncIterator[OnlineBot]:
    """A bot online that answers no challenge (they stay open)."""
    async with online_bot(services, "Quiet", "ignore") as bot:
        yield bot


async def challenge(
    session: aiohttp.ClientSession, bot: OnlineBot, **changes: Any
) -> tuple[int, Any]:
    body = {"bots": [bot.player_id], "ruleset": CLASSIC, "rated": False, **changes}
    return await answer(session, "POST", "/api/arena/challenges", json=body)


async def followed(
    gateway: Gateway, session: aiohttp.ClientSession, challenge: dict[str, Any]
) -> list[dict[str, Any]]:
    """The frames of the challenge's follow over a WebSocket, up to its end."""
    frames = []
    async with session.ws_connect("/ws?lang=en", headers={"Origin": gateway.url}) as ws:
        follow = {"op": "follow", "challenge_id": challenge["challenge_id"]}
        await ws.send_str(json.dumps({**follow, "after": challenge["after"]}))
        async with asyncio.timeout(WAIT_SECONDS):
            while not frames or frames[-1]["type"] not in ("end", "error"):
                frames.append(json.loads((await ws.receive()).data))
    return frames


async def first_challenge(bot: OnlineBot) -> str:
    async with asyncio.timeout(WAIT_SECONDS):
        while not bot.challenges:
            await asyncio.sleep(0.05)
    return bot.challenges[0]


async def test_a_person_challenges_a_bot_online_and_gets_the_seat_when_it_accepts(
    services: Platform, gateway: Gateway, ada: aiohttp.ClientSession
) -> None:
    async with online_bot(services, "Robo") as robo:
        status, listed = await answer(ada, "GET", "/api/arena/bots?preset=classic")
        assert status == 200, listed
        mine = [b for b in listed["bots"] if b["player_id"] == robo.player_id]
        assert len(mine) == 1 and mine[0]["name"] and mine[0]["rating"] is None  # no match yet
        status, made = await challenge(ada, robo)
        assert status == 200, made
        assert made["challenged_ids"] == [robo.player_id] and made["rated"] is False
        assert made["ruleset_text"] == "classic target=0"
        frames = await followed(gateway, ada, made)
        assert [f["type"] for f in frames] == ["challenge", "end"], frames
        accepted = frames[0]
        assert accepted["state"] == "accepted" and accepted["seat"] == 0
        assert accepted["topic"] == f"challenge:{made['challenge_id']}"
        assert "seat_token" not in json.dumps(frames)
        status, view = await answer(ada, "GET", f"/api/matches/{accepted['match_id']}/view")
        assert status == 200 and view["seat"] == 0 and view["hand"], view  # the person's seat


async def test_a_decline_reaches_the_page_with_its_reason(
    services: Platform, gateway: Gateway, ada: aiohttp.ClientSession
) -> None:
    async with online_bot(services, "Picky", "ruleset") as picky:
        status, made = await challenge(ada, picky)
        assert status == 200, made
        frames = await followed(gateway, ada, made)
        assert frames[0]["state"] == "declined" and frames[0]["reason"] == "ruleset", frames
        assert frames[0]["player_id"] == picky.player_id and frames[-1]["type"] == "end"


async def test_one_challenge_is_followed_per_account_at_a_time(
    gateway: Gateway, ada: aiohttp.ClientSession, quiet: OnlineBot
) -> None:
    status, made = await challenge(ada, quiet)
    assert status == 200, made
    follow = {"op": "follow", "challenge_id": made["challenge_id"], "after": made["after"]}
    headers = {"Origin": gateway.url}
    async with ada.ws_connect("/ws", headers=headers) as first:
        await first.send_str(json.dumps(follow))
        async with asyncio.timeout(WAIT_SECONDS):  # the first follow's stream is open
            while not gateway.runner.app[ARENA_STREAMS]:
                await asyncio.sleep(0.02)
        async with ada.ws_connect("/ws", headers=headers) as second:
            await second.send_str(json.dumps(follow))
            async with asyncio.timeout(WAIT_SECONDS):
                refused = json.loads((await second.receive()).data)
    error = refused["error"]
    assert refused["type"] == "error" and error["code"] == "challenge_streams", refused
    assert error["status"] == "RESOURCE_EXHAUSTED" and error["retry_after_ms"] == 5000
    status, _ = await answer(ada, "DELETE", f"/api/arena/challenges/{made['challenge_id']}")
    assert status == 200


async def test_hostile_requests_are_refused_and_change_nothing(
    services: Platform, gateway: Gateway, ada: aiohttp.ClientSession, quiet: OnlineBot
) -> None:
    path = "/api/arena/challenges"
    good = {"bots": [quiet.player_id], "ruleset": CLASSIC}
    async with jar(gateway) as nobody:
        for method, where in (("GET", "/api/arena/bots"), ("POST", path)):
            status, body = await answer(nobody, method, where, json=good)
            assert (status, body["error"]["code"]) == (401, "no_session"), body
    anonymous = await registered(gateway)
    status, body = await answer(anonymous, "POST", path, json=good)
    await anonymous.close()
    assert (status, body["error"]["code"]) == (409, "no_account"), body
    async with jar(gateway) as bot_browser:
        status, body = await answer(
            bot_browser,
            "POST",
            "/api/account/sign-in",
            json={"username": quiet.username, "password": PASSWORD},
        )
        assert status == 200, body
        status, body = await answer(bot_browser, "POST", path, json=good)
        assert (status, body["error"]["code"]) == (403, "arena_bot_session"), body
        status, body = await answer(
            bot_browser, "POST", path, json=good, headers={"X-Maumau-Lang": "de"}
        )
        assert body["error"]["message"].startswith("Das darfst du nicht: ein Bot-Konto"), body
    async with jar(gateway) as token_browser:
        token_browser.cookie_jar.update_cookies({"maumau_player": quiet.token})
        status, body = await answer(token_browser, "POST", path, json=good)
        assert (status, body["error"]["code"]) == (401, "no_session"), body
    for changes, refused in (
        ({"ruleset": {"preset": "skat"}}, (400, "unknown_preset")),
        ({"ruleset": {"preset": "classic", "options": {"target": "-5"}}}, (400, "bad_option")),
        ({"bots": ["nobody-" + secrets.token_hex(4)]}, (404, "challenge_no_account")),
        ({"bots": []}, (400, "arena_bots_field")),
        ({"bots": [quiet.player_id, quiet.player_id]}, (400, "arena_bots_field")),
        ({"bots": quiet.player_id}, (400, "bad_field")),
        ({"rated": "yes"}, (400, "bad_field")),
    ):
        status, body = await challenge(ada, quiet, **changes)
        assert (status, body["error"]["code"]) == refused, (changes, body)
    status, body = await answer(ada, "GET", "/api/arena/bots?preset=skat")
    assert (status, body["error"]["code"]) == (400, "arena_preset"), body
    status, made = await challenge(ada, quiet)
    assert status == 200, made
    assert await first_challenge(quiet) == made["challenge_id"]  # none refused reached it
    other = await person(gateway)
    where = f"{path}/{made['challenge_id']}"
    status, body = await answer(other, "DELETE", where)
    await other.close()
    assert (status, body["error"]["code"]) == (404, "arena_challenge_unknown"), body
    status, _ = await answer(ada, "DELETE", where)  # still open: its creator cancels it
    assert status == 200
    status, body = await answer(ada, "DELETE", where)
    assert (status, body["error"]["code"]) == (404, "arena_challenge_unknown"), body


@pytest.mark.parametrize(
    ("event", "said"),
    [
        (arena_pb2.AccountEvent(challenge_expired=arena_pb2.ChallengeExpired(challenge_id="c1")),
         {"state": "expired"}),
        (arena_pb2.AccountEvent(
            challenge_cancelled=arena_pb2.ChallengeCancelled(challenge_id="c1")),
         {"state": "cancelled"}),
        (arena_pb2.AccountEvent(challenge_declined=arena_pb2.ChallengeDeclined(
            challenge_id="c1", player_id="b", reason=arena_pb2.DECLINE_REASON_TOO_MANY_SEATS)),
         {"state": "declined", "reason": "too_many_seats", "player_id": "b"}),
        (arena_pb2.AccountEvent(match_started=arena_pb2.SeatMatchStarted(
            match_id="m", seat=0, seat_token="secret", challenge_id="c1")),
         {"state": "accepted", "match_id": "m", "seat": 0}),
        (arena_pb2.AccountEvent(challenge_expired=arena_pb2.ChallengeExpired(challenge_id="c2")),
         None),
        (arena_pb2.AccountEvent(match_started=arena_pb2.SeatMatchStarted(
            match_id="m", seat_token="secret", arena=True)), None),
        (arena_pb2.AccountEvent(keep_alive=arena_pb2.KeepAlive()), None),
    ],
)  # fmt: skip
def test_each_end_of_a_challenge_is_told_and_other_events_are_passed_over(
    event: arena_pb2.AccountEvent, said: dict[str, Any] | None
) -> None:
    """What the page hears of challenge c1: its expiry (20 s unanswered while nobody follows
    it), a call-off, a decline with its reason's word, its match's seat (never its token)."""
    assert outcome(event, "c1") == said
