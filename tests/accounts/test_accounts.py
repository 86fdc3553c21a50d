"""Accounts over real gRPC on a real Redis (issue 26): an anonymous player claims a username and
keeps their id; usernames are unique after NFKC and case folding and refuse look-alikes and
reserved names; passwords sign in as NIST SP 800-63B asks; sessions end one by one or all at
once; every refusal carries its code, with a text in English and German."""

from __future__ import annotations

import secrets

import grpc
import pytest

from maumau.accounts.errors import MESSAGES, STATUS, translate
from maumau.v1 import accounts_pb2 as pb
from maumau.v1 import engine_pb2, engine_pb2_grpc, players_pb2, players_pb2_grpc
from tests.accounts.support import Player, trailer
from tests.support.rpc import auth

PASSWORD = "mau mau at the kitchen table"


def name() -> str:
    """A fresh username (the shared Redis keeps every test's)."""
    return "ada" + secrets.token_hex(4)


async def refused(call: object) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call  # type: ignore[misc]
    return caught.value


async def matches(channel: grpc.aio.Channel, token: str) -> engine_pb2.ListMatchesResponse:
    return await engine_pb2_grpc.EngineServiceStub(channel).ListMatches(
        engine_pb2.ListMatchesRequest(), metadata=auth(token)
    )


def test_every_code_has_a_status_and_both_texts() -> None:
    assert set(MESSAGES["en"]) == set(MESSAGES["de"]) == set(STATUS)
    for code, text in MESSAGES["en"].items():
        fields = {part.split("}")[0] for part in text.split("{")[1:]}
        german = {part.split("}")[0] for part in MESSAGES["de"][code].split("{")[1:]}
        assert fields == german, code


async def test_claiming_keeps_the_player_id_and_ends_the_anonymous_token(
    address: str, accounts_address: str
) -> None:
    player = await Player.register(address, accounts_address)
    anonymous = player.token
    username = name()
    answer = await player.claim(username, PASSWORD, device="laptop")
    assert answer.account.player_id == answer.signed_in.player_id == player.player_id
    assert answer.account.username == username and answer.account.has_password
    profile = (
        await players_pb2_grpc.PlayersServiceStub(player.engine).GetPlayer(
            players_pb2.GetPlayerRequest(player_id=player.player_id)
        )
    ).player
    assert profile.name == username  # the directory shows the username from now on
    await matches(player.engine, player.token)  # the session's token works on the engine
    error = await refused(matches(player.engine, anonymous))
    assert error.code() == grpc.StatusCode.UNAUTHENTICATED
    again = await refused(player.claim(name(), PASSWORD))
    assert again.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert trailer(again)["code"] == "already_claimed"
    await player.close()


@pytest.mark.parametrize(
    ("taken", "tried"),
    [
        ("Ada{}", "ADA{}"),  # case
        ("Ada{}", "\uff21\uff44\uff41{}"),  # fullwidth letters (NFKC)
        ("paypal{}", "p\u0430ypal{}"),  # a Cyrillic a (UTS #39 skeleton)
        ("Adal{}", "Ada1{}"),  # l and 1
        ("Mario{}", "rnario{}"),  # m and rn
    ],
)
async def test_a_username_is_refused_when_it_looks_like_one_taken(
    address: str, accounts_address: str, taken: str, tried: str
) -> None:
    tag = secrets.token_hex(3).replace("1", "x").replace("l", "y")
    first = await Player.register(address, accounts_address)
    second = await Player.register(address, accounts_address)
    await first.claim(taken.format(tag))
    error = await refused(second.claim(tried.format(tag)))
    assert error.code() == grpc.StatusCode.ALREADY_EXISTS, error.details()
    assert trailer(error)["code"] == "username_taken"
    assert "ist vergeben" in translate("username_taken", trailer(error)["params"], "de")
    await second.claim(name())  # the refusal changed nothing: another name still works
    await first.close()
    await second.close()


@pytest.mark.parametrize(
    ("username", "code"),
    [
        ("ab", "username_length"),
        ("a" * 21, "username_length"),
        ("Ada Lovelace", "username_characters"),
        ("-ada", "username_characters"),
        ("Computer 3", "username_characters"),
        ("Computer_3", "username_reserved"),
        ("C0mputer3", "username_reserved"),
        ("strong bot", "username_characters"),
        ("strongbot", "username_reserved"),
        ("bot:strong", "username_characters"),
        ("BotMaster", "username_reserved"),
        ("admin", "username_reserved"),
        ("Moderator", "username_reserved"),
    ],
)
async def test_usernames_follow_the_rules(
    address: str, accounts_address: str, username: str, code: str
) -> None:
    """3-20 characters; letters, digits, '_', '-', '.'; not the computer players' names
    (every level's display name, Computer N), admin, moderator or a name starting bot."""
    player = await Player.register(address, accounts_address)
    error = await refused(player.claim(username))
    assert (error.code(), trailer(error)["code"]) == (grpc.StatusCode.INVALID_ARGUMENT, code)
    await player.close()


async def test_passwords_as_nist_asks(address: str, accounts_address: str) -> None:
    """At least 8 characters, no composition rules, a common one refused (NIST SP 800-63B)."""
    player = await Player.register(address, accounts_address)
    for password, code in (("short", "password_length"), ("iloveyou", "password_common")):
        error = await refused(player.claim(name(), password))
        assert trailer(error)["code"] == code
    await player.claim(name(), "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
    error = await refused(
        player.stub.SetPassword(
            pb.SetPasswordRequest(password="two new words", current_password="wrong"),
            metadata=player.auth,
        )
    )
    assert trailer(error)["code"] == "password_wrong"
    await player.stub.SetPassword(
        pb.SetPasswordRequest(
            password="two new words",
            current_password="aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        ),
        metadata=player.auth,
    )
    await player.close()


async def test_signing_in_elsewhere_gives_a_session_of_the_same_player(
    address: str, accounts_address: str
) -> None:
    player = await Player.register(address, accounts_address)
    username = name()
    await player.claim(username, PASSWORD)
    stub = player.stub
    elsewhere = await stub.SignIn(
        pb.SignInRequest(username=username.upper(), password=PASSWORD, device="phone")
    )
    assert elsewhere.signed_in.player_id == player.player_id
    await matches(player.engine, elsewhere.signed_in.player_token)
    wrong = await refused(stub.SignIn(pb.SignInRequest(username=username, password="not it!!")))
    assert wrong.code() == grpc.StatusCode.UNAUTHENTICATED
    assert trailer(wrong)["code"] == "sign_in_failed"
    sessions = (await stub.ListSessions(pb.ListSessionsRequest(), metadata=player.auth)).sessions
    assert [(s.how, s.current) for s in sessions] == [("claim", True), ("password", False)]
    assert sessions[0].device.startswith("grpc-python")  # no device named: the user agent
    assert sessions[1].device == "phone" and sessions[1].address == "127.0.0.1"
    # Signing the phone out ends its token on every service at once.
    phone = next(s.session_id for s in sessions if s.device == "phone")
    await stub.SignOut(pb.SignOutRequest(session_id=phone), metadata=player.auth)
    error = await refused(matches(player.engine, elsewhere.signed_in.player_token))
    assert error.code() == grpc.StatusCode.UNAUTHENTICATED
    unknown = await refused(stub.SignOut(pb.SignOutRequest(session_id=phone), metadata=player.auth))
    assert trailer(unknown)["code"] == "session_unknown"
    # Renewing keeps the session; signing out everywhere ends all, and gives this device a new one.
    renewed = (
        await players_pb2_grpc.PlayersServiceStub(player.engine).RenewToken(
            players_pb2.RenewTokenRequest(), metadata=player.auth
        )
    ).token
    await matches(player.engine, renewed.player_token)
    everywhere = await stub.SignOutEverywhere(
        pb.SignOutEverywhereRequest(), metadata=auth(renewed.player_token)
    )
    for old in (player.token, renewed.player_token):
        assert (
            await refused(matches(player.engine, old))
        ).code() == grpc.StatusCode.UNAUTHENTICATED
    await matches(player.engine, everywhere.signed_in.player_token)
    listed = await stub.ListSessions(
        pb.ListSessionsRequest(), metadata=auth(everywhere.signed_in.player_token)
    )
    assert [(s.how, s.current) for s in listed.sessions] == [("claim", True)]
    await player.close()


async def test_an_account_call_needs_a_registered_players_token(
    address: str, accounts_address: str
) -> None:
    player = await Player.register(address, accounts_address)
    error = await refused(player.stub.GetAccount(pb.GetAccountRequest(), metadata=player.auth))
    assert trailer(error)["code"] == "no_account"
    error = await refused(player.stub.GetAccount(pb.GetAccountRequest()))
    assert error.code() == grpc.StatusCode.UNAUTHENTICATED
    await player.close()
