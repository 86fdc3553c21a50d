"""The arena's tick against a real engine over real gRPC and the shared real redis-server (issue
27, "The bot arena"): waiting bots are seated at rated matches the engine creates with the
matchmaker's token, each told its seat with a seat token the engine takes, none seated twice
while it plays, and back in the pool for its next match once its match ends."""

from __future__ import annotations

import uuid

import grpc
import pytest

from maumau.common import account_events, tokens
from maumau.matchmaking.arena import ArenaRules
from maumau.matchmaking.arena_pool import ArenaPool
from maumau.matchmaking.arena_worker import ArenaFormer, account_notices
from maumau.matchmaking.ratings import rating_key, redis_ratings
from maumau.matchmaking.tables import Tables
from maumau.v1 import arena_pb2, engine_pb2, engine_pb2_grpc, game_pb2
from tests.matchmaking.support import listening
from tests.support.engine import SECRET


@pytest.fixture
async def channel(address: str):
    async with grpc.aio.insecure_channel(address) as opened:
        yield opened


@pytest.fixture
def ruleset() -> str:
    """A pool of this test's own."""
    return f"classic target={uuid.uuid4().int % 1000 + 100}"


async def events_of(client, bot: str) -> list[arena_pb2.AccountEvent]:
    """Every event on the bot account's stream so far."""
    return list(await account_events.read_after(client, bot, "0-0", count=100, block_ms=None))


def former_of(client, channel, ruleset: str, rules: ArenaRules) -> ArenaFormer:
    tables = Tables(channel, SECRET, timeout=10)
    seat, paused = account_notices(client)
    return ArenaFormer(
        ArenaPool(client), tables, redis_ratings(client), seat, paused, rules, [ruleset]
    )


async def test_waiting_bots_are_seated_at_rated_matches_and_told_their_seats(
    client, channel, ruleset
):
    pool = ArenaPool(client)
    former = former_of(client, channel, ruleset, ArenaRules())
    bots = [f"arena-bot-{n}-{uuid.uuid4().hex[:6]}" for n in range(5)]
    for n, bot in enumerate(bots):
        await pool.join(bot, ruleset, [2] if n < 4 else [3], now=100.0 + n)
    await listening(client, *bots)

    told = await former.tick(now=105.0)
    assert len(told) == 4, "two 2-seat tables; the 3-seat bot waits"
    for s in told:
        [event] = await events_of(client, s.bot_id)
        started = event.match_started
        assert (started.match_id, started.seat, started.seat_token) == (
            s.match_id,
            s.seat,
            s.seat_token,
        )
        assert started.arena and started.rated and started.ruleset_text == ruleset
    assert await events_of(client, bots[4]) == []
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


async def test_a_bot_whose_turns_keep_timing_out_is_paused_and_told(client, channel, ruleset):
    """issue 27, Limits: a bot that times out repeatedly is paused from the arena for a while,
    told so; its partner, who played its turns, waits again at once."""
    rules = ArenaRules(strikes_to_pause=2, strike_window_seconds=3600, pause_seconds=600)
    former = former_of(client, channel, ruleset, rules)
    pool = former.pool
    sleepy, awake = f"sleepy-{uuid.uuid4().hex[:6]}", f"awake-{uuid.uuid4().hex[:6]}"
    for bot in (sleepy, awake):
        await pool.join(bot, ruleset, [2], now=0.0)
    await listening(client, sleepy, awake)
    for n in range(2):
        seated = await former.tick(now=10.0 + 100 * n)
        seats = {s.bot_id: s.seat for s in seated}
        result = game_pb2.MatchResult(
            match_id=seated[0].match_id,
            ruleset=ruleset,
            seats=[
                game_pb2.MatchResult.Seat(seat=seats[bot], player_id=bot, left=bot == sleepy)
                for bot in (sleepy, awake)
            ],
        )
        paused = await former.match_over(result, now=50.0 + 100 * n)
    assert paused == [sleepy]
    *_, told = await events_of(client, sleepy)
    assert told.arena_paused.until_unix_ms == 750_000 and told.arena_paused.reason == "timeouts"
    assert not any(e.HasField("arena_paused") for e in await events_of(client, awake))
    waiting = {e.bot_id: e.paused_until for e in await pool.waiting(ruleset, now=151.0)}
    assert waiting == {sleepy: 750.0, awake: 0.0}
    assert await former.tick(now=200.0) == [], "nobody to play the one left"
    stranger = game_pb2.MatchResult(
        match_id="not-an-arena-match",
        ruleset=ruleset,
        seats=[game_pb2.MatchResult.Seat(seat=0, player_id="someone", left=True)],
    )
    assert await former.match_over(stranger, now=300.0) == []
    assert await client.exists(pool.strikes_key("someone")) == 0, "no strike outside the arena"


async def test_bots_of_close_ratings_on_the_bots_ladder_are_seated_together(
    client, channel, ruleset
):
    """The arena reads each bot's rating as the rating service keeps it: per preset name
    (``rating:classic:{<bot>}`` for a pool of ``classic target=...``), so a table seats bots of
    close ratings."""
    pool = ArenaPool(client)
    former = former_of(client, channel, ruleset, ArenaRules())
    bots = [f"rated-{n}-{uuid.uuid4().hex[:6]}" for n in range(4)]
    ratings = dict(zip(bots, (0, 50, 1, 51), strict=True))
    for n, (bot, rating) in enumerate(ratings.items()):
        await client.set(rating_key("classic", bot), str(rating), ex=600)
        await pool.join(bot, ruleset, [2], now=100.0 + n)
    await listening(client, *ratings)
    told = await former.tick(now=104.0)
    tables: dict[str, set[float]] = {}
    for s in told:
        tables.setdefault(s.match_id, set()).add(ratings[s.bot_id])
    assert sorted(map(sorted, tables.values())) == [[0, 1], [50, 51]]
