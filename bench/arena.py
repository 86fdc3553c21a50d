"""The bot arena: arena matches per minute with 32 of the platform's own bots, and the delivery of
account events.

- Arena: one engine process (``python -m maumau.engine``) on a real redis-server. BOTS players
  registered with the engine and marked as bot accounts in the player directory (the field the
  Arena service's BecomeBot sets) and present on their event streams (``online:{<id>}``) wait in
  the pool of RULESET, two seats; each is one of the platform's levels (random, heuristic,
  strong in turn). One matchmaker replica's arena tick
  (``ArenaFormer``) runs every TICK seconds, each seated bot plays its seat through the engine
  with ``maumau.bots.house.play_seat``, and the engine's results stream is read as the
  matchmaker reads it, each result handed to ``ArenaFormer.match_over``, so the bots wait again.
  Figure: arena matches finished per minute over the measured time (after a warm-up match).
- The levels' ladder: a rating replica (``python -m maumau.rating``) applies every result of
  that run, as in the platform; the bots' ladder of the preset then shows where each level
  stands among bots (issue 27: "the platform's levels ... in the order of their strength").
  Figures: per level, the mean displayed rating of its bots and their share of matches won.
- Events: EVENT_ACCOUNTS accounts, each with a reader blocked in
  ``account_events.read_after``, while events are published to them at EVENTS_PER_SECOND;
  latency from the entry id (the Redis server's clock when it was added) to its receipt, p50 and
  p99 over every event of the measured time.

``python -m bench.arena [seconds]`` runs it alone, the arena for ``seconds`` (default
ARENA_SECONDS).
"""

from __future__ import annotations

import asyncio
import itertools
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import cast

import grpc
import redis.asyncio

from bench.engine import percentile, process
from bench.matchmaking import wait_serving
from maumau.bots.house import play_seat
from maumau.common import account_events
from maumau.common.players import BOT, player_key
from maumau.common.redis_server import EmbeddedRedis, free_port
from maumau.common.results import read_result, results_streams
from maumau.common.streams import StreamEntry
from maumau.matchmaking.arena import ArenaRules
from maumau.matchmaking.arena_pool import ArenaPool
from maumau.matchmaking.arena_worker import ArenaFormer, Seated, account_notices
from maumau.matchmaking.ratings import redis_ratings
from maumau.matchmaking.tables import Tables
from maumau.rules import Ruleset
from maumau.v1 import arena_pb2
from maumau_sdk import Platform

BOTS = 32
LEVELS = ("random", "heuristic", "strong")
RULESET = "colour target=0"
"""One round, over quickly: the arena's pace, not the game's length, is measured; and the rule
system where the levels' strengths lie furthest apart (docs/bots.md), so their order on the
ladder shows in a few hundred matches."""
ARENA_SECONDS = 180.0
"""How long the arena plays in ``make bench``: long enough for each level's bots to play some
hundred matches between them."""
TICK = 0.05
SHARDS = 16
SECRET = "bench arena secret"
EVENT_ACCOUNTS = 200
EVENTS_PER_SECOND = 2000


async def arena_matches_per_minute(
    url: str, address: str, rating_address: str, seconds: float
) -> tuple[float, dict[str, dict[str, float]]]:
    """Matches finished per minute, and each level's standing on the bots' ladder after them."""
    client = redis.asyncio.Redis.from_url(url)
    channel = grpc.aio.insecure_channel(address)
    try:
        async with Platform.connect(address, rating_address=rating_address) as platform:
            players = [await platform.register(f"House {n}") for n in range(BOTS)]
            for player in players:
                await client.hset(player_key(player.player_id), BOT, "1")
            by_id = {p.player_id: (p, LEVELS[n % len(LEVELS)]) for n, p in enumerate(players)}
            pool = ArenaPool(client, entry_ttl=3600)
            now = time.time()
            for player in players:
                await pool.join(player.player_id, RULESET, [2], now)
                # listening, as an event stream of the bot's own would make it (only then seated)
                await account_events.present(client, player.player_id, "bench", now + 86400)
            announce, paused = account_notices(client)
            games: set[asyncio.Task[object]] = set()

            async def seat(seated: Seated) -> None:
                await announce(seated)
                player, level = by_id[seated.bot_id]
                game = play_seat(
                    player, seated.match_id, seated.seat, seated.seat_token, level, random.Random()
                )
                task = asyncio.create_task(game)
                games.add(task)
                task.add_done_callback(games.discard)

            former = ArenaFormer(
                pool,
                Tables(channel, SECRET.encode(), timeout=10),
                redis_ratings(client),
                seat,
                paused,
                ArenaRules(daily_matches=10**9),
                [RULESET],
            )
            finished: list[float] = []
            stop = asyncio.Event()
            follower = asyncio.create_task(follow_results(client, former, finished, stop))
            try:
                started = time.monotonic()
                while time.monotonic() - started < seconds + 5:
                    await former.tick(time.time())
                    await asyncio.sleep(TICK)
            finally:
                stop.set()
                await follower
                for task in list(games):
                    task.cancel()
                await asyncio.gather(*games, return_exceptions=True)
            levels = {player_id: level for player_id, (_, level) in by_id.items()}
            ladder = await levels_on_the_ladder(platform, levels, len(finished))
        warm = [at for at in finished if at >= started + 5]
        return len(warm) / seconds * 60, ladder
    finally:
        await channel.close()
        await client.aclose()


async def levels_on_the_ladder(
    platform: Platform, levels: dict[str, str], matches: int
) -> dict[str, dict[str, float]]:
    """Per level, its bots' mean displayed rating and share of matches won on the bots' ladder,
    once the rating replica has applied all ``matches`` (two seats each), or after 60 s."""
    preset = Ruleset.parse(RULESET).preset
    deadline = time.monotonic() + 60
    while True:
        board = await platform.leaderboard(preset, limit=BOTS, bots=True)
        entries = [entry for entry in board.entries if entry.player_id in levels]
        if sum(e.matches_played for e in entries) >= 2 * matches or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.5)
    ladder: dict[str, dict[str, float]] = {}
    for level in LEVELS:
        own = [entry for entry in entries if levels[entry.player_id] == level]
        played = sum(entry.matches_played for entry in own)
        ladder[level] = {
            "mean_rating": sum(entry.skill.display for entry in own) / max(1, len(own)),
            "won_share": sum(entry.matches_won for entry in own) / max(1, played),
            "matches": float(played),
        }
    return ladder


async def follow_results(
    client: redis.asyncio.Redis, former: ArenaFormer, finished: list[float], stop: asyncio.Event
) -> None:
    """Every result the engine writes from now on, to ``match_over`` (as the matchmaker's
    results consumer hands them over), its arrival time in ``finished``."""
    last = dict.fromkeys(results_streams(SHARDS), "$")
    while not stop.is_set():
        answer = cast(
            list[tuple[bytes, list[tuple[bytes, dict[bytes, bytes]]]]] | None,
            await client.xread(last, block=200),  # type: ignore[arg-type]
        )
        for stream, entries in answer or []:
            for entry_id, fields in entries:
                last[stream.decode()] = entry_id.decode()
                result = read_result(StreamEntry(entry_id, fields))
                await former.match_over(result, time.time())
                finished.append(time.monotonic())


async def event_delivery_ms(url: str, seconds: float) -> list[float]:
    """Publish-to-receipt latencies (ms) of every event published during ``seconds``."""
    client = redis.asyncio.Redis.from_url(url, max_connections=EVENT_ACCOUNTS + 20)
    accounts = [f"bench-account-{n}" for n in range(EVENT_ACCOUNTS)]
    latencies: list[float] = []
    stop = asyncio.Event()

    async def read(account: str) -> None:
        after = await account_events.last_id(client, account)
        while not stop.is_set():
            for event in await account_events.read_after(
                client, account, after, count=100, block_ms=200
            ):
                received = time.time() * 1000
                latencies.append(received - int(event.event_id.split("-")[0]))
                after = event.event_id

    readers = [asyncio.create_task(read(account)) for account in accounts]
    await asyncio.sleep(0.5)  # every reader blocked
    event = arena_pb2.AccountEvent(keep_alive=arena_pb2.KeepAlive())
    started = time.monotonic()
    for sent, account in enumerate(itertools.cycle(accounts)):
        elapsed = time.monotonic() - started
        if elapsed >= seconds:
            break
        if sent > elapsed * EVENTS_PER_SECOND:
            await asyncio.sleep(0.001)
        await account_events.publish(client, account, event)
    await asyncio.sleep(0.5)  # the last ones arrive
    stop.set()
    await asyncio.gather(*readers)
    await client.aclose()
    return sorted(latencies)


async def run(workdir: Path, seconds: float, arena_seconds: float) -> dict[str, float]:
    with EmbeddedRedis(workdir / "redis") as server:
        delivery = await event_delivery_ms(server.url, seconds)
        port = free_port()
        env = {
            **os.environ,
            "REDIS_URL": server.url,
            "MAUMAU_TOKEN_SECRET": SECRET,
            "MAUMAU_REDIS_SHARDS": str(SHARDS),
            "MAUMAU_ENGINE_PORT": str(port),
            "MAUMAU_ENGINE_METRICS_PORT": str(free_port()),
        }
        rating_port = free_port()
        rating_env = {
            **env,
            "MAUMAU_RATING_PORT": str(rating_port),
            "MAUMAU_RATING_METRICS_PORT": str(free_port()),
        }
        log, rating_log = workdir / "engine.log", workdir / "rating.log"
        with (
            process([sys.executable, "-m", "maumau.engine"], log, env),
            process([sys.executable, "-m", "maumau.rating"], rating_log, rating_env),
        ):
            await wait_serving(f"127.0.0.1:{port}", log)
            await wait_serving(f"127.0.0.1:{rating_port}", rating_log, "a rating replica")
            per_minute, ladder = await arena_matches_per_minute(
                server.url, f"127.0.0.1:{port}", f"127.0.0.1:{rating_port}", arena_seconds
            )
    return {
        "arena.matches_per_minute.32_bots": per_minute,
        **{
            f"arena.ladder.{level}.{name}": value
            for level, figures in ladder.items()
            for name, value in figures.items()
        },
        "arena.events.delivered": float(len(delivery)),
        "arena.events.delivery_p50_ms": percentile(delivery, 0.5),
        "arena.events.delivery_p99_ms": percentile(delivery, 0.99),
    }


def bench_arena(seconds: float, arena_seconds: float) -> dict[str, float]:
    """The arena's figures (see the module's docstring): events measured for ``seconds``, the
    arena's matches played for ``arena_seconds``."""
    with tempfile.TemporaryDirectory() as folder:
        figures = asyncio.run(run(Path(folder), seconds, arena_seconds))
    print(f"bot arena ({BOTS} bots of the platform's levels, {RULESET!r}, 2 seats):")
    print(f"  arena matches finished: {figures['arena.matches_per_minute.32_bots']:9,.0f} /min")
    print(
        "  the levels on the bots' ladder after it (mean rating, matches won): "
        + ", ".join(
            f"{level} {figures[f'arena.ladder.{level}.mean_rating']:,.0f} "
            f"({figures[f'arena.ladder.{level}.won_share']:.0%} of "
            f"{figures[f'arena.ladder.{level}.matches']:,.0f})"
            for level in LEVELS
        )
    )
    print(
        f"  account events, {EVENT_ACCOUNTS} streams at {EVENTS_PER_SECOND}/s: "
        f"p50 {figures['arena.events.delivery_p50_ms']:.1f} ms, "
        f"p99 {figures['arena.events.delivery_p99_ms']:.1f} ms "
        f"({figures['arena.events.delivered']:,.0f} delivered)"
    )
    return figures


if __name__ == "__main__":
    bench_arena(10.0, float(sys.argv[1]) if len(sys.argv) > 1 else ARENA_SECONDS)
