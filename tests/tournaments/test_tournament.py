"""Whole East-Frisian tournaments through the real engine and tournaments service (rule text
002: 'Turniermodus', 'Meisterschaft', 'Turnierpunkte'): 24 bot entrants, 20 rounds in blocks of
5, three tables of eight."""

from __future__ import annotations

import asyncio
import datetime
import itertools
import zoneinfo

import redis.asyncio

from maumau.v1 import tournaments_pb2 as pb
from maumau.v1 import tournaments_pb2_grpc
from tests.tournaments.support import (
    PAID,
    Clock,
    Played,
    engine_rounds,
    enter_bots_and_start,
    expected_next_tables,
    follow,
    player,
    scores_after,
)

ORGANIZER = "organizer-1"


async def bot_tournament(
    stub: tournaments_pb2_grpc.TournamentsServiceStub, name: str, entrants: int = 24
) -> str:
    """Create a ranked tournament of named bot entrants and start it."""
    created = (
        await stub.CreateTournament(
            pb.CreateTournamentRequest(name=name, ranked=True, turn_seconds=0),
            metadata=player(ORGANIZER),
        )
    ).tournament
    tournament_id = created.tournament_id
    assert (created.rounds, created.change_every, created.max_per_table) == (20, 5, 8)
    assert created.ruleset == "ostfriesland" and created.status == "registration"
    names = [f"B{number:02d}" for number in range(entrants)]
    await enter_bots_and_start(stub, tournament_id, ORGANIZER, names, "heuristic")
    return tournament_id


async def check_played(played: Played, standings: pb.Standings, engine_address: str) -> None:
    """The invariants of a finished tournament, checked against the engine's own round scores."""
    await engine_rounds(engine_address, played)
    assert sorted(played.seatings) == [0, 1, 2, 3]
    assert len(played.block_matches) == 4 * 3
    # Every table change follows the rule, computed here from the engine's round results.
    for block in (1, 2, 3):
        before = [list(t.entrants) for t in played.seatings[block - 1].tables]
        points, maumaus, _ = scores_after(played, block)
        after = [list(t.entrants) for t in played.seatings[block].tables]
        assert after == expected_next_tables(before, points, maumaus), f"block {block}"
        assert [len(t) for t in after] == [8, 8, 8]
        assert len(played.seatings[block].moves) == 12
    # Standings are the sum of the engine's round scores; 20 rounds each.
    points, maumaus, rounds = scores_after(played, 4)
    rows = {row.entrant_id: row for row in standings.rows}
    assert len(rows) == 24
    # Every round counted once, at the table and seats the engine played it.
    counted = [e.round_result for e in played.events if e.HasField("round_result")]
    assert len(counted) == 3 * 20
    assert len({(r.block, r.table, r.round) for r in counted}) == len(counted)
    for r in counted:
        assert list(r.entrants) == list(played.seatings[r.block].tables[r.table].entrants)
        engine_round = played.rounds[played.block_matches[(r.block, r.table)]][r.round - 1]
        assert (r.round, list(r.points)) == (engine_round[0], engine_round[3])
    for entrant, row in rows.items():
        assert (row.points, row.maumaus, row.rounds_played) == (
            points[entrant],
            maumaus[entrant],
            rounds[entrant],
        )
        assert row.rounds_played == 20
    # The final ranking: fewest points, then most Mau-Mau finishes, then deciding rounds.
    assert standings.final
    ordered = list(standings.rows)
    for better, worse in itertools.pairwise(ordered):
        assert (better.points, -better.maumaus) <= (worse.points, -worse.maumaus)
        if (better.points, better.maumaus) == (worse.points, worse.maumaus) and worse.place <= 10:
            assert better.deciding and list(better.deciding) <= list(worse.deciding)
    assert [row.place for row in ordered[:10]] == list(range(1, 11))
    assert [row.championship_points for row in ordered] == [*PAID, *[0] * 14]
    deciding = [e.deciding_round for e in played.events if e.HasField("deciding_round")]
    for decided in deciding:
        if decided.points:
            tied = [rows[e] for e in decided.entrants]
            assert len({(r.points, r.maumaus) for r in tied}) == 1


async def championship(
    stub: tournaments_pb2_grpc.TournamentsServiceStub, year: int, tournaments: int
) -> pb.Championship:
    """The year's table once every entrant has ``tournaments`` counted (a tournament is added
    to the championship moments after its final ranking)."""
    for _ in range(100):
        table = (await stub.GetChampionship(pb.GetChampionshipRequest(year=year))).championship
        if table.rows and all(row.tournaments == tournaments for row in table.rows):
            return table
        await asyncio.sleep(0.1)
    raise AssertionError(f"the {year} championship does not count {tournaments} tournaments")


def year_of(moment: float) -> int:
    return datetime.datetime.fromtimestamp(moment, zoneinfo.ZoneInfo("Europe/Berlin")).year


async def test_a_tournament_of_24_bots_and_the_yearly_championship(
    stub: tournaments_pb2_grpc.TournamentsServiceStub,
    engine_address: str,
    redis_client: redis.asyncio.Redis,
    clock: Clock,
) -> None:
    first = await bot_tournament(stub, "Spring cup")
    played = await follow(stub, first)
    standings = (await stub.GetStandings(pb.GetStandingsRequest(tournament_id=first))).standings
    assert played.final() == standings
    await check_played(played, standings, engine_address)
    tournament = (await stub.GetTournament(pb.GetTournamentRequest(tournament_id=first))).tournament
    year = tournament.championship_year
    assert tournament.status == "finished" and year == year_of(tournament.finished_at)

    earned = {row.entrant_id: row.championship_points for row in standings.rows}
    champions = await championship(stub, year, tournaments=1)
    assert {row.player: row.points for row in champions.rows} == earned

    # A second tournament in the same year adds up.
    second = await bot_tournament(stub, "Summer cup")
    played_second = await follow(stub, second)
    await check_played(played_second, played_second.final(), engine_address)
    for row in played_second.final().rows:
        earned[row.entrant_id] += row.championship_points
    champions = await championship(stub, year, tournaments=2)
    assert {row.player: row.points for row in champions.rows} == earned
    points = [row.points for row in champions.rows]
    assert points == sorted(points, reverse=True)
    history = (
        await stub.GetPlayerTournaments(pb.GetPlayerTournamentsRequest(player="bot:B00"))
    ).tournaments
    assert [h.tournament_id for h in history.tournaments] == [second, first]

    # One finished in the next calendar year (Berlin time) starts a new championship.
    new_year = datetime.datetime(year + 1, 1, 1, 0, 30, tzinfo=zoneinfo.ZoneInfo("Europe/Berlin"))
    clock.offset = new_year.timestamp() - clock()
    third = await bot_tournament(stub, "New year cup", entrants=9)
    played_third = await follow(stub, third)
    final = played_third.final()
    assert [len(t.entrants) for t in played_third.seatings[0].tables] == [5, 4]
    next_year = await championship(stub, year + 1, tournaments=1)
    assert {row.player: row.points for row in next_year.rows} == {
        row.entrant_id: row.championship_points for row in final.rows
    }
    unchanged = (await stub.GetChampionship(pb.GetChampionshipRequest(year=year))).championship
    assert {row.player: row.points for row in unchanged.rows} == earned
