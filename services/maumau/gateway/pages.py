"""The web client's files and the paths that serve its page: one module, so that the guard's
answer to a lost page and the application's routes read the same place."""

from __future__ import annotations

from pathlib import Path

from aiohttp import web

_PACKAGED_WEB = Path(__file__).resolve().parent / "web"
WEB_ROOT = (
    _PACKAGED_WEB
    if _PACKAGED_WEB.is_dir()
    else Path(__file__).resolve().parents[3] / "clients" / "web"
)
"""The web client's files, served as they are (plain ES modules and CSS, no build step): inside
an installed wheel (copied there at build time), else the source tree's."""

PAGES = (
    "/",
    "/room/{code}",
    "/play",
    "/solo",
    "/rooms",
    "/queue",
    "/profile",
    "/leaderboard",
    "/bots",
    "/learn",
    "/tournaments",
    "/tournament/{tournament_id}",
    "/sign-up",
    "/sign-in",
    "/account",
    "/auth/callback",
)


async def page(request: web.Request) -> web.StreamResponse:
    response = web.FileResponse(WEB_ROOT / "index.html")
    response.headers["Cache-Control"] = "no-cache"
    return response
