"""Creating the matches of tables and rooms on the engine, with the matchmaker's service token.

Every player is seated at creation (``CreateMatchRequest.players``), every other seat is a bot,
and the match starts at once (``auto_start``). The engine gives a match a fresh id each time, so
creation is not idempotent by itself; instead the matchmaker chooses the server seed and keeps
only its commitment (SHA-256, which the engine publishes in ``MatchInfo.seed_commitment``). A
replica that takes over a table whose creator died finds the match, if it was created, among the
first player's matches by that commitment (:meth:`Tables.find`), and seats the table there.

The seed itself is never stored: it lives in the creating replica's memory for the one call, as
it does in the engine's. Seat tokens are signed with the platform secret by the same function the
engine uses, so the matchmaker hands out the very tokens the engine would.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import grpc

from maumau import fairness, wire
from maumau.common import tokens
from maumau.rules import Ruleset
from maumau.v1 import engine_pb2, engine_pb2_grpc

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class MatchPlan:
    """A match to create: who sits where, which seats are bots."""

    ruleset: str
    seats: int
    seating: Sequence[tuple[str, int]]
    bots: Mapping[int, str]
    ranked: bool = False
    turn_seconds: int = 0


def new_seed() -> tuple[str, str]:
    """A server seed and its commitment."""
    seed = fairness.new_server_seed()
    return seed, fairness.commitment(seed)


class Tables:
    """The engine as the matchmaker uses it."""

    def __init__(self, channel: grpc.aio.Channel, secret: bytes, timeout: float) -> None:
        self.engine = engine_pb2_grpc.EngineServiceStub(channel)
        self.secret = secret
        self.timeout = timeout
        self._service = tokens.bearer_metadata(tokens.issue_service_token(secret, "matchmaking"))

    async def create(self, plan: MatchPlan, server_seed: str) -> str:
        """Create and start the match; its id."""
        reply = await self.engine.CreateMatch(
            _request(plan, server_seed, ""), metadata=self._service, timeout=self.timeout
        )
        match_id: str = reply.match.match_id
        return match_id

    async def create_many(self, tables: Sequence[tuple[MatchPlan, str, str]]) -> list[str]:
        """Create and start the match of each (plan, server seed, request id), CREATE_BATCH
        per CreateMatches call; their ids. A request id names one match for good: a call
        retried with it answers with the match the first one created."""
        match_ids: list[str] = []
        for start in range(0, len(tables), CREATE_BATCH):
            reply = await self.engine.CreateMatches(
                engine_pb2.CreateMatchesRequest(
                    matches=[_request(*table) for table in tables[start : start + CREATE_BATCH]]
                ),
                metadata=self._service,
                timeout=self.timeout,
            )
            match_ids += [created.match.match_id for created in reply.matches]
        return match_ids

    async def find(self, player_id: str, commitment: str) -> str | None:
        """The match of ``player_id`` whose seed commitment is ``commitment``, if created."""
        token = tokens.issue_player_token(self.secret, player_id, ttl_seconds=60)
        reply = await self.engine.ListMatches(
            engine_pb2.ListMatchesRequest(limit=20),
            metadata=tokens.bearer_metadata(token),
            timeout=self.timeout,
        )
        for match in reply.matches:
            if match.seed_commitment == commitment:
                found: str = match.match_id
                return found
        return None

    async def abandon(self, match_id: str, seating: Sequence[tuple[str, int]]) -> None:
        """Hand every player's seat of a match nobody was told about to a bot (best effort)."""
        for player, seat in seating:
            try:
                await self.engine.Leave(
                    engine_pb2.LeaveRequest(match_id=match_id),
                    metadata=tokens.bearer_metadata(self.seat_token(match_id, seat, player)),
                    timeout=self.timeout,
                )
            except grpc.aio.AioRpcError as error:
                log.warning("leaving seat %d of abandoned match %s: %s", seat, match_id, error)

    def seat_token(self, match_id: str, seat: int, player_id: str) -> str:
        return tokens.issue_seat_token(self.secret, match_id, seat, player_id)


CREATE_BATCH = 64
"""Matches per CreateMatches call: the engine takes at most 64."""


def _request(plan: MatchPlan, server_seed: str, request_id: str) -> engine_pb2.CreateMatchRequest:
    return engine_pb2.CreateMatchRequest(
        ruleset=wire.ruleset_to_pb(Ruleset.parse(plan.ruleset)),
        seats=plan.seats,
        bots={seat: wire.bot_level_to_pb(level) for seat, level in plan.bots.items()},
        ranked=plan.ranked,
        server_seed=server_seed,
        turn_seconds=plan.turn_seconds,
        auto_start=True,
        players=[
            engine_pb2.SeatedPlayer(seat=seat, player_id=player) for player, seat in plan.seating
        ],
        request_id=request_id,
    )
