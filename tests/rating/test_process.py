"""``python -m maumau.rating`` as it runs in production, and the engine's own results as input.

- The process, configured from the environment, applies what the engine published before it
  started, serves profiles, exposes its metrics, and on SIGTERM stops cleanly.
- The engine's ``match_result`` of real matches played to the end with the rules core (colour in
  teams with a seat that left, classic against bots) is what the service reads: the
  ``MatchResult`` contract of game.proto.
"""

import random
import signal
import time
import urllib.request
from pathlib import Path
from subprocess import Popen

import grpc
import redis.asyncio

from maumau.common.redis_server import EmbeddedRedis, free_port
from maumau.common.results import RESULTS_STREAM
from maumau.engine.aftercommit import match_result
from maumau.engine.matches import due_seat
from maumau.engine.record import MatchRecord
from maumau.rating.synthetic import synthetic_results
from maumau.rules import Match, Ruleset
from maumau.v1 import game_pb2, rating_pb2, rating_pb2_grpc
from maumau.wire import bot_level_from_pb
from tests.rating.support import consumer, publish
from tests.support.polling import eventually
from tests.support.processes import kill_if_running, spawn, until_serving


def finished(
    ruleset: str, players: list[str], bots: list[str], left: list[bool]
) -> game_pb2.MatchResult:
    """A match played to the end with random legal actions, as the engine reports it."""
    match, _ = Match.start(Ruleset.parse(ruleset), len(players), "seed")
    rng = random.Random(1)
    while match.outcome is None:
        seat = due_seat(match)
        match.apply(seat, rng.choice(list(match.legal_actions(seat))))
    seats = len(players)
    record = MatchRecord(
        match_id=f"real-{ruleset}-{time.time_ns()}",
        ruleset=ruleset,
        seats=seats,
        ranked=True,
        turn_seconds=0,
        max_timeouts=3,
        auto_start=True,
        seed_commitment="",
        server_seed="",
        players=players,
        names=players,
        bots=bots,
        nonces=[""] * seats,
        left=left,
        timeouts=[0] * seats,
        status="over",
    )
    return match_result(record, match)


async def test_the_engines_results_are_applied(client, store, stream):
    """The colour pair with a seat that left: Dan gets no XP and no win; bot seats rate as
    their levels and gain no XP."""
    teams = finished(
        "colour teams=true", ["ann", "ben", "cat", "dan"], [""] * 4, [False, False, False, True]
    )
    bots = finished("classic target=0", ["eve", "", ""], ["", "random", "strong"], [False] * 3)
    await publish(client, stream, [teams, bots])
    reader = consumer(client, store, stream, "contract")
    await reader.ensure_group()
    assert await reader.consume_new() == 2

    for result in (teams, bots):
        for seat in result.seats:
            rated_id = seat.player_id or f"bot:{bot_level_from_pb(seat.bot_level)}"
            stats = await store.player(rated_id)
            assert stats is not None and stats.count("played") == 1
            xp = 8 + 14 * seat.winner + 2 * seat.rounds_won + seat.specials
            assert stats.count("xp") == (0 if seat.left or not seat.player_id else xp)
    dan = await store.player("dan")
    assert dan is not None and dan.count("left") == 1 and dan.count("won") == 0


def spawn_rating(port: int, metrics_port: int, redis_url: str, log: Path) -> Popen[bytes]:
    env = {
        "REDIS_URL": redis_url,
        "MAUMAU_RATING_PORT": str(port),
        "MAUMAU_RATING_METRICS_PORT": str(metrics_port),
        "MAUMAU_RATING_HEALTH_INTERVAL_SECONDS": "0.2",
        "MAUMAU_RATING_CONSUMER": "process-1",
        "MAUMAU_RATING_BATCH": "25",
    }
    return spawn("maumau.rating", env, log)


async def test_the_service_process_applies_serves_exposes_metrics_and_stops_on_sigterm(tmp_path):
    with EmbeddedRedis(tmp_path / "redis") as server:
        direct = redis.asyncio.Redis.from_url(server.url)
        results = synthetic_results(60, seed=2)
        await publish(direct, RESULTS_STREAM, results)
        expected = sum(
            any(s.bot_level == game_pb2.BOT_LEVEL_STRONG for s in r.seats) for r in results
        )
        port, metrics_port = free_port(), free_port()
        log = tmp_path / "rating.log"
        process = spawn_rating(port, metrics_port, server.url, log)
        try:
            await until_serving(process, f"127.0.0.1:{port}", log, "maumau.v1.RatingService")
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                stub = rating_pb2_grpc.RatingServiceStub(channel)

                async def strong_bot():
                    try:
                        found = (
                            await stub.GetProfile(
                                rating_pb2.GetProfileRequest(player_id="bot:strong")
                            )
                        ).profile
                    except grpc.aio.AioRpcError:
                        return None
                    return found if found.matches_played == expected else None

                await eventually(strong_bot, 10, "every result applied")
            url = f"http://127.0.0.1:{metrics_port}/metrics"
            metrics = urllib.request.urlopen(url, timeout=5).read().decode()
            assert "rating_results_applied_total 60.0" in metrics
            assert "rating_apply_seconds_count" in metrics

            process.send_signal(signal.SIGTERM)
            assert process.wait(timeout=15) == 0, log.read_text()
            assert "shutting down" in log.read_text()
            assert await direct.xinfo_consumers(RESULTS_STREAM, "rating") == [], "left the group"
        finally:
            kill_if_running(process)
            await direct.aclose()
