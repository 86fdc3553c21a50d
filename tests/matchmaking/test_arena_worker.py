"""The arena's tick against a real engine over real gRPC and the shared real redis-server (issue
27, "The bot arena"): waiting bots are seated at rated matches the engine creates with the
matchmaker's token, each told its seat with a seat token the engine takes, none seated twice
while it plays, and back in the pool for its next match once its match ends."""

from __future__ import annotations

import uuid

import grpc
import pytest

from maumau.common import tokens
from maumau.matchmaking.arena import ArenaRules
from maumau.matchmaking.arena_pool import ArenaPool
from maumau.matchmaking.arena_worker import ArenaFormer, Seated
from maumau.matchmaking.ratings import redis_ratings
from maumau.matchmaking.tables import Tables
from maumau.v1 import engine_pb2, engine_pb2_grpc
from tests.support.engine import SECRET


@pytest.fixture
async def channel(address: str):
    async with grpc.aio.insecure_channel(address) as opened:
        yield opened


async def test_waiting_bots_are_seated_at_rated_matches_and_told_their_seats(client, channel):
    ruleset = f"classic target={uuid.uuid4().int % 1000 + 100}"  # a pool of this test's own
    pool = ArenaPool(client)
    told: list[Seated] = []

    async def announce(seated: Seated) -> None:
        told.append(seated)

    former = ArenaFormer(
        pool,
        Tables(channel, SECRET, timeout=10),
        redis_ratings(client),
        announce,
        ArenaRules(),
        [ruleset],
    )
    bots = [f"arena-bot-{n}-{uuid.uuid4().hex[:6]}" for n in range(5)]
    for n, bot in enumerate(bots):
        await pool.join(bot, ruleset, [2] if n < 4 else [3], now=100.0 + n)

    seated = await former.tick(now=105.0)
    assert seated == told and len(told) == 4, "two 2-seat tables; the 3-seat bot waits"
    matches = {s.match_id for s in told}
    assert len(matches) == 2 and {s.bot_id for s in told} == set(bots[:4])

    engine = engine_pb2_grpc.EngineServiceStub(channel)
    for s in told:
        seat_token = tokens.bearer_metadata(s.seat_token)
        view = await engine.GetView(
            engine_pb2.GetViewRequest(match_id=s.match_id), metadata=seat_token
        )
        assert view.view.seat == s.seat
        info = await engine.GetMatch(
            engine_pb2.GetMatchRequest(match_id=s.match_id), metadata=seat_token
        )
        assert info.match.ranked and info.match.ruleset_text == ruleset

    assert await former.tick(now=106.0) == [], "playing bots are not seated again"
    assert [e.bot_id for e in await pool.waiting(ruleset, now=106.0)] == [bots[4]]

    for s in told:
        await pool.requeue(s.bot_id, ruleset, now=200.0)  # their matches ended
    again = await former.tick(now=201.0)
    assert {s.bot_id for s in again} == set(bots[:4]) and not matches & {s.match_id for s in again}
