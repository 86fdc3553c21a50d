"""The commands of a player: the session (register by name, who am I), profiles and the
leaderboard, from the Players and Rating services."""

from __future__ import annotations

from aiohttp import web

from maumau.gateway.context import SETTINGS, UPSTREAMS, reply
from maumau.gateway.inputs import (
    body_of,
    field,
    ladder_of,
    number,
    require_session,
    timeout_of,
)
from maumau.gateway.sessions import COOKIE, COOKIE_MAX_AGE
from maumau.gateway.upstream import to_json
from maumau.v1 import players_pb2, rating_pb2


async def get_session(request: web.Request) -> web.Response:
    session = require_session(request)
    answer = await request.app[UPSTREAMS].players.GetPlayer(
        players_pb2.GetPlayerRequest(player_id=session.player_id), timeout=timeout_of(request)
    )
    player = answer.player
    return reply({"player_id": player.player_id, "name": player.name})


async def create_session(request: web.Request) -> web.Response:
    """Register a player by name; the token goes into the HttpOnly cookie and nowhere else."""
    data = await body_of(request)
    name = field(request, data, "name", str).strip()
    registered = await request.app[UPSTREAMS].players.Register(
        players_pb2.RegisterRequest(name=name), timeout=timeout_of(request)
    )
    response = reply({"player_id": registered.player_id, "name": name})
    response.set_cookie(
        COOKIE,
        registered.player_token,
        max_age=COOKIE_MAX_AGE,
        path="/",
        httponly=True,
        samesite="Strict",
        secure=request.app[SETTINGS].cookie_secure,
    )
    return response


async def profile(request: web.Request) -> web.Response:
    player_id = request.match_info.get("player_id") or require_session(request).player_id
    answer = await request.app[UPSTREAMS].rating.GetProfile(
        rating_pb2.GetProfileRequest(player_id=player_id, recent=10, ladder=ladder_of(request)),
        timeout=timeout_of(request),
    )
    return reply(to_json(answer.profile))


async def leaderboard(request: web.Request) -> web.Response:
    answer = await request.app[UPSTREAMS].rating.Leaderboard(
        rating_pb2.LeaderboardRequest(
            preset=request.query.get("preset", "classic"),
            season=request.query.get("season", ""),
            offset=number(request, "offset", 0),
            limit=number(request, "limit", 10),
            ladder=ladder_of(request),
        ),
        timeout=timeout_of(request),
    )
    return reply(to_json(answer.page))


async def around(request: web.Request) -> web.Response:
    session = require_session(request)
    answer = await request.app[UPSTREAMS].rating.Around(
        rating_pb2.AroundRequest(
            player_id=session.player_id,
            preset=request.query.get("preset", "classic"),
            season=request.query.get("season", ""),
            radius=number(request, "radius", 5),
            ladder=ladder_of(request),
        ),
        timeout=timeout_of(request),
    )
    return reply(to_json(answer.page))
