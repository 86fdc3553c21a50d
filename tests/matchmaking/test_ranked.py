"""Ranked tables (issue 5, "Forming tables"): close ratings sit together, and the rating window
widens the longer a ticket waits. Ratings come from the ``rating:<preset>:{player}`` keys."""

from __future__ import annotations

import asyncio
import random

import redis.asyncio

from maumau.engine.app import EngineApp
from maumau.matchmaking.ratings import rating_key
from maumau.v1 import engine_pb2, game_pb2
from tests.matchmaking.support import Engine, Player, StartMatchmaker
from tests.support.rpc import auth


def window(waited: float, base: float, widen: float, cap: float) -> float:
    return min(cap, base + widen * waited)


async def test_far_ratings_meet_only_once_the_window_has_widened(
    matchmakers: StartMatchmaker, redis_client: redis.asyncio.Redis
) -> None:
    app = await matchmakers(
        rating_window=10.0, rating_widen_per_second=50.0, rating_max_window=100.0
    )
    address = f"127.0.0.1:{app.port}"
    low, high, unrated = (Player.connect(f"ranked-{n}", address) for n in ("low", "high", "new"))
    await redis_client.set(rating_key("classic", low.player_id), 0)
    await redis_client.set(rating_key("classic", high.player_id), 60)
    fields = {"ranked": True, "seat_counts": [2]}
    low_ticket = await low.enqueue("classic", **fields)
    high_ticket = await high.enqueue("classic", **fields)
    # A casual ticket never meets a ranked one, whatever the ratings.
    casual = await unrated.enqueue("classic", seat_counts=[2])
    low_end, high_end = await asyncio.gather(
        low.follow(low_ticket.ticket_id), high.follow(high_ticket.ticket_id)
    )
    assert low_end[-1].state == high_end[-1].state == "seated"
    assert low_end[-1].match_id == high_end[-1].match_id
    # 10 + 50 * waited >= 60 only after a second of waiting.
    assert min(low_end[-1].waited_seconds, high_end[-1].waited_seconds) >= 1.0
    assert (await unrated.get(casual.ticket_id)).state == "searching"
    await unrated.cancel(casual.ticket_id)
    # A player without a rating has the default (0): they meet the low player at once.
    again = await low.enqueue("classic", **fields)
    ranked = await unrated.enqueue("classic", **fields)
    ends = await asyncio.gather(low.follow(again.ticket_id), unrated.follow(ranked.ticket_id))
    assert ends[0][-1].match_id == ends[1][-1].match_id
    assert ends[1][-1].waited_seconds < 0.5
    for player in (low, high, unrated):
        await player.close()


async def test_every_ranked_table_stays_within_the_window_of_its_tickets(
    matchmakers: StartMatchmaker, redis_client: redis.asyncio.Redis
) -> None:
    base, widen, cap = 4.0, 20.0, 200.0
    app = await matchmakers(
        rating_window=base,
        rating_widen_per_second=widen,
        rating_max_window=cap,
        smaller_after_seconds=0.3,
    )
    rng = random.Random(7)
    address = f"127.0.0.1:{app.port}"
    players = [Player.connect(f"spread-{n}", address) for n in range(40)]
    ratings = {}
    for player in players:
        ratings[player.player_id] = rng.uniform(0, 100)
        await redis_client.set(rating_key("online", player.player_id), ratings[player.player_id])
    tickets = [
        await p.enqueue(
            "online",
            ranked=True,
            seat_counts=[2, 3, 4],
            preferred_seats=4,
            allow_bots=True,  # for whoever is left over at the end
            bots_after_seconds=2.0,
        )
        for p in players
    ]
    finals = await asyncio.gather(
        *(p.follow(t.ticket_id) for p, t in zip(players, tickets, strict=True))
    )
    tables: dict[str, list] = {}
    for states in finals:
        assert states[-1].state == "seated"
        tables.setdefault(states[-1].match_id, []).append(states[-1])
    widened = 0
    for seated in tables.values():
        spread = max(ratings[t.players[0]] for t in seated) - min(
            ratings[t.players[0]] for t in seated
        )
        narrowest = min(window(t.waited_seconds, base, widen, cap) for t in seated)
        assert spread <= narrowest + 1e-6, (spread, narrowest)
        widened += spread > base
    assert widened, "some tables needed a wider window than the first one"
    for player in players:
        await player.close()


async def test_bots_of_a_ranked_table_are_the_level_rated_closest_to_its_players(
    matchmakers: StartMatchmaker, redis_client: redis.asyncio.Redis, engine: EngineApp
) -> None:
    """A strong player meets strong bots, a new one the level nearest a new rating; a casual
    table keeps the configured level (random in these tests)."""
    app = await matchmakers(bot_level="random")
    address = f"127.0.0.1:{app.port}"
    for level, rating in (("random", -10.0), ("heuristic", 4.0), ("strong", 30.0)):
        await redis_client.set(rating_key("online", f"bot:{level}"), rating)
    expert, novice = (Player.connect(f"bots-{n}", address) for n in ("expert", "novice"))
    await redis_client.set(rating_key("online", expert.player_id), 26.0)
    watcher = Engine(f"127.0.0.1:{engine.port}")
    fields = {"seat_counts": [3], "allow_bots": True, "bots_after_seconds": 0.0}
    for player, ranked, level in (
        (expert, True, game_pb2.BOT_LEVEL_STRONG),
        (novice, True, game_pb2.BOT_LEVEL_HEURISTIC),
        (novice, False, game_pb2.BOT_LEVEL_RANDOM),
    ):
        ticket = await player.enqueue("online", ranked=ranked, **fields)
        seated = (await player.follow(ticket.ticket_id))[-1]
        assert seated.state == "seated" and seated.bot_seats == 2
        info = await watcher.match(seated.seat_token)
        assert info.ranked == ranked
        bots = [s.bot_level for s in info.seat_info if not s.player_id]
        assert bots == [level, level]
        await watcher.stub.Leave(engine_pb2.LeaveRequest(), metadata=auth(seated.seat_token))
    await watcher.close()
    for player in (expert, novice):
        await player.close()
