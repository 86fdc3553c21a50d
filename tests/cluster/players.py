"""Simulated players for the failover suites: each registers, queues through the matchmaker with
bots allowed, plays its seat to the end over both engine replicas, and retries what fails for a
moment (UNAVAILABLE, a deadline) with the same request id, as a careful client does. What every
acknowledged answer said is kept for the checks afterwards."""

from __future__ import annotations

import asyncio
import json
import random
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TypeVar

import grpc

from maumau.common.errors import ERROR_CODE_KEY, ERROR_PARAMS_KEY
from maumau.v1 import (
    engine_pb2,
    engine_pb2_grpc,
    game_pb2,
    matchmaking_pb2,
    matchmaking_pb2_grpc,
    players_pb2,
    players_pb2_grpc,
)
from tests.support.engine import acting, pick
from tests.support.rpc import auth

T = TypeVar("T")

PASSING = (
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.DEADLINE_EXCEEDED,
)
"""What a client retries: the call may or may not have been applied; the request id decides."""

CALL_SECONDS = 5.0
GIVE_UP_SECONDS = 90.0
MAX_STALE = 20
RULES = game_pb2.Ruleset(preset="classic", options={"target": "0"})


@dataclass
class Acknowledged:
    match_id: str
    request_id: str
    answer: engine_pb2.ActResponse


@dataclass
class SimulatedPlayer:
    player_id: str
    token: str
    engines: list[grpc.aio.Channel]
    matchmaking: grpc.aio.Channel
    rng: random.Random
    matches: list[str] = field(default_factory=list)
    acknowledged: list[Acknowledged] = field(default_factory=list)
    retries: int = 0
    stale: int = 0
    """Actions refused as chosen on an outdated view (a handful per failover at most)."""
    _calls: int = 0

    @classmethod
    async def register(
        cls, engines: list[str], matchmaking: str, name: str, seed: int
    ) -> SimulatedPlayer:
        channels = [grpc.aio.insecure_channel(address) for address in engines]
        reply = await players_pb2_grpc.PlayersServiceStub(channels[0]).Register(
            players_pb2.RegisterRequest(name=name), timeout=CALL_SECONDS
        )
        options = [("grpc.lb_policy_name", "round_robin")]
        return cls(
            reply.player_id,
            reply.player_token,
            channels,
            grpc.aio.insecure_channel(matchmaking, options=options),
            random.Random(seed),
        )

    def engine(self) -> engine_pb2_grpc.EngineServiceStub:
        """The next engine replica: calls alternate between them."""
        self._calls += 1
        return engine_pb2_grpc.EngineServiceStub(self.engines[self._calls % len(self.engines)])

    @property
    def matchmaker(self) -> matchmaking_pb2_grpc.MatchmakingServiceStub:
        return matchmaking_pb2_grpc.MatchmakingServiceStub(self.matchmaking)

    async def retrying(self, call: Callable[[], Awaitable[T]]) -> T:
        deadline = asyncio.get_running_loop().time() + GIVE_UP_SECONDS
        while True:
            try:
                return await call()
            except grpc.aio.AioRpcError as error:
                if error.code() not in PASSING:
                    raise
                if asyncio.get_running_loop().time() > deadline:
                    raise
                self.retries += 1
                await asyncio.sleep(0.1)

    async def play_matches(self, count: int) -> None:
        for _ in range(count):
            match_id, seat_token = await self.queue()
            self.matches.append(match_id)
            await self.play(match_id, seat_token)

    async def queue(self) -> tuple[str, str]:
        """Queue a ticket (bots at once), wait until it is seated: the match and seat token."""
        ticket_id = await self.enqueue()
        while True:
            ticket = (
                await self.retrying(
                    lambda: self.matchmaker.GetTicket(
                        matchmaking_pb2.GetTicketRequest(ticket_id=ticket_id),
                        metadata=auth(self.token),
                        timeout=CALL_SECONDS,
                    )
                )
            ).ticket
            if ticket.state == "seated":
                return ticket.match_id, ticket.seat_token
            assert ticket.state == "searching", f"ticket {ticket_id} ended: {ticket}"
            await asyncio.sleep(0.05)

    async def enqueue(self) -> str:
        request = matchmaking_pb2.EnqueueRequest(
            ruleset=RULES, seat_counts=[2], allow_bots=True, bots_after_seconds=0
        )
        while True:
            try:
                reply = (
                    await self.matchmaker.Enqueue(
                        request, metadata=auth(self.token), timeout=CALL_SECONDS
                    )
                ).ticket
                return str(reply.ticket_id)
            except grpc.aio.AioRpcError as error:
                # An enqueue whose answer was lost left a live ticket: that one is ours.
                trailing = dict(error.trailing_metadata() or ())
                if trailing.get(ERROR_CODE_KEY) == "live_ticket":
                    return str(json.loads(trailing[ERROR_PARAMS_KEY])["ticket_id"])
                if error.code() not in PASSING:
                    raise
                self.retries += 1
                await asyncio.sleep(0.1)

    async def play(self, match_id: str, seat_token: str) -> None:
        """Play the seat until the match is over; bots move on the engine meanwhile."""
        while True:
            view = (
                await self.retrying(
                    lambda: self.engine().GetView(
                        engine_pb2.GetViewRequest(match_id=match_id),
                        metadata=auth(seat_token),
                        timeout=CALL_SECONDS,
                    )
                )
            ).view
            if view.phase == "over":
                return
            if not acting(view):
                await asyncio.sleep(0.02)
                continue
            request = engine_pb2.ActRequest(
                request_id=uuid.uuid4().hex, action=pick(view, self.rng)
            )
            try:
                answer = await self.act(request, seat_token)
            except grpc.aio.AioRpcError as error:
                # Chosen on a view that is no longer the match's (a failover undid an
                # unreplicated bot move, or the turn timer handed the turn on): refused with
                # nothing changed, so read the match again, as any client does.
                if error.code() != grpc.StatusCode.FAILED_PRECONDITION or self.stale >= MAX_STALE:
                    raise
                self.stale += 1
                continue
            self.acknowledged.append(Acknowledged(match_id, request.request_id, answer))

    async def act(self, request: engine_pb2.ActRequest, seat_token: str) -> engine_pb2.ActResponse:
        """The action, sent again with the same request id until an engine answers."""
        return await self.retrying(
            lambda: self.engine().Act(request, metadata=auth(seat_token), timeout=CALL_SECONDS)
        )

    async def close(self) -> None:
        for channel in [*self.engines, self.matchmaking]:
            await channel.close()
