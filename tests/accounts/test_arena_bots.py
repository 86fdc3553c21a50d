"""Bot accounts and their event streams (issue 27), over real gRPC against a real Redis: an
account with no games becomes a bot for good and is shown as one, its bot:play token reaches the
arena alone, its events resume from an id with keep-alives between, it is online while a stream
is open, and one account's streams are bounded."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator

import grpc
import pytest

from maumau.accounts.app import AccountsApp
from maumau.common import account_events
from maumau.common.players import player_key
from maumau.common.redis_server import EmbeddedRedis
from maumau.engine.app import EngineApp
from maumau.matchmaking.app import MatchmakingApp
from maumau.rating.app import RatingApp
from maumau.v1 import accounts_pb2 as pb
from maumau.v1 import arena_pb2 as arena
from maumau.v1 import (
    arena_pb2_grpc,
    engine_pb2,
    engine_pb2_grpc,
    game_pb2,
    matchmaking_pb2,
    matchmaking_pb2_grpc,
    players_pb2,
    players_pb2_grpc,
)
from tests.accounts.support import Player, start_accounts, stop_accounts, trailer
from tests.matchmaking.support import start_matchmaker
from tests.support.rpc import auth

KEEPALIVE = 0.2
STREAMS = 500


@pytest.fixture
async def accounts(
    redis_server: EmbeddedRedis, engine: EngineApp, lone_rating: RatingApp
) -> AsyncIterator[AccountsApp]:
    app = await start_accounts(
        redis_server.url,
        f"127.0.0.1:{engine.port}",
        rating_address=f"127.0.0.1:{lone_rating.port}",
        arena_keepalive_seconds=KEEPALIVE,
    )
    yield app
    await stop_accounts(app)


@pytest.fixture
async def matchmaker(
    redis_server: EmbeddedRedis, engine: EngineApp
) -> AsyncIterator[MatchmakingApp]:
    app = await start_matchmaker(redis_server.url, f"127.0.0.1:{engine.port}")
    yield app
    await app.stop(0)
    await app.redis.aclose()


def arena_of(player: Player) -> arena_pb2_grpc.ArenaServiceStub:
    return arena_pb2_grpc.ArenaServiceStub(player.accounts)


async def account(address: str, accounts_address: str, name: str = "Anon") -> Player:
    player = await Player.register(address, accounts_address, name)
    await player.claim("arena" + secrets.token_hex(4))
    return player


async def bot(address: str, accounts_address: str, name: str = "Robo") -> tuple[Player, str]:
    """A bot account and a bot:play access token of it."""
    player = await account(address, accounts_address, name)
    await arena_of(player).BecomeBot(arena.BecomeBotRequest(), metadata=player.auth)
    made = await player.stub.CreateAccessToken(
        pb.CreateAccessTokenRequest(name="bot", scope=pb.TOKEN_SCOPE_BOT_PLAY),
        metadata=player.auth,
    )
    return player, made.access_token


async def refusal(call: object) -> tuple[grpc.StatusCode, str | None]:
    try:
        await call  # type: ignore[misc]
    except grpc.aio.AioRpcError as error:
        return error.code(), trailer(error)["code"]
    return grpc.StatusCode.OK, None


async def test_an_account_with_no_games_becomes_a_bot_for_good(
    address: str, accounts_address: str, accounts: AccountsApp
) -> None:
    player = await account(address, accounts_address)
    shown = await player.stub.GetAccount(pb.GetAccountRequest(), metadata=player.auth)
    assert not shown.account.bot
    await arena_of(player).BecomeBot(arena.BecomeBotRequest(), metadata=player.auth)
    await arena_of(player).BecomeBot(arena.BecomeBotRequest(), metadata=player.auth)  # once is all
    shown = await player.stub.GetAccount(pb.GetAccountRequest(), metadata=player.auth)
    assert shown.account.bot
    looked_up = await players_pb2_grpc.PlayersServiceStub(player.engine).GetPlayer(
        players_pb2.GetPlayerRequest(player_id=player.player_id), metadata=player.auth
    )
    assert looked_up.player.bot and looked_up.player.name == shown.account.username
    assert await accounts.redis.hget(player_key(player.player_id), "bot") == b"1"
    await player.close()


async def test_an_account_that_played_or_an_anonymous_player_cannot_become_a_bot(
    address: str, accounts_address: str, accounts: AccountsApp
) -> None:
    player = await account(address, accounts_address)
    await engine_pb2_grpc.EngineServiceStub(player.engine).CreateMatch(
        engine_pb2.CreateMatchRequest(
            ruleset=game_pb2.Ruleset(preset="classic"), seats=2,
            bots={1: game_pb2.BOT_LEVEL_RANDOM}, auto_start=True,
        ),
        metadata=player.auth,
    )  # fmt: skip
    become = arena_of(player).BecomeBot(arena.BecomeBotRequest(), metadata=player.auth)
    assert await refusal(become) == (grpc.StatusCode.FAILED_PRECONDITION, "bot_has_played")
    assert await accounts.redis.hget(player_key(player.player_id), "bot") is None
    anonymous = await Player.register(address, accounts_address)
    become = arena_of(anonymous).BecomeBot(arena.BecomeBotRequest(), metadata=anonymous.auth)
    assert await refusal(become) == (grpc.StatusCode.FAILED_PRECONDITION, "no_account")
    await player.close()
    await anonymous.close()


async def test_only_a_bot_gets_a_bot_token_and_it_reaches_the_arena_alone(
    address: str, accounts_address: str, accounts: AccountsApp, matchmaker: MatchmakingApp
) -> None:
    person = await account(address, accounts_address)
    made = person.stub.CreateAccessToken(
        pb.CreateAccessTokenRequest(name="bot", scope=pb.TOKEN_SCOPE_BOT_PLAY),
        metadata=person.auth,
    )
    assert await refusal(made) == (grpc.StatusCode.FAILED_PRECONDITION, "bot_token_not_bot")
    player, token = await bot(address, accounts_address)
    as_bot = auth(token)
    stub = arena_of(player)
    stream = stub.Events(arena.EventsRequest(), metadata=as_bot)
    first = await stream.read()
    assert first.event.WhichOneof("kind") == "keep_alive"
    stream.cancel()
    listed = await stub.ListOnlineBots(arena.ListOnlineBotsRequest(), metadata=as_bot)
    assert isinstance(listed, arena.ListOnlineBotsResponse)
    engine = engine_pb2_grpc.EngineServiceStub(player.engine)
    queue = matchmaking_pb2_grpc.MatchmakingServiceStub(
        grpc.aio.insecure_channel(f"127.0.0.1:{matchmaker.port}")
    )
    players = players_pb2_grpc.PlayersServiceStub(player.engine)
    classic = game_pb2.Ruleset(preset="classic")
    outside = [
        engine.ListMatches(engine_pb2.ListMatchesRequest(), metadata=as_bot),
        engine.CreateMatch(engine_pb2.CreateMatchRequest(ruleset=classic), metadata=as_bot),
        engine.GetView(engine_pb2.GetViewRequest(match_id="m"), metadata=as_bot),
        engine.Act(engine_pb2.ActRequest(action=game_pb2.Action(text="draw")), metadata=as_bot),
        queue.Enqueue(matchmaking_pb2.EnqueueRequest(ruleset=classic), metadata=as_bot),
        queue.CreateRoom(matchmaking_pb2.CreateRoomRequest(), metadata=as_bot),
        players.RenewToken(players_pb2.RenewTokenRequest(), metadata=as_bot),
        players.RevokeTokens(players_pb2.RevokeTokensRequest(), metadata=as_bot),
        player.stub.GetAccount(pb.GetAccountRequest(), metadata=as_bot),
        player.stub.CreateAccessToken(pb.CreateAccessTokenRequest(name="x"), metadata=as_bot),
        player.stub.DeleteAccount(pb.DeleteAccountRequest(username="x"), metadata=as_bot),
        stub.BecomeBot(arena.BecomeBotRequest(), metadata=as_bot),
    ]
    codes = [(await refusal(call))[0] for call in outside]
    assert codes == [grpc.StatusCode.PERMISSION_DENIED] * len(outside)
    await person.close()
    await player.close()


async def test_events_resume_after_an_id_with_keep_alives_between(
    address: str, accounts_address: str, accounts: AccountsApp
) -> None:
    player, token = await bot(address, accounts_address)
    ids = [
        await account_events.publish(
            accounts.redis,
            player.player_id,
            arena.AccountEvent(challenge_cancelled=arena.ChallengeCancelled(challenge_id=f"c{n}")),
        )
        for n in range(3)
    ]
    stream = arena_of(player).Events(
        arena.EventsRequest(after_event_id=ids[0]), metadata=auth(token)
    )
    resumed = [(await stream.read()).event for _ in range(3)]
    assert [e.event_id for e in resumed[:2]] == ids[1:]
    assert [e.challenge_cancelled.challenge_id for e in resumed[:2]] == ["c1", "c2"]
    assert resumed[2].WhichOneof("kind") == "keep_alive" and not resumed[2].event_id
    stream.cancel()
    fresh = arena_of(player).Events(arena.EventsRequest(), metadata=auth(token))
    assert (await fresh.read()).event.WhichOneof("kind") == "keep_alive"  # nothing old again
    newest = await account_events.publish(
        accounts.redis,
        player.player_id,
        arena.AccountEvent(challenge_expired=arena.ChallengeExpired(challenge_id="c3")),
    )
    event = (await fresh.read()).event
    while event.WhichOneof("kind") == "keep_alive":
        event = (await fresh.read()).event
    assert (event.event_id, event.challenge_expired.challenge_id) == (newest, "c3")
    fresh.cancel()
    bad = arena_of(player).Events(
        arena.EventsRequest(after_event_id="yesterday"), metadata=auth(token)
    )
    assert await refusal(bad.read()) == (grpc.StatusCode.INVALID_ARGUMENT, "event_id")
    await player.close()


async def online_ids(player: Player, token: str) -> list[str]:
    listed = await arena_of(player).ListOnlineBots(
        arena.ListOnlineBotsRequest(page_size=100), metadata=auth(token)
    )
    return [b.player_id for b in listed.bots]


async def test_a_bot_is_online_while_its_stream_is_open(
    address: str, accounts_address: str, accounts: AccountsApp
) -> None:
    player, token = await bot(address, accounts_address)
    person = await account(address, accounts_address)
    person_stream = arena_of(person).Events(arena.EventsRequest(), metadata=person.auth)
    await person_stream.read()
    assert player.player_id not in await online_ids(player, token)
    stream = arena_of(player).Events(arena.EventsRequest(), metadata=auth(token))
    await stream.read()
    listed = await arena_of(player).ListOnlineBots(
        arena.ListOnlineBotsRequest(page_size=100), metadata=auth(token)
    )
    username = (await player.stub.GetAccount(pb.GetAccountRequest(), metadata=player.auth)).account
    assert {b.player_id: b.name for b in listed.bots}[player.player_id] == username.username
    assert person.player_id not in await online_ids(player, token)  # a person is no bot
    assert await accounts.arena.feeds.is_online(person.player_id)
    stream.cancel()
    while player.player_id in await online_ids(player, token):  # the server sees the close
        await asyncio.sleep(0.05)
    assert not await accounts.arena.feeds.is_online(player.player_id)
    person_stream.cancel()
    for request, code in (
        (arena.ListOnlineBotsRequest(page_size=101), "page_size"),
        (arena.ListOnlineBotsRequest(page_token="-3"), "page_token"),
        (arena.ListOnlineBotsRequest(page_token="9" * 40), "page_token"),
    ):
        call = arena_of(player).ListOnlineBots(request, metadata=auth(token))
        assert await refusal(call) == (grpc.StatusCode.INVALID_ARGUMENT, code)
    await player.close()
    await person.close()


async def test_the_501st_stream_of_one_account_is_refused_and_holds_nothing(
    address: str, accounts_address: str, accounts: AccountsApp
) -> None:
    player, token = await bot(address, accounts_address)
    stub = arena_of(player)
    streams = []
    for _ in range(STREAMS // 50):  # opened 50 at a time, as the client's pool of Redis allows
        batch = [stub.Events(arena.EventsRequest(), metadata=auth(token)) for _ in range(50)]
        await asyncio.gather(*(s.read() for s in batch))
        streams += batch
    assert await accounts.arena.feeds.is_online(player.player_id)
    one_more = stub.Events(arena.EventsRequest(), metadata=auth(token))
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await one_more.read()
    assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert trailer(caught.value)["code"] == "event_streams"
    assert "500 event streams" in (caught.value.details() or "")
    assert accounts.arena.streams.by_account[player.player_id] == STREAMS
    streams.pop().cancel()
    while accounts.arena.streams.by_account[player.player_id] == STREAMS:
        await asyncio.sleep(0.05)
    again = stub.Events(arena.EventsRequest(), metadata=auth(token))
    assert (await again.read()).event.WhichOneof("kind") == "keep_alive"
    for stream in [*streams, again]:
        stream.cancel()
    await player.close()


async def test_a_replica_full_of_streams_refuses_the_next_account_too(
    redis_server: EmbeddedRedis, engine: EngineApp, lone_rating: RatingApp
) -> None:
    app = await start_accounts(
        redis_server.url,
        f"127.0.0.1:{engine.port}",
        rating_address=f"127.0.0.1:{lone_rating.port}",
        arena_keepalive_seconds=KEEPALIVE,
        arena_max_replica_streams=2,
    )
    accounts_address = f"127.0.0.1:{app.port}"
    players = [await account(address_of(engine), accounts_address) for _ in range(3)]
    open_ = [arena_of(p).Events(arena.EventsRequest(), metadata=p.auth) for p in players[:2]]
    for stream in open_:
        await stream.read()
    third = arena_of(players[2]).Events(arena.EventsRequest(), metadata=players[2].auth)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await third.read()
    assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert trailer(caught.value)["code"] == "event_streams_replica"
    assert app.arena.streams.open == 2 and players[2].player_id not in app.arena.streams.by_account
    for stream in open_:
        stream.cancel()
    for player in players:
        await player.close()
    await stop_accounts(app)


def address_of(engine: EngineApp) -> str:
    return f"127.0.0.1:{engine.port}"
