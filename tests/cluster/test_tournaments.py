"""A tournament played to its end on the Redis Cluster: every tournament key of one tournament
in its slot, the results read from every shard of the results stream, the championship's keys
in the year's slot."""

from collections.abc import AsyncIterator

import grpc
import pytest

from maumau.common.redis_cluster import LocalCluster
from maumau.engine.app import EngineApp
from maumau.v1 import tournaments_pb2 as pb
from maumau.v1 import tournaments_pb2_grpc
from tests.support.engine import start_engine, stop_engine
from tests.tournaments.support import Clock, follow, player, start_tournaments

ORGANIZER = "cluster-organizer"


@pytest.fixture
async def engine(redis_cluster: LocalCluster) -> AsyncIterator[EngineApp]:
    app, client = await start_engine(redis_cluster.url)
    yield app
    await stop_engine(app, client)


async def test_a_small_tournament_is_played_to_its_end_on_a_cluster(
    redis_cluster: LocalCluster, engine: EngineApp
) -> None:
    app = await start_tournaments(redis_cluster.url, f"127.0.0.1:{engine.port}", Clock())
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{app.port}") as channel:
            stub = tournaments_pb2_grpc.TournamentsStub(channel)
            created = await stub.CreateTournament(
                pb.CreateTournamentRequest(
                    name="Cluster cup",
                    ranked=True,
                    turn_seconds=0,
                    rounds=4,
                    change_every=2,
                    max_per_table=4,
                ),
                metadata=player(ORGANIZER),
            )
            tournament_id = created.tournament_id
            for number in range(8):
                await stub.Register(
                    pb.RegisterEntrantRequest(
                        tournament_id=tournament_id, bot_name=f"C{number}", bot_level="random"
                    ),
                    metadata=player(ORGANIZER),
                )
            await stub.StartTournament(
                pb.StartTournamentRequest(tournament_id=tournament_id), metadata=player(ORGANIZER)
            )
            played = await follow(stub, tournament_id)
            final = played.final()
            standings = await stub.GetStandings(pb.GetStandingsRequest(tournament_id=tournament_id))
            assert final == standings and len(final.rows) == 8
            assert [len(table.entrants) for table in played.seatings[0].tables] == [4, 4]
            tournament = await stub.GetTournament(
                pb.GetTournamentRequest(tournament_id=tournament_id)
            )
            assert tournament.status == "finished"
            year = tournament.championship_year
            champions = await stub.GetChampionship(pb.GetChampionshipRequest(year=year))
            earned = {row.entrant_id: row.championship_points for row in final.rows}
            points = {row.player: row.points for row in champions.rows}
            assert {entrant: points.get(entrant, 0) for entrant in earned} == earned
    finally:
        await app.kill()
