"""Tokens that end: player tokens expire and can all be revoked by their player (Players), seat
tokens end with their match, and an expired token of either kind says so."""

import time

import grpc
import pytest

from maumau.common.tokens import issue_player_token, issue_seat_token, verify_player_token
from maumau.v1 import engine_pb2, players_pb2, players_pb2_grpc
from tests.support.engine import SECRET, Client
from tests.support.rpc import auth

Code = grpc.StatusCode


async def _refusal(call: object) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await call  # type: ignore[misc]
    return refused.value


async def test_register_gives_a_token_that_ends(address: str) -> None:
    player = await Client.register(address, "Ada")
    claims = verify_player_token(SECRET, player.token)
    assert time.time() < claims.expires_at <= time.time() + 31 * 86400
    await player.close()


async def test_revoking_ends_every_older_token_of_the_player_only(address: str) -> None:
    ada, bob = await Client.register(address, "Ada"), await Client.register(address, "Bob")
    players = players_pb2_grpc.PlayersServiceStub(ada.channel)
    renewed = (
        await players.RenewToken(players_pb2.RenewTokenRequest(), metadata=auth(ada.token))
    ).token
    fresh = (
        await players.RevokeTokens(players_pb2.RevokeTokensRequest(), metadata=auth(ada.token))
    ).token
    listing = engine_pb2.ListMatchesRequest(limit=5)
    for old in (ada.token, renewed.player_token):
        refused = await _refusal(ada.engine.ListMatches(listing, metadata=auth(old)))
        assert refused.code() == Code.UNAUTHENTICATED
        assert "player token revoked" in (refused.details() or "")
        refused = await _refusal(
            players.RenewToken(players_pb2.RenewTokenRequest(), metadata=auth(old))
        )
        assert refused.code() == Code.UNAUTHENTICATED
    await ada.engine.ListMatches(listing, metadata=auth(fresh.player_token))
    await bob.engine.ListMatches(listing, metadata=auth(bob.token))
    assert verify_player_token(SECRET, fresh.player_token).expires_at == fresh.expires_at
    await ada.close()
    await bob.close()


async def test_only_a_registered_players_own_token_renews(address: str) -> None:
    player = await Client.register(address, "Ada")
    players = players_pb2_grpc.PlayersServiceStub(player.channel)
    made_up = issue_player_token(SECRET, "nobody", generation=0)
    refused = await _refusal(
        players.RevokeTokens(players_pb2.RevokeTokensRequest(), metadata=auth(made_up))
    )
    assert refused.code() == Code.PERMISSION_DENIED
    await player.close()


async def test_an_expired_player_token_says_expired(address: str) -> None:
    player = await Client.register(address, "Ada")
    old = issue_player_token(
        SECRET, player.player_id, generation=0, now=time.time() - 100, ttl_seconds=10
    )
    refused = await _refusal(
        player.engine.ListMatches(engine_pb2.ListMatchesRequest(), metadata=auth(old))
    )
    assert refused.code() == Code.UNAUTHENTICATED
    assert "player token expired" in (refused.details() or "")
    await player.close()


@pytest.mark.parametrize("call", ["GetView", "GetMatch", "Follow", "Act", "Leave"])
async def test_an_expired_seat_token_says_expired_on_every_call(address: str, call: str) -> None:
    """Where a seat or a player token would do (GetView, GetMatch, Follow), an old seat token is
    reported as an expired seat token, not as the wrong kind."""
    player = await Client.register(address, "Ada")
    match = await player.create("classic", 2, auto_start=False)
    old = issue_seat_token(
        SECRET, match.match_id, 0, player.player_id, now=time.time() - 100, ttl_seconds=10
    )
    await _expect_expired(player, call, match.match_id, old, "seat token expired")
    await player.close()


@pytest.mark.parametrize("call", ["GetView", "GetMatch", "Follow", "Act", "Leave"])
async def test_a_seat_token_ends_with_its_match(address: str, call: str) -> None:
    """Once a match is no longer kept, its seat tokens are expired rather than 'no match'."""
    player = await Client.register(address, "Ada")
    gone = issue_seat_token(SECRET, "a-match-no-longer-kept", 0, player.player_id)
    await _expect_expired(player, call, "", gone, "its match is over and no longer kept")
    await player.close()


async def _expect_expired(player: Client, call: str, match_id: str, token: str, says: str) -> None:
    engine, metadata = player.engine, auth(token)
    if call == "GetView":
        pending = engine.GetView(engine_pb2.GetViewRequest(match_id=match_id), metadata=metadata)
    elif call == "GetMatch":
        pending = engine.GetMatch(engine_pb2.GetMatchRequest(match_id=match_id), metadata=metadata)
    elif call == "Act":
        request = engine_pb2.ActRequest(request_id="r1")
        request.action.text = "draw"
        pending = engine.Act(request, metadata=metadata)
    elif call == "Leave":
        pending = engine.Leave(engine_pb2.LeaveRequest(match_id=match_id), metadata=metadata)
    else:

        async def first_event() -> object:
            stream = engine.Follow(engine_pb2.FollowRequest(match_id=match_id), metadata=metadata)
            return await stream.read()

        pending = first_event()
    refused = await _refusal(pending)
    assert refused.code() == Code.UNAUTHENTICATED, refused.details()
    assert says in (refused.details() or "")
