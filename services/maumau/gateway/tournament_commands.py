"""The commands of tournaments: the list, one tournament with its standings, registering and
withdrawing, the session's seat in the block being played, and the championship table."""

from __future__ import annotations

import asyncio

from aiohttp import web

from maumau.gateway.context import SEATS, UPSTREAMS, reply, without_seat_token
from maumau.gateway.inputs import number, require_session, timeout_of
from maumau.gateway.upstream import bearer, to_json
from maumau.v1 import tournaments_pb2


async def list_tournaments(request: web.Request) -> web.Response:
    answer = await request.app[UPSTREAMS].tournaments.ListTournaments(
        tournaments_pb2.ListTournamentsRequest(
            status=request.query.get("status", ""), limit=number(request, "limit", 20)
        ),
        timeout=timeout_of(request),
    )
    return reply({"tournaments": [to_json(t) for t in answer.tournaments]})


async def get_tournament(request: web.Request) -> web.Response:
    """The tournament and its standings (live while it is played, final once it is over)."""
    tournament_id = request.match_info["tournament_id"]
    upstream = request.app[UPSTREAMS].tournaments
    found, ranking = await asyncio.gather(
        upstream.GetTournament(
            tournaments_pb2.GetTournamentRequest(tournament_id=tournament_id),
            timeout=timeout_of(request),
        ),
        upstream.GetStandings(
            tournaments_pb2.GetStandingsRequest(tournament_id=tournament_id),
            timeout=timeout_of(request),
        ),
    )
    tournament, standings = found.tournament, ranking.standings
    return reply({"tournament": to_json(tournament), "standings": to_json(standings)})


async def register_entrant(request: web.Request) -> web.Response:
    session = require_session(request)
    message = tournaments_pb2.RegisterEntrantRequest(
        tournament_id=request.match_info["tournament_id"]
    )
    answer = await request.app[UPSTREAMS].tournaments.RegisterEntrant(
        message, metadata=bearer(session.player_token), timeout=timeout_of(request)
    )
    return reply(to_json(answer.tournament))


async def unregister_entrant(request: web.Request) -> web.Response:
    """Withdraw before the start; leave for good after it (the points so far are kept)."""
    session = require_session(request)
    message = tournaments_pb2.UnregisterEntrantRequest(
        tournament_id=request.match_info["tournament_id"]
    )
    answer = await request.app[UPSTREAMS].tournaments.UnregisterEntrant(
        message, metadata=bearer(session.player_token), timeout=timeout_of(request)
    )
    return reply(to_json(answer.tournament))


async def tournament_seat(request: web.Request) -> web.Response:
    """The session's seat in the block (or deciding round) being played: the page plays its
    match through the match routes, with the seat token kept here."""
    session = require_session(request)
    answer = await request.app[UPSTREAMS].tournaments.GetSeat(
        tournaments_pb2.GetSeatRequest(tournament_id=request.match_info["tournament_id"]),
        metadata=bearer(session.player_token),
        timeout=timeout_of(request),
    )
    seat = answer.seat
    request.app[SEATS].remember(session, seat.match_id, seat.seat_token)
    return reply(without_seat_token(to_json(seat)))


async def championship(request: web.Request) -> web.Response:
    """The championship table of a year (0 or none: this year), ties and deciders included."""
    answer = await request.app[UPSTREAMS].tournaments.GetChampionship(
        tournaments_pb2.GetChampionshipRequest(
            year=number(request, "year", 0), limit=number(request, "limit", 100)
        ),
        timeout=timeout_of(request),
    )
    return reply(to_json(answer.championship))
