"""Personal access tokens (issue 26): named, scoped, shown once, listed, revoked; a token's scope
is checked on every call of every service: a `read` token looks, a `play` token plays, neither
manages the account, and `bot:play` is a bot account's only (tests/accounts/test_arena_bots.py)."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator

import grpc
import jwt
import pytest

from maumau.common.redis_server import EmbeddedRedis
from maumau.engine.app import EngineApp
from maumau.matchmaking.app import MatchmakingApp
from maumau.v1 import accounts_pb2 as pb
from maumau.v1 import (
    engine_pb2,
    engine_pb2_grpc,
    game_pb2,
    matchmaking_pb2,
    matchmaking_pb2_grpc,
    players_pb2,
    players_pb2_grpc,
)
from tests.accounts.support import Player, trailer
from tests.matchmaking.support import start_matchmaker
from tests.support.rpc import auth


@pytest.fixture
async def matchmaker(
    redis_server: EmbeddedRedis, engine: EngineApp
) -> AsyncIterator[MatchmakingApp]:
    app = await start_matchmaker(redis_server.url, f"127.0.0.1:{engine.port}")
    yield app
    await app.stop(0)
    await app.redis.aclose()


async def code_of(call: object) -> grpc.StatusCode:
    try:
        await call  # type: ignore[misc]
    except grpc.aio.AioRpcError as error:
        return error.code()
    return grpc.StatusCode.OK


async def account(address: str, accounts_address: str) -> Player:
    player = await Player.register(address, accounts_address)
    await player.claim("tok" + secrets.token_hex(4))
    return player


async def create(
    player: Player, scope: int, name: str = "script", days: int = 0
) -> pb.CreateAccessTokenResponse:
    return await player.stub.CreateAccessToken(
        pb.CreateAccessTokenRequest(name=name, scope=scope, ttl_days=days), metadata=player.auth
    )


async def test_a_read_token_looks_and_is_refused_every_write(
    address: str, accounts_address: str, matchmaker: MatchmakingApp
) -> None:
    player = await account(address, accounts_address)
    engine = engine_pb2_grpc.EngineServiceStub(player.engine)
    created = await engine.CreateMatch(
        engine_pb2.CreateMatchRequest(
            ruleset=game_pb2.Ruleset(preset="classic"), seats=2,
            bots={1: game_pb2.BOT_LEVEL_RANDOM}, auto_start=True,
        ),
        metadata=player.auth,
    )  # fmt: skip
    match_id = created.match.match_id
    read = (await create(player, pb.TOKEN_SCOPE_READ)).access_token
    claims = jwt.decode(read, options={"verify_signature": False})
    assert claims["scp"] == "read" and claims["sub"] == player.player_id
    looking = auth(read)
    reads = [
        engine.ListMatches(engine_pb2.ListMatchesRequest(), metadata=looking),
        engine.GetMatch(engine_pb2.GetMatchRequest(match_id=match_id), metadata=looking),
        engine.GetView(engine_pb2.GetViewRequest(match_id=match_id), metadata=looking),
    ]
    assert [await code_of(call) for call in reads] == [grpc.StatusCode.OK] * len(reads)
    denied = grpc.StatusCode.PERMISSION_DENIED
    queue = matchmaking_pb2_grpc.MatchmakingServiceStub(
        grpc.aio.insecure_channel(f"127.0.0.1:{matchmaker.port}")
    )
    players = players_pb2_grpc.PlayersServiceStub(player.engine)
    classic = game_pb2.Ruleset(preset="classic")
    draw = game_pb2.Action(text="draw")
    writes = [
        engine.Act(engine_pb2.ActRequest(request_id="r1", action=draw), metadata=looking),
        engine.CreateMatch(engine_pb2.CreateMatchRequest(ruleset=classic), metadata=looking),
        engine.JoinMatch(engine_pb2.JoinMatchRequest(match_id=match_id), metadata=looking),
        engine.Leave(engine_pb2.LeaveRequest(), metadata=looking),
        queue.Enqueue(matchmaking_pb2.EnqueueRequest(ruleset=classic), metadata=looking),
        queue.CreateRoom(matchmaking_pb2.CreateRoomRequest(), metadata=looking),
        players.RevokeTokens(players_pb2.RevokeTokensRequest(), metadata=looking),
        players.RenewToken(players_pb2.RenewTokenRequest(), metadata=looking),
        player.stub.CreateAccessToken(pb.CreateAccessTokenRequest(name="x"), metadata=looking),
        player.stub.DeleteAccount(pb.DeleteAccountRequest(username="x"), metadata=looking),
        player.stub.ListSessions(pb.ListSessionsRequest(), metadata=looking),
    ]
    assert [await code_of(call) for call in writes] == [denied] * len(writes)
    await player.close()


async def test_a_play_token_plays_but_does_not_manage_the_account(
    address: str, accounts_address: str
) -> None:
    player = await account(address, accounts_address)
    play = auth((await create(player, pb.TOKEN_SCOPE_PLAY)).access_token)
    engine = engine_pb2_grpc.EngineServiceStub(player.engine)
    created = await engine.CreateMatch(
        engine_pb2.CreateMatchRequest(
            ruleset=game_pb2.Ruleset(preset="classic"), seats=2,
            bots={1: game_pb2.BOT_LEVEL_RANDOM}, auto_start=True,
        ),
        metadata=play,
    )  # fmt: skip
    seat = auth(created.seat_tokens[0])  # its seat token acts as any seat token does
    view = (await engine.GetView(engine_pb2.GetViewRequest(), metadata=seat)).view
    assert view.seat == 0
    for call in (
        player.stub.GetAccount(pb.GetAccountRequest(), metadata=play),
        player.stub.SignOutEverywhere(pb.SignOutEverywhereRequest(), metadata=play),
    ):
        assert await code_of(call) == grpc.StatusCode.PERMISSION_DENIED
    await player.close()


async def test_tokens_are_listed_revoked_and_bounded(address: str, accounts_address: str) -> None:
    player = await account(address, accounts_address)
    made = await create(player, pb.TOKEN_SCOPE_READ, "nightly stats", days=7)
    assert made.token.scope == pb.TOKEN_SCOPE_READ and made.token.name == "nightly stats"
    assert made.token.expires_at - made.token.created_at == 7 * 86400
    listed = await player.stub.ListAccessTokens(pb.ListAccessTokensRequest(), metadata=player.auth)
    assert [(t.token_id, t.name) for t in listed.tokens] == [(made.token.token_id, "nightly stats")]
    assert made.access_token not in str(listed)  # shown once: never listed
    engine = engine_pb2_grpc.EngineServiceStub(player.engine)
    await engine.ListMatches(engine_pb2.ListMatchesRequest(), metadata=auth(made.access_token))
    await player.stub.RevokeAccessToken(
        pb.RevokeAccessTokenRequest(token_id=made.token.token_id), metadata=player.auth
    )
    assert (
        await code_of(
            engine.ListMatches(engine_pb2.ListMatchesRequest(), metadata=auth(made.access_token))
        )
        == grpc.StatusCode.UNAUTHENTICATED
    )
    for request, code in (
        (pb.CreateAccessTokenRequest(name="none"), "token_scope"),
        (pb.CreateAccessTokenRequest(name="", scope=pb.TOKEN_SCOPE_READ), "token_name"),
        (
            pb.CreateAccessTokenRequest(name="x", scope=pb.TOKEN_SCOPE_READ, ttl_days=9999),
            "token_days",
        ),
    ):
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await player.stub.CreateAccessToken(request, metadata=player.auth)
        assert (caught.value.code(), trailer(caught.value)["code"]) == (
            grpc.StatusCode.INVALID_ARGUMENT,
            code,
        )
    await player.close()
