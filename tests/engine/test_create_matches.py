"""CreateMatches: the matchmaker creates a chunk of tables in one call, each match as CreateMatch
with its service token would; a retry with the same request ids creates nothing twice; anyone
else is refused, and a bad request refuses the whole call before any match is stored."""

from __future__ import annotations

import uuid

import grpc
import pytest

from maumau.common.tokens import issue_service_token
from maumau.engine.service import MAX_CREATE_BATCH
from maumau.v1 import engine_pb2, engine_pb2_grpc, game_pb2
from tests.support.engine import SECRET, close_all, register_all
from tests.support.rpc import auth

MATCHMAKER = issue_service_token(SECRET, "matchmaking")
RANDOM_BOT = game_pb2.BotLevel.BOT_LEVEL_RANDOM


def table(players: list[str], request_id: str, seats: int = 3) -> engine_pb2.CreateMatchRequest:
    return engine_pb2.CreateMatchRequest(
        ruleset=game_pb2.Ruleset(preset="classic"),
        seats=seats,
        bots={seats - 1: RANDOM_BOT},
        auto_start=True,
        request_id=request_id,
        players=[engine_pb2.SeatedPlayer(seat=n, player_id=p) for n, p in enumerate(players)],
    )


async def matches_of(client, player_id: str) -> list[bytes]:
    return await client.zrange(f"player:{{{player_id}}}:matches", 0, -1)


async def test_the_matchmaker_creates_started_matches_in_one_call_and_a_retry_creates_none(
    address, client
):
    people = await register_all(address, 6)
    engine = people[0].engine
    ids = [uuid.uuid4().hex for _ in range(3)]
    request = engine_pb2.CreateMatchesRequest(
        matches=[
            table([people[2 * n].player_id, people[2 * n + 1].player_id], ids[n]) for n in range(3)
        ]
    )
    try:
        first = await engine.CreateMatches(request, metadata=auth(MATCHMAKER))
        assert len(first.matches) == 3
        for n, created in enumerate(first.matches):
            assert created.match.status == "playing"
            assert sorted(created.seat_tokens) == [0, 1]
            seated = [s.player_id for s in created.match.seat_info]
            assert seated[:2] == [people[2 * n].player_id, people[2 * n + 1].player_id]
            assert seated[2] == ""
            names = [s.name for s in created.match.seat_info[:2]]
            assert all(names)  # display names read from the directory
        # Each seat token plays its own seat.
        view = (
            await engine.GetView(
                engine_pb2.GetViewRequest(match_id=first.matches[0].match.match_id),
                metadata=auth(first.matches[0].seat_tokens[1]),
            )
        ).view
        assert view.seat == 1
        again = await engine.CreateMatches(request, metadata=auth(MATCHMAKER))
        assert [m.match.match_id for m in again.matches] == [
            m.match.match_id for m in first.matches
        ]
        for n, person in enumerate(people):
            assert await matches_of(client, person.player_id) == [
                first.matches[n // 2].match.match_id.encode()
            ]
    finally:
        await close_all(people)


@pytest.mark.parametrize(
    "token", ["player", issue_service_token(SECRET, "tournaments")], ids=["player", "service"]
)
async def test_only_the_matchmakers_token_may_create_matches_in_bulk(address, token):
    (person,) = await register_all(address, 1)
    request = engine_pb2.CreateMatchesRequest(
        matches=[table([person.player_id], uuid.uuid4().hex, seats=2)]
    )
    try:
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await person.engine.CreateMatches(
                request, metadata=auth(person.token if token == "player" else token)
            )
        assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
        assert "CreateMatch" in (refused.value.details() or "")
    finally:
        await close_all([person])


async def test_a_bad_request_refuses_the_whole_call_and_creates_nothing(address, client):
    people = await register_all(address, 2)
    engine: engine_pb2_grpc.EngineServiceStub = people[0].engine
    good = table([people[0].player_id], uuid.uuid4().hex, seats=2)
    stored_before = len(await client.keys("match:*"))
    try:
        cases = {
            "no match": [],
            "too many": [good] * (MAX_CREATE_BATCH + 1),
            "matches[1] has no request_id": [good, table([people[1].player_id], "", seats=2)],
            "matches[1]": [good, table([people[1].player_id], uuid.uuid4().hex, seats=1)],
            "share a request_id": [good, good],
        }
        for expected, matches in cases.items():
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await engine.CreateMatches(
                    engine_pb2.CreateMatchesRequest(matches=matches), metadata=auth(MATCHMAKER)
                )
            assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT, expected
            details = refused.value.details() or ""
            assert expected in details or str(MAX_CREATE_BATCH) in details, details
        for person in people:  # the good first request of each was not stored either
            assert await matches_of(client, person.player_id) == []
        assert len(await client.keys("match:*")) == stored_before
    finally:
        await close_all(people)
