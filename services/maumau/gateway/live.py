"""One WebSocket per tab: the live events of matches, rooms and tickets the page follows.

The page asks with small JSON messages::

    {"op": "follow", "match_id": "...", "after": "<id of the last event it has>"}
    {"op": "follow", "room": "KXWMPQ"}
    {"op": "follow", "ticket_id": "..."}
    {"op": "follow", "challenge_id": "...", "after": "<the challenge's 'after'>"}
    {"op": "unfollow", "topic": "match:..."}

and gets ``{"type": "event", "topic": "match:<id>", "id": ..., "event": {...}}`` for every match
event (as the engine redacts it for this session's seat), ``{"type": "room", ...}`` and
``{"type": "ticket", ...}`` for every change, ``{"type": "challenge", "state": ...}`` when a
challenge the person made ended (``arena_commands``), ``{"type": "end", "topic": ...}`` when a
stream is over and ``{"type": "error", ...}`` for a refusal. After a reconnect the page follows
again from the id of the last event it received: the engine's stream resumes right after it, so
nothing is missed and nothing comes twice. The same holds inside the gateway: a Follow the
engine ends because it fell behind is reopened from the last event forwarded. A refusal past a
limit carries ``retry_after_ms``, how long to wait before following again. Seat tokens never
leave the gateway.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

import grpc
import prometheus_client
from aiohttp import WSMsgType, web

from maumau.gateway import arena_commands
from maumau.gateway.context import (
    REFUSED,
    SEATS,
    SESSION_RATE,
    SETTINGS,
    SOCKET_COUNTS,
    SOCKETS,
    STOPPING,
    UPSTREAMS,
    address_of,
    json_bytes,
    lang_of,
    origin_allowed,
    reply,
    session_of,
    without_seat_token,
)
from maumau.gateway.sessions import Session
from maumau.gateway.upstream import Refusal, bearer, from_rpc, language, refusal, to_json
from maumau.v1 import engine_pb2, matchmaking_pb2

OPEN_SOCKETS = prometheus_client.Gauge("gateway_websockets", "WebSockets open now.")
SOCKETS_LIMIT = prometheus_client.Gauge(
    "gateway_websockets_limit",
    "WebSockets this process accepts at most (MAUMAU_GATEWAY_MAX_SOCKETS).",
)
FRAMES = prometheus_client.Counter(
    "gateway_websocket_frames_total", "Frames sent to pages, by type.", ["type"]
)
RESUMED = prometheus_client.Counter(
    "gateway_follow_resumed_total",
    "Match follows the engine ended ABORTED (they fell behind) that the gateway reopened.",
)
HEARTBEAT_SECONDS = 25.0
RESUMES_WITHOUT_PROGRESS = 3


class Live:
    """One open socket: its session, the streams it follows and one writer at a time."""

    def __init__(self, request: web.Request, ws: web.WebSocketResponse, session: Session) -> None:
        self.app = request.app
        self.ws = ws
        self.session = session
        self.lang = language(request.query.get("lang") or lang_of(request))
        self.follows: dict[str, asyncio.Task[None]] = {}
        self.lock = asyncio.Lock()

    async def send(self, frame: dict[str, Any]) -> None:
        if self.ws.closed:
            return
        async with self.lock:
            with contextlib.suppress(ConnectionError, RuntimeError):
                await self.ws.send_str(json_bytes(frame).decode())
        FRAMES.labels(frame["type"]).inc()

    async def refuse(self, error: Refusal, topic: str = "") -> None:
        await self.send({"type": "error", "topic": topic, **error.body()})

    async def handle(self, text: str) -> None:
        if not self.app[SESSION_RATE].allow(f"player:{self.session.player_id}"):
            REFUSED.labels("session_rate").inc()
            wait = self.app[SESSION_RATE].wait(f"player:{self.session.player_id}")
            await self.refuse(
                refusal(
                    "RESOURCE_EXHAUSTED", self.lang, code="session_rate", retry_after_seconds=wait
                )
            )
            return
        try:
            message = json.loads(text)
        except ValueError:
            message = None
        if not isinstance(message, dict):
            await self.refuse(refusal("INVALID_ARGUMENT", self.lang, "expected JSON", "bad_json"))
            return
        op = message.get("op")
        if op == "unfollow":
            task = self.follows.pop(str(message.get("topic", "")), None)
            if task is not None:
                task.cancel()
            return
        if op != "follow":
            await self.refuse(refusal("INVALID_ARGUMENT", self.lang, f"no op {op!r}", "bad_op"))
            return
        topic, stream = self.stream_for(message)
        if topic is None:
            await self.refuse(refusal("INVALID_ARGUMENT", self.lang, "follow what?", "bad_op"))
            return
        old = self.follows.pop(topic, None)
        if old is not None:
            old.cancel()
        if len(self.follows) >= self.app[SETTINGS].follows_per_socket:
            REFUSED.labels("follows").inc()
            await self.refuse(refusal("RESOURCE_EXHAUSTED", self.lang, code="follows"), topic)
            return
        self.follows[topic] = asyncio.create_task(self.run(topic, stream))

    def stream_for(self, message: dict[str, Any]) -> tuple[str | None, Any]:
        match_id, after = message.get("match_id"), message.get("after", "")
        room, ticket_id = message.get("room"), message.get("ticket_id")
        challenge_id = message.get("challenge_id")
        if isinstance(match_id, str) and match_id and isinstance(after, str):
            return f"match:{match_id}", self.match_events(match_id, after)
        if isinstance(room, str) and room:
            return f"room:{room}", self.room_changes(room)
        if isinstance(ticket_id, str) and ticket_id:
            return f"ticket:{ticket_id}", self.ticket_changes(ticket_id)
        if isinstance(challenge_id, str) and challenge_id and isinstance(after, str):
            frames = arena_commands.progress(self.app, self.session, challenge_id, after, self.lang)
            return f"challenge:{challenge_id}", frames
        return None, None

    async def run(self, topic: str, frames: Any) -> None:
        try:
            async for frame in frames:
                await self.send({"topic": topic, **frame})
            await self.send({"type": "end", "topic": topic})
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.CANCELLED:
                await self.refuse(from_rpc(error, self.lang), topic)
        except Refusal as error:
            await self.refuse(error, topic)
        finally:
            if self.follows.get(topic) is asyncio.current_task():
                del self.follows[topic]

    async def match_events(self, match_id: str, after: str) -> Any:
        """The match's events after ``after``. A Follow the engine ends ABORTED (this reader
        fell too far behind the match) is opened again from the last event forwarded, so the
        page sees no gap and no repeat; one that ends so again before forwarding anything is
        passed on, so a stream that cannot keep up at all is not retried for ever."""
        token, _ = await self.app[SEATS].credential(self.session, match_id)
        resumed_without_progress = 0
        while True:
            call = self.app[UPSTREAMS].engine.Follow(
                engine_pb2.FollowRequest(match_id=match_id, after_event_id=after),
                metadata=bearer(token),
            )
            forwarded = False
            try:
                async for item in call:
                    after, forwarded = item.id, True
                    yield {"type": "event", "id": item.id, "event": to_json(item.event)}
                return
            except grpc.aio.AioRpcError as error:
                if error.code() != grpc.StatusCode.ABORTED:
                    raise
                resumed_without_progress = 0 if forwarded else resumed_without_progress + 1
                if resumed_without_progress > RESUMES_WITHOUT_PROGRESS:
                    raise
                RESUMED.inc()
            finally:
                call.cancel()

    async def room_changes(self, code: str) -> Any:
        call = self.app[UPSTREAMS].matchmaking.FollowRoom(
            matchmaking_pb2.FollowRoomRequest(code=code), metadata=bearer(self.session.player_token)
        )
        try:
            async for message in call:
                room = message.room
                self.app[SEATS].remember(self.session, room.match_id, room.seat_token)
                yield {"type": "room", "room": without_seat_token(to_json(room))}
        finally:
            call.cancel()

    async def ticket_changes(self, ticket_id: str) -> Any:
        call = self.app[UPSTREAMS].matchmaking.FollowTicket(
            matchmaking_pb2.FollowTicketRequest(ticket_id=ticket_id),
            metadata=bearer(self.session.player_token),
        )
        try:
            async for message in call:
                ticket = message.ticket
                self.app[SEATS].remember(self.session, ticket.match_id, ticket.seat_token)
                yield {"type": "ticket", "ticket": without_seat_token(to_json(ticket))}
        finally:
            call.cancel()

    async def close(self) -> None:
        for task in self.follows.values():
            task.cancel()
        await asyncio.gather(*self.follows.values(), return_exceptions=True)
        self.follows.clear()


async def live(request: web.Request) -> web.StreamResponse:
    """Open the tab's WebSocket: same origin (or a configured one), a session, within the caps."""
    lang = lang_of(request)
    origin = request.headers.get("Origin")
    if origin is None or not origin_allowed(request, origin):
        REFUSED.labels("origin").inc()
        raise refusal("PERMISSION_DENIED", lang, "WebSockets only from this site", "origin")
    session = session_of(request)
    if session is None:
        raise refusal("UNAUTHENTICATED", lang, code="no_session")
    if request.app[STOPPING].is_set():
        return reply(refusal("UNAVAILABLE", lang, code="stopping").body(), 503)
    counts = request.app[SOCKET_COUNTS]
    address = address_of(request)
    why = counts.refusal(session.player_id, address)
    if why is not None:
        REFUSED.labels(why).inc()
        status = "UNAVAILABLE" if why == "gateway_full" else "RESOURCE_EXHAUSTED"
        raise refusal(status, lang, code=why)
    settings = request.app[SETTINGS]
    ws = web.WebSocketResponse(heartbeat=HEARTBEAT_SECONDS, max_msg_size=settings.max_body_bytes)
    await ws.prepare(request)
    counts.add(session.player_id, address)
    request.app[SOCKETS].add(ws)
    OPEN_SOCKETS.inc()
    connection = Live(request, ws, session)
    try:
        async for message in ws:
            if message.type == WSMsgType.TEXT:
                await connection.handle(message.data)
            elif message.type == WSMsgType.ERROR:
                break
    finally:
        await connection.close()
        counts.remove(session.player_id, address)
        request.app[SOCKETS].discard(ws)
        OPEN_SOCKETS.dec()
    return ws
