"""The gateway's HTTP side: the application that assembles the web client's files, the JSON
commands, health and the guards.

Every command is one gRPC call (or two) to the services; the gateway adds no rule of its own.
Answers are the services' messages as JSON (proto field names) with seat tokens taken out. The
commands live by what they touch (``match_commands``, ``lobby_commands``, ``player_commands``,
``tournament_commands``, ``account_commands``, ``arena_commands``), the middlewares in
``guards``; this module only wires them together.
"""

from __future__ import annotations

import asyncio
from weakref import WeakSet

from aiohttp import web

from maumau.common import tokens
from maumau.gateway import (
    account_commands,
    arena_commands,
    lobby_commands,
    match_commands,
    player_commands,
    solo_files,
    tournament_commands,
)
from maumau.gateway.context import (
    ADDRESS_RATE,
    RELAY_TOKEN,
    SEATS,
    SECRET,
    SESSION_RATE,
    SETTINGS,
    SOCKET_COUNTS,
    SOCKETS,
    STOPPING,
    UPSTREAMS,
    reply,
)
from maumau.gateway.guards import guard, limits
from maumau.gateway.limits import RateLimiter, SocketCounts
from maumau.gateway.live import SOCKETS_LIMIT, live
from maumau.gateway.pages import PAGES, WEB_ROOT, page
from maumau.gateway.sessions import SeatTokens
from maumau.gateway.settings import GatewaySettings
from maumau.gateway.upstream import Upstreams


async def healthz(request: web.Request) -> web.Response:
    return reply({"status": "ok"})


async def readyz(request: web.Request) -> web.Response:
    """Ready while not stopping and the engine and matchmaker say SERVING; tips, profiles,
    the tournaments page and the account pages degrade on their own when the bots, rating,
    tournaments or accounts service is down."""
    upstreams = await request.app[UPSTREAMS].health()
    stopping = request.app[STOPPING].is_set()
    ready = not stopping and upstreams["engine"] and upstreams["matchmaking"]
    body = {"ready": ready, "stopping": stopping, "upstreams": upstreams}
    return reply(body, 200 if ready else 503)


def create_app(settings: GatewaySettings, secret: bytes) -> web.Application:
    """The gateway as an aiohttp application; its upstream channels open on startup."""
    app = web.Application(middlewares=[guard, limits], client_max_size=settings.max_body_bytes)
    app[SETTINGS] = settings
    app[SECRET] = secret
    app[RELAY_TOKEN] = tokens.issue_service_token(secret, "gateway")
    app[SESSION_RATE] = RateLimiter(settings.rate_per_second, settings.rate_burst)
    app[ADDRESS_RATE] = RateLimiter(settings.address_rate_per_second, settings.address_rate_burst)
    app[SOCKET_COUNTS] = SocketCounts(
        settings.sockets_per_session, settings.sockets_per_address, settings.max_sockets
    )
    SOCKETS_LIMIT.set(settings.max_sockets)
    app[SOCKETS] = WeakSet()
    app[STOPPING] = asyncio.Event()

    async def open_upstreams(app: web.Application) -> None:
        app[UPSTREAMS] = Upstreams(settings)
        app[SEATS] = SeatTokens(app[UPSTREAMS])

    async def close_upstreams(app: web.Application) -> None:
        await app[UPSTREAMS].close()

    app.on_startup.append(open_upstreams)
    app.on_shutdown.append(close_sockets)
    app.on_cleanup.append(close_upstreams)

    for path in PAGES:
        app.router.add_get(path, page)
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/readyz", readyz)
    app.router.add_get("/ws", live)
    app.router.add_get("/api/session", player_commands.get_session)
    app.router.add_post("/api/session", player_commands.create_session)
    app.router.add_post("/api/play", match_commands.play_now)
    app.router.add_get("/api/matches", match_commands.list_matches)
    app.router.add_get("/api/matches/{match_id}", match_commands.get_match)
    app.router.add_get("/api/matches/{match_id}/view", match_commands.get_view)
    app.router.add_post("/api/matches/{match_id}/act", match_commands.act)
    app.router.add_post("/api/matches/{match_id}/tips", match_commands.tips)
    app.router.add_post("/api/matches/{match_id}/leave", match_commands.leave)
    app.router.add_get("/api/deck", match_commands.deck)
    app.router.add_post("/api/rooms", lobby_commands.create_room)
    app.router.add_get("/api/rooms/{code}", lobby_commands.get_room)
    app.router.add_post("/api/rooms/{code}/join", lobby_commands.join_room)
    app.router.add_post("/api/rooms/{code}/start", lobby_commands.start_room)
    app.router.add_post("/api/queue", lobby_commands.enqueue)
    app.router.add_get("/api/queue/{ticket_id}", lobby_commands.get_ticket)
    app.router.add_delete("/api/queue/{ticket_id}", lobby_commands.cancel_ticket)
    app.router.add_get("/api/profile", player_commands.profile)
    app.router.add_get("/api/profile/{player_id}", player_commands.profile)
    app.router.add_get("/api/leaderboard", player_commands.leaderboard)
    app.router.add_get("/api/leaderboard/around", player_commands.around)
    app.router.add_get("/api/tournaments", tournament_commands.list_tournaments)
    app.router.add_get("/api/tournaments/{tournament_id}", tournament_commands.get_tournament)
    app.router.add_post(
        "/api/tournaments/{tournament_id}/register", tournament_commands.register_entrant
    )
    app.router.add_post(
        "/api/tournaments/{tournament_id}/unregister", tournament_commands.unregister_entrant
    )
    app.router.add_get("/api/tournaments/{tournament_id}/seat", tournament_commands.tournament_seat)
    app.router.add_get("/api/championship", tournament_commands.championship)
    account_commands.add_routes(app)
    arena_commands.add_routes(app)
    solo_files.add_routes(app, settings.pyodide_folder)
    app.router.add_static("/static/", WEB_ROOT, follow_symlinks=False, append_version=False)
    return app


async def close_sockets(app: web.Application) -> None:
    """On shutdown: tell every open page to reconnect (close code 1012, service restart)."""
    app[STOPPING].set()
    open_sockets = app[SOCKETS]
    sockets = list(open_sockets)
    await asyncio.gather(
        *(ws.close(code=1012, message=b"restart: reconnect") for ws in sockets),
        return_exceptions=True,
    )
