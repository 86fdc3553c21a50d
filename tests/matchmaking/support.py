"""Test clients of the matchmaker: each player has a channel of its own and a player token."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass

import grpc
import redis.asyncio

from maumau.common import account_events
from maumau.common.config import ServiceConfig
from maumau.common.redis_client import connect
from maumau.common.tokens import issue_player_token
from maumau.matchmaking.app import MatchmakingApp
from maumau.matchmaking.settings import Settings
from maumau.matchmaking.worker import Hooks
from maumau.v1 import (
    arena_pb2,
    engine_pb2,
    engine_pb2_grpc,
    game_pb2,
    matchmaking_pb2,
    matchmaking_pb2_grpc,
)
from tests.support.engine import GENEROUS_SETTINGS, SECRET
from tests.support.rpc import auth

StartMatchmaker = Callable[..., Awaitable[MatchmakingApp]]
"""What the ``matchmakers`` fixture gives: start a replica with hooks and changed settings."""
FINAL = ("seated", "cancelled", "expired")


def fast(engine_address: str, **changes: object) -> Settings:
    """Settings for tests: short ticks, leases and polls."""
    defaults: dict[str, object] = {
        **GENEROUS_SETTINGS,
        "engine_address": engine_address,
        "tick_seconds": 0.02,
        "lease_seconds": 2.0,
        "follow_poll_seconds": 0.25,
        "smaller_after_seconds": 0.5,
        "turn_seconds": 0,
        "bot_level": "random",
    }
    return Settings(**{**defaults, **changes})  # type: ignore[arg-type]


async def start_matchmaker(
    redis_url: str, engine_address: str, hooks: Hooks | None = None, **changes: object
) -> MatchmakingApp:
    client = await connect(redis_url)  # a cluster client on a Redis Cluster
    config = ServiceConfig(host="127.0.0.1", port=0, metrics_port=0, health_interval_seconds=0.2)
    app = MatchmakingApp(client, config, SECRET, fast(engine_address, **changes), hooks=hooks)
    await app.start()
    return app


async def clear_matchmaking(client: redis.asyncio.Redis) -> None:
    """Forget every ticket, room and rating the shared Redis holds."""
    for pattern in ("mm:*", "rating:*"):
        keys = [key async for key in client.scan_iter(match=pattern, count=1000)]
        for start in range(0, len(keys), 500):
            await client.delete(*keys[start : start + 500])


def ruleset(text: str) -> game_pb2.Ruleset:
    preset, *pairs = text.split()
    return game_pb2.Ruleset(preset=preset, options=dict(p.split("=") for p in pairs))


@dataclass
class Player:
    """One player of the matchmaker, with a token of its own, over a channel of its own."""

    player_id: str
    token: str
    channel: grpc.aio.Channel

    @classmethod
    def connect(cls, player_id: str, address: str) -> Player:
        """A player with a channel of its own to ``address``."""
        return cls.on(player_id, grpc.aio.insecure_channel(address))

    @classmethod
    def on(cls, player_id: str, channel: grpc.aio.Channel) -> Player:
        """A player calling over a channel shared with others."""
        return cls(player_id, issue_player_token(SECRET, player_id), channel)

    @property
    def matchmaking(self) -> matchmaking_pb2_grpc.MatchmakingServiceStub:
        return matchmaking_pb2_grpc.MatchmakingServiceStub(self.channel)

    async def enqueue(self, rules: str = "classic", **fields: object) -> matchmaking_pb2.Ticket:
        reply = (
            await self.matchmaking.Enqueue(
                matchmaking_pb2.EnqueueRequest(ruleset=ruleset(rules), **fields),
                metadata=auth(self.token),
            )
        ).ticket
        return reply

    async def follow(self, ticket_id: str, timeout: float = 10) -> list[matchmaking_pb2.Ticket]:
        """Every state the ticket stream shows, until its final one."""
        seen: list[matchmaking_pb2.Ticket] = []
        call = self.matchmaking.FollowTicket(
            matchmaking_pb2.FollowTicketRequest(ticket_id=ticket_id),
            metadata=auth(self.token),
            timeout=timeout,
        )
        async for message in call:
            seen.append(message.ticket)
        return seen

    async def get(self, ticket_id: str = "") -> matchmaking_pb2.Ticket:
        reply = (
            await self.matchmaking.GetTicket(
                matchmaking_pb2.GetTicketRequest(ticket_id=ticket_id), metadata=auth(self.token)
            )
        ).ticket
        return reply

    async def cancel(self, ticket_id: str) -> matchmaking_pb2.Ticket:
        reply = (
            await self.matchmaking.CancelTicket(
                matchmaking_pb2.CancelTicketRequest(ticket_id=ticket_id), metadata=auth(self.token)
            )
        ).ticket
        return reply

    async def invite(self, player_id: str) -> matchmaking_pb2.Party:
        reply = (
            await self.matchmaking.InviteToParty(
                matchmaking_pb2.InviteToPartyRequest(player_id=player_id), metadata=auth(self.token)
            )
        ).party
        return reply

    async def accept(self, party_id: str = "") -> matchmaking_pb2.Party:
        reply = (
            await self.matchmaking.AcceptParty(
                matchmaking_pb2.AcceptPartyRequest(party_id=party_id), metadata=auth(self.token)
            )
        ).party
        return reply

    async def leave_party(self, party_id: str = "") -> matchmaking_pb2.Party:
        reply = (
            await self.matchmaking.LeaveParty(
                matchmaking_pb2.LeavePartyRequest(party_id=party_id), metadata=auth(self.token)
            )
        ).party
        return reply

    async def party(self, party_id: str = "") -> matchmaking_pb2.Party:
        reply = (
            await self.matchmaking.GetParty(
                matchmaking_pb2.GetPartyRequest(party_id=party_id), metadata=auth(self.token)
            )
        ).party
        return reply

    async def close(self) -> None:
        await self.channel.close()


async def register(client: redis.asyncio.Redis, *players: Player) -> None:
    """Put the players in the player directory, as PlayersService.Register would."""
    for player in players:
        await client.hset(f"player:{{{player.player_id}}}", mapping={"name": player.player_id[:32]})


async def party_of(client: redis.asyncio.Redis, leader: Player, *members: Player) -> str:
    """Register everyone and form a party by invitation and acceptance; its id."""
    await register(client, leader, *members)
    party_id = ""
    for member in members:
        party_id = (await leader.invite(member.player_id)).party_id
        await member.accept(party_id)
    return party_id


class Engine:
    """The engine as a test looks at it: matches by id, with a service token."""

    def __init__(self, address: str) -> None:
        self.channel = grpc.aio.insecure_channel(address)
        self.stub = engine_pb2_grpc.EngineServiceStub(self.channel)

    async def match(self, seat_token: str) -> engine_pb2.MatchInfo:
        reply = (
            await self.stub.GetMatch(engine_pb2.GetMatchRequest(), metadata=auth(seat_token))
        ).match
        return reply

    async def matches_of(self, player_id: str) -> list[engine_pb2.MatchInfo]:
        reply = await self.stub.ListMatches(
            engine_pb2.ListMatchesRequest(limit=100),
            metadata=auth(issue_player_token(SECRET, player_id)),
        )
        return list(reply.matches)

    async def close(self) -> None:
        await self.channel.close()


async def listening(client: redis.asyncio.Redis, *bots: str) -> None:
    """Mark each bot's event stream open for ten minutes, as an Accounts replica does while it
    holds one (``online:{<bot>}``, :func:`maumau.common.account_events.online`)."""
    for bot in bots:
        key = account_events.online_key(bot)
        await client.zadd(key, {"test": 10**15})
        await client.expire(key, 600)


class Inbox:
    """A bot's account events as they arrive, taken by kind in the order they came: none is
    skipped, so a SeatMatchStarted of the next match told before the last one's MatchFinished
    is still there when asked for."""

    def __init__(self, events: AsyncIterator[arena_pb2.AccountEvent], guard: float = 60.0):
        self.kept: list[arena_pb2.AccountEvent] = []
        self.arrived = asyncio.Condition()
        self.guard = guard
        """What :meth:`take` waits at most before it fails (a hang, not a speed)."""
        self.reader = asyncio.ensure_future(self._read(events))

    async def _read(self, events: AsyncIterator[arena_pb2.AccountEvent]) -> None:
        async for event in events:
            async with self.arrived:
                self.kept.append(event)
                self.arrived.notify_all()

    async def take(self, kind: str) -> arena_pb2.AccountEvent:
        """The first event of ``kind`` not taken yet, waiting for it."""
        async with asyncio.timeout(self.guard), self.arrived:
            while True:
                for n, event in enumerate(self.kept):
                    if event.WhichOneof("kind") == kind:
                        return self.kept.pop(n)
                if self.reader.done():
                    self.reader.result()
                    raise AssertionError(f"the event stream ended before a {kind}")
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.arrived.wait(), 0.5)

    async def close(self) -> None:
        self.reader.cancel()
        await asyncio.gather(self.reader, return_exceptions=True)
