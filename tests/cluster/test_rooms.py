"""A private room on the Redis Cluster: its finished match is read from its shard of the results
stream and the room's next match starts, with the tally of its winners."""

import random

from maumau.common.redis_cluster import LocalCluster
from maumau.engine.app import EngineApp
from maumau.v1 import game_pb2, matchmaking_pb2
from tests.matchmaking.support import start_matchmaker
from tests.matchmaking.test_rooms import engine_match, members
from tests.support.engine import play_to_the_end
from tests.support.polling import eventually


async def test_a_rooms_next_match_starts_on_a_cluster(
    redis_cluster: LocalCluster, engine: EngineApp
) -> None:
    engine_address = f"127.0.0.1:{engine.port}"
    app = await start_matchmaker(redis_cluster.url, engine_address)
    try:
        host, guest = await members("Ida Jo", engine, app)
        room = await host.create("classic target=0", seats=3, bot_level=game_pb2.BOT_LEVEL_RANDOM)
        await guest.join(room.code)
        started = await host.start(room.code)
        first = started.match_id
        players = [
            host.player(started, engine_address),
            guest.player(await guest.get(room.code), engine_address),
        ]
        await play_to_the_end(first, players, random.Random(3))

        async def next_match() -> matchmaking_pb2.Room | None:
            now = await host.get(room.code)
            return now if now.matches_started == 2 and now.status == "playing" else None

        second = await eventually(next_match, 20, "the room's next match")
        assert second.match_id != first
        outcome = await engine_match(engine_address, players[0].seat_tokens[first])
        assert [s.wins for s in second.seat_list] == [
            int(seat in outcome.outcome.winners) for seat in range(3)
        ]
        for someone in (host, guest):
            await someone.channel.close()
        for client in players:
            await client.close()
    finally:
        await app.stop(0)
