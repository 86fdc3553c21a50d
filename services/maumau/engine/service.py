"""The gRPC adapter of the engine: tokens in, rules-core actions through ``Matches``, views out."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from typing import Any

import grpc
import prometheus_client

from maumau import fairness, wire
from maumau.common import tokens
from maumau.common.errors import ServiceError
from maumau.common.players import PlayerDirectory
from maumau.common.tokens import bearer
from maumau.engine.matches import Change, Matches, info, seat_info
from maumau.engine.store import MatchRecord, Stored
from maumau.rules import Match
from maumau.v1 import engine_pb2, engine_pb2_grpc, game_pb2
from maumau.wire import BOT_LEVELS

Context = grpc.aio.ServicerContext[Any, Any]

FOLLOWERS = prometheus_client.Gauge(
    "engine_event_stream_followers", "Follow streams open on this replica."
)


def permission_denied(message: str) -> ServiceError:
    return ServiceError(grpc.StatusCode.PERMISSION_DENIED, message)


def invalid(message: str) -> ServiceError:
    return ServiceError(grpc.StatusCode.INVALID_ARGUMENT, message)


def precondition(message: str) -> ServiceError:
    return ServiceError(grpc.StatusCode.FAILED_PRECONDITION, message)


FOLLOW_BLOCK_MS = 2000
"""How long one read of a match's stream waits: well under the Redis client's socket timeout."""


class EngineService(engine_pb2_grpc.EngineServicer):
    def __init__(self, matches: Matches, secret: bytes, players: PlayerDirectory) -> None:
        self.matches = matches
        self.secret = secret
        self.players = players

    # ---------------------------------------------------------------- tokens

    def _seat(self, context: Context) -> tokens.SeatClaims:
        return tokens.verify_seat_token(self.secret, bearer(context))

    def _player(self, context: Context) -> tokens.PlayerClaims:
        return tokens.verify_player_token(self.secret, bearer(context))

    def _caller(self, context: Context) -> tokens.PlayerClaims | tokens.ServiceClaims:
        token = bearer(context)
        try:
            return tokens.verify_player_token(self.secret, token)
        except tokens.TokenError as refused:
            try:
                return tokens.verify_service_token(self.secret, token)
            except tokens.TokenError:
                raise refused from None  # a player token is what a person is asked for

    def _seat_token(self, match_id: str, seat: int, player_id: str) -> str:
        return tokens.issue_seat_token(self.secret, match_id, seat, player_id)

    # ---------------------------------------------------------------- lobby

    async def CreateMatch(
        self, request: engine_pb2.CreateMatchRequest, context: Context
    ) -> engine_pb2.CreateMatchResponse:
        caller = self._caller(context)
        ruleset = wire.ruleset_from_pb(request.ruleset)
        ruleset.check_seats(request.seats)
        bots = [""] * request.seats
        for seat, level in request.bots.items():
            if not 0 <= seat < request.seats:
                raise invalid(f"bot seat {seat} is not a seat of this {request.seats}-seat table")
            try:
                bots[seat] = wire.bot_level_from_pb(level)
            except ValueError as error:
                raise invalid(str(error)) from None
            if not bots[seat]:
                levels = ", ".join(BOT_LEVELS)
                raise invalid(f"bot seat {seat} names no level: choose one of {levels}")
        if not 0 <= request.turn_seconds <= 3600:
            raise invalid("turn_seconds must be from 0 (no timer) to 3600")
        if request.max_timeouts < 0:
            raise invalid("max_timeouts must not be negative")
        if request.server_seed and not isinstance(caller, tokens.ServiceClaims):
            # Whoever knows the server seed reads every hand once the nonces are published.
            raise permission_denied(
                "only a platform service may choose the server seed; leave it empty"
            )
        server_seed = request.server_seed or fairness.new_server_seed()
        record = MatchRecord(
            match_id=tokens.new_id(),
            ruleset=ruleset.text,
            seats=request.seats,
            ranked=request.ranked,
            turn_seconds=request.turn_seconds,
            max_timeouts=request.max_timeouts or self.matches.settings.default_max_timeouts,
            auto_start=request.auto_start,
            seed_commitment=fairness.commitment(server_seed),
            server_seed=server_seed,
            players=[""] * request.seats,
            names=[f"{level} bot" if level else "" for level in bots],
            bots=bots,
            nonces=[""] * request.seats,
            left=[False] * request.seats,
            timeouts=[0] * request.seats,
            created_at=time.time(),
        )
        if isinstance(caller, tokens.PlayerClaims):
            free = record.free_seats()
            if not free:
                raise invalid("every seat is a bot seat: leave one for yourself")
            placements = [(free[0], caller.player_id, request.nonce)]
        else:
            placements = [(p.seat, p.player_id, "") for p in request.players]
        events = []
        for seat, player_id, nonce in placements:
            if not 0 <= seat < record.seats or record.players[seat] or record.bots[seat]:
                raise invalid(f"seat {seat} cannot take a player")
            await self._seat_player(record, seat, player_id, nonce)
            events.append(self._joined(record, seat))
        await self.matches.create(record, events)
        for _, player_id, _ in placements:
            await self.matches.store.index_player(player_id, record.match_id, record.created_at)
        version = 1
        if record.auto_start and not record.free_seats():
            await self.matches.update(record.match_id, self.matches.start_change)
            started = await self.matches.load(record.match_id)
            record, version = started.record, started.version
        return engine_pb2.CreateMatchResponse(
            match=info(record, version),
            seat_tokens={
                seat: self._seat_token(record.match_id, seat, player_id)
                for seat, player_id, _ in placements
            },
        )

    async def _seat_player(
        self, record: MatchRecord, seat: int, player_id: str, nonce: str
    ) -> None:
        if len(nonce) > 256:
            raise invalid("a nonce is at most 256 characters")
        record.players[seat] = player_id
        record.names[seat] = await self.players.name(player_id)
        record.nonces[seat] = nonce

    def _joined(self, record: MatchRecord, seat: int) -> game_pb2.Event:
        return game_pb2.Event(
            seat_joined=game_pb2.SeatJoined(
                seat=seat,
                player_id=record.players[seat],
                name=record.names[seat],
                nonce=record.nonces[seat],
            )
        )

    async def JoinMatch(
        self, request: engine_pb2.JoinMatchRequest, context: Context
    ) -> engine_pb2.JoinMatchResponse:
        player = self._player(context)
        name = await self.players.name(player.player_id)

        def join(stored: Stored) -> Change | None:
            record = stored.record
            if player.player_id in record.players:
                if record.left[record.players.index(player.player_id)]:
                    raise precondition("you left this match for good; a bot plays your seat")
                return None  # already seated: a fresh seat token below
            if record.status != "lobby":
                raise precondition("the match has started; only its players can rejoin")
            if request.seat >= record.seats:
                raise invalid(f"there is no seat {request.seat} at this table of {record.seats}")
            free = record.free_seats()
            seat = request.seat if request.seat >= 0 else (free[:1] or [-1])[0]
            if seat not in free:
                raise precondition(f"seat {seat} is not free" if seat >= 0 else "the match is full")
            if len(request.nonce) > 256:
                raise invalid("a nonce is at most 256 characters")
            record.players[seat], record.names[seat] = player.player_id, name
            record.nonces[seat] = request.nonce
            return Change(record, stored.state, [self._joined(record, seat)])

        stored, change, _ = await self.matches.update(request.match_id, join)
        record = change.record if change else stored.record
        version = stored.version + (1 if change else 0)
        seat = record.players.index(player.player_id)
        if change:  # a rejoin keeps the match's place in the player's list
            await self.matches.store.index_player(player.player_id, record.match_id, time.time())
        if record.auto_start and record.status == "lobby" and not record.free_seats():
            with contextlib.suppress(ServiceError):  # another replica started it just now
                await self.matches.update(request.match_id, self.matches.start_change)
            started = await self.matches.load(request.match_id)
            record, version = started.record, started.version
        return engine_pb2.JoinMatchResponse(
            match=info(record, version),
            seat=seat,
            seat_token=self._seat_token(record.match_id, seat, player.player_id),
        )

    async def StartMatch(
        self, request: engine_pb2.StartMatchRequest, context: Context
    ) -> engine_pb2.MatchInfo:
        caller = self._caller(context)
        stored = await self.matches.load(request.match_id)
        if (
            isinstance(caller, tokens.PlayerClaims)
            and caller.player_id not in stored.record.players
        ):
            raise permission_denied("only a player seated at this match may start it")
        await self.matches.update(request.match_id, self.matches.start_change)
        stored = await self.matches.load(request.match_id)
        return info(stored.record, stored.version)

    # ---------------------------------------------------------------- play

    async def Act(self, request: engine_pb2.ActRequest, context: Context) -> engine_pb2.ActResponse:
        claims = self._seat(context)
        if not request.request_id or len(request.request_id) > 128:
            raise invalid("request_id is required (1-128 characters, unique per action)")
        action = wire.action_from_pb(request.action)
        request_key = f"{claims.seat}:{request.request_id}"

        def act(stored: Stored) -> Change:
            self._check_seat(stored.record, claims)
            if stored.record.bots[claims.seat]:  # handed to a bot after timeouts: it comes back
                stored.record.bots[claims.seat], stored.record.timeouts[claims.seat] = "", 0
            change, match, events = self.matches.move(stored, claims.seat, action)
            answer = engine_pb2.ActResponse(
                version=stored.version + 1,
                events=[wire.redact_pb(e, claims.seat) for e in events],
                view=wire.view_to_pb(match.view(claims.seat), claims.match_id, stored.version + 1),
            )
            answer.view.seats.extend(seat_info(change.record))
            change.answer = answer.SerializeToString()
            return change

        _, change, earlier = await self.matches.update(claims.match_id, act, request_key)
        if earlier:
            return engine_pb2.ActResponse.FromString(earlier)
        assert change is not None
        return engine_pb2.ActResponse.FromString(change.answer)

    def _check_seat(self, record: MatchRecord, claims: tokens.SeatClaims) -> None:
        if not 0 <= claims.seat < record.seats or record.players[claims.seat] != claims.player_id:
            raise permission_denied("this seat token is not for a seat of this match")
        if record.left[claims.seat]:
            raise permission_denied("you left this match; a bot plays your seat now")

    async def GetView(self, request: engine_pb2.GetViewRequest, context: Context) -> game_pb2.View:
        viewer, match_id, _ = await self._viewer(context, request.match_id)
        stored = await self.matches.load(match_id)
        if stored.record.status == "lobby":
            raise precondition("the match has not started yet: no cards are dealt")
        match = Match.from_bytes(stored.state)
        view = wire.view_to_pb(match.view(viewer), match_id, stored.version)
        view.seats.extend(seat_info(stored.record))
        return view

    async def _viewer(self, context: Context, match_id: str) -> tuple[int | None, str, str]:
        """The seat a token may see (None: a spectator), the match it is for and the player."""
        token = bearer(context)
        try:
            claims = tokens.verify_seat_token(self.secret, token)
        except tokens.TokenError:
            player = tokens.verify_player_token(self.secret, token)
            if not match_id:
                raise invalid("match_id is required to spectate") from None
            return None, match_id, player.player_id
        if match_id and match_id != claims.match_id:
            raise permission_denied("this seat token is for another match")
        stored = await self.matches.load(claims.match_id)
        self._check_seat(stored.record, claims)
        return claims.seat, claims.match_id, claims.player_id

    async def Follow(
        self, request: engine_pb2.FollowRequest, context: Context
    ) -> AsyncIterator[engine_pb2.MatchEvent]:
        seat, match_id, player_id = await self._viewer(context, request.match_id)
        viewer = seat  # whose drawn cards this stream shows: the seat while the player holds it
        # A finished match has all its events written: read them without waiting, then end.
        over = (await self.matches.load(match_id)).record.status == "over"
        position = request.after_event_id or "0"
        if position != "0" and not _is_stream_id(position):
            raise invalid(f"after_event_id {position!r} is not an event id")
        FOLLOWERS.inc()
        try:
            while True:
                entries = await self.matches.store.read_events(
                    match_id, position, block_ms=None if over else FOLLOW_BLOCK_MS
                )
                for entry_id, data in entries:
                    event = game_pb2.Event.FromString(data)
                    position = entry_id
                    yield engine_pb2.MatchEvent(id=entry_id, event=wire.redact_pb(event, viewer))
                    kind = event.WhichOneof("kind")
                    if kind == "seed_revealed":
                        return
                    if kind == "left" and event.left.seat == seat:
                        viewer = None  # a bot, or in the lobby another player, holds it now
                    elif kind == "seat_joined" and event.seat_joined.seat == seat:
                        viewer = seat if event.seat_joined.player_id == player_id else None
                if entries:
                    continue
                if over:
                    return  # e.g. resumed after the last event of a finished match
                stored = await self.matches.store.load(match_id)
                if stored is None:
                    return
                # The final events are committed with the status: read once more, then end.
                over = stored.record.status == "over"
        except asyncio.CancelledError:
            raise
        finally:
            FOLLOWERS.dec()

    async def Leave(
        self, request: engine_pb2.LeaveRequest, context: Context
    ) -> engine_pb2.MatchInfo:
        claims = self._seat(context)

        def leave(stored: Stored) -> Change:
            record = stored.record
            self._check_seat(record, claims)
            seat = claims.seat
            if record.status == "lobby":
                record.players[seat], record.names[seat], record.nonces[seat] = "", "", ""
                return Change(
                    record, stored.state, [game_pb2.Event(left=game_pb2.SeatOnly(seat=seat))]
                )
            if record.status == "over":
                raise precondition("the match is over")
            record.left[seat], record.bots[seat] = True, "random"
            events = [
                game_pb2.Event(left=game_pb2.SeatOnly(seat=seat)),
                game_pb2.Event(handed_to_bot=game_pb2.SeatOnly(seat=seat)),
            ]
            return Change(record, stored.state, events)

        await self.matches.update(claims.match_id, leave)
        stored = await self.matches.load(claims.match_id)
        return info(stored.record, stored.version)

    async def GetMatch(
        self, request: engine_pb2.GetMatchRequest, context: Context
    ) -> engine_pb2.MatchInfo:
        _, match_id, _ = await self._viewer(context, request.match_id)
        stored = await self.matches.load(match_id)
        return self._info_with_outcome(stored)

    def _info_with_outcome(self, stored: Stored) -> engine_pb2.MatchInfo:
        outcome = None
        if stored.record.status == "over":
            result = Match.from_bytes(stored.state).outcome
            if result is not None:
                outcome = game_pb2.Outcome(winners=result.winners, reason=result.reason)
        return info(stored.record, stored.version, outcome)

    async def ListMatches(
        self, request: engine_pb2.ListMatchesRequest, context: Context
    ) -> engine_pb2.ListMatchesResponse:
        player = self._player(context)
        limit = request.limit or 20
        if not 1 <= limit <= 100:
            raise invalid("limit must be from 1 to 100")
        found = []
        for match_id in await self.matches.store.player_matches(player.player_id, limit):
            stored = await self.matches.store.load(match_id)
            if stored is not None:
                found.append(self._info_with_outcome(stored))
        return engine_pb2.ListMatchesResponse(matches=found)


def _is_stream_id(text: str) -> bool:
    millis, _, sequence = text.partition("-")
    return millis.isdigit() and (not sequence or sequence.isdigit())
