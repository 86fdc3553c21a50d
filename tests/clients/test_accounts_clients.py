"""An account from the SDK and the terminal, against the whole platform: an anonymous player
claims a username, signs in on a second device as the same player, lists and ends sessions,
makes and revokes a personal access token, exports and deletes; ``maumau account`` and
``maumau login`` do the same as real processes."""

from __future__ import annotations

import json
import re
import tempfile

import grpc
import pexpect
import pytest

from maumau_sdk import MauMauError
from tests.clients.test_cli_platform import spawn

PASSWORD = "tulip-harbour-lantern"


async def test_a_claimed_account_signs_in_on_another_device_as_the_same_player(everywhere):
    platform = everywhere
    player = await platform.register("Ada")
    anonymous_token = player.token
    account = await player.account.claim("ada_sdk", password=PASSWORD, device="phone")
    assert account.username == "ada_sdk" and account.player_id == player.player_id
    assert player.token != anonymous_token and player.name == "ada_sdk"
    with pytest.raises(MauMauError) as ended:  # the anonymous token ended with the claim
        await platform.player(player.player_id, anonymous_token).renew_token()
    assert ended.value.status == grpc.StatusCode.UNAUTHENTICATED

    laptop = await platform.login("ada_sdk", PASSWORD, device="laptop")
    assert laptop.player_id == player.player_id and laptop.name == "ada_sdk"
    sessions = await laptop.account.sessions()
    assert sorted(s.device for s in sessions) == ["laptop", "phone"]
    assert [s.device for s in sessions if s.current] == ["laptop"]

    with pytest.raises(MauMauError) as wrong:
        await platform.login("ada_sdk", PASSWORD + "!")
    assert wrong.value.status == grpc.StatusCode.UNAUTHENTICATED

    phone = next(s for s in sessions if s.device == "phone")
    await laptop.account.sign_out(phone.session_id)
    with pytest.raises(MauMauError) as signed_out:
        await player.renew_token()
    assert signed_out.value.status == grpc.StatusCode.UNAUTHENTICATED
    assert [s.device for s in await laptop.account.sessions()] == ["laptop"]


async def test_a_personal_access_token_plays_reads_or_is_revoked(everywhere):
    platform = everywhere
    player = await platform.register("Tokens")
    await player.account.claim("tok_sdk", password=PASSWORD)
    listed, secret = await player.account.create_access_token("reader", scope="read")
    assert listed.name == "reader" and secret
    reader = platform.player(player.player_id, secret)
    assert await reader.matches() == []  # a read token reads
    with pytest.raises(MauMauError) as write:
        await reader.create_match("classic", 2, bots={1: "random"})
    assert write.value.status == grpc.StatusCode.PERMISSION_DENIED
    with pytest.raises(MauMauError) as manage:  # no access token manages the account
        await reader.account.sessions()
    assert manage.value.status == grpc.StatusCode.PERMISSION_DENIED
    assert [t.token_id for t in await player.account.access_tokens()] == [listed.token_id]
    await player.account.revoke_access_token(listed.token_id)
    with pytest.raises(MauMauError) as revoked:
        await reader.matches()
    assert revoked.value.status == grpc.StatusCode.UNAUTHENTICATED
    with pytest.raises(MauMauError) as not_a_bot:  # bot:play is a bot account's alone
        await player.account.create_access_token("bot", scope="bot:play")
    assert not_a_bot.value.status == grpc.StatusCode.FAILED_PRECONDITION
    assert not_a_bot.value.code == "bot_token_not_bot"
    assert [t.token_id for t in await player.account.access_tokens()] == []
    with pytest.raises(ValueError, match="scope"):
        await player.account.create_access_token("admin", scope="admin")


async def test_export_then_delete(everywhere):
    platform = everywhere
    player = await platform.register("Leaving")
    await player.account.claim("leaving_sdk", password=PASSWORD)
    exported = await player.account.export()
    assert json.dumps(exported).count("leaving_sdk") >= 1
    with pytest.raises(MauMauError):  # the username typed wrong: nothing happens
        await player.account.delete("someone_else")
    assert (await player.account.get()).username == "leaving_sdk"
    await player.account.delete("leaving_sdk")
    with pytest.raises(MauMauError) as gone:
        await platform.login("leaving_sdk", PASSWORD)
    assert gone.value.status == grpc.StatusCode.UNAUTHENTICATED


def test_the_terminal_claims_signs_in_elsewhere_lists_devices_and_signs_out(whole_platform):
    home = tempfile.mkdtemp(prefix="maumau-home-")
    claim = spawn(whole_platform, "account", "claim", "ada_cli", "--device", "desk", home=home)
    claim.expect("New password")
    claim.sendline(PASSWORD)
    claim.expect(r"You are now the account ada_cli \((\S+)\)")
    player_id = claim.match.group(1)
    claim.expect(pexpect.EOF)
    assert claim.wait() == 0

    other = tempfile.mkdtemp(prefix="maumau-home-")
    login = spawn(whole_platform, "login", "ada_cli", "--device", "laptop", home=other)
    login.expect("Password: ")
    login.sendline(PASSWORD)
    login.expect(rf"Signed in as ada_cli \({player_id}\)")
    login.expect(pexpect.EOF)
    assert login.wait() == 0

    profile = spawn(whole_platform, "profile", home=other)  # plays as the account now
    profile.expect(rf"ada_cli \({player_id}\)")
    profile.expect(pexpect.EOF)

    sessions = spawn(whole_platform, "account", "sessions", home=other)
    sessions.expect(pexpect.EOF)
    listed = sessions.before
    assert re.search(r"laptop\s+password\s+since [-0-9: ]+\s+\(this device\)", listed), listed
    assert re.search(r"desk\s+claim\s+since", listed), listed

    token = spawn(whole_platform, "account", "token", "script", "--scope", "read", home=other)
    token.expect(r"shown this once, keep it safe:\s+(\S+)")
    token.expect(pexpect.EOF)
    assert token.wait() == 0

    logout = spawn(whole_platform, "logout", home=other)
    logout.expect("ada_cli is signed out on this device.")
    logout.expect(pexpect.EOF)
    again = spawn(whole_platform, "account", "sessions", home=home)
    again.expect(pexpect.EOF)
    assert re.search(r"desk\s+claim", again.before), again.before  # the desk's session lives on
    assert "laptop" not in again.before


def test_a_wrong_password_in_the_terminal_is_refused_in_words(whole_platform):
    home = tempfile.mkdtemp(prefix="maumau-home-")
    login = spawn(whole_platform, "login", "nobody_here", home=home)
    login.expect("Password: ")
    login.sendline("not-the-password")
    login.expect("The platform refused: ")
    login.expect(pexpect.EOF)
    assert login.wait() == 1
