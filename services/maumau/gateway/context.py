"""What the gateway's HTTP side (``app``) and its WebSockets (``live``) share: the application's
keys, the guards' refusal counter and the helpers that read a request or answer it.

Both import this module and neither imports the other's internals: ``app`` assembles the
application, ``live`` is one of its routes.
"""

from __future__ import annotations

import asyncio
from typing import Any
from weakref import WeakSet

import orjson
import prometheus_client
from aiohttp import web

from maumau.gateway.limits import RateLimiter, SocketCounts
from maumau.gateway.sessions import COOKIE, SeatTokens, Session, session_from_cookie
from maumau.gateway.settings import GatewaySettings
from maumau.gateway.upstream import Refusal, Upstreams, language

SETTINGS = web.AppKey("settings", GatewaySettings)
UPSTREAMS = web.AppKey("upstreams", Upstreams)
SEATS = web.AppKey("seats", SeatTokens)
SECRET = web.AppKey("secret", bytes)
RELAY_TOKEN = web.AppKey("relay_token", str)
"""The gateway's service token, shown to services that trust its word on a browser's address."""
SESSION_RATE = web.AppKey("session_rate", RateLimiter)
ADDRESS_RATE = web.AppKey("address_rate", RateLimiter)
SOCKET_COUNTS = web.AppKey("socket_counts", SocketCounts)
SOCKETS = web.AppKey("sockets", WeakSet[web.WebSocketResponse])
STOPPING = web.AppKey("stopping", asyncio.Event)
SESSION: web.RequestKey[Session | None] = web.RequestKey("session")
"""The session of a request's cookie, once it was read (the guards and the command both ask)."""

REFUSED = prometheus_client.Counter(
    "gateway_refused_total", "Requests refused by the gateway's guards, by reason.", ["reason"]
)


def lang_of(request: web.Request) -> str:
    """The page's language: its own header, else the browser's Accept-Language."""
    return language(request.headers.get("X-Maumau-Lang") or request.headers.get("Accept-Language"))


def address_of(request: web.Request) -> str:
    """The client's address: the peer's, or behind trusted proxies the one they recorded."""
    hops = request.app[SETTINGS].forwarded_hops
    if hops:
        chain = [p.strip() for p in request.headers.get("X-Forwarded-For", "").split(",")]
        chain = [p for p in chain if p]
        if len(chain) >= hops:
            return chain[-hops]
    return request.remote or "unknown"


def session_of(request: web.Request) -> Session | None:
    if SESSION not in request:
        request[SESSION] = session_from_cookie(request.app[SECRET], request.cookies.get(COOKIE))
    return request[SESSION]


def origin_allowed(request: web.Request, origin: str) -> bool:
    """The page's own origin (as the Host header names it) or one configured."""
    own = f"{request.scheme}://{request.host}"
    forwarded = request.headers.get("X-Forwarded-Proto")
    candidates = {own, f"{forwarded}://{request.host}"} if forwarded else {own}
    origin = origin.rstrip("/")
    return origin in candidates or origin in request.app[SETTINGS].allowed_origins


def reply(message: Any, status: int = 200) -> web.Response:
    """JSON in UTF-8, by orjson: several times faster than ``json`` at a view."""
    return web.Response(
        body=json_bytes(message), status=status, content_type="application/json", charset="utf-8"
    )


def json_bytes(message: Any) -> bytes:
    """A reply's or a WebSocket frame's JSON; keys that are numbers are written as strings, as
    ``json`` does."""
    return orjson.dumps(message, option=orjson.OPT_NON_STR_KEYS)


def refused_reply(refused: Refusal) -> web.Response:
    """A refusal as JSON; one past a limit says in ``Retry-After`` when to try again."""
    response = reply(refused.body(), refused.http_status)
    response.headers.update(refused.retry_after_header)
    return response


def without_seat_token(message: dict[str, Any]) -> dict[str, Any]:
    """A room or ticket for the page: the seat token stays in the gateway."""
    message.pop("seat_token", None)
    return message
