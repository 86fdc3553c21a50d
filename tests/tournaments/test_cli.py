"""``maumau tournaments`` lists the tournaments the service holds."""

from __future__ import annotations

import io

from maumau.tournaments.app import TournamentsApp
from maumau.v1 import tournaments_pb2 as pb
from maumau.v1 import tournaments_pb2_grpc
from maumau_cli.texts import Texts
from maumau_cli.tournament import list_tournaments
from tests.tournaments.support import player


async def test_the_terminal_client_lists_tournaments(
    stub: tournaments_pb2_grpc.TournamentsServiceStub,
    replicas,  # type: ignore[no-untyped-def]
) -> None:
    created = (
        await stub.CreateTournament(
            pb.CreateTournamentRequest(name="Harbour cup"), metadata=player("cli-organizer")
        )
    ).tournament
    app: TournamentsApp = await replicas()
    out = io.StringIO()
    assert await list_tournaments(f"127.0.0.1:{app.port}", Texts("en"), out) == 0
    line = next(line for line in out.getvalue().splitlines() if "Harbour cup" in line)
    assert created.tournament_id in line and "registration" in line and "ostfriesland" in line
    out = io.StringIO()
    assert await list_tournaments("127.0.0.1:1", Texts("de"), out) == 2
    assert "antwortet kein Turnierdienst" in out.getvalue()
