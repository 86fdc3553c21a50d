"""A tournament played to its end on the Redis Cluster: every tournament key of one tournament
in its slot, the results read from every shard of the results stream, the championship's keys
in the year's slot."""

import grpc

from maumau.common.redis_cluster import LocalCluster
from maumau.engine.app import EngineApp
from maumau.v1 import tournaments_pb2 as pb
from maumau.v1 import tournaments_pb2_grpc
from tests.tournaments.support import (
    Clock,
    enter_bots_and_start,
    follow,
    player,
    start_tournaments,
)

ORGANIZER = "cluster-organizer"


async def test_a_small_tournament_is_played_to_its_end_on_a_cluster(
    redis_cluster: LocalCluster, engine: EngineApp
) -> None:
    app = await start_tournaments(redis_cluster.url, f"127.0.0.1:{engine.port}", Clock())
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{app.port}") as channel:
            stub = tournaments_pb2_grpc.TournamentsServiceStub(channel)
            created = (
                await stub.CreateTournament(
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
            ).tournament
            tournament_id = created.tournament_id
            names = [f"C{number}" for number in range(8)]
            await enter_bots_and_start(stub, tournament_id, ORGANIZER, names, "random")
            played = await follow(stub, tournament_id)
            final = played.final()
            standings = (
                await stub.GetStandings(pb.GetStandingsRequest(tournament_id=tournament_id))
            ).standings
            assert final == standings and len(final.rows) == 8
            assert [len(table.entrants) for table in played.seatings[0].tables] == [4, 4]
            tournament = (
                await stub.GetTournament(pb.GetTournamentRequest(tournament_id=tournament_id))
            ).tournament
            assert tournament.status == "finished"
            year = tournament.championship_year
            champions = (
                await stub.GetChampionship(pb.GetChampionshipRequest(year=year))
            ).championship
            earned = {row.entrant_id: row.championship_points for row in final.rows}
            points = {row.player: row.points for row in champions.rows}
            assert {entrant: points.get(entrant, 0) for entrant in earned} == earned
    finally:
        await app.kill()
