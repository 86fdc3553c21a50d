"""The gateway's HTTP side: the web client's files, JSON commands, health and the guards.

Every command is one gRPC call (or two) to the services; the gateway adds no rule of its own.
Answers are the services' messages as JSON (proto field names) with seat tokens taken out.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, cast
from weakref import WeakSet

import grpc
import prometheus_client
from aiohttp import web

from maumau.gateway.context import (
    ADDRESS_RATE,
    REFUSED,
    SEATS,
    SECRET,
    SESSION_RATE,
    SETTINGS,
    SOCKET_COUNTS,
    SOCKETS,
    STOPPING,
    UPSTREAMS,
    address_of,
    lang_of,
    origin_allowed,
    refused_reply,
    reply,
    session_of,
    without_seat_token,
)
from maumau.gateway.limits import RateLimiter, SocketCounts
from maumau.gateway.live import SOCKETS_LIMIT, live
from maumau.gateway.sessions import COOKIE, COOKIE_MAX_AGE, SeatTokens, Session
from maumau.gateway.settings import GatewaySettings
from maumau.gateway.upstream import Refusal, Upstreams, bearer, from_rpc, refusal, to_json
from maumau.rules import Ruleset
from maumau.rules.errors import RulesError, translate
from maumau.v1 import (
    bots_pb2,
    engine_pb2,
    game_pb2,
    matchmaking_pb2,
    players_pb2,
    rating_pb2,
    tournaments_pb2,
)
from maumau.wire import bot_level_to_pb

log = logging.getLogger(__name__)

_PACKAGED_WEB = Path(__file__).resolve().parent / "web"
WEB_ROOT = (
    _PACKAGED_WEB
    if _PACKAGED_WEB.is_dir()
    else Path(__file__).resolve().parents[3] / "clients" / "web"
)
"""The web client's files, served as they are (plain ES modules and CSS, no build step): inside
an installed wheel (copied there at build time), else the source tree's."""

CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; manifest-src 'self'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=()",
}
LEVELS = ("random", "heuristic", "strong")
PAGES = (
    "/",
    "/room/{code}",
    "/play",
    "/rooms",
    "/queue",
    "/profile",
    "/leaderboard",
    "/learn",
    "/tournaments",
    "/tournament/{tournament_id}",
)

REQUESTS = prometheus_client.Counter(
    "gateway_http_requests_total", "HTTP requests answered, by route and status.", ["route", "code"]
)
REQUEST_SECONDS = prometheus_client.Histogram(
    "gateway_http_request_seconds", "Time to answer an HTTP request, by route.", ["route"]
)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

# ---------------------------------------------------------------- request helpers


def require_session(request: web.Request) -> Session:
    session = session_of(request)
    if session is None:
        raise refusal("UNAUTHENTICATED", lang_of(request), code="no_session")
    return session


async def body_of(request: web.Request) -> dict[str, Any]:
    """The JSON object of a command; anything else is INVALID_ARGUMENT."""
    if not request.can_read_body:
        return {}
    try:
        data = await request.json()
    except ValueError:
        raise refusal(
            "INVALID_ARGUMENT", lang_of(request), "the body is not JSON", "bad_json"
        ) from None
    if not isinstance(data, dict):
        raise refusal("INVALID_ARGUMENT", lang_of(request), "expected a JSON object", "bad_json")
    return data


def field(
    request: web.Request,
    data: dict[str, Any],
    name: str,
    kind: type | tuple[type, ...],
    default: Any = None,
) -> Any:
    """``data[name]`` if it has the type ``kind``; missing gives ``default`` when there is one."""
    value = data.get(name, default)
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if value is None or isinstance(value, bool) != (bool in kinds) or not isinstance(value, kind):
        what = "a number" if int in kinds or float in kinds else kinds[0].__name__
        raise refusal("INVALID_ARGUMENT", lang_of(request), f"'{name}' must be {what}", "bad_field")
    return value


def ruleset_of(request: web.Request, data: dict[str, Any]) -> game_pb2.Ruleset:
    raw = field(request, data, "ruleset", dict)
    preset = field(request, raw, "preset", str)
    options = field(request, raw, "options", dict, {})
    if not all(isinstance(k, str) and isinstance(v, str | int | bool) for k, v in options.items()):
        raise refusal("INVALID_ARGUMENT", lang_of(request), "options are name: value", "bad_field")
    text = {k: (str(v).lower() if isinstance(v, bool) else str(v)) for k, v in options.items()}
    return game_pb2.Ruleset(preset=preset, options=text)


def level_of(request: web.Request, name: str) -> int:
    """A bot level's enum value from its name ("" for none)."""
    try:
        return int(bot_level_to_pb(name))
    except ValueError as error:
        raise refusal("INVALID_ARGUMENT", lang_of(request), str(error), "level") from None


def timeout_of(request: web.Request) -> float:
    return request.app[SETTINGS].upstream_timeout_seconds


# ---------------------------------------------------------------- middlewares


def is_lost_page(request: web.Request, error: web.HTTPException) -> bool:
    """A page the browser asked for at a path the web client does not have: it gets the client
    itself with status 404, which shows a page saying so (files and commands keep their 404)."""
    return (
        error.status == 404
        and request.method in ("GET", "HEAD")
        and not request.path.startswith(("/api/", "/static/", "/ws"))
    )


def api_miss(request: web.Request, error: web.HTTPException) -> web.Response:
    """A command the gateway has no route (or method) for, as a JSON refusal."""
    status = {404: "NOT_FOUND", 405: "INVALID_ARGUMENT"}.get(error.status, "INVALID_ARGUMENT")
    refused = refusal(status, lang_of(request), error.reason, "no_route")
    return reply(refused.body(), error.status)


@web.middleware
async def guard(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Security headers on everything; refusals and upstream errors as JSON; metrics."""
    route = request.match_info.route.resource
    name = route.canonical if route is not None else "unmatched"
    started = time.perf_counter()
    try:
        response = await handler(request)
    except Refusal as error:
        response = refused_reply(error)
    except grpc.aio.AioRpcError as error:
        response = refused_reply(from_rpc(error, lang_of(request)))
    except web.HTTPRequestEntityTooLarge:
        REFUSED.labels("too_large").inc()
        refused = refusal("RESOURCE_EXHAUSTED", lang_of(request), "request too large", "too_large")
        response = reply(refused.body(), 413)
    except web.HTTPException as error:
        if is_lost_page(request, error):
            response = web.FileResponse(WEB_ROOT / "index.html", status=404)
            response.headers["Cache-Control"] = "no-cache"
        elif not request.path.startswith("/api/") or error.status < 400:
            raise
        else:
            response = api_miss(request, error)
    except Exception:
        log.exception("%s %s failed", request.method, request.path)
        refused = refusal("INTERNAL", lang_of(request))
        response = reply(refused.body(), 500)
    if not response.prepared:
        response.headers.update(SECURITY_HEADERS)
        if request.path.startswith("/api/"):
            response.headers["Cache-Control"] = "no-store"
    REQUESTS.labels(name, str(response.status)).inc()
    REQUEST_SECONDS.labels(name).observe(time.perf_counter() - started)
    return response


@web.middleware
async def limits(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Rate limits per session and per address, and for commands: JSON from this origin only."""
    if not (request.path.startswith("/api/") or request.path == "/ws"):
        return await handler(request)
    lang = lang_of(request)
    session = session_of(request)
    address = address_of(request)
    key = f"player:{session.player_id}" if session else f"address:{address}"
    for rates, who, reason in (
        (request.app[ADDRESS_RATE], address, "address_rate"),
        (request.app[SESSION_RATE], key, "session_rate"),
    ):
        if not rates.allow(who):
            REFUSED.labels(reason).inc()
            wait = rates.wait(who)
            raise refusal("RESOURCE_EXHAUSTED", lang, code=reason, retry_after_seconds=wait)
    if request.method in ("POST", "PUT", "DELETE", "PATCH"):
        origin = request.headers.get("Origin")
        if origin is not None and not origin_allowed(request, origin):
            REFUSED.labels("origin").inc()
            raise refusal("PERMISSION_DENIED", lang, "foreign origin", "origin")
        if request.can_read_body and request.content_type != "application/json":
            REFUSED.labels("content_type").inc()
            raise refusal("INVALID_ARGUMENT", lang, "send application/json", "content_type")
    return await handler(request)


# ---------------------------------------------------------------- pages and health


async def page(request: web.Request) -> web.StreamResponse:
    response = web.FileResponse(WEB_ROOT / "index.html")
    response.headers["Cache-Control"] = "no-cache"
    return response


async def healthz(request: web.Request) -> web.Response:
    return reply({"status": "ok"})


async def readyz(request: web.Request) -> web.Response:
    """Ready while not stopping and the engine and matchmaker say SERVING; tips, profiles and
    the tournaments page degrade on their own when the bots, rating or tournaments service is
    down."""
    upstreams = await request.app[UPSTREAMS].health()
    stopping = request.app[STOPPING].is_set()
    ready = not stopping and upstreams["engine"] and upstreams["matchmaking"]
    body = {"ready": ready, "stopping": stopping, "upstreams": upstreams}
    return reply(body, 200 if ready else 503)


# ---------------------------------------------------------------- session


async def get_session(request: web.Request) -> web.Response:
    session = require_session(request)
    player = await request.app[UPSTREAMS].players.GetPlayer(
        players_pb2.GetPlayerRequest(player_id=session.player_id), timeout=timeout_of(request)
    )
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


# ---------------------------------------------------------------- matches


async def play_now(request: web.Request) -> web.Response:
    """A match against 1-3 computers of one level, started at once."""
    session = require_session(request)
    data = await body_of(request)
    computers = field(request, data, "computers", int, 3)
    level = field(request, data, "level", str, "heuristic")
    nonce = field(request, data, "nonce", str, "")
    if not 1 <= computers <= 3:
        raise refusal(
            "INVALID_ARGUMENT", lang_of(request), "play against 1 to 3 computers", "computers"
        )
    if level not in LEVELS:
        raise refusal("INVALID_ARGUMENT", lang_of(request), f"levels: {', '.join(LEVELS)}", "level")
    created = await request.app[UPSTREAMS].engine.CreateMatch(
        engine_pb2.CreateMatchRequest(
            ruleset=ruleset_of(request, data),
            seats=computers + 1,
            bots={seat: bot_level_to_pb(level) for seat in range(1, computers + 1)},
            auto_start=True,
            nonce=nonce,
        ),
        metadata=bearer(session.player_token),
        timeout=timeout_of(request),
    )
    seat, token = next(iter(created.seat_tokens.items()))
    request.app[SEATS].remember(session, created.match.match_id, token)
    return reply({"match": to_json(created.match), "seat": seat})


async def engine_call(
    request: web.Request, method: str, message: Any, seat_only: bool = False
) -> tuple[Session, Any]:
    session = require_session(request)
    match_id = request.match_info["match_id"]
    seats = request.app[SEATS]
    token, is_seat = await seats.credential(session, match_id)
    if seat_only and not is_seat:
        raise refusal("PERMISSION_DENIED", lang_of(request), code="no_seat")
    call = getattr(request.app[UPSTREAMS].engine, method)
    try:
        answer = await call(message, metadata=bearer(token), timeout=timeout_of(request))
    except grpc.aio.AioRpcError as error:
        if is_seat and error.code() in (
            grpc.StatusCode.UNAUTHENTICATED,
            grpc.StatusCode.PERMISSION_DENIED,
        ):
            seats.forget(session, match_id)  # e.g. the seat went to a bot: ask again next time
        raise
    return session, answer


async def get_match(request: web.Request) -> web.Response:
    match_id = request.match_info["match_id"]
    _, info = await engine_call(request, "GetMatch", engine_pb2.GetMatchRequest(match_id=match_id))
    return reply(to_json(info))


async def get_view(request: web.Request) -> web.Response:
    match_id = request.match_info["match_id"]
    _, view = await engine_call(request, "GetView", engine_pb2.GetViewRequest(match_id=match_id))
    return reply(to_json(view))


async def act(request: web.Request) -> web.Response:
    """One action in the rules core's text form, with the page's request id (retry-safe)."""
    data = await body_of(request)
    request_id = field(request, data, "request_id", str)
    action = field(request, data, "action", str)
    message = engine_pb2.ActRequest(request_id=request_id, action=game_pb2.Action(text=action))
    _, answer = await engine_call(request, "Act", message, seat_only=True)
    return reply({"version": answer.version, "view": to_json(answer.view)})


async def tips(request: web.Request) -> web.Response:
    """The Bots service's ranking of this seat's legal actions, each with its reason."""
    match_id = request.match_info["match_id"]
    message = engine_pb2.GetViewRequest(match_id=match_id)
    session, view = await engine_call(request, "GetView", message, seat_only=True)
    hint = await request.app[UPSTREAMS].bots.Hint(
        bots_pb2.HintRequest(view=view, lang=lang_of(request)),
        metadata=bearer(session.player_token),
        timeout=timeout_of(request),
    )
    ranked = [{"action": r.action.text, "score": r.score, "reason": r.reason} for r in hint.actions]
    return reply({"version": view.version, "actions": ranked})


async def leave(request: web.Request) -> web.Response:
    match_id = request.match_info["match_id"]
    message = engine_pb2.LeaveRequest(match_id=match_id)
    session, info = await engine_call(request, "Leave", message, seat_only=True)
    request.app[SEATS].forget(session, match_id)
    return reply(to_json(info))


async def list_matches(request: web.Request) -> web.Response:
    session = require_session(request)
    answer = await request.app[UPSTREAMS].engine.ListMatches(
        engine_pb2.ListMatchesRequest(limit=20),
        metadata=bearer(session.player_token),
        timeout=timeout_of(request),
    )
    return reply({"matches": [to_json(m) for m in answer.matches]})


async def deck(request: web.Request) -> web.Response:
    """The rules core's deck for a ruleset and table size, in its order before any shuffle, and
    the cards dealt to each seat: the constants the page's fair-deal check needs to replay every
    shuffle of a match from the revealed seed (it keeps them, so they are never per match)."""
    lang = lang_of(request)
    seats = number(request, "seats", 0)
    try:
        ruleset = Ruleset.parse(request.query.get("ruleset", "").strip() or "?")
        ruleset.check_seats(seats)
    except RulesError as error:
        raise refusal(
            "INVALID_ARGUMENT", lang, translate(error.code, error.params, lang), error.code
        ) from None
    cards = [card.text for card in ruleset.deck_for(seats)]
    return reply(
        {"ruleset": ruleset.text, "seats": seats, "hand_size": ruleset.hand_size, "deck": cards}
    )


# ---------------------------------------------------------------- rooms and the queue


def room_reply(request: web.Request, session: Session, room: matchmaking_pb2.Room) -> web.Response:
    request.app[SEATS].remember(session, room.match_id, room.seat_token)
    return reply(without_seat_token(to_json(room)))


async def room_call(request: web.Request, method: str, message: Any) -> web.Response:
    session = require_session(request)
    call = getattr(request.app[UPSTREAMS].matchmaking, method)
    room = await call(message, metadata=bearer(session.player_token), timeout=timeout_of(request))
    return room_reply(request, session, room)


async def create_room(request: web.Request) -> web.Response:
    data = await body_of(request)
    message = matchmaking_pb2.CreateRoomRequest(
        ruleset=ruleset_of(request, data),
        seats=field(request, data, "seats", int, 4),
        bot_level=cast(Any, level_of(request, field(request, data, "bot_level", str, "heuristic"))),
        turn_seconds=field(request, data, "turn_seconds", int, 0),
    )
    return await room_call(request, "CreateRoom", message)


async def join_room(request: web.Request) -> web.Response:
    code = request.match_info["code"]
    return await room_call(request, "JoinRoom", matchmaking_pb2.RoomRequest(code=code))


async def start_room(request: web.Request) -> web.Response:
    code = request.match_info["code"]
    return await room_call(request, "StartRoom", matchmaking_pb2.RoomRequest(code=code))


async def get_room(request: web.Request) -> web.Response:
    code = request.match_info["code"]
    return await room_call(request, "GetRoom", matchmaking_pb2.RoomRequest(code=code))


def ticket_reply(
    request: web.Request, session: Session, ticket: matchmaking_pb2.Ticket
) -> web.Response:
    request.app[SEATS].remember(session, ticket.match_id, ticket.seat_token)
    return reply(without_seat_token(to_json(ticket)))


async def enqueue(request: web.Request) -> web.Response:
    """Queue for a table of one rule system and size (bots fill it after a while)."""
    session = require_session(request)
    data = await body_of(request)
    seats = field(request, data, "seats", int, 4)
    message = matchmaking_pb2.EnqueueRequest(
        ruleset=ruleset_of(request, data),
        seat_counts=[seats],
        preferred_seats=seats,
        ranked=field(request, data, "ranked", bool, True),
        allow_bots=True,
        bots_after_seconds=field(request, data, "bots_after_seconds", (int, float), 15),
    )
    ticket = await request.app[UPSTREAMS].matchmaking.Enqueue(
        message, metadata=bearer(session.player_token), timeout=timeout_of(request)
    )
    return ticket_reply(request, session, ticket)


async def ticket_call(request: web.Request, method: str) -> web.Response:
    session = require_session(request)
    call = getattr(request.app[UPSTREAMS].matchmaking, method)
    message = matchmaking_pb2.TicketRequest(ticket_id=request.match_info["ticket_id"])
    ticket = await call(message, metadata=bearer(session.player_token), timeout=timeout_of(request))
    return ticket_reply(request, session, ticket)


async def get_ticket(request: web.Request) -> web.Response:
    return await ticket_call(request, "GetTicket")


async def cancel_ticket(request: web.Request) -> web.Response:
    return await ticket_call(request, "CancelTicket")


# ---------------------------------------------------------------- profiles and ladders


async def profile(request: web.Request) -> web.Response:
    player_id = request.match_info.get("player_id") or require_session(request).player_id
    answer = await request.app[UPSTREAMS].rating.GetProfile(
        rating_pb2.GetProfileRequest(player_id=player_id, recent=10), timeout=timeout_of(request)
    )
    return reply(to_json(answer))


def number(request: web.Request, name: str, default: int) -> int:
    text = request.query.get(name, "")
    if not text:
        return default
    if not text.isdigit() or len(text) > 9:
        raise refusal(
            "INVALID_ARGUMENT", lang_of(request), f"'{name}' must be a number (0-999999999)", name
        )
    return int(text)


async def leaderboard(request: web.Request) -> web.Response:
    answer = await request.app[UPSTREAMS].rating.Leaderboard(
        rating_pb2.LeaderboardRequest(
            preset=request.query.get("preset", "classic"),
            season=request.query.get("season", ""),
            offset=number(request, "offset", 0),
            limit=number(request, "limit", 10),
        ),
        timeout=timeout_of(request),
    )
    return reply(to_json(answer))


async def around(request: web.Request) -> web.Response:
    session = require_session(request)
    answer = await request.app[UPSTREAMS].rating.Around(
        rating_pb2.AroundRequest(
            player_id=session.player_id,
            preset=request.query.get("preset", "classic"),
            season=request.query.get("season", ""),
            radius=number(request, "radius", 5),
        ),
        timeout=timeout_of(request),
    )
    return reply(to_json(answer))


# ---------------------------------------------------------------- tournaments


async def list_tournaments(request: web.Request) -> web.Response:
    answer = await request.app[UPSTREAMS].tournaments.ListTournaments(
        tournaments_pb2.ListTournamentsRequest(
            status=request.query.get("status", ""), limit=number(request, "limit", 20)
        ),
        timeout=timeout_of(request),
    )
    return reply({"tournaments": [to_json(t) for t in answer.tournaments]})


async def get_tournament(request: web.Request) -> web.Response:
    """The tournament and its standings (live while it is played, final once it is over)."""
    tournament_id = request.match_info["tournament_id"]
    upstream = request.app[UPSTREAMS].tournaments
    tournament, standings = await asyncio.gather(
        upstream.GetTournament(
            tournaments_pb2.GetTournamentRequest(tournament_id=tournament_id),
            timeout=timeout_of(request),
        ),
        upstream.GetStandings(
            tournaments_pb2.GetStandingsRequest(tournament_id=tournament_id),
            timeout=timeout_of(request),
        ),
    )
    return reply({"tournament": to_json(tournament), "standings": to_json(standings)})


async def register_entrant(request: web.Request) -> web.Response:
    session = require_session(request)
    message = tournaments_pb2.RegisterEntrantRequest(
        tournament_id=request.match_info["tournament_id"]
    )
    tournament = await request.app[UPSTREAMS].tournaments.Register(
        message, metadata=bearer(session.player_token), timeout=timeout_of(request)
    )
    return reply(to_json(tournament))


async def unregister_entrant(request: web.Request) -> web.Response:
    """Withdraw before the start; leave for good after it (the points so far are kept)."""
    session = require_session(request)
    message = tournaments_pb2.UnregisterEntrantRequest(
        tournament_id=request.match_info["tournament_id"]
    )
    tournament = await request.app[UPSTREAMS].tournaments.Unregister(
        message, metadata=bearer(session.player_token), timeout=timeout_of(request)
    )
    return reply(to_json(tournament))


async def tournament_seat(request: web.Request) -> web.Response:
    """The session's seat in the block (or deciding round) being played: the page plays its
    match through the match routes, with the seat token kept here."""
    session = require_session(request)
    seat = await request.app[UPSTREAMS].tournaments.GetSeat(
        tournaments_pb2.GetSeatRequest(tournament_id=request.match_info["tournament_id"]),
        metadata=bearer(session.player_token),
        timeout=timeout_of(request),
    )
    request.app[SEATS].remember(session, seat.match_id, seat.seat_token)
    return reply(without_seat_token(to_json(seat)))


async def championship(request: web.Request) -> web.Response:
    """The championship table of a year (0 or none: this year), ties and deciders included."""
    answer = await request.app[UPSTREAMS].tournaments.GetChampionship(
        tournaments_pb2.GetChampionshipRequest(
            year=number(request, "year", 0), limit=number(request, "limit", 100)
        ),
        timeout=timeout_of(request),
    )
    return reply(to_json(answer))


# ---------------------------------------------------------------- assembly


def create_app(settings: GatewaySettings, secret: bytes) -> web.Application:
    """The gateway as an aiohttp application; its upstream channels open on startup."""
    app = web.Application(middlewares=[guard, limits], client_max_size=settings.max_body_bytes)
    app[SETTINGS] = settings
    app[SECRET] = secret
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
    app.router.add_get("/api/session", get_session)
    app.router.add_post("/api/session", create_session)
    app.router.add_post("/api/play", play_now)
    app.router.add_get("/api/matches", list_matches)
    app.router.add_get("/api/matches/{match_id}", get_match)
    app.router.add_get("/api/matches/{match_id}/view", get_view)
    app.router.add_post("/api/matches/{match_id}/act", act)
    app.router.add_post("/api/matches/{match_id}/tips", tips)
    app.router.add_post("/api/matches/{match_id}/leave", leave)
    app.router.add_get("/api/deck", deck)
    app.router.add_post("/api/rooms", create_room)
    app.router.add_get("/api/rooms/{code}", get_room)
    app.router.add_post("/api/rooms/{code}/join", join_room)
    app.router.add_post("/api/rooms/{code}/start", start_room)
    app.router.add_post("/api/queue", enqueue)
    app.router.add_get("/api/queue/{ticket_id}", get_ticket)
    app.router.add_delete("/api/queue/{ticket_id}", cancel_ticket)
    app.router.add_get("/api/profile", profile)
    app.router.add_get("/api/profile/{player_id}", profile)
    app.router.add_get("/api/leaderboard", leaderboard)
    app.router.add_get("/api/leaderboard/around", around)
    app.router.add_get("/api/tournaments", list_tournaments)
    app.router.add_get("/api/tournaments/{tournament_id}", get_tournament)
    app.router.add_post("/api/tournaments/{tournament_id}/register", register_entrant)
    app.router.add_post("/api/tournaments/{tournament_id}/unregister", unregister_entrant)
    app.router.add_get("/api/tournaments/{tournament_id}/seat", tournament_seat)
    app.router.add_get("/api/championship", championship)
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
