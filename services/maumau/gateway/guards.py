"""The gateway's two middlewares: ``guard`` (security headers, refusals as JSON, metrics) and
``limits`` (rate limits, and for commands: this origin and JSON only).

They wrap every route, so they live apart from the routes themselves.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable

import grpc
import prometheus_client
from aiohttp import web

from maumau.gateway.context import (
    ADDRESS_RATE,
    REFUSED,
    SESSION_RATE,
    address_of,
    lang_of,
    origin_allowed,
    refused_reply,
    reply,
    session_of,
)
from maumau.gateway.pages import WEB_ROOT
from maumau.gateway.upstream import Refusal, from_rpc, refusal

log = logging.getLogger(__name__)

CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; manifest-src 'self'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
SOLO_CONTENT_SECURITY_POLICY = CONTENT_SECURITY_POLICY.replace(
    "script-src 'self'", "script-src 'self' 'wasm-unsafe-eval'"
)
"""The solo worker's policy: Pyodide compiles its WebAssembly there, and only there."""
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=()",
}

REQUESTS = prometheus_client.Counter(
    "gateway_http_requests_total", "HTTP requests answered, by route and status.", ["route", "code"]
)
REQUEST_SECONDS = prometheus_client.Histogram(
    "gateway_http_request_seconds", "Time to answer an HTTP request, by route.", ["route"]
)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def is_lost_page(request: web.Request, error: web.HTTPException) -> bool:
    """A page the browser asked for at a path the web client does not have: it gets the client
    itself with status 404, which shows a page saying so (files and commands keep their 404)."""
    return (
        error.status == 404
        and request.method in ("GET", "HEAD")
        and not request.path.startswith(("/api/", "/static/", "/solo/", "/ws"))
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
        if request.path.startswith("/solo/"):
            response.headers["Content-Security-Policy"] = SOLO_CONTENT_SECURITY_POLICY
        if request.path.startswith("/api/"):
            response.headers["Cache-Control"] = "no-store"
        elif isinstance(response, web.FileResponse) and compressible(request.path):
            response.enable_compression()  # gzip or deflate, as the browser accepts
    REQUESTS.labels(name, str(response.status)).inc()
    REQUEST_SECONDS.labels(name).observe(time.perf_counter() - started)
    return response


COMPRESSED = (".js", ".css", ".html", ".svg", ".json", ".txt")


def compressible(path: str) -> bool:
    """Whether the page's text (its scripts, styles and the page itself) goes compressed: the
    first load is a fifth of its size that way; images are compressed already."""
    name = path.rsplit("/", 1)[-1]
    return "." not in name or name.endswith(COMPRESSED)


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
