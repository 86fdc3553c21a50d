"""Tournaments with a start time start by themselves, or are cancelled with too few entrants."""

from __future__ import annotations

import time

import grpc
import pytest

from maumau.v1 import tournaments_pb2 as pb
from maumau.v1 import tournaments_pb2_grpc
from tests.tournaments.support import Clock, follow, player

ORGANIZER = "organizer-schedule"


async def scheduled(
    stub: tournaments_pb2_grpc.TournamentsServiceStub, name: str, bots: int, **options: object
) -> str:
    soon = time.time() + 1.0
    created = (
        await stub.CreateTournament(
            pb.CreateTournamentRequest(
                name=name,
                rounds=1,
                change_every=1,
                turn_seconds=0,
                start_at=soon,
                registration_closes_at=soon,
                **options,  # type: ignore[arg-type]
            ),
            metadata=player(ORGANIZER),
        )
    ).tournament
    for number in range(bots):
        await stub.RegisterEntrant(
            pb.RegisterEntrantRequest(tournament_id=created.tournament_id, bot_name=f"S{number}"),
            metadata=player(ORGANIZER),
        )
    return created.tournament_id


async def test_a_tournament_starts_at_its_start_time(
    stub: tournaments_pb2_grpc.TournamentsServiceStub,
) -> None:
    tid = await scheduled(stub, "Dawn cup", bots=3)
    played = await follow(stub, tid, timeout=60)
    assert len(played.final().rows) == 3
    with pytest.raises(grpc.aio.AioRpcError) as late:
        await stub.RegisterEntrant(
            pb.RegisterEntrantRequest(tournament_id=tid), metadata=player("latecomer")
        )
    assert late.value.code() == grpc.StatusCode.FAILED_PRECONDITION


async def test_too_few_entrants_at_the_start_time_cancel_it_and_bots_may_fill(
    stub: tournaments_pb2_grpc.TournamentsServiceStub,
) -> None:
    empty = await scheduled(stub, "Quiet cup", bots=1, min_entrants=3)
    played = await follow(stub, empty, timeout=60)
    assert "1 entrants at the start; 3 needed" in played.events[-1].cancelled
    found = await stub.GetTournament(pb.GetTournamentRequest(tournament_id=empty))
    assert found.tournament.status == "cancelled"
    filled = await scheduled(stub, "Filled cup", bots=1, fill_with_bots=True, max_per_table=4)
    played = await follow(stub, filled, timeout=60)
    assert [len(t.entrants) for t in played.seatings[0].tables] == [4]


async def test_a_tournament_nobody_starts_is_cancelled_after_the_retention_time(
    replicas,
    clock: Clock,  # type: ignore[no-untyped-def]
) -> None:
    app = await replicas(retention_seconds=60)
    async with grpc.aio.insecure_channel(f"127.0.0.1:{app.port}") as channel:
        stub = tournaments_pb2_grpc.TournamentsServiceStub(channel)
        created = (
            await stub.CreateTournament(
                pb.CreateTournamentRequest(name="Forgotten cup"), metadata=player(ORGANIZER)
            )
        ).tournament
        clock.offset += 61
        played = await follow(stub, created.tournament_id, timeout=30)
        assert played.events[-1].cancelled == "never started"
