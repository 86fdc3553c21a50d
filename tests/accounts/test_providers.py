"""Signing in with an identity provider (issue 26): a real OpenID provider (oidc-provider on
loopback), the authorization code flow with state, nonce and PKCE, the ID token checked; an
account links several ways, one identity links to one account, and a state is used once."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator, Iterator
from urllib.parse import parse_qs, urlsplit

import grpc
import pytest

from maumau.accounts.app import AccountsApp
from maumau.common.redis_server import EmbeddedRedis
from maumau.engine.app import EngineApp
from maumau.v1 import accounts_pb2 as pb
from tests.accounts.oidc_provider import RunningProvider, oidc_provider, walk
from tests.accounts.support import Player, start_accounts, stop_accounts, trailer

pytestmark = pytest.mark.xdist_group("tests/accounts/oidc")  # its npm folder, on one worker

REDIRECT = "http://localhost:8080/auth/callback"


@pytest.fixture(scope="module")
def provider() -> Iterator[RunningProvider]:
    with oidc_provider(REDIRECT) as running:
        yield running


@pytest.fixture
async def with_provider(
    redis_server: EmbeddedRedis, engine: EngineApp, provider: RunningProvider
) -> AsyncIterator[AccountsApp]:
    app = await start_accounts(
        redis_server.url,
        f"127.0.0.1:{engine.port}",
        oidc_providers=provider.setting(),
        oidc_redirect_uri=REDIRECT,
    )
    yield app
    await stop_accounts(app)


async def begin(player: Player, link: bool) -> pb.BeginProviderSignInResponse:
    return await player.stub.BeginProviderSignIn(
        pb.BeginProviderSignInRequest(provider="testid", link=link),
        metadata=player.auth if link else (),
    )


async def finish(
    player: Player, answer: dict[str, str], link: bool
) -> pb.FinishProviderSignInResponse:
    request = pb.FinishProviderSignInRequest(
        state=answer.get("state", ""), code=answer.get("code", ""), error=answer.get("error", "")
    )
    return await player.stub.FinishProviderSignIn(request, metadata=player.auth if link else ())


async def test_a_linked_identity_signs_in_as_the_same_player(
    address: str, with_provider: AccountsApp
) -> None:
    accounts_address = f"127.0.0.1:{with_provider.port}"
    player = await Player.register(address, accounts_address)
    await player.claim("oidc" + secrets.token_hex(4), "a passphrase of mine")
    listed = await player.stub.ListProviders(pb.ListProvidersRequest())
    assert [(p.name, p.display_name) for p in listed.providers] == [("testid", "Test ID")]
    login = "person-" + secrets.token_hex(4)

    begun = await begin(player, link=True)
    query = parse_qs(urlsplit(begun.authorization_url).query)
    assert query["code_challenge_method"] == ["S256"] and query["state"] == [begun.state]
    assert query["nonce"][0] and query["code_challenge"][0] and query["redirect_uri"] == [REDIRECT]
    answer = await walk(begun.authorization_url, REDIRECT, login)
    linked = (await finish(player, answer, link=True)).linked
    assert (linked.provider, linked.subject, linked.email) == (
        "testid",
        login,
        f"{login}@example.test",
    )
    # The state was used: the same answer again is refused.
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await finish(player, answer, link=True)
    assert trailer(caught.value)["code"] == "provider_state"

    # On another device: sign in through the provider, no token at all.
    stranger = await Player.register(address, accounts_address)
    begun = await begin(stranger, link=False)
    signed_in = (
        await finish(stranger, await walk(begun.authorization_url, REDIRECT, login), False)
    ).signed_in
    assert signed_in.player_id == player.player_id
    account = (await player.stub.GetAccount(pb.GetAccountRequest(), metadata=player.auth)).account
    assert account.has_password and [p.subject for p in account.providers] == [login]
    sessions = await player.stub.ListSessions(pb.ListSessionsRequest(), metadata=player.auth)
    assert [s.how for s in sessions.sessions] == ["claim", "provider:testid"]

    # The same identity cannot be linked to a second account.
    await stranger.claim("oidc" + secrets.token_hex(4), "another passphrase")
    begun = await begin(stranger, link=True)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await finish(stranger, await walk(begun.authorization_url, REDIRECT, login), True)
    assert trailer(caught.value)["code"] == "provider_linked_elsewhere"
    # Unlinked, it no longer signs in.
    await player.stub.UnlinkProvider(
        pb.UnlinkProviderRequest(provider="testid"), metadata=player.auth
    )
    begun = await begin(stranger, link=False)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await finish(stranger, await walk(begun.authorization_url, REDIRECT, login), False)
    assert trailer(caught.value)["code"] == "provider_not_linked"
    await player.close()
    await stranger.close()


async def test_an_unlinked_identity_a_foreign_code_and_a_refusal_do_not_sign_in(
    address: str, with_provider: AccountsApp
) -> None:
    accounts_address = f"127.0.0.1:{with_provider.port}"
    player = await Player.register(address, accounts_address)
    begun = await begin(player, link=False)
    answer = await walk(begun.authorization_url, REDIRECT, "nobody-" + secrets.token_hex(4))
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await finish(player, answer, link=False)
    assert trailer(caught.value)["code"] == "provider_not_linked"
    # A code the provider never gave, with a good state: the provider refuses the exchange.
    begun = await begin(player, link=False)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await finish(player, {"state": begun.state, "code": "made-up"}, link=False)
    assert (caught.value.code(), trailer(caught.value)["code"]) == (
        grpc.StatusCode.UNAUTHENTICATED,
        "provider_refused",
    )
    # The provider sent an error instead of a code.
    begun = await begin(player, link=False)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await finish(player, {"state": begun.state, "error": "access_denied"}, link=False)
    assert trailer(caught.value)["code"] == "provider_refused"
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await player.stub.BeginProviderSignIn(pb.BeginProviderSignInRequest(provider="other"))
    assert trailer(caught.value)["code"] == "provider_unknown"
    await player.close()
