"""The engine as the tournaments service uses it, through its gRPC API only.

Matches are created with the service token (players seated at creation, bot entrants as bot
seats, started at once), as the matchmaker does, each with a request id that the tournament
records first: a replica taking over a creation whose replica died repeats it with the same id
and gets the match the first call made, if it made one, so no table is ever created twice.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from collections.abc import AsyncIterator, Mapping, Sequence

import grpc

from maumau import wire
from maumau.common import tokens
from maumau.rules import Ruleset
from maumau.v1 import engine_pb2, engine_pb2_grpc, game_pb2

log = logging.getLogger(__name__)

SPECTATOR = "tournaments-service"
"""The player id of the spectator token the service follows matches with."""


def new_seed() -> tuple[str, str]:
    """A server seed and its commitment (SHA-256 hex, as the engine publishes it)."""
    seed = secrets.token_hex(32)
    return seed, hashlib.sha256(seed.encode()).hexdigest()


class Engine:
    def __init__(self, channel: grpc.aio.Channel, secret: bytes, timeout: float) -> None:
        self.stub = engine_pb2_grpc.EngineServiceStub(channel)
        self.secret = secret
        self.timeout = timeout
        self._service = auth(tokens.issue_service_token(secret, "tournaments"))

    async def create(
        self,
        ruleset: str,
        players: Sequence[tuple[int, str]],
        bots: Mapping[int, str],
        seats: int,
        turn_seconds: int,
        server_seed: str,
        *,
        request_id: str,
    ) -> str:
        reply = await self.stub.CreateMatch(
            engine_pb2.CreateMatchRequest(
                ruleset=wire.ruleset_to_pb(Ruleset.parse(ruleset)),
                seats=seats,
                bots={seat: wire.bot_level_to_pb(level) for seat, level in bots.items()},
                server_seed=server_seed,
                turn_seconds=turn_seconds,
                auto_start=True,
                players=[engine_pb2.SeatedPlayer(seat=s, player_id=p) for s, p in players],
                request_id=request_id,
            ),
            metadata=self._service,
            timeout=self.timeout,
        )
        match_id: str = reply.match.match_id
        return match_id

    async def follow(self, match_id: str) -> AsyncIterator[game_pb2.Event]:
        """Every event of the match as a spectator sees it, from the start, until its end."""
        token = tokens.issue_player_token(self.secret, SPECTATOR, ttl_seconds=3600)
        stream = self.stub.Follow(engine_pb2.FollowRequest(match_id=match_id), metadata=auth(token))
        async for item in stream:
            yield item.event

    async def leave(self, match_id: str, seat: int, player_id: str) -> None:
        """Hand a player's seat to a bot (the player left the tournament); best effort."""
        token = tokens.issue_seat_token(self.secret, match_id, seat, player_id)
        try:
            await self.stub.Leave(
                engine_pb2.LeaveRequest(match_id=match_id),
                metadata=auth(token),
                timeout=self.timeout,
            )
        except grpc.aio.AioRpcError as error:
            log.warning("leaving seat %d of match %s: %s", seat, match_id, error.details())

    def seat_token(self, match_id: str, seat: int, player_id: str) -> str:
        return tokens.issue_seat_token(self.secret, match_id, seat, player_id)


def auth(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)
