"""Follow streams at scale: one replica serves hundreds of streams from few Redis connections, a
player who opens many cannot starve health, deadlines or other players' calls, the caps answer
RESOURCE_EXHAUSTED with a retry hint, a slow follower is cut off without holding up the others,
and a malformed stream position is refused naming the field."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator

import grpc
import pytest
import redis.asyncio

from maumau.common.errors import RETRY_AFTER_KEY
from maumau.common.redis_server import EmbeddedRedis
from maumau.engine.app import EngineApp
from maumau.engine.codec import packed_events
from maumau.engine.follow import Feed, FellBehind, FollowHub
from maumau.engine.keys import match_key
from maumau.engine.matches import EngineSettings
from maumau.v1 import engine_pb2, game_pb2
from maumau.v1.engine_pb2_grpc import EngineServiceStub
from tests.support.engine import (
    Client,
    Follower,
    acting,
    cancel_all,
    close_all,
    pick,
    play_actions,
    raw_events,
    register_all,
    start_engine,
    start_match,
    stop_engine,
)
from tests.support.polling import eventually
from tests.support.rpc import auth, serving

STREAMS = 300
"""Streams one player opens: three times the 100 that took a replica down with one pool."""


@pytest.fixture
async def small_pool(redis_server: EmbeddedRedis) -> AsyncIterator[EngineApp]:
    """A replica with 4 connections for calls, taking STREAMS streams of one player and a few
    more in all; its bots move after a short pause."""
    settings = EngineSettings(
        bot_delay_seconds=0.01,
        redis_connections=4,
        follow_streams_per_player=STREAMS,
        max_follow_streams=STREAMS + 5,
    )
    app, client = await start_engine(redis_server.url, settings)
    yield app
    await stop_engine(app, client)


def refusal(follower: Follower) -> grpc.aio.AioRpcError:
    assert follower.error is not None, "the stream was not refused"
    return follower.error


async def refused_follow(
    channel: grpc.aio.Channel, token: str, match_id: str = ""
) -> grpc.aio.AioRpcError:
    follower = Follower(channel, token, match_id)
    assert await follower.next() is None
    return refusal(follower)


async def test_hundreds_of_streams_from_one_player_leave_the_replica_serving_everyone(
    small_pool: EngineApp,
):
    """The attack of issue 10: one player opens STREAMS Follow streams on its own lobby match, on
    a replica with 4 connections for calls. Health stays SERVING, every stream gets the next
    event, another player creates, joins, starts and plays a match, a bot match moves on by its
    deadlines; one stream more is refused RESOURCE_EXHAUSTED with a retry hint, and so is a
    stream of another player beyond the replica's cap."""
    address = f"127.0.0.1:{small_pool.port}"
    hog, other, guest = await register_all(address, 3)
    followers: list[Follower] = []
    try:
        lobby = await hog.create("online", 2)
        token = hog.seat_tokens[lobby.match_id]
        followers = [Follower(hog.channel, token) for _ in range(STREAMS)]
        for follower in followers:  # the event so far: the seat taken
            await follower.take(1, timeout=30)
        assert small_pool.hub.feeds.keys() == {lobby.match_id}
        assert len(small_pool.hub.lanes) == 1  # one connection reads for all of them

        exhausted = await refused_follow(hog.channel, token)
        assert exhausted.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "already follows 300 streams" in (exhausted.details() or "")
        hint = dict(exhausted.trailing_metadata() or ())
        assert int(hint[RETRY_AFTER_KEY]) > 0

        assert await serving(address)
        # Another player's calls go through: a match created, joined, started and played.
        match = await other.create("online", 2)
        await guest.join(match.match_id)
        await start_match(other, match.match_id)
        version = (await other.view(match.match_id)).version
        await play_one([other, guest], match.match_id)
        assert (await other.view(match.match_id)).version > version
        # A match against bots moves on by the deadline loop.
        solo = await other.create("online", 3, bots={1: 1, 2: 1}, auto_start=True)
        await play_moves_against_bots(other, solo.match_id, moves=3)

        # Every stream gets the next event of its match.
        await guest.join(lobby.match_id)
        for follower in followers:
            (joined,) = await follower.take(1, timeout=30)
            assert joined.event.HasField("seat_joined")

        # Beyond the replica's cap another player is refused too, with the same hint.
        spare = [Follower(guest.channel, guest.token, match_id=lobby.match_id) for _ in range(5)]
        followers += spare
        for follower in spare:
            await follower.take(1, timeout=10)
        full = await refused_follow(guest.channel, guest.token, lobby.match_id)
        assert full.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "the most it takes" in (full.details() or "")
        assert int(dict(full.trailing_metadata() or ())[RETRY_AFTER_KEY]) > 0
        assert await serving(address)
    finally:
        await cancel_all(followers)
        await close_all([hog, other, guest])
    # Once every stream closed, nothing is read for them any more, and room is free again.
    await eventually(lambda: _idle(small_pool), 5, "the follow readers to stop")
    assert small_pool.hub.feeds == {}


async def _idle(app: EngineApp) -> bool:
    return not app.hub.lanes and not app.hub.feeds


async def play_moves_against_bots(player: Client, match_id: str, moves: int) -> None:
    """Make ``moves`` moves, each after the bots moved the match back to the player."""
    made = 0
    deadline = time.monotonic() + 30
    while made < moves:
        assert time.monotonic() < deadline, "the bots did not move the match on"
        view = await player.view(match_id)
        if view.phase == "over":
            return
        if acting(view):
            await player.act(match_id, pick(view, random.Random(7)))
            made += 1
        else:
            await asyncio.sleep(0.02)


@pytest.mark.parametrize(
    "position",
    ["1-", "abc", "1" * 23, "-1", "1-2-3", "1.5", " 1", "\uff11", "18446744073709551616-0"],
)
async def test_a_malformed_stream_position_is_refused_naming_the_field(address, position):
    """after_event_id must be an event id as Follow delivers them (or empty): anything else is
    INVALID_ARGUMENT naming the field, never a status the client cannot act on."""
    (player,) = await register_all(address, 1)
    try:
        match = await player.create("online", 2)
        follower = Follower(player.channel, player.seat_tokens[match.match_id], after=position)
        assert await follower.next() is None
        refused = refusal(follower)
        assert refused.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "after_event_id" in (refused.details() or "")
        assert "is not an event id" in (refused.details() or "")
    finally:
        await player.close()


async def test_the_largest_stream_position_is_accepted(address):
    """The largest id Redis knows is an event id: the stream waits for events after it."""
    (player,) = await register_all(address, 1)
    try:
        match = await player.create("online", 2)
        largest = f"{2**64 - 1}-{2**64 - 1}"
        follower = Follower(player.channel, player.seat_tokens[match.match_id], after=largest)
        with pytest.raises(TimeoutError):
            await follower.next(timeout=0.5)
        await follower.cancel()
        assert follower.error is None
    finally:
        await player.close()


# ---------------------------------------------------------------- the fan-out itself


@pytest.fixture
async def hub(client: redis.asyncio.Redis) -> AsyncIterator[FollowHub]:
    async def live(match_id: str) -> bool:
        return bool(await client.exists(match_key(match_id)))

    hub = FollowHub(client, client, live, queue_limit=16, block_ms=200, check_seconds=0.3)
    yield hub
    await hub.close()


async def append(client: redis.asyncio.Redis, match_id: str, count: int) -> list[str]:
    """Append ``count`` events to a match's stream, as the engine's commit does."""
    event = game_pb2.Event(passed=game_pb2.SeatOnly(seat=0)).SerializeToString()
    key = f"{match_key(match_id)}:events"
    return [(await client.xadd(key, {"p": packed_events([event])})).decode() for _ in range(count)]


async def test_a_slow_follower_is_cut_off_and_the_others_get_every_event(hub, client):
    """A subscriber that does not take its events falls behind once more than its queue holds
    are waiting: it is dropped, gets what it held, then FellBehind, while a subscriber that
    keeps up receives every event in order. The feed starts at the end of the stream."""
    match_id = "hub-slow"
    await client.hset(match_key(match_id), "version", 1)
    before = await append(client, match_id, 3)
    fast, slow = await hub.subscribe(match_id), await hub.subscribe(match_id)
    assert fast.since == slow.since == before[-1]

    written: list[str] = []
    received: list[str] = []
    for _ in range(4):
        written += await append(client, match_id, 6)
        while len(received) < len(written):
            entries = await asyncio.wait_for(fast.take(), 5)
            assert entries is not None
            received += [entry_id for entry_id, _ in entries]
    assert received == written
    kept = []
    with pytest.raises(FellBehind):
        while (entries := await slow.take()) is not None:
            kept += [entry_id for entry_id, _ in entries]
    assert kept == written[: len(kept)] and len(kept) <= 16
    hub.unsubscribe(fast)
    hub.unsubscribe(slow)
    assert hub.feeds == {}


async def test_a_feed_of_a_match_that_is_gone_ends_its_subscribers(hub, client):
    """A match that expires while followed gets no more events: once its feed was quiet for
    the check interval, its subscribers get what was left, then the end."""
    match_id = "hub-gone"
    await client.hset(match_key(match_id), "version", 1)
    await append(client, match_id, 1)
    subscription = await hub.subscribe(match_id)
    last = await append(client, match_id, 2)
    await client.delete(match_key(match_id))
    taken: list[str] = []
    while (entries := await asyncio.wait_for(subscription.take(), 5)) is not None:
        taken += [entry_id for entry_id, _ in entries]
    assert taken == last
    await eventually(lambda: _no_feeds(hub), 5, "the feed to be dropped")


async def _no_feeds(hub: FollowHub) -> bool:
    return not hub.feeds and not hub.lanes


async def test_many_matches_share_a_few_readers(hub, client):
    """Followers of many matches are served by lanes of up to lane_size matches each, one read
    per lane; a match that joins a lane blocked in its read is read at once."""
    hub.lane_size = 10
    matches = [f"hub-many-{i}" for i in range(35)]
    subscriptions = {}
    for match_id in matches:
        await client.hset(match_key(match_id), "version", 1)
        subscriptions[match_id] = await hub.subscribe(match_id)
    assert len(hub.lanes) == 4
    for match_id in reversed(matches):
        (written,) = await append(client, match_id, 1)
        entries = await asyncio.wait_for(subscriptions[match_id].take(), 5)
        assert [entry_id for entry_id, _ in entries or []] == [written]
    for subscription in subscriptions.values():
        hub.unsubscribe(subscription)
    await eventually(lambda: _no_feeds(hub), 5, "the lanes to end")


async def test_a_follower_resuming_mid_stream_gets_no_gap_and_no_repeat(engine, address):
    """A stream opened while the match's feed already runs, from an event in the middle, gets
    every event after it exactly once: the stored ones it missed, then the live ones."""
    clients = await register_all(address, 2)
    followers: list[Follower] = []
    try:
        match = await clients[0].create("online", 2)
        token = clients[0].seat_tokens[match.match_id]
        followers.append(Follower(clients[0].channel, token))
        head = await followers[0].take(1)  # the feed runs
        await clients[1].join(match.match_id)
        await start_match(clients[0], match.match_id)
        resumed = Follower(clients[0].channel, token, after=head[0].id)
        followers.append(resumed)
        await play_one(clients, match.match_id)
        stored = [i for i, _ in await raw_events(engine.matches.store, match.match_id)]
        assert [e.id for e in await resumed.take(len(stored) - 1)] == stored[1:]
        await play_one(clients, match.match_id)
        now = [i for i, _ in await raw_events(engine.matches.store, match.match_id)]
        fresh = now[len(stored) :]
        assert [e.id for e in await resumed.take(len(fresh))] == fresh
        with pytest.raises(TimeoutError):  # nothing twice
            await resumed.next(timeout=0.3)
    finally:
        await cancel_all(followers)
        await close_all(clients)


async def play_one(clients: list[Client], match_id: str) -> None:
    for client in clients:
        view = await client.view(match_id)
        if acting(view):
            await client.act(match_id, pick(view, random.Random(3)))
            return
    raise AssertionError("nobody is due")


async def test_a_follower_reading_too_slowly_ends_aborted_and_resumes_without_a_gap(
    redis_server: EmbeddedRedis,
):
    """A client that stops reading its stream (its flow-control window full) while its match
    moves on falls more than follow_queue_events behind: its stream ends ABORTED, naming
    after_event_id and the last event it received; following again from there gives every
    later event once. A follower reading at once meanwhile gets every event."""
    settings = EngineSettings(bot_delay_seconds=0, follow_queue_events=16)
    app, client = await start_engine(redis_server.url, settings)
    address = f"127.0.0.1:{app.port}"
    clients = await register_all(address, 2)
    slow_channel = grpc.aio.insecure_channel(
        address, options=[("grpc.http2.lookahead_bytes", 1024), ("grpc.http2.bdp_probe", 0)]
    )
    followers: list[Follower] = []
    try:
        match = await clients[0].create("classic", 2, options={"target": "10000"})
        await clients[1].join(match.match_id)
        await start_match(clients[0], match.match_id)
        token = clients[0].seat_tokens[match.match_id]
        slow = EngineServiceStub(slow_channel).Follow(
            engine_pb2.FollowRequest(), metadata=auth(token)
        )  # nobody reads it for now
        followers.append(Follower(clients[0].channel, token))
        await followers[0].take(1)
        feed = await eventually(
            lambda: _feed_with(app, match.match_id, 2), 5, "both streams to be subscribed"
        )
        rng = random.Random(11)
        for _ in range(50):  # until the slow stream was cut off
            await play_actions(match.match_id, clients, rng, 20)
            if len(feed.subscribers) == 1:
                break
        assert len(feed.subscribers) == 1, "the slow stream was never cut off"
        stored = [i for i, _ in await raw_events(app.matches.store, match.match_id)]
        received: list[str] = []
        with pytest.raises(grpc.aio.AioRpcError) as ended:
            async for item in slow:
                received.append(item.id)
        assert ended.value.code() == grpc.StatusCode.ABORTED
        details = ended.value.details() or ""
        assert f"after_event_id={received[-1]!r}" in details
        assert received == stored[: len(received)]
        resumed = Follower(clients[0].channel, token, after=received[-1])
        followers.append(resumed)
        rest = stored[len(received) :]
        assert [e.id for e in await resumed.take(len(rest))] == rest
        assert [e.id for e in await followers[0].take(len(stored) - 1)] == stored[1:]
    finally:
        await cancel_all(followers)
        await slow_channel.close()
        await close_all(clients)
        await stop_engine(app, client)


async def _feed_with(app: EngineApp, match_id: str, subscribers: int) -> Feed | None:
    feed = app.hub.feeds.get(match_id)
    return feed if feed is not None and len(feed.subscribers) == subscribers else None
