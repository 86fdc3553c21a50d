"""The gRPC adapter of the engine: tokens in, rules-core actions through ``Matches``, views out."""

from __future__ import annotations

import base64
import hmac
import re
import time
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

import grpc

from maumau import fairness, wire
from maumau.common import tokens
from maumau.common.errors import ServiceError, denied, invalid, precondition, status_for
from maumau.common.players import PlayerDirectory
from maumau.common.quotas import Quotas
from maumau.common.tokens import bearer
from maumau.engine import lobby
from maumau.engine.codec import stream_position
from maumau.engine.follow import FellBehind, FollowHub, OpenStreams
from maumau.engine.matches import Change, Matches, Updated, dealt, info, seat_info, seated
from maumau.engine.record import MatchRecord, Status, Stored
from maumau.rules import Match
from maumau.v1 import engine_pb2, engine_pb2_grpc, game_pb2

Context = grpc.aio.ServicerContext[Any, Any]

MAX_REQUEST_ID = 128
MAX_CREATE_BATCH = 64
"""Matches one CreateMatches call may create: a matchmaker's chunk of tables."""
RANKED_BY = "matchmaking"
"""The one service whose token may create ranked matches in batches (CreateMatches)."""
RANKERS = frozenset({RANKED_BY, "arena"})
"""The services whose tokens may create a ranked match: the matchmaker, and the arena for a
rated challenge all its players accepted."""

CALLERS = (tokens.TokenKind.PLAYER, tokens.TokenKind.SERVICE)
"""Who may create and start matches: a player, or a platform service (matchmaking, ...)."""
VIEWERS = (tokens.TokenKind.SEAT, tokens.TokenKind.PLAYER)
"""Who may see a match: its seats, or any player as a spectator."""

SEAT_MATCH_GONE = "seat token expired: its match is over and no longer kept; join a new match"


class EngineService(engine_pb2_grpc.EngineServiceServicer):
    def __init__(
        self,
        matches: Matches,
        secret: bytes,
        players: PlayerDirectory,
        hub: FollowHub,
        streams: OpenStreams,
        quotas: Quotas,
    ) -> None:
        self.quotas = quotas
        self.matches = matches
        self.secret = secret
        self.players = players
        self.hub = hub
        self.streams = streams

    # ---------------------------------------------------------------- tokens

    def _seat(self, context: Context) -> tokens.SeatClaims:
        return tokens.verify_seat_token(self.secret, bearer(context))

    async def _player(
        self, context: Context, needs: tokens.Scope = tokens.Scope.PLAY
    ) -> tokens.PlayerClaims:
        claims = tokens.verify_player_token(self.secret, bearer(context), needs=needs)
        return await self._checked(claims)

    async def _checked(self, claims: tokens.PlayerClaims) -> tokens.PlayerClaims:
        return await self.players.check_token(claims)

    async def _caller(self, context: Context) -> tokens.PlayerClaims | tokens.ServiceClaims:
        claims = tokens.verify_token(self.secret, bearer(context), *CALLERS)
        if isinstance(claims, tokens.PlayerClaims):
            return await self._checked(claims)
        assert isinstance(claims, tokens.ServiceClaims)
        return claims

    async def _seat_match(self, claims: tokens.SeatClaims) -> Stored:
        """The match a seat token names; once the match is gone, its seat tokens are expired."""
        stored = await self.matches.store.load(claims.match_id)
        if stored is None:
            raise tokens.TokenError(SEAT_MATCH_GONE)
        return stored

    async def _seat_update(
        self,
        claims: tokens.SeatClaims,
        change: Callable[[Stored], Change],
        request_id: str | None = None,
    ) -> Updated:
        """``Matches.update`` of the seat token's match, which expires the token once gone."""
        request = None if request_id is None else (claims.seat, request_id)
        try:
            return await self.matches.update(claims.match_id, change, request)
        except ServiceError as error:
            if error.status == grpc.StatusCode.NOT_FOUND:
                raise tokens.TokenError(SEAT_MATCH_GONE) from None
            raise

    def _creation_id(
        self, caller: tokens.PlayerClaims | tokens.ServiceClaims, request_id: str
    ) -> str:
        """A new match id; for a request id, the same id for the same caller every time, so a
        retried creation finds its match instead of making a second one."""
        if not request_id:
            return tokens.new_id()
        if len(request_id) > MAX_REQUEST_ID:
            raise invalid(f"request_id has at most {MAX_REQUEST_ID} characters")
        if isinstance(caller, tokens.ServiceClaims):
            who = f"service:{caller.service}"
        else:
            who = f"player:{caller.player_id}"
        digest = hmac.digest(self.secret, f"create-match\0{who}\0{request_id}".encode(), "sha256")
        return base64.urlsafe_b64encode(digest[:16]).rstrip(b"=").decode()

    async def _index(self, entries: list[tuple[str, str]], now: float) -> None:
        """Put each (player id, match id) at the top of the player's list of matches."""
        settings = self.matches.settings
        await self.matches.store.index_players(
            entries, now, settings.player_history, settings.retention_seconds
        )

    @staticmethod
    def _bot_level(seat: int, level: int) -> str:
        try:
            return wire.bot_level_from_pb(level)
        except ValueError as error:
            raise invalid(str(error)) from None

    def _seat_token(self, match_id: str, seat: int, player_id: str) -> str:
        return tokens.issue_seat_token(self.secret, match_id, seat, player_id)

    # ---------------------------------------------------------------- lobby

    async def CreateMatch(
        self, request: engine_pb2.CreateMatchRequest, context: Context
    ) -> engine_pb2.CreateMatchResponse:
        caller = await self._caller(context)
        change, placements = await self._new_match(caller, request)
        if isinstance(caller, tokens.PlayerClaims):
            # Counted once the request is known to be good, so a refused one costs nothing.
            await self.quotas.spend(context, caller.player_id, "CreateMatch")
        try:
            stored = await self.matches.create(change)
        except ServiceError as exists:
            if not request.request_id or exists.status != grpc.StatusCode.ALREADY_EXISTS:
                raise
            stored = await self.matches.load(change.record.match_id)  # a retry: as the first time
            await self.matches.settle_replayed(stored)
        # Indexed after the match is stored (again on a retry, in case the first call died here).
        await self._index(
            [(player_id, stored.record.match_id) for player_id in placements],
            change.record.created_at,
        )
        return self._created(stored, placements)

    async def CreateMatches(
        self, request: engine_pb2.CreateMatchesRequest, context: Context
    ) -> engine_pb2.CreateMatchesResponse:
        caller = await self._caller(context)
        if not (isinstance(caller, tokens.ServiceClaims) and caller.service == RANKED_BY):
            raise denied(
                "CreateMatches is the matchmaker's (its service token); create one match with "
                "CreateMatch"
            )
        if not 1 <= len(request.matches) <= MAX_CREATE_BATCH:
            raise invalid(
                f"CreateMatches takes 1 to {MAX_CREATE_BATCH} matches, not "
                f"{len(request.matches)}: send more in further calls"
            )
        seated_ids = list({p.player_id: None for one in request.matches for p in one.players})
        names = dict(zip(seated_ids, await self.players.names(seated_ids), strict=True))
        prepared = []
        for n, one in enumerate(request.matches):  # every request checked before any write
            if not one.request_id:
                raise invalid(
                    f"matches[{n}] has no request_id: each match of CreateMatches needs its own, "
                    "so a retried call creates no match twice"
                )
            try:
                prepared.append(await self._new_match(caller, one, names))
            except Exception as error:
                status = status_for(error)
                if status in (None, grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.INTERNAL):
                    raise
                raise ServiceError(status, f"matches[{n}]: {error}") from None
        ids = [change.record.match_id for change, _ in prepared]
        if len(set(ids)) < len(ids):
            raise invalid("two matches of CreateMatches share a request_id")
        created = await self.matches.create_many([change for change, _ in prepared])
        stored_all = []
        for stored, match_id in zip(created, ids, strict=True):
            if stored is None:  # a retry: as the first time
                stored = await self.matches.load(match_id)
                await self.matches.settle_replayed(stored)
            stored_all.append(stored)
        await self._index(
            [
                (player, match_id)
                for (_, seated_ids), match_id in zip(prepared, ids, strict=True)
                for player in seated_ids
            ],
            time.time(),
        )
        return engine_pb2.CreateMatchesResponse(
            matches=[
                self._created(stored, seated_ids)
                for stored, (_, seated_ids) in zip(stored_all, prepared, strict=True)
            ]
        )

    async def _new_match(
        self,
        caller: tokens.PlayerClaims | tokens.ServiceClaims,
        request: engine_pb2.CreateMatchRequest,
        names: Mapping[str, str] | None = None,
    ) -> tuple[Change, list[str]]:
        """The new match a CreateMatch request asks for (checked, not stored), and the ids of
        the players it seats; ``names``: their display names when read already."""
        # The fields only a service token may set (engine.proto), each refused by its name.
        platform = isinstance(caller, tokens.ServiceClaims)
        if request.server_seed and not platform:
            # Whoever knows the server seed reads every hand once the nonces are published.
            raise denied(
                "server_seed: only a platform service may choose the server seed; leave it empty"
            )
        if request.ranked and not (
            isinstance(caller, tokens.ServiceClaims) and caller.service in RANKERS
        ):
            # The ladder counts only what the matchmaker arranged: opponents a player did not
            # choose, bots at the level of the table's rating.
            raise denied(
                "ranked: ranked matches are made by the matchmaker only: queue with "
                "MatchmakingService.Enqueue(ranked=true) (or create a casual match: ranked=false)"
            )
        if request.players and not platform:
            raise denied(
                "players: only a platform service seats players as it creates a match; leave "
                "it empty: you take a seat yourself, and the others join with JoinMatch"
            )
        table = lobby.Table(
            ruleset=wire.ruleset_from_pb(request.ruleset),
            seats=request.seats,
            bots={seat: self._bot_level(seat, level) for seat, level in request.bots.items()},
            ranked=request.ranked,
            turn_seconds=request.turn_seconds,
            max_timeouts=request.max_timeouts,
            auto_start=request.auto_start,
        )
        now = time.time()
        record = lobby.new_match(
            self._creation_id(caller, request.request_id),
            table,
            request.server_seed or fairness.new_server_seed(),
            now,
            self.matches.settings.default_max_timeouts,
            self.matches.settings.default_turn_seconds,
        )
        if isinstance(caller, tokens.PlayerClaims):
            placements = [(lobby.first_free_seat(record), caller.player_id, request.nonce)]
        else:
            placements = [(p.seat, p.player_id, "") for p in request.players]
        ids = [player_id for _, player_id, _ in placements]
        found = [names[i] for i in ids] if names is not None else await self.players.names(ids)
        events = [
            lobby.sit(record, seat, player_id, name, nonce)
            for (seat, player_id, nonce), name in zip(placements, found, strict=True)
        ]
        return seated(record, b"", events, now), [player_id for _, player_id, _ in placements]

    def _created(self, stored: Stored, seated_ids: list[str]) -> engine_pb2.CreateMatchResponse:
        """What a creation answers: the match, and the seat tokens of the players it seated,
        issued as of the match's creation, so a retry answers with the very same tokens."""
        record = stored.record
        return engine_pb2.CreateMatchResponse(
            match=info(record, stored.version),
            seat_tokens={
                seat: tokens.issue_seat_token(
                    self.secret, record.match_id, seat, player_id, now=record.created_at
                )
                for seat, player_id in enumerate(record.players)
                if player_id in set(seated_ids)
            },
        )

    async def JoinMatch(
        self, request: engine_pb2.JoinMatchRequest, context: Context
    ) -> engine_pb2.JoinMatchResponse:
        player = await self._player(context)
        wanted = lobby.requested_seat(request)
        name = await self.players.name(player.player_id)
        now = time.time()

        def join(stored: Stored) -> Change | None:
            record = stored.record
            joined = lobby.join(record, player.player_id, name, wanted, request.nonce)
            return None if joined is None else seated(record, stored.state, [joined], now)

        updated = await self.matches.update(request.match_id, join)
        record = updated.stored.record
        if updated.change:  # a rejoin keeps the match's place in the player's list
            await self._index([(player.player_id, record.match_id)], now)
        seat = record.players.index(player.player_id)
        return engine_pb2.JoinMatchResponse(
            match=info(record, updated.stored.version),
            seat=seat,
            seat_token=self._seat_token(record.match_id, seat, player.player_id),
        )

    async def StartMatch(
        self, request: engine_pb2.StartMatchRequest, context: Context
    ) -> engine_pb2.StartMatchResponse:
        caller = await self._caller(context)
        starter = caller.player_id if isinstance(caller, tokens.PlayerClaims) else None
        now = time.time()

        def start(stored: Stored) -> Change:
            lobby.may_start(stored.record, starter)
            return dealt(stored.record, now)

        updated = await self.matches.update(request.match_id, start)
        return engine_pb2.StartMatchResponse(
            match=info(updated.stored.record, updated.stored.version)
        )

    async def Leave(
        self, request: engine_pb2.LeaveRequest, context: Context
    ) -> engine_pb2.LeaveResponse:
        claims = self._seat(context)

        def leave(stored: Stored) -> Change:
            lobby.check_seat(stored.record, claims.seat, claims.player_id)
            return Change(stored.record, stored.state, lobby.leave(stored.record, claims.seat))

        updated = await self._seat_update(claims, leave)
        return engine_pb2.LeaveResponse(match=info(updated.stored.record, updated.stored.version))

    # ---------------------------------------------------------------- play

    async def Act(self, request: engine_pb2.ActRequest, context: Context) -> engine_pb2.ActResponse:
        claims = self._seat(context)
        if not request.request_id or len(request.request_id) > 128:
            raise invalid("request_id is required (1-128 characters, unique per action)")
        action = wire.action_from_pb(request.action)

        def act(stored: Stored) -> Change:
            record, seat = stored.record, claims.seat
            lobby.check_seat(record, seat, claims.player_id)
            if record.bots[seat]:  # handed to a bot after timeouts: it comes back
                record.bots[seat], record.timeouts[seat] = "", 0
            change = self.matches.move(stored, seat, action)
            version = stored.version + 1
            change.keep_answer, change.action = True, action.text
            change.answer = engine_pb2.ActResponse(
                version=version,
                events=[wire.redact_pb(event, seat) for event in change.events],
                view=seat_view(record, change.rules(), seat, version),
            )
            return change

        updated = await self._seat_update(claims, act, request.request_id)
        if updated.earlier is not None:
            # A retry: the first answer's version and events (read again from its commit's
            # stream entry), and the seat's view as it is now (the same view, unless the match
            # moved on meanwhile).
            kept = updated.earlier
            if kept.action is not None and kept.action != action.text:
                raise precondition(
                    f"request id already used for another action ({kept.action!r}): send each "
                    "action with a request id of its own, and the same id only to retry it"
                )
            events = await self.matches.kept_events(claims.match_id, kept)
            earlier = engine_pb2.ActResponse(
                version=kept.version,
                events=[wire.redact_pb(event, claims.seat) for event in events],
            )
            stored = updated.stored
            earlier.view.CopyFrom(
                seat_view(
                    stored.record, Match.from_bytes(stored.state), claims.seat, stored.version
                )
            )
            return earlier
        assert updated.change is not None
        answer = updated.change.answer
        assert isinstance(answer, engine_pb2.ActResponse)
        return answer

    async def GetView(
        self, request: engine_pb2.GetViewRequest, context: Context
    ) -> engine_pb2.GetViewResponse:
        viewer, match_id, _ = await self._viewer(context, request.match_id)
        stored = await self.matches.load(match_id)
        if stored.record.status == Status.LOBBY:
            raise precondition("the match has not started yet: no cards are dealt")
        view = seat_view(stored.record, Match.from_bytes(stored.state), viewer, stored.version)
        return engine_pb2.GetViewResponse(view=view)

    async def _viewer(self, context: Context, match_id: str) -> tuple[int | None, str, str]:
        """The seat a token may see (None: a spectator), the match it is for and the player."""
        claims = tokens.verify_token(
            self.secret, bearer(context), *VIEWERS, needs=tokens.Scope.READ
        )
        if isinstance(claims, tokens.PlayerClaims):
            player = await self._checked(claims)
            if not match_id:
                raise invalid("match_id is required to spectate")
            return None, match_id, player.player_id
        assert isinstance(claims, tokens.SeatClaims)
        if match_id and match_id != claims.match_id:
            raise denied("this seat token is for another match")
        stored = await self._seat_match(claims)
        lobby.check_seat(stored.record, claims.seat, claims.player_id)
        return claims.seat, claims.match_id, claims.player_id

    async def Follow(
        self, request: engine_pb2.FollowRequest, context: Context
    ) -> AsyncIterator[engine_pb2.FollowResponse]:
        after = event_position(request.after_event_id)
        seat, match_id, player_id = await self._viewer(context, request.match_id)
        over = (await self.matches.load(match_id)).record.status == Status.OVER
        with self.streams.hold(player_id):
            follower = _Follower(seat, player_id, after)
            if over:  # all its events are written: read them without waiting, then end
                async for shown in self._stored_events(match_id, follower, until=None):
                    yield shown
                return
            subscription = await self.hub.subscribe(match_id)
            try:
                async for shown in self._stored_events(match_id, follower, subscription.since):
                    yield shown
                while not follower.done and (entries := await subscription.take()) is not None:
                    for entry_id, event in entries:
                        if follower.done or not follower.news(entry_id):
                            continue
                        yield follower.show(entry_id, event)
            except FellBehind:
                raise ServiceError(
                    grpc.StatusCode.ABORTED,
                    f"this stream fell more than {self.hub.queue_limit} events behind (the "
                    "events are read too slowly): follow again with after_event_id="
                    f"{follower.last!r}, the last event received",
                ) from None
            finally:
                self.hub.unsubscribe(subscription)

    async def _stored_events(
        self, match_id: str, follower: _Follower, until: str | None
    ) -> AsyncIterator[engine_pb2.FollowResponse]:
        """The stored events after the follower's position, up to ``until`` (None: all), read
        a batch at a time as the client takes them."""
        limit = None if until is None else stream_position(until)
        while not follower.done:
            if limit is not None and stream_position(follower.last) >= limit:
                return
            entries = await self.matches.store.read_events(match_id, follower.last, None)
            if not entries:
                return
            for entry_id, data in entries:
                if follower.done or (limit is not None and stream_position(entry_id) > limit):
                    return
                yield follower.show(entry_id, game_pb2.Event.FromString(data))

    async def GetMatch(
        self, request: engine_pb2.GetMatchRequest, context: Context
    ) -> engine_pb2.GetMatchResponse:
        _, match_id, _ = await self._viewer(context, request.match_id)
        stored = await self.matches.load(match_id)
        return engine_pb2.GetMatchResponse(match=self._info_with_outcome(stored))

    def _info_with_outcome(self, stored: Stored) -> engine_pb2.MatchInfo:
        outcome = None
        if stored.record.status == Status.OVER:
            result = Match.from_bytes(stored.state).outcome
            if result is not None:
                outcome = game_pb2.Outcome(winners=result.winners, reason=result.reason)
        return info(stored.record, stored.version, outcome)

    async def ListMatches(
        self, request: engine_pb2.ListMatchesRequest, context: Context
    ) -> engine_pb2.ListMatchesResponse:
        player = await self._player(context, tokens.Scope.READ)
        limit = request.limit or 20
        if not 1 <= limit <= 100:
            raise invalid("limit must be from 1 to 100")
        found = []
        for match_id in await self.matches.store.player_matches(player.player_id, limit):
            stored = await self.matches.store.load(match_id)
            if stored is not None:
                found.append(self._info_with_outcome(stored))
        return engine_pb2.ListMatchesResponse(matches=found)


def seat_view(record: MatchRecord, match: Match, seat: int | None, version: int) -> game_pb2.View:
    """What ``seat`` (None: a spectator) sees of the match at ``version``."""
    view = wire.view_to_pb(match.view(seat), record.match_id, version)
    view.seats.extend(seat_info(record))
    return view


STREAM_ID = re.compile(r"[0-9]{1,20}(-[0-9]{1,20})?")
LARGEST_ID_PART = 2**64 - 1


def event_position(after_event_id: str) -> str:
    """The stream position a Follow starts after: the id of an event, or "0" for the first.

    >>> event_position(""), event_position("1700000000000-2")
    ('0', '1700000000000-2')
    """
    if not after_event_id:
        return "0"
    if STREAM_ID.fullmatch(after_event_id) and all(
        int(part) <= LARGEST_ID_PART for part in after_event_id.split("-")
    ):
        return after_event_id
    raise invalid(
        f"after_event_id {after_event_id[:48]!r} is not an event id: give the id of the last "
        "event received (like '1700000000000-0'), or leave it empty to start from the first"
    )


class _Follower:
    """What one Follow stream has sent: its position, whose drawn cards it shows, its end."""

    def __init__(self, seat: int | None, player_id: str, after: str) -> None:
        self.seat = seat
        self.viewer = seat
        """Whose drawn cards this stream shows: the seat while the player holds it."""
        self.player_id = player_id
        self.last = after
        self.done = False

    def news(self, entry_id: str) -> bool:
        """Whether the entry comes after what was sent (a feed may hand over older ones)."""
        return stream_position(entry_id) > stream_position(self.last)

    def show(self, entry_id: str, event: game_pb2.Event) -> engine_pb2.FollowResponse:
        self.last = entry_id
        shown = engine_pb2.FollowResponse(id=entry_id, event=wire.redact_pb(event, self.viewer))
        kind = event.WhichOneof("kind")
        if kind == "seed_revealed":
            self.done = True
        elif kind == "left" and event.left.seat == self.seat:
            self.viewer = None  # a bot, or in the lobby another player, holds it now
        elif kind == "seat_joined" and event.seat_joined.seat == self.seat:
            self.viewer = self.seat if event.seat_joined.player_id == self.player_id else None
        return shown
