"""Every refused call gets a clear status and message, and leaves what is stored as it was."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import grpc
import pytest
import redis.asyncio

from maumau.v1 import tournaments_pb2 as pb
from maumau.v1 import tournaments_pb2_grpc
from tests.tournaments.support import follow, player, settled

ORGANIZER = "organizer-bad-input"


async def snapshot(client: redis.asyncio.Redis) -> dict[bytes, Any]:
    """Every tournament key and its content (every test's, as the suite shares one Redis), read
    in two pipelined round trips rather than two per key."""
    keys = [
        key
        for pattern in ("tour:*", "tournaments:*", "championship:*")
        async for key in client.scan_iter(match=pattern, count=1000)
    ]
    async with client.pipeline(transaction=False) as pipe:
        for key in keys:
            pipe.type(key)
        kinds = [kind.decode() for kind in await pipe.execute()]
    async with client.pipeline(transaction=False) as pipe:
        for key, kind in zip(keys, kinds, strict=True):
            if kind == "hash":
                pipe.hgetall(key)
            elif kind == "zset":
                pipe.zrange(key, 0, -1, withscores=True)
            elif kind == "stream":
                pipe.xrange(key)
            else:
                pipe.dump(key)
        return dict(zip(keys, await pipe.execute(), strict=True))


async def refused(
    client: redis.asyncio.Redis,
    call: Callable[[], Awaitable[object]],
    code: grpc.StatusCode,
    words: str,
) -> None:
    before = await snapshot(client)
    with pytest.raises(grpc.aio.AioRpcError) as error:
        await call()
    assert error.value.code() == code, error.value.details()
    assert words in (error.value.details() or "")
    assert await snapshot(client) == before


async def test_bad_calls_are_refused_and_change_nothing(
    stub: tournaments_pb2_grpc.TournamentsServiceStub, redis_client: redis.asyncio.Redis
) -> None:
    organizer = player(ORGANIZER)
    create = stub.CreateTournament
    created = await create(
        pb.CreateTournamentRequest(name="Club night", min_entrants=3), metadata=organizer
    )
    tournament = created.tournament
    tid = tournament.tournament_id
    await stub.RegisterEntrant(pb.RegisterEntrantRequest(tournament_id=tid), metadata=player("ann"))

    invalid = grpc.StatusCode.INVALID_ARGUMENT
    precondition = grpc.StatusCode.FAILED_PRECONDITION
    cases: list[tuple[Callable[[], Awaitable[object]], grpc.StatusCode, str]] = [
        # An unknown tournament.
        (
            lambda: stub.RegisterEntrant(
                pb.RegisterEntrantRequest(tournament_id="nope"), metadata=player("ann")
            ),
            grpc.StatusCode.NOT_FOUND,
            "no tournament 'nope'",
        ),
        (
            lambda: stub.GetStandings(pb.GetStandingsRequest(tournament_id="nope")),
            grpc.StatusCode.NOT_FOUND,
            "no tournament",
        ),
        # Registering twice.
        (
            lambda: stub.RegisterEntrant(
                pb.RegisterEntrantRequest(tournament_id=tid), metadata=player("ann")
            ),
            precondition,
            "registered already",
        ),
        # Starting without enough entrants, or as somebody else.
        (
            lambda: stub.StartTournament(
                pb.StartTournamentRequest(tournament_id=tid), metadata=organizer
            ),
            precondition,
            "at least 3 are needed",
        ),
        (
            lambda: stub.StartTournament(
                pb.StartTournamentRequest(tournament_id=tid), metadata=player("ann")
            ),
            grpc.StatusCode.PERMISSION_DENIED,
            "only the organizer",
        ),
        (
            lambda: stub.RegisterEntrant(
                pb.RegisterEntrantRequest(tournament_id=tid, bot_name="Robo"),
                metadata=player("ann"),
            ),
            grpc.StatusCode.PERMISSION_DENIED,
            "only the organizer enters bots",
        ),
        # No token.
        (
            lambda: stub.RegisterEntrant(pb.RegisterEntrantRequest(tournament_id=tid)),
            grpc.StatusCode.UNAUTHENTICATED,
            "no token",
        ),
        # Absurd options.
        (lambda: create(pb.CreateTournamentRequest(name=""), metadata=organizer), invalid, "name"),
        (
            lambda: create(pb.CreateTournamentRequest(name="x", rounds=1000), metadata=organizer),
            invalid,
            "rounds must be from 1 to 100",
        ),
        (
            lambda: create(
                pb.CreateTournamentRequest(name="x", rounds=20, change_every=7),
                metadata=organizer,
            ),
            invalid,
            "multiple of change_every",
        ),
        (
            lambda: create(
                pb.CreateTournamentRequest(name="x", max_per_table=9), metadata=organizer
            ),
            invalid,
            "max_per_table must be from 3 to 8",
        ),
        (
            lambda: create(
                pb.CreateTournamentRequest(name="x", max_entrants=100000), metadata=organizer
            ),
            invalid,
            "max_entrants",
        ),
        (
            lambda: create(
                pb.CreateTournamentRequest(name="x", ruleset={"preset": "classic"}),
                metadata=organizer,
            ),
            invalid,
            "fixed number of rounds",
        ),
        (
            lambda: create(
                pb.CreateTournamentRequest(name="x", ruleset={"preset": "chess"}),
                metadata=organizer,
            ),
            invalid,
            "ruleset",
        ),
        (
            lambda: create(pb.CreateTournamentRequest(name="x", start_at=1.0), metadata=organizer),
            invalid,
            "start_at",
        ),
        (
            lambda: create(
                pb.CreateTournamentRequest(name="x", turn_seconds=-5), metadata=organizer
            ),
            invalid,
            "turn_seconds",
        ),
        (
            lambda: stub.ListTournaments(pb.ListTournamentsRequest(status="sleeping")),
            invalid,
            "status must be one of",
        ),
        (
            lambda: stub.FollowTournament(
                pb.FollowTournamentRequest(tournament_id=tid, after_event_id="x")
            ).read(),
            invalid,
            "not an event id",
        ),
    ]
    for call, code, words in cases:
        await refused(redis_client, call, code, words)


async def test_no_registration_after_the_start(
    stub: tournaments_pb2_grpc.TournamentsServiceStub, redis_client: redis.asyncio.Redis
) -> None:
    organizer = player(ORGANIZER)
    tournament = (
        await stub.CreateTournament(
            pb.CreateTournamentRequest(name="Closed", rounds=1, change_every=1, turn_seconds=0),
            metadata=organizer,
        )
    ).tournament
    tid = tournament.tournament_id
    for name in ("A", "B"):
        await stub.RegisterEntrant(
            pb.RegisterEntrantRequest(tournament_id=tid, bot_name=name), metadata=organizer
        )
    await stub.StartTournament(pb.StartTournamentRequest(tournament_id=tid), metadata=organizer)
    await follow(stub, tid)  # to its end, so nothing moves while the refusal is checked
    await settled(redis_client, tid)
    await refused(
        redis_client,
        lambda: stub.RegisterEntrant(
            pb.RegisterEntrantRequest(tournament_id=tid), metadata=player("late")
        ),
        grpc.StatusCode.FAILED_PRECONDITION,
        "registration is closed",
    )


async def test_an_organizer_has_a_quota_of_open_tournaments(
    replicas: Callable[..., Awaitable[Any]], redis_client: redis.asyncio.Redis
) -> None:
    app = await replicas(max_per_organizer=2)
    async with grpc.aio.insecure_channel(f"127.0.0.1:{app.port}") as channel:
        stub = tournaments_pb2_grpc.TournamentsServiceStub(channel)
        organizer = player("busy organizer")
        for name in ("one", "two"):
            await stub.CreateTournament(pb.CreateTournamentRequest(name=name), metadata=organizer)
        await refused(
            redis_client,
            lambda: stub.CreateTournament(
                pb.CreateTournamentRequest(name="three"), metadata=organizer
            ),
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            "tournaments not over yet",
        )
