"""Passkeys (issue 26): register one or several, sign in with one on any device; each challenge
is used once and expires; an answer for another origin, another challenge or with a forged
signature is refused. The authenticator is tests/accounts/authenticator.py: a real P-256 key
signing the client data, attestation 'none', as a browser's platform authenticator answers."""

from __future__ import annotations

import json
import secrets

import grpc
import pytest

from maumau.v1 import accounts_pb2 as pb
from maumau.v1 import engine_pb2, engine_pb2_grpc
from tests.accounts.authenticator import Authenticator, b64, unb64
from tests.accounts.support import ORIGIN, Player, trailer
from tests.support.rpc import auth


async def account(address: str, accounts_address: str) -> Player:
    player = await Player.register(address, accounts_address)
    await player.claim("key" + secrets.token_hex(4))
    return player


async def register(player: Player, device: Authenticator, name: str = "") -> pb.Passkey:
    begun = await player.stub.BeginPasskeyRegistration(
        pb.BeginPasskeyRegistrationRequest(), metadata=player.auth
    )
    options = json.loads(begun.options_json)
    assert options["rp"] == {"id": "localhost", "name": "Mau-Mau"}
    assert options["authenticatorSelection"]["residentKey"] == "required"
    answer = device.create(begun.options_json)
    finished = await player.stub.FinishPasskeyRegistration(
        pb.FinishPasskeyRegistrationRequest(
            challenge_id=begun.challenge_id, credential_json=answer, name=name
        ),
        metadata=player.auth,
    )
    return finished.passkey


async def sign_in(player: Player, device: Authenticator, **tamper: object) -> pb.SignedIn:
    begun = await player.stub.BeginPasskeySignIn(pb.BeginPasskeySignInRequest())
    answer = device.get(begun.options_json, **tamper)
    finished = await player.stub.FinishPasskeySignIn(
        pb.FinishPasskeySignInRequest(challenge_id=begun.challenge_id, credential_json=answer)
    )
    return finished.signed_in


async def test_a_passkey_signs_in_on_another_device_as_the_same_player(
    address: str, accounts_address: str
) -> None:
    player = await account(address, accounts_address)
    phone, laptop = Authenticator(ORIGIN), Authenticator(ORIGIN)
    first = await register(player, phone, "phone")
    second = await register(player, laptop)
    assert (first.name, second.name) == ("phone", "passkey 2")
    signed_in = await sign_in(player, phone)
    assert signed_in.player_id == player.player_id
    await engine_pb2_grpc.EngineServiceStub(player.engine).ListMatches(
        engine_pb2.ListMatchesRequest(), metadata=auth(signed_in.player_token)
    )
    assert (await sign_in(player, laptop)).player_id == player.player_id
    got = await player.stub.GetAccount(pb.GetAccountRequest(), metadata=player.auth)
    used = {p.credential_id: p.last_used_at for p in got.account.passkeys}
    assert set(used) == {first.credential_id, second.credential_id} and all(used.values())
    sessions = await player.stub.ListSessions(pb.ListSessionsRequest(), metadata=player.auth)
    assert [s.how for s in sessions.sessions] == ["claim", "passkey", "passkey"]
    await player.close()


async def test_a_challenge_is_used_once_and_a_forged_answer_is_refused(
    address: str, accounts_address: str
) -> None:
    player = await account(address, accounts_address)
    device = Authenticator(ORIGIN)
    await register(player, device)
    begun = await player.stub.BeginPasskeySignIn(pb.BeginPasskeySignInRequest())
    answer = device.get(begun.options_json)
    request = pb.FinishPasskeySignInRequest(challenge_id=begun.challenge_id, credential_json=answer)
    await player.stub.FinishPasskeySignIn(request)
    with pytest.raises(grpc.aio.AioRpcError) as replayed:
        await player.stub.FinishPasskeySignIn(request)
    assert trailer(replayed.value)["code"] == "challenge_unknown"

    for tamper, code in (
        ({"origin": "https://evil.example"}, "passkey_failed"),
        ({"challenge": b64(b"another challenge")}, "passkey_failed"),
        ({"type": "webauthn.create"}, "passkey_failed"),
    ):
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await sign_in(player, device, **tamper)
        assert (caught.value.code(), trailer(caught.value)["code"]) == (
            grpc.StatusCode.UNAUTHENTICATED,
            code,
        ), tamper

    # A signature by another key over the same data: refused.
    begun = await player.stub.BeginPasskeySignIn(pb.BeginPasskeySignInRequest())
    thief = Authenticator(ORIGIN)
    thief.create(
        json.dumps(
            {
                "rp": {"id": "localhost"},
                "user": {"id": b64(player.player_id.encode())},
                "challenge": "AA",
            }
        )
    )
    forged = json.loads(thief.get(begun.options_json))
    forged["id"] = forged["rawId"] = b64(device.passkeys[0].credential_id)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await player.stub.FinishPasskeySignIn(
            pb.FinishPasskeySignInRequest(
                challenge_id=begun.challenge_id, credential_json=json.dumps(forged)
            )
        )
    assert trailer(caught.value)["code"] == "passkey_failed"
    await player.close()


async def test_a_passkey_registered_elsewhere_or_unknown_does_not_sign_in(
    address: str, accounts_address: str
) -> None:
    player = await account(address, accounts_address)
    stranger = Authenticator(ORIGIN)
    stranger.create(
        json.dumps({"rp": {"id": "localhost"}, "user": {"id": b64(b"someone")}, "challenge": "AA"})
    )
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await sign_in(player, stranger)
    assert trailer(caught.value)["code"] == "passkey_failed"
    device = Authenticator(ORIGIN)
    passkey = await register(player, device)
    # A registration answer for another origin is refused, and its challenge is spent.
    begun = await player.stub.BeginPasskeyRegistration(
        pb.BeginPasskeyRegistrationRequest(), metadata=player.auth
    )
    wrong = Authenticator("https://evil.example").create(begun.options_json)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await player.stub.FinishPasskeyRegistration(
            pb.FinishPasskeyRegistrationRequest(
                challenge_id=begun.challenge_id, credential_json=wrong
            ),
            metadata=player.auth,
        )
    assert trailer(caught.value)["code"] == "passkey_invalid"
    # The last way to sign in cannot go; with a password beside it, it can.
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await player.stub.RemovePasskey(
            pb.RemovePasskeyRequest(credential_id=passkey.credential_id), metadata=player.auth
        )
    assert trailer(caught.value)["code"] == "last_way"
    await player.stub.SetPassword(
        pb.SetPasswordRequest(password="a passphrase of mine"), metadata=player.auth
    )
    await player.stub.RemovePasskey(
        pb.RemovePasskeyRequest(credential_id=passkey.credential_id), metadata=player.auth
    )
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await sign_in(player, device)
    assert trailer(caught.value)["code"] == "passkey_failed"
    assert unb64(passkey.credential_id) == device.passkeys[0].credential_id
    await player.close()
