"""Failover with the whole platform running (issue "Scale out", tests on a real cluster): two
replicas of the engine, the matchmaker and rating and one bots service, every service a process
of its own. Players queue through the matchmaker, get a bot opponent and play their seat to the
end over both engines while a Redis master, an engine, a matchmaker and a rating replica are
killed with SIGKILL and restarted. Afterwards: every match finished, no acknowledged move is
missing from its match's event stream, no request id was applied twice, nobody sat in two
matches at once, and every finished match was rated exactly once. The same again on a single
Redis (append-only file on) restarted mid-run.

MAUMAU_TEST_REQUIRE_ALL=1 plays 40 matches per store; otherwise 12, to keep the suite quick."""

from __future__ import annotations

import asyncio
import os
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path

import redis.asyncio

from maumau.common.redis_client import connect
from maumau.common.redis_cluster import LocalCluster
from maumau.common.redis_server import EmbeddedRedis, reconnecting
from maumau.common.results import results_stream_of
from maumau.engine.store import MatchStore
from maumau.rating.store import RatingStore
from maumau.v1 import game_pb2
from tests.cluster.platform import Platform, start_platform
from tests.cluster.players import RULES, SimulatedPlayer
from tests.support.engine import acted, assert_acknowledged_in_stream, result_entries

FULL = os.environ.get("MAUMAU_TEST_REQUIRE_ALL") == "1"
SEATS_PLAYED = int(os.environ.get("MAUMAU_TEST_FAILOVER_MATCHES", "40" if FULL else "12"))
"""Matches played by the simulated players in all (a player's seat each; the issue's scale is
200): up to 20 players, each playing its share."""
PLAYERS = min(20, max(2, SEATS_PLAYED // 2))
MATCHES_EACH = max(1, SEATS_PLAYED // PLAYERS)


async def test_a_cluster_losing_a_master_and_a_replica_of_each_service_keeps_every_promise(
    tmp_path: Path,
) -> None:
    with LocalCluster(tmp_path / "cluster") as cluster:

        async def fail_store() -> None:
            master = cluster.node_on(cluster.master_ports()[0])
            master.kill()  # its replica takes over after cluster-node-timeout
            await asyncio.to_thread(cluster.wait_for_takeover, 60)
            await asyncio.to_thread(master.start)  # it comes back as a replica
            await asyncio.to_thread(cluster.wait_until_healthy, 60)

        await play_through_failures(cluster.url, tmp_path, fail_store)


async def test_a_single_redis_restarted_mid_run_keeps_every_promise(tmp_path: Path) -> None:
    with EmbeddedRedis(tmp_path / "redis") as server:

        async def fail_store() -> None:
            await asyncio.to_thread(server.restart)

        await play_through_failures(server.url, tmp_path, fail_store)


async def play_through_failures(
    url: str, folder: Path, fail_store: Callable[[], Awaitable[None]]
) -> None:
    platform = await start_platform(url, folder / "services")
    client = reconnecting(await connect(url))
    players: list[SimulatedPlayer] = []
    try:
        engines, matchmakers = platform.addresses("engine"), platform.target("matchmaking")
        for n in range(PLAYERS):
            players.append(await SimulatedPlayer.register(engines, matchmakers, f"p{n}", n))
        total = PLAYERS * MATCHES_EACH

        def finished() -> int:
            return sum(len(p.matches) for p in players) - len(players)

        started = time.monotonic()
        playing = asyncio.gather(*(p.play_matches(MATCHES_EACH) for p in players))
        kills = await chaos(platform, fail_store, finished, total, playing)
        await playing
        checked = await check_promises(client, players)
        # The figures of the run (shown with pytest -s): matches, moves checked, failures.
        print(
            f"\nfailover run: {checked['matches']} matches ({total} seats played) finished, "
            f"{checked['moves']} acknowledged actions checked, {checked['rated']} rated once, "
            f"{kills} kills, {time.monotonic() - started:.0f} s"
        )
    finally:
        for player in players:
            await player.close()
        await client.aclose()
        platform.stop()


async def chaos(
    platform: Platform,
    fail_store: Callable[[], Awaitable[None]],
    finished: Callable[[], int],
    total: int,
    playing: asyncio.Future[object],
) -> int:
    """At a fifth of the matches the store fails, then one replica of each service dies in
    turn and comes back; how many kills (the store's failure counted as one)."""

    async def when(share: float) -> None:
        while finished() < share * total and not playing.done():
            await asyncio.sleep(0.05)

    await when(0.2)
    await fail_store()
    for share, name in ((0.35, "engine-0"), (0.5, "matchmaking-0"), (0.65, "rating-0")):
        await when(share)
        replica = platform.replicas[name]
        replica.kill()
        await asyncio.sleep(0.5)
        await replica.start()
    return 4


async def check_promises(
    client: redis.asyncio.Redis, players: list[SimulatedPlayer]
) -> dict[str, int]:
    """Assert every promise; the counts checked (matches, acknowledged actions, rated)."""
    store, ratings = MatchStore(client), RatingStore(client)
    humans: dict[str, dict[int, str]] = {}
    for player in players:
        assert len(player.matches) == MATCHES_EACH
        for match_id in player.matches:
            stored = await store.load(match_id)
            assert stored is not None, f"match {match_id} is not stored"
            assert stored.record.status == "over", f"match {match_id} did not finish"
            humans.setdefault(match_id, {})[stored.record.players.index(player.player_id)] = (
                player.player_id
            )
        # Nobody in two matches at once: the engine knows of no match of theirs but those
        # their tickets were seated at, one after the other.
        indexed = await store.player_matches(player.player_id, 1000)
        assert sorted(indexed) == sorted(player.matches), player.player_id

    answers = [a for p in players for a in p.acknowledged]
    for match_id, seats in humans.items():
        entries = await store.read_events(match_id, "0", None, count=1_000_000)
        events = [game_pb2.Event.FromString(data) for _, data in entries]
        mine = [a for a in answers if a.match_id == match_id]
        # No acknowledged move missing from the match's stream, in the order acknowledged.
        assert_acknowledged_in_stream(events, [a.answer for a in mine])
        for seat in seats:
            # No request id applied twice: the seat's own actions in the stream are exactly
            # those of its acknowledged answers, one per request id (a skip is not counted: the
            # card of whoever skips this seat brings it, a bot's or another seat's).
            by_request = {a.request_id: a.answer for a in mine if a.answer.view.seat == seat}
            answered = [e for a in by_request.values() for e in a.events if own_action(e, seat)]
            stored = [e for e in events if own_action(e, seat)]
            assert stored == answered, (match_id, seat)

    # Every finished match rated exactly once: each applied once, and every player's profile
    # counts each of their matches once.
    deadline = time.monotonic() + 60
    while True:
        applied = await client.exists(*(ratings.match_key(m, RULES.preset) for m in humans))
        if applied == len(humans) or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.2)
    if applied < len(humans):
        unrated = [m for m in humans if not await client.exists(ratings.match_key(m, RULES.preset))]
        raise AssertionError(
            f"{len(unrated)} finished matches were not rated: "
            + "; ".join([await where_the_result_is(client, store, m) for m in unrated])
        )
    for player in players:
        profile = await ratings.player(player.player_id)
        assert profile is not None and profile.count("played") == MATCHES_EACH, player.player_id
    order = await ratings.applied_order()
    assert not [m for m, n in Counter(order).items() if n > 1]
    return {"matches": len(humans), "moves": len(answers), "rated": applied}


async def where_the_result_is(client: redis.asyncio.Redis, store: MatchStore, match_id: str) -> str:
    """Where a finished match's result got to, for a failure's message: published or not, its
    deadline, and its entry in the results stream (and with which rating consumer)."""
    stream = results_stream_of(match_id, store.shards)
    ids = await result_entries(client, store, match_id)
    pending = []
    for entry_id in ids:
        pending += await client.xpending_range(stream, "rating", entry_id, entry_id, 1)
    return (
        f"{match_id}: published {await store.published(match_id)}, deadline "
        f"{await store.deadlines.due(match_id)}, in {stream} as {ids}, pending {pending}"
    )


def own_action(event: game_pb2.Event, seat: int) -> bool:
    return acted(event, seat) and event.WhichOneof("kind") != "skipped"
