"""The commands of a match: play now against computers, the match and the seat's view, an
action, tips, leaving, the session's matches, and the deck the page's fair-deal check replays.

Calls on one match go through ``engine_call``, which sends the seat token the gateway keeps for
the session (or the player token for a watcher) and forgets a seat the engine no longer accepts.
"""

from __future__ import annotations

from typing import Any

import grpc
from aiohttp import web

from maumau.gateway.context import SEATS, UPSTREAMS, lang_of, reply
from maumau.gateway.inputs import body_of, field, number, require_session, ruleset_of, timeout_of
from maumau.gateway.sessions import Session
from maumau.gateway.upstream import bearer, refusal, to_json
from maumau.rules import Ruleset
from maumau.rules.errors import RulesError, translate
from maumau.v1 import bots_pb2, engine_pb2, game_pb2
from maumau.wire import bot_level_to_pb

LEVELS = ("random", "heuristic", "strong")


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
    _, answer = await engine_call(
        request, "GetMatch", engine_pb2.GetMatchRequest(match_id=match_id)
    )
    return reply(to_json(answer.match))


async def get_view(request: web.Request) -> web.Response:
    match_id = request.match_info["match_id"]
    _, answer = await engine_call(request, "GetView", engine_pb2.GetViewRequest(match_id=match_id))
    return reply(to_json(answer.view))


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
    session, answer = await engine_call(request, "GetView", message, seat_only=True)
    view = answer.view
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
    session, answer = await engine_call(request, "Leave", message, seat_only=True)
    request.app[SEATS].forget(session, match_id)
    return reply(to_json(answer.match))


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
