"""Nothing kept forever (issue 10): lobbies expire, every match with people has a turn timer,
a match nobody acts in ends as abandoned (its result published), each player's list is
bounded."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
import redis.asyncio as redis

from maumau.common.redis_client import DEFAULT_SHARDS
from maumau.common.redis_server import EmbeddedRedis
from maumau.common.results import results_stream_of
from maumau.engine.keys import match_key, player_matches_key
from maumau.engine.matches import EngineSettings
from maumau.engine.store import NOT_OVER, MatchStore
from maumau.v1 import engine_pb2, game_pb2
from tests.support.engine import Client, start_engine, start_match, stop_engine
from tests.support.polling import eventually
from tests.support.rpc import auth


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[EmbeddedRedis]:
    with EmbeddedRedis(tmp_path / "redis") as server:
        yield server


async def get_match(client: Client, match_id: str) -> engine_pb2.MatchInfo:
    return (
        await client.engine.GetMatch(
            engine_pb2.GetMatchRequest(match_id=match_id), metadata=auth(client.token)
        )
    ).match


async def listed(client: Client) -> list[str]:
    reply = await client.engine.ListMatches(
        engine_pb2.ListMatchesRequest(limit=100), metadata=auth(client.token)
    )
    return [m.match_id for m in reply.matches]


async def test_a_lobby_nobody_starts_expires_and_a_started_match_does_not(own_redis):
    settings = EngineSettings(bot_delay_seconds=0, lobby_seconds=1)
    app, redis_client = await start_engine(own_redis.url, settings)
    address = f"127.0.0.1:{app.port}"
    host = await Client.register(address, "host")
    guest = await Client.register(address, "guest")
    try:
        idle = await host.create("classic", 2)
        played = await host.create("classic", 2)
        await guest.join(played.match_id)
        await start_match(host, played.match_id)

        async def gone() -> bool:
            try:
                await get_match(host, idle.match_id)
            except grpc.aio.AioRpcError as error:
                return error.code() == grpc.StatusCode.NOT_FOUND
            return False

        await eventually(gone, 10, "the idle lobby to expire")
        assert await listed(host) == [played.match_id]
        assert await redis_client.ttl(match_key(played.match_id)) == -1  # kept while played
        assert (await get_match(host, played.match_id)).status == "playing"
    finally:
        for client in (host, guest):
            await client.close()
        await stop_engine(app, redis_client)


async def test_a_match_without_a_chosen_timer_gets_the_default_one(own_redis):
    settings = EngineSettings(bot_delay_seconds=0, default_turn_seconds=45)
    app, redis_client = await start_engine(own_redis.url, settings)
    player = await Client.register(f"127.0.0.1:{app.port}", "untimed")
    try:
        assert (await player.create("classic", 2)).turn_seconds == 45
        assert (await player.create("classic", 2, turn_seconds=3600)).turn_seconds == 3600
    finally:
        await player.close()
        await stop_engine(app, redis_client)


async def test_a_match_nobody_acts_in_ends_as_abandoned_and_its_result_is_published(own_redis):
    settings = EngineSettings(bot_delay_seconds=0, abandon_seconds=1, default_turn_seconds=60)
    app, redis_client = await start_engine(own_redis.url, settings)
    address = f"127.0.0.1:{app.port}"
    players = [await Client.register(address, f"silent {n}") for n in range(2)]
    try:
        match = await players[0].create("classic", 2)
        await players[1].join(match.match_id)
        await start_match(players[0], match.match_id)

        async def over() -> engine_pb2.MatchInfo | None:
            info = await get_match(players[0], match.match_id)
            return info if info.status == "over" else None

        info = await eventually(over, 10, "the idle match to be abandoned")
        assert info.outcome.reason == "abandoned" and list(info.outcome.winners) == []
        assert info.server_seed  # revealed, as at every end

        async def published() -> game_pb2.MatchResult | None:
            stream = results_stream_of(match.match_id, DEFAULT_SHARDS)
            for _, fields in await redis_client.xrange(stream):
                result = game_pb2.MatchResult.FromString(fields[b"result"])
                if result.match_id == match.match_id:
                    return result
            return None

        result = await eventually(published, 10, "the abandoned match's result")
        assert result.reason == "abandoned" and list(result.winners) == []
        assert {s.player_id for s in result.seats} == {p.player_id for p in players}
        # A seat acting afterwards is told the match is over.
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await players[0].act(match.match_id, "draw")
        assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    finally:
        for player in players:
            await player.close()
        await stop_engine(app, redis_client)


async def test_a_players_list_keeps_only_the_latest_matches(own_redis):
    settings = EngineSettings(bot_delay_seconds=0, player_history=3)
    app, redis_client = await start_engine(own_redis.url, settings)
    player = await Client.register(f"127.0.0.1:{app.port}", "prolific")
    try:
        created = []
        for _ in range(5):
            created.append((await player.create("classic", 2)).match_id)
            await asyncio.sleep(0.01)  # distinct creation times
        assert await listed(player) == created[:1:-1]
        assert await redis_client.zcard(f"player:{{{player.player_id}}}:matches") == 3
    finally:
        await player.close()
        await stop_engine(app, redis_client)


async def test_a_finished_match_moves_below_the_matches_still_played_in_its_players_lists(
    own_redis,
):
    """engine.proto, ListMatches: matches not over first, then the finished ones."""
    settings = EngineSettings(bot_delay_seconds=0)
    app, redis_client = await start_engine(own_redis.url, settings)
    player = await Client.register(f"127.0.0.1:{app.port}", "keeper")
    key = player_matches_key(player.player_id)
    try:
        live = await player.create("online", 2, bots={1: game_pb2.BOT_LEVEL_RANDOM})
        await start_match(player, live.match_id)
        short = await player.create("online", 2, bots={1: game_pb2.BOT_LEVEL_RANDOM})
        await start_match(player, short.match_id)
        assert await listed(player) == [short.match_id, live.match_id]
        await player.engine.Leave(  # a bot plays the seat to the end at once
            engine_pb2.LeaveRequest(match_id=short.match_id),
            metadata=auth(player.seat_tokens[short.match_id]),
        )

        async def finished() -> bool:
            score = await redis_client.zscore(key, short.match_id)
            return score is not None and score < NOT_OVER

        await eventually(finished, 60, "the left match to be played to its end")
        assert (await get_match(player, short.match_id)).status == "over"
        assert await listed(player) == [live.match_id, short.match_id]
        assert 0 < await redis_client.ttl(key) <= settings.retention_seconds
    finally:
        await player.close()
        await stop_engine(app, redis_client)


async def test_a_players_list_drops_finished_matches_a_retention_after_they_finished(own_redis):
    """A finished match's entry goes with its record; one not over stays however old, and the
    count bound takes the oldest finished first. Indexing a match again as new (a retried
    creation) leaves it among the finished."""
    store = MatchStore(redis.Redis.from_url(own_redis.url))
    key = player_matches_key("p")
    try:
        await store.index_players([("p", "playing"), ("p", "old")], 1000.0, 3, 60)
        await store.index_players([("p", "old")], 1010.0, 3, 60, finished=True)
        await store.index_players([("p", "newer")], 1020.0, 3, 60, finished=True)
        await store.index_players([("p", "old")], 1030.0, 3, 60)  # retried: still finished
        assert await store.player_matches("p", 10) == ["playing", "newer", "old"]
        await store.index_players([("p", "next")], 1071.0, 3, 60)  # old finished 61 s ago
        assert await store.player_matches("p", 10) == ["next", "playing", "newer"]
        await store.index_players([("p", "last")], 1072.0, 3, 60)  # one too many: newer goes
        assert await store.player_matches("p", 10) == ["last", "next", "playing"]
        assert 0 < await store.redis.ttl(key) <= 60
    finally:
        await store.redis.aclose()
