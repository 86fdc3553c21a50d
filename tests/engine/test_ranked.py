"""Only the matchmaker makes ranked matches (issue 10, "A ladder worth trusting", finding 3): the
two farms once found - ranked matches a player creates against `random` bots of their choosing,
and a second account that joins such a match and leaves - are refused, so no ranked result ever
reaches the ladder from them; a player who walks away from a ranked match counts as leaving."""

from __future__ import annotations

import grpc
import pytest

from maumau.common.redis_client import DEFAULT_SHARDS
from maumau.common.results import results_streams
from maumau.common.tokens import issue_service_token
from maumau.engine.aftercommit import match_result
from maumau.engine.record import MatchRecord
from maumau.rules import Match, Ruleset
from maumau.v1 import engine_pb2, game_pb2
from tests.support.engine import SECRET, close_all, register_all, service_token
from tests.support.rpc import auth

RANDOM_BOT = game_pb2.BotLevel.BOT_LEVEL_RANDOM


async def ranked_results(client) -> list[game_pb2.MatchResult]:
    entries = [e for stream in results_streams(DEFAULT_SHARDS) for e in await client.xrange(stream)]
    results = []
    for _, fields in entries:
        result = game_pb2.MatchResult.FromString(fields[b"result"])
        if result.ranked:
            results.append(result)
    return results


async def test_a_player_farming_ranked_matches_is_refused_every_time(address, client):
    """Finding 3: 30 ranked matches against `random` bots, and a second account joining and
    leaving; now each is PERMISSION_DENIED, nothing is created, no ranked result is published."""
    farmer, second = await register_all(address, 2)
    results_before = await ranked_results(client)
    matches_before = await farmer.engine.ListMatches(
        engine_pb2.ListMatchesRequest(limit=100), metadata=auth(farmer.token)
    )
    try:
        for _ in range(30):
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await farmer.create(
                    "classic", 2, ranked=True, bots={1: RANDOM_BOT}, auto_start=True
                )
            assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
            assert "matchmaker" in (refused.value.details() or "")
        # The second account's way: a ranked table with a free seat to join and leave.
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await farmer.create("classic", 3, ranked=True, bots={2: RANDOM_BOT}, auto_start=True)
        assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
        # A service other than the matchmaker may not either.
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await farmer.engine.CreateMatch(
                engine_pb2.CreateMatchRequest(
                    ruleset=game_pb2.Ruleset(preset="classic"),
                    seats=2,
                    ranked=True,
                    players=[
                        engine_pb2.SeatedPlayer(seat=0, player_id=farmer.player_id),
                        engine_pb2.SeatedPlayer(seat=1, player_id=second.player_id),
                    ],
                ),
                metadata=auth(service_token(SECRET)),
            )
        assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
        matches_after = await farmer.engine.ListMatches(
            engine_pb2.ListMatchesRequest(limit=100), metadata=auth(farmer.token)
        )
        assert list(matches_after.matches) == list(matches_before.matches)
        assert await ranked_results(client) == results_before
        # A casual match is still the player's to make.
        casual = await farmer.create("classic", 2, bots={1: RANDOM_BOT})
        assert not casual.ranked
    finally:
        await close_all([farmer, second])


async def test_the_matchmakers_token_creates_ranked_matches(address):
    farmer, second = await register_all(address, 2)
    try:
        reply = await farmer.engine.CreateMatch(
            engine_pb2.CreateMatchRequest(
                ruleset=game_pb2.Ruleset(preset="classic"),
                seats=2,
                ranked=True,
                auto_start=True,
                players=[
                    engine_pb2.SeatedPlayer(seat=0, player_id=farmer.player_id),
                    engine_pb2.SeatedPlayer(seat=1, player_id=second.player_id),
                ],
            ),
            metadata=auth(issue_service_token(SECRET, "matchmaking")),
        )
        assert reply.match.ranked and reply.match.status == "playing"
    finally:
        await close_all([farmer, second])


def test_a_player_the_stand_in_bot_plays_at_the_end_of_a_ranked_match_counts_as_left() -> None:
    """Walking away (turn timeouts until a bot takes the seat for good) is leaving, on the
    ladder: the seat ranks last. In a casual match it is only what it was."""
    match, _ = Match.start(Ruleset.parse("classic target=0"), 2, "seed")
    for ranked in (True, False):
        record = MatchRecord(
            match_id="m",
            ruleset="classic target=0",
            seats=2,
            ranked=ranked,
            turn_seconds=30,
            max_timeouts=3,
            auto_start=True,
            seed_commitment="",
            server_seed="",
            players=["ada", "bob"],
            names=["Ada", "Bob"],
            bots=["", "random"],
            nonces=["", ""],
            left=[False, False],
            timeouts=[0, 3],
            status="over",
        )
        seats = match_result(record, match).seats
        assert [seat.left for seat in seats] == [False, ranked]
