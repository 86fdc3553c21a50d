"""The Players gRPC service, served by the engine: register once, get a signed player token;
renew it before it ends, or revoke every token of yours at once. A token of an account's
session (from the Accounts service) stays that session's when renewed or revoked; a personal
access token is neither renewed nor used to revoke (PERMISSION_DENIED)."""

from __future__ import annotations

from typing import Any

import grpc

from maumau.common import tokens
from maumau.common.errors import ServiceError
from maumau.common.players import PlayerDirectory, check_name, is_bot
from maumau.common.quotas import Quotas
from maumau.v1 import players_pb2, players_pb2_grpc

Context = grpc.aio.ServicerContext[Any, Any]


class PlayersService(players_pb2_grpc.PlayersServiceServicer):
    def __init__(
        self,
        directory: PlayerDirectory,
        secret: bytes,
        quotas: Quotas,
        token_ttl_seconds: float = tokens.PLAYER_TOKEN_TTL_SECONDS,
    ) -> None:
        self.directory = directory
        self.secret = secret
        self.quotas = quotas
        self.token_ttl_seconds = token_ttl_seconds

    async def _token(
        self, player_id: str, generation: int, session: str | None = None
    ) -> tuple[str, int]:
        """A player token of the given generation (and session) and when it expires."""
        token = tokens.issue_player_token(
            self.secret,
            player_id,
            generation=generation,
            ttl_seconds=self.token_ttl_seconds,
            session=session,
        )
        expires_at = tokens.verify_player_token(self.secret, token).expires_at
        if session is not None:
            await self.directory.renew_grant(player_id, session, expires_at)
        return token, expires_at

    async def Register(
        self, request: players_pb2.RegisterRequest, context: Context
    ) -> players_pb2.RegisterResponse:
        try:
            check_name(request.name)
        except ValueError as error:
            raise ServiceError(grpc.StatusCode.INVALID_ARGUMENT, str(error)) from None
        await self.quotas.spend_registration(context)
        player_id = await self.directory.register(request.name)
        token, expires_at = await self._token(player_id, 0)
        return players_pb2.RegisterResponse(
            player_id=player_id, player_token=token, expires_at=expires_at
        )

    async def RenewToken(
        self, request: players_pb2.RenewTokenRequest, context: Context
    ) -> players_pb2.RenewTokenResponse:
        claims = await self._caller(context)
        token, expires_at = await self._token(
            claims.player_id, await self.directory.generation(claims.player_id), claims.session
        )
        token_pb = players_pb2.PlayerToken(player_token=token, expires_at=expires_at)
        return players_pb2.RenewTokenResponse(token=token_pb)

    async def RevokeTokens(
        self, request: players_pb2.RevokeTokensRequest, context: Context
    ) -> players_pb2.RevokeTokensResponse:
        claims = await self._caller(context)
        token, expires_at = await self._token(
            claims.player_id, await self.directory.revoke_tokens(claims.player_id), claims.session
        )
        token_pb = players_pb2.PlayerToken(player_token=token, expires_at=expires_at)
        return players_pb2.RevokeTokensResponse(token=token_pb)

    async def _caller(self, context: Context) -> tokens.PlayerClaims:
        """The registered player whose own, current token the call shows."""
        claims = tokens.verify_player_token(
            self.secret, tokens.bearer(context), needs=tokens.Scope.ACCOUNT
        )
        if claims.generation is None or not await self.directory.name(claims.player_id):
            raise ServiceError(
                grpc.StatusCode.PERMISSION_DENIED,
                "only a registered player's own token (from Register) may renew or revoke tokens",
            )
        return await self.directory.check_token(claims)

    async def GetPlayer(
        self, request: players_pb2.GetPlayerRequest, context: Context
    ) -> players_pb2.GetPlayerResponse:
        if not request.player_id or len(request.player_id) > 128:
            raise ServiceError(grpc.StatusCode.INVALID_ARGUMENT, "player_id: 1-128 characters")
        name = await self.directory.name(request.player_id)
        if not name:
            raise ServiceError(grpc.StatusCode.NOT_FOUND, f"no player {request.player_id!r}")
        bot = await is_bot(self.directory.redis, request.player_id)
        player = players_pb2.Player(player_id=request.player_id, name=name, bot=bot)
        return players_pb2.GetPlayerResponse(player=player)
