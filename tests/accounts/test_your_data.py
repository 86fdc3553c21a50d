"""Your data (issue 26): the export holds everything the platform keeps about the account, read
through the services' APIs and checked against what Redis really stores; deleting ends every
way in at once, keeps past results for the opponents' ratings under "deleted player", and frees
the username only after the cooling-off."""

from __future__ import annotations

import json
import secrets

import grpc
import pytest
import redis.asyncio

from maumau.accounts.store import account_key, player_key
from maumau.common.redis_server import EmbeddedRedis
from maumau.v1 import accounts_pb2 as pb
from maumau.v1 import engine_pb2, engine_pb2_grpc, game_pb2, players_pb2, players_pb2_grpc
from tests.accounts.authenticator import Authenticator
from tests.accounts.support import ORIGIN, Player, start_accounts, stop_accounts, trailer
from tests.gateway.support import platform
from tests.support.rpc import auth

PASSWORD = "my own three words"


async def test_the_export_holds_the_account_its_matches_ratings_and_tournaments(
    redis_server: EmbeddedRedis,
) -> None:
    async with platform(redis_server.url) as services:
        engine = f"127.0.0.1:{services.engine.port}"
        accounts = f"127.0.0.1:{services.accounts.port}"
        player = await Player.register(engine, accounts)
        username = "exp" + secrets.token_hex(4)
        await player.claim(username, PASSWORD, device="laptop")
        created = await engine_pb2_grpc.EngineServiceStub(player.engine).CreateMatch(
            engine_pb2.CreateMatchRequest(
                ruleset=game_pb2.Ruleset(preset="classic"),
                seats=2,
                bots={1: game_pb2.BOT_LEVEL_RANDOM},
                auto_start=True,
            ),
            metadata=player.auth,
        )
        await player.stub.CreateAccessToken(
            pb.CreateAccessTokenRequest(name="stats", scope=pb.TOKEN_SCOPE_READ),
            metadata=player.auth,
        )
        exported = await player.stub.ExportAccount(pb.ExportAccountRequest(), metadata=player.auth)
        document = json.loads(exported.json)
        assert document["account"]["player_id"] == player.player_id
        assert document["account"]["username"] == username
        assert document["account"]["has_password"] is True
        assert "password" not in exported.json.replace("has_password", "")  # never the hash
        assert [s["device"] for s in document["sessions"]] == ["laptop"]
        assert [t["name"] for t in document["access_tokens"]] == ["stats"]
        assert [m["match_id"] for m in document["matches"]["matches"]] == [created.match.match_id]
        assert document["profile"]["player_id"] == player.player_id  # rating: XP and ratings
        assert "tournaments" in document and document["unavailable"] == []
        # What Redis holds for the account is all in it.
        stored = await services.clients[0].hgetall(account_key(player.player_id))
        assert {k.decode() for k in stored} == {
            "username",
            "folded",
            "skeletons",
            "created_at",
            "password",
        }
        grants = [
            k.decode()
            for k in await services.clients[0].hkeys(player_key(player.player_id))
            if k.startswith(b"grant:")
        ]
        listed = {s["session_id"] for s in document["sessions"]}
        listed |= {t["token_id"] for t in document["access_tokens"]}
        assert {g.removeprefix("grant:") for g in grants} == listed
        await player.close()


async def test_deleting_ends_every_way_in_and_frees_the_name_after_the_cooling_off(
    client: redis.asyncio.Redis, address: str, accounts_address: str
) -> None:
    player = await Player.register(address, accounts_address)
    username = "del" + secrets.token_hex(4)
    await player.claim(username, PASSWORD)
    device = Authenticator(ORIGIN)
    begun = await player.stub.BeginPasskeyRegistration(
        pb.BeginPasskeyRegistrationRequest(), metadata=player.auth
    )
    await player.stub.FinishPasskeyRegistration(
        pb.FinishPasskeyRegistrationRequest(
            challenge_id=begun.challenge_id, credential_json=device.create(begun.options_json)
        ),
        metadata=player.auth,
    )
    other = await player.stub.SignIn(pb.SignInRequest(username=username, password=PASSWORD))
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await player.stub.DeleteAccount(
            pb.DeleteAccountRequest(username="someone else"), metadata=player.auth
        )
    assert trailer(caught.value)["code"] == "delete_confirm"
    deleted = await player.stub.DeleteAccount(
        pb.DeleteAccountRequest(username=username.upper()), metadata=player.auth
    )
    assert deleted.name_free_at - deleted.deleted_at == 30 * 86400
    engine = engine_pb2_grpc.EngineServiceStub(player.engine)
    for token in (player.token, other.signed_in.player_token):
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await engine.ListMatches(engine_pb2.ListMatchesRequest(), metadata=auth(token))
        assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await player.stub.SignIn(pb.SignInRequest(username=username, password=PASSWORD))
    assert trailer(caught.value)["code"] == "sign_in_failed"
    begun_sign_in = await player.stub.BeginPasskeySignIn(pb.BeginPasskeySignInRequest())
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await player.stub.FinishPasskeySignIn(
            pb.FinishPasskeySignInRequest(
                challenge_id=begun_sign_in.challenge_id,
                credential_json=device.get(begun_sign_in.options_json),
            )
        )
    assert trailer(caught.value)["code"] == "passkey_failed"
    shown = (
        await players_pb2_grpc.PlayersServiceStub(player.engine).GetPlayer(
            players_pb2.GetPlayerRequest(player_id=player.player_id)
        )
    ).player
    assert shown.name == "deleted player"  # past results show this name to the opponents
    newcomer = await Player.register(address, accounts_address)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await newcomer.claim(username)
    assert trailer(caught.value)["code"] == "username_taken"  # cooling off
    held = [
        key
        async for key in client.scan_iter(match="account:*:*", count=1000)
        if await client.get(key) == player.player_id.encode()
    ]
    assert {k.decode().split(":")[1] for k in held} == {"look", "name"}
    for key in held:  # no passkey key is kept; the name's and looks' wait out the cooling-off
        assert 0 < await client.ttl(key) <= 30 * 86400
    assert await client.ttl(account_key(player.player_id)) > 0
    # Once the cooling-off is over (here: its keys expire now), the name is free again.
    await client.delete(*held)
    await newcomer.claim(username)
    await player.close()
    await newcomer.close()


async def test_with_no_cooling_off_the_name_is_free_at_once(
    redis_server: EmbeddedRedis, address: str
) -> None:
    app = await start_accounts(redis_server.url, address, name_cooling_off_days=0)
    accounts_address = f"127.0.0.1:{app.port}"
    player = await Player.register(address, accounts_address)
    username = "now" + secrets.token_hex(4)
    await player.claim(username, PASSWORD)
    await player.stub.DeleteAccount(
        pb.DeleteAccountRequest(username=username), metadata=player.auth
    )
    newcomer = await Player.register(address, accounts_address)
    await newcomer.claim(username)
    await player.close()
    await newcomer.close()
    await stop_accounts(app)
