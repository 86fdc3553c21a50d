"""The Rating service over real gRPC on 127.0.0.1:0, fed through its results stream on the shared
real redis-server: profiles, XP, team results, leaderboards and the page around a player, errors,
health, and shutdown that finishes the batch in hand."""

import asyncio

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from maumau.common.config import ServiceConfig
from maumau.common.players import PlayerDirectory
from maumau.rating.app import RatingApp
from maumau.rating.settings import Settings
from maumau.rating.store import RatingStore
from maumau.rating.synthetic import synthetic_results
from maumau.v1 import rating_pb2, rating_pb2_grpc
from tests.rating.support import JANUARY_2025, publish, result, seat
from tests.support.polling import eventually

DAY = 86400.0


@pytest.fixture
async def stub(rating):
    async with grpc.aio.insecure_channel(f"127.0.0.1:{rating.port}") as channel:
        yield rating_pb2_grpc.RatingServiceStub(channel)


async def profile_after(stub, player_id: str, played: int) -> rating_pb2.Profile:
    """The player's profile once ``played`` of their matches are applied."""

    async def probe():
        try:
            found = (
                await stub.GetProfile(rating_pb2.GetProfileRequest(player_id=player_id))
            ).profile
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.NOT_FOUND:
                raise
            return None
        return found if found.matches_played >= played else None

    return await eventually(probe, 10, f"{played} matches of {player_id} applied")


async def test_a_profile_shows_name_xp_level_counts_ratings_and_recent_matches(
    client, stream, stub
):
    """XP per the colour rule text's table (8 per match, 14 per win, 2 per round won, 1 per
    penalty card, nothing for leaving); only ranked matches move the rating; the profile lists
    the latest matches newest first, with every seat's place, XP and rating change."""
    directory = PlayerDirectory(client)
    ada, bob = await directory.register("Ada"), await directory.register("Bob")
    won = result(
        [
            seat(0, ada, total=0, rounds_won=2, specials=3, winner=True),
            seat(1, bob, total=40, rounds_won=1),
            seat(2, bot="strong", total=55),
        ],
        finished_at=JANUARY_2025,
    )
    unranked = result(
        [seat(0, bob, total=60, winner=True, rounds_won=1), seat(1, ada, total=5, specials=1)],
        preset="colour",
        ranked=False,
        finished_at=JANUARY_2025 + DAY,
    )
    left = result(
        [seat(0, ada, left=True, winner=True, rounds_won=1), seat(1, bob, total=30)],
        finished_at=JANUARY_2025 + 2 * DAY,
    )
    await publish(client, stream, [won, unranked, left])
    profile = await profile_after(stub, ada, 3)

    assert (profile.player_id, profile.name, profile.bot) == (ada, "Ada", False)
    assert profile.xp == (8 + 14 + 2 * 2 + 3) + (8 + 1) + 0
    assert (profile.level, profile.level_xp, profile.next_level_xp) == (1, 0, 100)
    assert (profile.matches_played, profile.matches_won, profile.matches_left) == (3, 1, 1)
    assert [(p.preset, p.matches_played, p.matches_won) for p in profile.presets] == [
        ("classic", 2, 1),
        ("colour", 1, 0),
    ]
    [classic] = profile.ratings
    assert (classic.preset, classic.season, classic.matches_played) == ("classic", "2025", 2)
    assert classic.rank >= 1 and classic.skill.ordinal == pytest.approx(
        classic.skill.mu - 3 * classic.skill.sigma
    )

    newest, middle, oldest = profile.recent
    assert [m.finished_at for m in profile.recent] == [
        JANUARY_2025 + 2 * DAY,
        JANUARY_2025 + DAY,
        JANUARY_2025,
    ]
    assert newest.seats[newest.seat].left and newest.seats[newest.seat].xp == 0
    assert newest.seats[newest.seat].place == 2, "a seat that left ranks last"
    assert not middle.ranked and not middle.seats[middle.seat].HasField("after")
    me = oldest.seats[oldest.seat]
    assert (me.place, me.xp, me.winner) == (1, 29, True)
    assert me.after.mu > me.before.mu == pytest.approx(25.0)
    assert oldest.seats[2].player_id == "bot:strong" and oldest.seats[2].bot
    assert middle.seats[middle.seat].after == rating_pb2.Skill()

    history = (await stub.History(rating_pb2.HistoryRequest(player_id=ada, offset=1, limit=5))).page
    assert history.total == 3
    assert [m.match_id for m in history.matches] == [middle.match_id, oldest.match_id]

    strong = (await stub.GetProfile(rating_pb2.GetProfileRequest(player_id="bot:strong"))).profile
    assert (strong.name, strong.bot, strong.xp, strong.matches_played) == (
        "strong bot",
        True,
        0,
        1,
    )
    assert not strong.ratings, "the people's ladder has no bots"
    bots_ladder = rating_pb2.GetProfileRequest(
        player_id="bot:strong", ladder=rating_pb2.LADDER_BOTS
    )
    strong = (await stub.GetProfile(bots_ladder)).profile
    assert not strong.ratings, "alone among people: no bot to be rated against"


async def test_a_player_id_nobody_registered_has_no_profile_whatever_results_name_it(
    client, stream, stub
):
    """rating.proto: NOT_FOUND for a player the platform does not know; the player directory
    alone says who is known."""
    ghost = f"ghost-{stream}"
    await publish(client, stream, [result([seat(0, ghost, winner=True), seat(1, bot="random")])])
    await eventually(lambda: applied_count(client, stream), 10, "the result applied")
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await stub.GetProfile(rating_pb2.GetProfileRequest(player_id=ghost))
    assert refused.value.code() == grpc.StatusCode.NOT_FOUND
    assert ghost in (refused.value.details() or "")


async def test_colour_team_results_rate_each_pair_together(client, stream, stub):
    """colour teams=true: seats 0+2 against 1+3. The winning pair goes up together, the losing
    pair down together, and both pairs' seats win or lose the match."""
    players = [f"team-{n}-{stream}" for n in range(4)]
    match = result(
        [
            seat(s, players[s], team=s % 2, total=120 if s % 2 else 0, winner=s % 2 == 1)
            for s in range(4)
        ],
        preset="colour",
        teams=True,
    )
    for player in players:
        await client.hset(f"player:{{{player}}}", mapping={"name": player[:32]})
    await publish(client, stream, [match])
    profiles = [await profile_after(stub, p, 1) for p in players]
    skills = [p.ratings[0].skill for p in profiles]
    assert skills[1] == skills[3] and skills[0] == skills[2]
    assert skills[1].mu > 25.0 > skills[0].mu
    assert [p.matches_won for p in profiles] == [0, 1, 0, 1]
    assert [p.recent[0].seats[p.recent[0].seat].place for p in profiles] == [2, 1, 2, 1]


async def test_leaderboard_is_ordered_by_conservative_rating_and_around_me_pages_it(
    client, stream, stub
):
    """The ladder sorts by mu - 3 sigma; a page of it agrees with each player's profile; the
    page around a player holds `radius` places above and below (fewer at either end)."""
    await publish(client, stream, synthetic_results(400, seed=11, prefix=stream))
    await eventually(lambda: applied_count(client, stream), 15, "the 400 results applied")
    board = (
        await stub.Leaderboard(
            rating_pb2.LeaderboardRequest(preset="classic", season="2025", limit=100)
        )
    ).page
    entries = board.entries
    assert (board.preset, board.season) == ("classic", "2025")
    assert 10 < board.total == len(entries) < 100
    assert [e.rank for e in entries] == list(range(1, board.total + 1))
    ordinals = [e.skill.ordinal for e in entries]
    assert ordinals == sorted(ordinals, reverse=True)
    assert board.ladder == rating_pb2.LADDER_PEOPLE
    assert not any(e.bot or e.player_id.startswith("bot:") for e in entries), "people only"
    bots = (
        await stub.Leaderboard(
            rating_pb2.LeaderboardRequest(
                preset="classic", season="2025", limit=100, ladder=rating_pb2.LADDER_BOTS
            )
        )
    ).page
    assert bots.ladder == rating_pb2.LADDER_BOTS
    assert {e.player_id for e in bots.entries} == {"bot:random", "bot:heuristic", "bot:strong"}
    assert all(e.bot and e.name == e.player_id.removeprefix("bot:") + " bot" for e in bots.entries)
    [strong] = [e for e in bots.entries if e.player_id == "bot:strong"]
    profile = (
        await stub.GetProfile(
            rating_pb2.GetProfileRequest(player_id="bot:strong", ladder=rating_pb2.LADDER_BOTS)
        )
    ).profile
    [ladder] = [r for r in profile.ratings if (r.preset, r.season) == ("classic", "2025")]
    assert (ladder.rank, ladder.skill, ladder.ladder) == (
        strong.rank,
        strong.skill,
        rating_pb2.LADDER_BOTS,
    )

    for entry in entries[:5]:
        if not entry.bot:  # the synthetic players, registered
            await client.hset(f"player:{{{entry.player_id}}}", mapping={"name": "synthetic"})
        profile = (
            await stub.GetProfile(rating_pb2.GetProfileRequest(player_id=entry.player_id))
        ).profile
        [ladder] = [r for r in profile.ratings if (r.preset, r.season) == ("classic", "2025")]
        assert (ladder.rank, ladder.skill) == (entry.rank, entry.skill)
        assert (ladder.matches_played, ladder.matches_won) == (
            entry.matches_played,
            entry.matches_won,
        )

    page = (
        await stub.Leaderboard(
            rating_pb2.LeaderboardRequest(preset="classic", season="2025", offset=5, limit=5)
        )
    ).page
    assert list(page.entries) == list(entries[5:10])

    async def around(player_id: str, radius: int):
        reply = await stub.Around(
            rating_pb2.AroundRequest(
                player_id=player_id, preset="classic", season="2025", radius=radius
            )
        )
        return reply.page

    middle = await around(entries[9].player_id, 3)
    assert list(middle.entries) == list(entries[6:13])
    top = await around(entries[0].player_id, 3)
    assert [e.rank for e in top.entries] == [1, 2, 3, 4]
    bottom = await around(entries[-1].player_id, 2)
    assert [e.rank for e in bottom.entries] == [board.total - 2, board.total - 1, board.total]
    assert (await around(entries[4].player_id, 0)).entries[4].rank == 5  # 0 means 5

    old = (
        await stub.Leaderboard(rating_pb2.LeaderboardRequest(preset="classic", season="2024"))
    ).page
    assert old.total > 0 and len(old.entries) == 10, "past seasons stay readable"


async def applied_count(client, stream: str) -> bool:
    """Every entry of ``stream`` delivered to the group and acknowledged."""
    groups = await client.xinfo_groups(stream)
    info = await client.xinfo_stream(stream)
    return (
        bool(groups)
        and groups[0]["last-delivered-id"] == info["last-generated-id"]
        and (groups[0]["pending"] == 0)
    )


@pytest.mark.parametrize(
    ("call", "request_message", "code"),
    [
        ("GetProfile", rating_pb2.GetProfileRequest(player_id="nobody"), "NOT_FOUND"),
        ("GetProfile", rating_pb2.GetProfileRequest(player_id="bot:nobody"), "NOT_FOUND"),
        ("GetProfile", rating_pb2.GetProfileRequest(player_id=""), "INVALID_ARGUMENT"),
        ("GetProfile", rating_pb2.GetProfileRequest(player_id="x", recent=101), "INVALID_ARGUMENT"),
        ("History", rating_pb2.HistoryRequest(player_id="nobody"), "NOT_FOUND"),
        ("History", rating_pb2.HistoryRequest(player_id="x", offset=-1), "INVALID_ARGUMENT"),
        ("Leaderboard", rating_pb2.LeaderboardRequest(preset="poker"), "INVALID_ARGUMENT"),
        ("Leaderboard", rating_pb2.LeaderboardRequest(preset=""), "INVALID_ARGUMENT"),
        (
            "Leaderboard",
            rating_pb2.LeaderboardRequest(preset="classic", season="24"),
            "INVALID_ARGUMENT",
        ),
        (
            "Leaderboard",
            rating_pb2.LeaderboardRequest(preset="classic", limit=1000),
            "INVALID_ARGUMENT",
        ),
        (
            "Leaderboard",
            rating_pb2.LeaderboardRequest(preset="classic", offset=-3),
            "INVALID_ARGUMENT",
        ),
        ("Around", rating_pb2.AroundRequest(player_id="nobody", preset="online"), "NOT_FOUND"),
        ("Around", rating_pb2.AroundRequest(player_id="x", preset="uno"), "INVALID_ARGUMENT"),
        (
            "Around",
            rating_pb2.AroundRequest(player_id="x", preset="online", ladder=9),
            "INVALID_ARGUMENT",
        ),
        (
            "Leaderboard",
            rating_pb2.LeaderboardRequest(preset="classic", ladder=-1),
            "INVALID_ARGUMENT",
        ),
        ("GetProfile", rating_pb2.GetProfileRequest(player_id="x", ladder=3), "INVALID_ARGUMENT"),
        (
            "Around",
            rating_pb2.AroundRequest(player_id="x", preset="online", radius=51),
            "INVALID_ARGUMENT",
        ),
    ],
)
async def test_bad_input_is_refused_with_the_right_status(stub, call, request_message, code):
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await getattr(stub, call)(request_message)
    assert caught.value.code() == getattr(grpc.StatusCode, code), caught.value
    assert caught.value.details()


async def test_an_empty_ladder_is_an_empty_page(stub):
    page = (
        await stub.Leaderboard(rating_pb2.LeaderboardRequest(preset="online", season="1999"))
    ).page
    assert (page.total, list(page.entries), page.season) == (0, [], "1999")


async def test_health_and_reflection(rating):
    async with grpc.aio.insecure_channel(f"127.0.0.1:{rating.port}") as channel:
        health = health_pb2_grpc.HealthStub(channel)
        reply = await health.Check(health_pb2.HealthCheckRequest(service="maumau.v1.RatingService"))
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
        reflection = reflection_pb2_grpc.ServerReflectionStub(channel)
        request = reflection_pb2.ServerReflectionRequest(list_services="")
        async for answer in reflection.ServerReflectionInfo(iter([request])):
            names = {s.name for s in answer.list_services_response.service}
            assert "maumau.v1.RatingService" in names
            break


async def test_stopping_finishes_the_batch_in_hand_and_leaves_nothing_pending(
    redis_server, client, tag, stream
):
    """Graceful shutdown: stop() lets the batch being applied finish and be acknowledged, then
    the replica leaves the group; another replica later applies the rest, each match once."""
    await publish(client, stream, synthetic_results(1000, seed=5, prefix=tag))
    config = ServiceConfig(host="127.0.0.1", port=0, metrics_port=0)

    async def replica(name: str) -> RatingApp:
        settings = Settings(consumer=name, block_seconds=0.05)
        app = RatingApp(client, config, settings, stream=stream, tag=tag)
        await app.start()
        return app

    async def applied() -> int:  # every preset counts its applied matches
        counts = [await client.get(key) for key in RatingStore(client, tag).seq_keys]
        return sum(int(count) for count in counts if count)

    first = await replica("first")
    await eventually(applied, 10, "the first batch applied")
    await first.stop(0)
    stopped_at = await applied()
    assert stopped_at < 1000, "stopped mid-stream"
    pending = await client.xpending(stream, "rating")
    assert pending["pending"] == 0
    assert [c["name"] for c in await client.xinfo_consumers(stream, "rating")] == []

    second = await replica("second")
    try:
        await eventually(lambda: applied_count(client, stream), 15, "the rest applied")
        assert await applied() == 1000
    finally:
        await second.stop(0)
    await asyncio.sleep(0)
