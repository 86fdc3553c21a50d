"""What the other services hold about a player, read through their public gRPC APIs (the
architecture lets services meet only through contracts): the engine's ListMatches (with a
short player token the service issues itself on the player's behalf, never handed out), the
rating service's GetProfile and History, the tournaments service's GetPlayerTournaments.

Each part is read on its own: a service that does not answer is named in the export's
``unavailable`` list instead of failing the whole export; the account's own part (profile,
sign-in ways, sessions, tokens) always comes from Redis.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from typing import Any

import grpc
from google.protobuf.json_format import MessageToDict
from google.protobuf.message import Message

from maumau.common import tokens
from maumau.v1 import (
    engine_pb2,
    engine_pb2_grpc,
    rating_pb2,
    rating_pb2_grpc,
    tournaments_pb2,
    tournaments_pb2_grpc,
)

log = logging.getLogger(__name__)

CALL_SECONDS = 10.0
MOST = 100
"""The most matches, history entries and tournaments each service lists at once."""
ON_BEHALF_SECONDS = 60
# The field of each response that holds the resource the export keeps.
WRAPPED = {"profile": "profile", "history": "page", "tournaments": "tournaments"}


def _dict(message: Message) -> dict[str, Any]:
    return MessageToDict(message, preserving_proto_field_name=True)


class Services:
    """Channels to the services an export reads from (round robin over what each target
    names, as the other services call one another)."""

    def __init__(self, engine: str, rating: str, tournaments: str, secret: bytes) -> None:
        options = [("grpc.lb_policy_name", "round_robin")]
        self._channels = [
            grpc.aio.insecure_channel(target, options=options)
            for target in (engine, rating, tournaments)
        ]
        self.engine = engine_pb2_grpc.EngineServiceStub(self._channels[0])
        self.rating = rating_pb2_grpc.RatingServiceStub(self._channels[1])
        self.tournaments = tournaments_pb2_grpc.TournamentsServiceStub(self._channels[2])
        self.secret = secret

    async def close(self) -> None:
        for channel in self._channels:
            await channel.close()

    async def gather(self, player_id: str) -> tuple[dict[str, Any], list[str]]:
        """The player's matches, ratings and XP, history and tournaments, and the services
        that did not answer."""
        token = tokens.issue_player_token(self.secret, player_id, ttl_seconds=ON_BEHALF_SECONDS)
        metadata = tokens.bearer_metadata(token)
        parts: dict[str, Awaitable[Message]] = {
            "matches": self.engine.ListMatches(
                engine_pb2.ListMatchesRequest(limit=MOST), metadata=metadata, timeout=CALL_SECONDS
            ),
            "profile": self.rating.GetProfile(
                rating_pb2.GetProfileRequest(player_id=player_id, recent=MOST),
                timeout=CALL_SECONDS,
            ),
            "history": self.rating.History(
                rating_pb2.HistoryRequest(player_id=player_id, limit=MOST), timeout=CALL_SECONDS
            ),
            "tournaments": self.tournaments.GetPlayerTournaments(
                tournaments_pb2.GetPlayerTournamentsRequest(player=player_id, limit=MOST),
                timeout=CALL_SECONDS,
            ),
        }
        answers = await asyncio.gather(*parts.values(), return_exceptions=True)
        found: dict[str, Any] = {}
        unavailable: list[str] = []
        for name, answer in zip(parts, answers, strict=True):
            if isinstance(answer, grpc.aio.AioRpcError) and answer.code() in (
                grpc.StatusCode.NOT_FOUND,
            ):
                found[name] = None  # the service knows nothing of the player: nothing to export
            elif isinstance(answer, BaseException):
                log.warning("export: %s could not be read (%r)", name, answer)
                unavailable.append(name)
            else:
                # The document keeps each resource as it is, not the response that wraps it.
                found[name] = _dict(getattr(answer, WRAPPED[name]) if name in WRAPPED else answer)
        return found, unavailable
