"""The gRPC adapter of the matchmaker: player tokens in, tickets and rooms out."""

from __future__ import annotations

import contextlib
import functools
import math
import time
from collections.abc import AsyncIterator, Sequence
from typing import Any

import grpc

from maumau import wire
from maumau.common import daily_limits, tokens
from maumau.common.errors import ServiceError, invalid, precondition
from maumau.common.lifecycle import pause
from maumau.common.players import PlayerDirectory, bot_flags
from maumau.common.quotas import Quotas
from maumau.matchmaking.arena import check_seat_counts
from maumau.matchmaking.arena_pool import ArenaPool
from maumau.matchmaking.errors import refusal
from maumau.matchmaking.notify import Notifier
from maumau.matchmaking.parties import Parties, PartyRecord
from maumau.matchmaking.queue import TicketQueue
from maumau.matchmaking.rooms import RoomRecord, Rooms, link, normalize_code, web_path
from maumau.matchmaking.settings import Settings
from maumau.matchmaking.tickets import (
    CANCELLED,
    SEARCHING,
    SEATED,
    LiveTicket,
    QueueInfo,
    Ticket,
    TicketSpec,
)
from maumau.matchmaking.worker import TICKETS_ENDED
from maumau.rules import Ruleset
from maumau.rules.errors import BadInput
from maumau.v1 import matchmaking_pb2, matchmaking_pb2_grpc

Context = grpc.aio.ServicerContext[Any, Any]
MIN_SEATS, MAX_SEATS = 2, 8
MAX_REQUEST_ID = 128


@functools.lru_cache(maxsize=256)
def _party_id(party_id: str) -> str:
    if len(party_id) > 64:
        raise invalid("party_id is at most 64 characters ('' for your own party)")
    return party_id


def playable_sizes(ruleset_text: str) -> frozenset[int]:
    """The table sizes a ruleset plays (deck size, preset range, teams)."""
    ruleset = Ruleset.parse(ruleset_text)
    sizes = set()
    for seats in range(MIN_SEATS, MAX_SEATS + 1):
        with contextlib.suppress(BadInput):
            ruleset.check_seats(seats)
            sizes.add(seats)
    return frozenset(sizes)


class MatchmakingService(matchmaking_pb2_grpc.MatchmakingServiceServicer):
    def __init__(
        self,
        queue: TicketQueue,
        rooms: Rooms,
        notifier: Notifier,
        players: PlayerDirectory,
        secret: bytes,
        settings: Settings,
        parties: Parties,
        quotas: Quotas,
        arena: ArenaPool,
    ) -> None:
        self.arena = arena
        self.parties = parties
        self.quotas = quotas
        self.queue = queue
        self.rooms = rooms
        self.notifier = notifier
        self.players = players
        self.secret = secret
        self.settings = settings

    async def _player(self, context: Context, needs: tokens.Scope = tokens.Scope.PLAY) -> str:
        claims = tokens.verify_player_token(self.secret, tokens.bearer(context), needs=needs)
        return (await self.players.check_token(claims)).player_id

    # ---------------------------------------------------------------- queue

    async def Enqueue(
        self, request: matchmaking_pb2.EnqueueRequest, context: Context
    ) -> matchmaking_pb2.EnqueueResponse:
        return matchmaking_pb2.EnqueueResponse(ticket=await self._enqueue(request, context))

    async def _enqueue(
        self, request: matchmaking_pb2.EnqueueRequest, context: Context
    ) -> matchmaking_pb2.Ticket:
        player = await self._player(context)
        ruleset = wire.ruleset_from_pb(request.ruleset)
        queue = QueueInfo(ruleset.text, request.ranked)
        spec = self._spec(request, ruleset.text, player)
        for queued in spec.players:  # people meet bot accounts only by their own challenge
            if (await bot_flags(self.arena.redis, queued))[0]:
                raise refusal("bot_in_queue", player_id=queued)
        consent = None
        if len(spec.players) > 1:
            consent = functools.partial(self._party_consents, player, spec.players[1:])
            await consent()
        await self.quotas.spend(context, player, "Enqueue")
        earlier = await self._queued_by(player, spec.request_id)
        if earlier is not None:
            return self._ticket_pb(earlier, player)
        try:
            ticket_id = await self.queue.enqueue(queue, spec, consent)
        except LiveTicket as live:  # the first call may be queueing it this moment
            earlier = await self._queued_by(player, spec.request_id, live.params["ticket_id"])
            if earlier is None:
                raise
            return self._ticket_pb(earlier, player)
        ticket = await self.queue.get(ticket_id)
        assert ticket is not None
        return self._ticket_pb(ticket, player)

    async def _queued_by(
        self, player: str, request_id: str, ticket_id: str | None = None
    ) -> Ticket | None:
        """The ticket ``player`` queued with ``request_id`` (looked for as their latest, or as
        ``ticket_id``), if that is the one: an Enqueue retried."""
        if not request_id:
            return None
        ticket_id = ticket_id or await self.queue.latest(player)
        ticket = None if ticket_id is None else await self.queue.get(ticket_id)
        if ticket is None or ticket.spec.request_id != request_id:
            return None
        return ticket if ticket.spec.players[0] == player else None

    def _spec(
        self, request: matchmaking_pb2.EnqueueRequest, ruleset: str, player: str
    ) -> TicketSpec:
        playable = playable_sizes(ruleset)
        asked = set(request.seat_counts) or set(playable)
        for size in sorted(asked):
            if not MIN_SEATS <= size <= MAX_SEATS:
                raise invalid(f"seat count {size}: a table has {MIN_SEATS} to {MAX_SEATS} seats")
            if size not in playable:
                raise invalid(
                    f"{ruleset} is not played at {size} seats; it is at {sorted(playable)}"
                )
        preferred = request.preferred_seats or max(asked)
        if preferred not in asked:
            raise invalid(f"preferred_seats {preferred} is not one of seat_counts {sorted(asked)}")
        party = [player, *dict.fromkeys(p for p in request.party if p != player)]
        if any(not p or len(p) > 64 for p in party):
            raise invalid("a party member is a player id of 1 to 64 characters")
        if len(party) > max(asked):
            raise invalid(f"a party of {len(party)} does not fit a table of {max(asked)}")
        teams = Ruleset.parse(ruleset).teams
        if teams and len(party) == 3:
            raise invalid("in a team game a party is one team (2 players) or the table (4)")
        if request.ranked and len(party) > (2 if teams else 1):
            raise invalid(
                "a ranked ticket is one player (in a team game a party of two, one team): "
                "in ranked the matchmaker alone chooses who plays against whom"
            )
        if not math.isfinite(request.bots_after_seconds) or request.bots_after_seconds < 0:
            raise invalid("bots_after_seconds must be 0 or more")
        if not math.isfinite(request.max_wait_seconds) or request.max_wait_seconds < 0:
            raise invalid("max_wait_seconds must be 0 or more")
        if len(request.request_id) > MAX_REQUEST_ID:
            raise invalid(f"request_id has at most {MAX_REQUEST_ID} characters")
        limit = self.settings.ticket_ttl_seconds
        wait = min(request.max_wait_seconds, limit) if request.max_wait_seconds else limit
        now = time.time()
        return TicketSpec(
            players=tuple(party),
            sizes=tuple(sorted(asked)),
            preferred=preferred,
            bots_after=request.bots_after_seconds if request.allow_bots else None,
            enqueued_at=now,
            expires_at=now + wait,
            request_id=request.request_id,
        )

    async def _party_consents(self, leader: str, others: Sequence[str]) -> None:
        """Refuse a ticket naming anyone who has not accepted the leader's invitation."""
        for other in others:
            if not await self.players.name(other):
                raise ServiceError(grpc.StatusCode.NOT_FOUND, f"no player {other!r}")
        party = await self.parties.of(leader)
        if party is not None and party.leader != leader:
            raise ServiceError(
                grpc.StatusCode.PERMISSION_DENIED, "only the party's leader queues the party"
            )
        for other in others:
            if party is None or other not in party.members:
                raise ServiceError(
                    grpc.StatusCode.PERMISSION_DENIED,
                    f"player {other} has not joined your party: invite them (InviteToParty) "
                    "and queue them once they accepted (AcceptParty)",
                )
        assert party is not None
        await self.parties.touch(party)

    async def _ticket(self, ticket_id: str, player: str) -> Ticket:
        if not ticket_id:
            ticket_id = await self.queue.latest(player) or ""
            if not ticket_id:
                raise ServiceError(grpc.StatusCode.NOT_FOUND, "you have no ticket")
        ticket = await self.queue.get(ticket_id)
        if ticket is None:
            raise ServiceError(grpc.StatusCode.NOT_FOUND, f"no ticket {ticket_id!r}")
        if player not in ticket.spec.players:
            raise ServiceError(grpc.StatusCode.PERMISSION_DENIED, "this ticket is not yours")
        return ticket

    async def GetTicket(
        self, request: matchmaking_pb2.GetTicketRequest, context: Context
    ) -> matchmaking_pb2.GetTicketResponse:
        player = await self._player(context, tokens.Scope.READ)
        ticket = self._ticket_pb(await self._ticket(request.ticket_id, player), player)
        return matchmaking_pb2.GetTicketResponse(ticket=ticket)

    async def FollowTicket(
        self, request: matchmaking_pb2.FollowTicketRequest, context: Context
    ) -> AsyncIterator[matchmaking_pb2.FollowTicketResponse]:
        player = await self._player(context, tokens.Scope.READ)
        ticket = await self._ticket(request.ticket_id, player)
        shown = ""
        with self.notifier.watch(f"t:{ticket.ticket_id}") as changed:
            while True:
                changed.clear()
                found = await self.queue.get(ticket.ticket_id)
                if found is None:
                    return  # forgotten after its retention
                if found.status.state != shown:
                    shown = found.status.state
                    ticket_pb = self._ticket_pb(found, player)
                    yield matchmaking_pb2.FollowTicketResponse(ticket=ticket_pb)
                if shown != SEARCHING:
                    return
                await pause(changed, self.settings.follow_poll_seconds)

    async def CancelTicket(
        self, request: matchmaking_pb2.CancelTicketRequest, context: Context
    ) -> matchmaking_pb2.CancelTicketResponse:
        player = await self._player(context)
        if not request.ticket_id:
            raise invalid("ticket_id is required")
        ticket = await self._ticket(request.ticket_id, player)
        if ticket.live:
            ticket = await self.queue.cancel(ticket, f"cancelled by {player}")
            if ticket.status.state == CANCELLED:
                TICKETS_ENDED.labels("cancelled").inc()
                await self.notifier.publish([f"t:{ticket.ticket_id}"])
        if ticket.status.state == SEARCHING:
            raise precondition("a table is being created for this ticket: follow it")
        if ticket.status.state == SEATED:
            raise precondition("this ticket is seated: play its match, or leave it")
        return matchmaking_pb2.CancelTicketResponse(ticket=self._ticket_pb(ticket, player))

    def _ticket_pb(self, ticket: Ticket, player: str) -> matchmaking_pb2.Ticket:
        spec, status = ticket.spec, ticket.status
        end = time.time() if status.state == SEARCHING else status.at
        answer = matchmaking_pb2.Ticket(
            ticket_id=ticket.ticket_id,
            state=status.state,
            queue=ticket.queue.name,
            players=spec.players,
            waited_seconds=max(0.0, end - spec.enqueued_at),
            reason=status.reason,
            request=matchmaking_pb2.EnqueueRequest(
                ruleset=wire.ruleset_to_pb(Ruleset.parse(ticket.queue.ruleset)),
                seat_counts=spec.sizes,
                preferred_seats=spec.preferred,
                ranked=ticket.queue.ranked,
                party=spec.players[1:],
                allow_bots=spec.bots_after is not None,
                bots_after_seconds=spec.bots_after or 0.0,
                max_wait_seconds=spec.expires_at - spec.enqueued_at,
            ),
        )
        if status.state == SEATED:
            seat = status.seats[player]
            answer.match_id, answer.seat = status.match_id, seat
            answer.seat_token = tokens.issue_seat_token(self.secret, status.match_id, seat, player)
            answer.table_seats, answer.bot_seats = status.table_seats, status.bot_seats
        return answer

    # ---------------------------------------------------------------- parties

    async def InviteToParty(
        self, request: matchmaking_pb2.InviteToPartyRequest, context: Context
    ) -> matchmaking_pb2.InviteToPartyResponse:
        player = await self._player(context)
        invited = request.player_id
        if not invited or len(invited) > 64:
            raise invalid("player_id is required: a player id of 1 to 64 characters")
        if not await self.players.name(invited):
            raise ServiceError(grpc.StatusCode.NOT_FOUND, f"no player {invited!r}")
        await self.quotas.spend(context, player, "InviteToParty")
        party = await self._party_pb(await self.parties.invite(player, invited, time.time()))
        return matchmaking_pb2.InviteToPartyResponse(party=party)

    async def AcceptParty(
        self, request: matchmaking_pb2.AcceptPartyRequest, context: Context
    ) -> matchmaking_pb2.AcceptPartyResponse:
        player = await self._player(context)
        party_id = _party_id(request.party_id)
        party = await self._party_pb(await self.parties.accept(player, party_id, time.time()))
        return matchmaking_pb2.AcceptPartyResponse(party=party)

    async def LeaveParty(
        self, request: matchmaking_pb2.LeavePartyRequest, context: Context
    ) -> matchmaking_pb2.LeavePartyResponse:
        player = await self._player(context)
        party, was_member = await self.parties.leave(player, _party_id(request.party_id))
        ticket_id = await self.queue.latest(player) if was_member else None
        ticket = await self.queue.get(ticket_id) if ticket_id else None
        if ticket is not None and ticket.live and set(ticket.spec.players) & set(party.members):
            ended = await self.queue.cancel(ticket, f"{player} left the party")
            if ended.status.state == CANCELLED:
                TICKETS_ENDED.labels("cancelled").inc()
                await self.notifier.publish([f"t:{ticket.ticket_id}"])
        return matchmaking_pb2.LeavePartyResponse(party=await self._party_pb(party))

    async def GetParty(
        self, request: matchmaking_pb2.GetPartyRequest, context: Context
    ) -> matchmaking_pb2.GetPartyResponse:
        player = await self._player(context, tokens.Scope.READ)
        party_id = _party_id(request.party_id)
        party = await self._party_pb(await self.parties.get(player, party_id, time.time()))
        return matchmaking_pb2.GetPartyResponse(party=party)

    async def _party_pb(self, party: PartyRecord) -> matchmaking_pb2.Party:
        now = time.time()
        invited = party.open_invitations(now)
        names = {p: await self.players.name(p) for p in [*party.members, *invited]}
        return matchmaking_pb2.Party(
            party_id=party.party_id,
            leader_id=party.leader,
            members=[
                matchmaking_pb2.PartyMember(player_id=p, name=names[p]) for p in party.members
            ],
            invited=[
                matchmaking_pb2.PartyMember(
                    player_id=p, name=names[p], expires_in_seconds=max(0.0, until - now)
                )
                for p, until in invited.items()
            ],
            expires_in_seconds=await self.parties.ttl_of(party.party_id) if party.members else 0,
        )

    # ---------------------------------------------------------------- rooms

    async def CreateRoom(
        self, request: matchmaking_pb2.CreateRoomRequest, context: Context
    ) -> matchmaking_pb2.CreateRoomResponse:
        player = await self._player(context)
        ruleset = wire.ruleset_from_pb(request.ruleset)
        if request.seats not in playable_sizes(ruleset.text):
            raise invalid(
                f"{ruleset.text} is not played at {request.seats} seats; "
                f"it is at {sorted(playable_sizes(ruleset.text))}"
            )
        try:
            bot_level = wire.bot_level_from_pb(request.bot_level)
        except ValueError as error:
            raise invalid(str(error)) from None
        if not 0 <= request.turn_seconds <= 3600:
            raise invalid("turn_seconds must be from 0 (the default timer) to 3600")
        await self.quotas.spend(context, player, "CreateRoom")
        room = await self.rooms.create(
            player, ruleset.text, request.seats, bot_level, request.turn_seconds
        )
        return matchmaking_pb2.CreateRoomResponse(room=await self._room_pb(room, player))

    async def JoinRoom(
        self, request: matchmaking_pb2.JoinRoomRequest, context: Context
    ) -> matchmaking_pb2.JoinRoomResponse:
        player = await self._player(context)
        room = await self.rooms.join(normalize_code(request.code), player)
        return matchmaking_pb2.JoinRoomResponse(room=await self._room_pb(room, player))

    async def StartRoom(
        self, request: matchmaking_pb2.StartRoomRequest, context: Context
    ) -> matchmaking_pb2.StartRoomResponse:
        player = await self._player(context)
        room = await self.rooms.start(normalize_code(request.code), player)
        return matchmaking_pb2.StartRoomResponse(room=await self._room_pb(room, player))

    async def GetRoom(
        self, request: matchmaking_pb2.GetRoomRequest, context: Context
    ) -> matchmaking_pb2.GetRoomResponse:
        player = await self._player(context, tokens.Scope.READ)
        room = await self.rooms.recover(await self.rooms.load(normalize_code(request.code)))
        return matchmaking_pb2.GetRoomResponse(room=await self._room_pb(room, player))

    async def FollowRoom(
        self, request: matchmaking_pb2.FollowRoomRequest, context: Context
    ) -> AsyncIterator[matchmaking_pb2.FollowRoomResponse]:
        player = await self._player(context, tokens.Scope.READ)
        code = normalize_code(request.code)
        shown = -1
        with self.notifier.watch(f"r:{code}") as changed:
            while True:
                changed.clear()
                room = await self.rooms.recover(await self.rooms.load(code))
                if room.version != shown:
                    shown = room.version
                    room_pb = await self._room_pb(room, player)
                    yield matchmaking_pb2.FollowRoomResponse(room=room_pb)
                await pause(changed, self.settings.follow_poll_seconds)

    async def _room_pb(self, room: RoomRecord, player: str) -> matchmaking_pb2.Room:
        seat = room.seat_of(player)
        names = [await self.players.name(p) if p else "" for p in room.players]
        answer = matchmaking_pb2.Room(
            code=room.code,
            link=link(room.code),
            web_path=web_path(room.code),
            ruleset=wire.ruleset_to_pb(Ruleset.parse(room.ruleset)),
            ruleset_text=room.ruleset,
            seats=room.seats,
            bot_level=wire.bot_level_to_pb(room.bot_level),
            host_player_id=room.host,
            status=room.status,
            seat_list=[
                matchmaking_pb2.RoomSeat(
                    seat=s,
                    player_id=room.players[s],
                    bot_level=wire.bot_level_to_pb(room.bots[s]),
                    wins=room.wins[s],
                    name=names[s],
                )
                for s in range(room.seats)
            ],
            match_id=room.match_id,
            matches_started=room.matches,
            your_seat=seat,
        )
        if seat >= 0 and room.match_id:
            answer.seat_token = tokens.issue_seat_token(self.secret, room.match_id, seat, player)
        return answer

    # ---------------------------------------------------------------- the bot arena

    async def _bot(self, context: Context) -> tuple[str, bool]:
        """The caller, a bot account (its bot:play token, its session or a play token), and
        whether it is the house's."""
        player = await self._player(context, tokens.Scope.BOT_PLAY)
        bot, house = await bot_flags(self.arena.redis, player)
        if not bot:
            raise refusal("not_a_bot")
        return player, house

    def _pool(self, ruleset_pb: Any) -> str:
        """The arena pool a request's ruleset names; INVALID_ARGUMENT for any other."""
        text = wire.ruleset_from_pb(ruleset_pb).text
        pools = self.settings.arena_pools()
        if text not in pools:
            raise refusal("arena_ruleset", ruleset=text, allowed=", ".join(pools))
        return text

    def _pool_pb(self, preset: str, waiting: int) -> matchmaking_pb2.ArenaPool:
        return matchmaking_pb2.ArenaPool(
            ruleset=wire.ruleset_to_pb(Ruleset.parse(preset)), ruleset_text=preset, waiting=waiting
        )

    async def JoinArena(
        self, request: matchmaking_pb2.JoinArenaRequest, context: Context
    ) -> matchmaking_pb2.JoinArenaResponse:
        bot, house = await self._bot(context)
        preset = self._pool(request.ruleset)
        playable = sorted(playable_sizes(preset))
        try:
            counts = check_seat_counts(request.seat_counts or [2])
        except ValueError:
            counts = ()
        if not counts or any(count not in playable for count in counts):
            allowed = ", ".join(str(n) for n in playable)
            raise refusal("arena_seat_counts", ruleset=preset, allowed=allowed)
        now = time.time()
        most = self.settings.arena_bot_matches_per_day
        if not house:  # the house plays whoever comes, as often as they come
            with daily_limits.refused_past_limit(now):
                await daily_limits.remaining(
                    self.arena.redis, bot, daily_limits.BOT_MATCHES, most, now
                )
        await self.arena.join(bot, preset, counts, now)
        paused = (await self.arena.paused_until([bot])).get(bot, 0.0)
        return matchmaking_pb2.JoinArenaResponse(
            pool=self._pool_pb(preset, await self.arena.count(preset, now)),
            seat_counts=counts,
            renew_before_unix_ms=round((now + self.arena.entry_ttl) * 1000),
            paused_until_unix_ms=round(paused * 1000) if paused > now else 0,
        )

    async def LeaveArena(
        self, request: matchmaking_pb2.LeaveArenaRequest, context: Context
    ) -> matchmaking_pb2.LeaveArenaResponse:
        bot, _ = await self._bot(context)
        chosen = self.settings.arena_pools()
        if request.HasField("ruleset"):
            chosen = (self._pool(request.ruleset),)
        now = time.time()
        left = [preset for preset in chosen if await self.arena.leave(bot, preset)]
        return matchmaking_pb2.LeaveArenaResponse(
            left=[self._pool_pb(p, await self.arena.count(p, now)) for p in left]
        )

    async def ListArenaPools(
        self, request: matchmaking_pb2.ListArenaPoolsRequest, context: Context
    ) -> matchmaking_pb2.ListArenaPoolsResponse:
        try:  # any player token: a bot's bot:play one reaches no READ call
            await self._player(context, tokens.Scope.READ)
        except tokens.NotInScope:
            await self._player(context, tokens.Scope.BOT_PLAY)
        now = time.time()
        return matchmaking_pb2.ListArenaPoolsResponse(
            pools=[
                self._pool_pb(p, await self.arena.count(p, now))
                for p in self.settings.arena_pools()
            ]
        )
