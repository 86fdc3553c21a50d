"""The commands of rooms and the queue: create, join, start and read a room; queue for a table,
read or cancel the ticket.

The matchmaker's answers carry the seat token of the match they lead to: it is kept here for
the session and taken out of the JSON, so it never reaches the page.
"""

from __future__ import annotations

from typing import Any, cast

from aiohttp import web

from maumau.gateway.context import SEATS, UPSTREAMS, reply, without_seat_token
from maumau.gateway.inputs import body_of, field, level_of, require_session, ruleset_of, timeout_of
from maumau.gateway.sessions import Session
from maumau.gateway.upstream import bearer, to_json
from maumau.v1 import matchmaking_pb2


def room_reply(request: web.Request, session: Session, room: matchmaking_pb2.Room) -> web.Response:
    request.app[SEATS].remember(session, room.match_id, room.seat_token)
    return reply(without_seat_token(to_json(room)))


async def room_call(request: web.Request, method: str, message: Any) -> web.Response:
    session = require_session(request)
    call = getattr(request.app[UPSTREAMS].matchmaking, method)
    answer = await call(message, metadata=bearer(session.player_token), timeout=timeout_of(request))
    return room_reply(request, session, answer.room)


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
    return await room_call(request, "JoinRoom", matchmaking_pb2.JoinRoomRequest(code=code))


async def start_room(request: web.Request) -> web.Response:
    code = request.match_info["code"]
    return await room_call(request, "StartRoom", matchmaking_pb2.StartRoomRequest(code=code))


async def get_room(request: web.Request) -> web.Response:
    code = request.match_info["code"]
    return await room_call(request, "GetRoom", matchmaking_pb2.GetRoomRequest(code=code))


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
    answer = await request.app[UPSTREAMS].matchmaking.Enqueue(
        message, metadata=bearer(session.player_token), timeout=timeout_of(request)
    )
    return ticket_reply(request, session, answer.ticket)


async def ticket_call(request: web.Request, method: str) -> web.Response:
    session = require_session(request)
    call = getattr(request.app[UPSTREAMS].matchmaking, method)
    # GetTicketRequest or CancelTicketRequest: the same one field.
    message = getattr(matchmaking_pb2, f"{method}Request")(
        ticket_id=request.match_info["ticket_id"]
    )
    answer = await call(message, metadata=bearer(session.player_token), timeout=timeout_of(request))
    return ticket_reply(request, session, answer.ticket)


async def get_ticket(request: web.Request) -> web.Response:
    return await ticket_call(request, "GetTicket")


async def cancel_ticket(request: web.Request) -> web.Response:
    return await ticket_call(request, "CancelTicket")
