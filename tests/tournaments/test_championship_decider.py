"""The championship's deciding game (rule text ``ostfriesland``: the most points win the year,
ties by the Mau-Mau ranking, then a deciding game): once the year is over, the service schedules
one deciding tournament per tie for a podium place, once, and its final ranking orders the tied
players in the year's table."""

from __future__ import annotations

import asyncio

import grpc
import redis.asyncio

from maumau.tournaments import ranking
from maumau.tournaments.state import Config, Tournament
from maumau.tournaments.store import TournamentStore
from maumau.v1 import tournaments_pb2 as pb
from maumau.v1 import tournaments_pb2_grpc
from tests.tournaments.conftest import StartTournaments
from tests.tournaments.support import Clock, follow

YEAR = 2026
ZONE = "Europe/Berlin"
KEEP = 86400


def counted(year: int) -> Tournament:
    """A finished ranked tournament of ``year``, as the championship counts one."""
    config = Config(
        **{
            "name": f"Cup {year}",
            "organizer_id": "organizer",
            "ruleset": "ostfriesland",
            "rounds": 20,
            "change_every": 5,
            "max_per_table": 8,
            "registration_closes_at": 0.0,
            "start_at": 0.0,
            "fill_with_bots": False,
            "ranked": True,
            "max_entrants": 8,
            "min_entrants": 2,
            "turn_seconds": 0,
            "bot_level": "heuristic",
        }
    )
    return Tournament(f"cup-{year}", config, 0.0, "seed", status="finished", year=year)


async def table(stub: tournaments_pb2_grpc.TournamentsServiceStub) -> dict[str, pb.ChampionshipRow]:
    reply = (await stub.GetChampionship(pb.GetChampionshipRequest(year=YEAR))).championship
    return {row.player: row for row in reply.rows}


async def test_a_tie_for_the_podium_is_played_out_once_the_year_is_over(
    replicas: StartTournaments, redis_client: redis.asyncio.Redis, clock: Clock
) -> None:
    store = TournamentStore(redis_client, KEEP)
    rows = [
        ("bot:Cat", 20, 0, "Cat"),
        ("bot:Ann", 12, 1, "Ann"),
        ("bot:Ben", 12, 1, "Ben"),
        ("bot:Dan", 2, 0, "Dan"),
        ("bot:Eve", 2, 0, "Eve"),
    ]
    assert await store.award(counted(YEAR), rows, KEEP)
    # During the year the tie is only marked; nothing is scheduled.
    clock.offset = ranking.year_over_at(YEAR, ZONE) - 3600 - clock()
    first = await replicas(championship_decider_start_seconds=0)
    async with grpc.aio.insecure_channel(f"127.0.0.1:{first.port}") as channel:
        stub = tournaments_pb2_grpc.TournamentsServiceStub(channel)
        before = await table(stub)
        assert [(before[p].place, before[p].tied) for p in ("bot:Ann", "bot:Ben")] == [
            (2, True)
        ] * 2
        assert before["bot:Ann"].decider == ""

        # The year is over: two replicas look; one deciding tournament, for places 2-3 only.
        clock.offset += ranking.year_over_at(YEAR, ZONE) + 3600 - clock()
        await replicas(championship_decider_start_seconds=0)
        for _ in range(200):
            decider = (await table(stub))["bot:Ann"].decider
            if decider:
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("no deciding tournament was scheduled")
        scheduled = (
            await stub.GetTournament(pb.GetTournamentRequest(tournament_id=decider))
        ).tournament
        assert scheduled.decides_championship == YEAR and not scheduled.ranked
        assert [e.entrant_id for e in scheduled.entrants] == ["bot:Ann", "bot:Ben"]
        assert scheduled.start_at == ranking.year_over_at(YEAR, ZONE)

        played = await follow(stub, decider)
        final = {row.entrant_id: row.place for row in played.final().rows}
        assert sorted(final.values()) == [1, 2]
        for _ in range(200):
            after = await table(stub)
            if not after["bot:Ann"].tied:
                break
            await asyncio.sleep(0.05)
        assert {p: (after[p].place, after[p].tied) for p in after} == {
            "bot:Cat": (1, False),
            "bot:Ann": (1 + final["bot:Ann"], False),
            "bot:Ben": (1 + final["bot:Ben"], False),
            "bot:Dan": (4, True),  # a tie below the podium is shared, never played out
            "bot:Eve": (4, True),
        }
        assert after["bot:Dan"].decider == ""
        listed = await stub.ListTournaments(pb.ListTournamentsRequest(limit=100))
        deciders = [t for t in listed.tournaments if t.decides_championship == YEAR]
        assert [t.tournament_id for t in deciders] == [decider]
