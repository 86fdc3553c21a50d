"""The Players gRPC service, served by the engine: register once, get a signed player token."""

from __future__ import annotations

from typing import Any

import grpc

from maumau.common import tokens
from maumau.common.errors import ServiceError
from maumau.common.players import PlayerDirectory, check_name
from maumau.common.quotas import Quotas
from maumau.v1 import players_pb2, players_pb2_grpc

Context = grpc.aio.ServicerContext[Any, Any]


class PlayersService(players_pb2_grpc.PlayersServicer):
    def __init__(self, directory: PlayerDirectory, secret: bytes, quotas: Quotas) -> None:
        self.directory = directory
        self.secret = secret
        self.quotas = quotas

    async def Register(
        self, request: players_pb2.RegisterRequest, context: Context
    ) -> players_pb2.RegisterResponse:
        try:
            check_name(request.name)
        except ValueError as error:
            raise ServiceError(grpc.StatusCode.INVALID_ARGUMENT, str(error)) from None
        await self.quotas.spend_registration(context)
        player_id = await self.directory.register(request.name)
        token = tokens.issue_player_token(self.secret, player_id)
        return players_pb2.RegisterResponse(player_id=player_id, player_token=token)

    async def GetPlayer(
        self, request: players_pb2.GetPlayerRequest, context: Context
    ) -> players_pb2.Player:
        name = await self.directory.name(request.player_id)
        if not name:
            raise ServiceError(grpc.StatusCode.NOT_FOUND, f"no player {request.player_id!r}")
        return players_pb2.Player(player_id=request.player_id, name=name)
