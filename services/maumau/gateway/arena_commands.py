"""A person challenges a bot from the browser: the bots online, a challenge and its cancel, from
the Arena service (``maumau.v1.ArenaService``, at the Accounts service's address), and what
became of a challenge, told over the tab's WebSocket (``live``).

A challenge's progress is the person's own event stream (``ArenaService.Events`` with the
session's token), opened by the gateway while the page follows the challenge and closed when it
ends: accepted (the seat token is kept here, as a room's or a ticket's, and the page opens the
table), declined with a reason, expired or cancelled. While that stream is open the challenge
lives on past its first 20 seconds (the creator is online). An account has one such stream per
gateway process; another follow is refused until it closes, with the wait to try again after.

The stream is read from a little before the challenge was made: an event's id is its Redis
stream id (Unix milliseconds first), and a bot may answer before the page follows. Events of
other challenges are passed over.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any

import grpc
from aiohttp import web

from maumau.gateway.account_commands import account_refusal, call
from maumau.gateway.context import REFUSED, SEATS, UPSTREAMS, lang_of, reply
from maumau.gateway.inputs import body_of, field, require_session, ruleset_of, timeout_of
from maumau.gateway.sessions import Session
from maumau.gateway.upstream import Refusal, bearer, refusal
from maumau.v1 import accounts_pb2, arena_pb2, rating_pb2

ARENA_STREAMS = web.AppKey("arena_streams", set[str])
"""The players whose challenge this process follows now (one each)."""

MAX_CHALLENGED = 7
CURSOR_MARGIN_MS = 60_000
"""How far before the challenge's creation its events are looked for: more than the clocks of
the gateway and Redis may differ by."""
RETRY_SECONDS = 5.0
PRESETS = ("classic", "online", "ostfriesland", "colour")

TEXTS = {
    "en": {
        "arena_bot_session": "a bot account plays through its program with its bot:play token, "
        "not in the browser",
        "arena_bots_field": "'bots': 1 to 7 player ids of bots, each named once",
        "arena_preset": "'preset': classic, online, ostfriesland or colour",
        "challenge_streams": "this account already waits for a challenge here: try again in a "
        "moment",
    },
    "de": {
        "arena_bot_session": "ein Bot-Konto spielt über sein Programm mit seinem bot:play-Token, "
        "nicht im Browser",
        "arena_bots_field": "'bots': 1 bis 7 Spieler-IDs von Bots, jede einmal",
        "arena_preset": "'preset': classic, online, ostfriesland oder colour",
        "challenge_streams": "dieses Konto wartet hier schon auf eine Herausforderung: versuche "
        "es gleich noch einmal",
    },
}
"""The gateway's own refusals of these commands, in the page's two languages."""

DECLINE_REASONS = {
    value: name.removeprefix("DECLINE_REASON_").lower()
    for name, value in arena_pb2.DeclineReason.items()
}
"""A reason's word for the page ("ruleset", "too_many_seats"), which says it in its language."""


def arena_refusal(request: web.Request, status: str, code: str) -> Refusal:
    lang = lang_of(request)
    return refusal(status, lang, TEXTS[lang][code], code)


async def online_bots(request: web.Request) -> web.Response:
    """The bots online now (at most 100), each with its rating on the bots' ladder of
    ``preset`` when it has one (one leaderboard page: the rating service down, none)."""
    session = require_session(request)
    preset = request.query.get("preset", "classic")
    if preset not in PRESETS:
        raise arena_refusal(request, "INVALID_ARGUMENT", "arena_preset")
    upstreams = request.app[UPSTREAMS]
    listed = await call(
        request,
        upstreams.arena.ListOnlineBots,
        arena_pb2.ListOnlineBotsRequest(page_size=100),
        session.player_token,
    )
    ratings: dict[str, dict[str, Any]] = {}
    try:
        page = await upstreams.rating.Leaderboard(
            rating_pb2.LeaderboardRequest(preset=preset, limit=100, ladder=rating_pb2.LADDER_BOTS),
            timeout=timeout_of(request),
        )
        ratings = {
            e.player_id: {"display": e.skill.display, "rank": e.rank} for e in page.page.entries
        }
    except grpc.aio.AioRpcError:
        pass  # the list stands without ratings
    bots = [
        {"player_id": b.player_id, "name": b.name, "rating": ratings.get(b.player_id)}
        for b in listed.bots
    ]
    return reply({"bots": bots, "preset": preset})


async def create_challenge(request: web.Request) -> web.Response:
    """Challenge bots to one table (the person and each bot a seat), rated or casual. The answer
    holds ``after``, the event id to follow the challenge from."""
    session = require_session(request)
    data = await body_of(request)
    bots = field(request, data, "bots", list)
    if not (
        1 <= len(bots) <= MAX_CHALLENGED
        and all(isinstance(b, str) and 0 < len(b) <= 128 for b in bots)
        and len(set(bots)) == len(bots)
    ):
        raise arena_refusal(request, "INVALID_ARGUMENT", "arena_bots_field")
    message = arena_pb2.CreateChallengeRequest(
        player_ids=bots,
        ruleset=ruleset_of(request, data),
        rated=field(request, data, "rated", bool, False),
    )
    upstreams = request.app[UPSTREAMS]
    token = session.player_token
    account = await call(
        request, upstreams.accounts.GetAccount, accounts_pb2.GetAccountRequest(), token
    )
    if account.account.bot:
        raise arena_refusal(request, "PERMISSION_DENIED", "arena_bot_session")
    after = f"{int(time.time() * 1000) - CURSOR_MARGIN_MS}-0"
    created = await call(request, upstreams.arena.CreateChallenge, message, token)
    challenge = created.challenge
    return reply(
        {
            "challenge_id": challenge.challenge_id,
            "challenged_ids": list(challenge.challenged_ids),
            "ruleset_text": challenge.ruleset_text,
            "rated": challenge.rated,
            "expires_unix_ms": challenge.expires_unix_ms,
            "after": after,
        }
    )


async def cancel_challenge(request: web.Request) -> web.Response:
    session = require_session(request)
    message = arena_pb2.CancelChallengeRequest(challenge_id=request.match_info["challenge_id"])
    await call(request, request.app[UPSTREAMS].arena.CancelChallenge, message, session.player_token)
    return reply({})


async def progress(
    app: web.Application, session: Session, challenge_id: str, after: str, lang: str
) -> AsyncIterator[dict[str, Any]]:
    """The frames of one challenge, read from the person's event stream after ``after``: one
    ``{"type": "challenge", "state": ...}`` when it ended (then the stream closes). Refused
    RESOURCE_EXHAUSTED (``challenge_streams``) while this process follows another challenge of
    the same account."""
    waiting = app[ARENA_STREAMS]
    if session.player_id in waiting:
        REFUSED.labels("challenge_streams").inc()
        text = TEXTS[lang]["challenge_streams"]
        raise refusal("RESOURCE_EXHAUSTED", lang, text, "challenge_streams", RETRY_SECONDS)
    waiting.add(session.player_id)
    call = app[UPSTREAMS].arena.Events(
        arena_pb2.EventsRequest(after_event_id=after),
        metadata=(*bearer(session.player_token), ("accept-language", lang)),
    )
    try:
        async for message in call:
            ended = outcome(message.event, challenge_id)
            if ended is None:
                continue
            started = message.event.match_started
            if ended["state"] == "accepted":
                app[SEATS].remember(session, started.match_id, started.seat_token)
            yield {"type": "challenge", "challenge_id": challenge_id, **ended}
            return
    except grpc.aio.AioRpcError as error:
        if error.code() == grpc.StatusCode.CANCELLED:
            raise
        raise account_refusal(error, lang) from None
    finally:
        call.cancel()
        waiting.discard(session.player_id)


def outcome(event: arena_pb2.AccountEvent, challenge_id: str) -> dict[str, Any] | None:
    """What ``event`` says became of the challenge, or None when it is about something else."""
    kind = event.WhichOneof("kind")
    if kind == "match_started" and event.match_started.challenge_id == challenge_id:
        started = event.match_started
        return {"state": "accepted", "match_id": started.match_id, "seat": started.seat}
    if kind == "challenge_declined" and event.challenge_declined.challenge_id == challenge_id:
        declined = event.challenge_declined
        reason = DECLINE_REASONS.get(declined.reason, "generic")
        return {"state": "declined", "reason": reason, "player_id": declined.player_id}
    if kind == "challenge_expired" and event.challenge_expired.challenge_id == challenge_id:
        return {"state": "expired"}
    if kind == "challenge_cancelled" and event.challenge_cancelled.challenge_id == challenge_id:
        return {"state": "cancelled"}
    return None


def add_routes(app: web.Application) -> None:
    """The arena's commands under ``/api/arena``."""
    app[ARENA_STREAMS] = set()
    routes = app.router
    routes.add_get("/api/arena/bots", online_bots)
    routes.add_post("/api/arena/challenges", create_challenge)
    routes.add_delete("/api/arena/challenges/{challenge_id}", cancel_challenge)
