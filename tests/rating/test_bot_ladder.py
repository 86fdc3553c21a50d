"""The bots' ladder (rating.proto, Ladder): bots and people never share a ladder. Over real gRPC
against the shared real redis-server, fed through the test's results stream: bot accounts (the
player directory's ``bot`` field) and bot levels are rated among the match's bots only, people
against the whole table, each result once; and, pure, a bot's rating from a match with people is
the rating of the same match without them."""

import grpc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maumau.common.players import BOT, PlayerDirectory, is_bot, player_key
from maumau.rating.ladder import DEFAULT_SKILL, Result, SeatResult, places, rate
from maumau.rating.store import RatingStore
from maumau.v1 import rating_pb2, rating_pb2_grpc
from tests.rating.support import publish, result, seat
from tests.rating.test_service import applied_count, profile_after
from tests.support.polling import eventually

BOTS = rating_pb2.LADDER_BOTS
PEOPLE = rating_pb2.LADDER_PEOPLE


@pytest.fixture
async def stub(rating):
    async with grpc.aio.insecure_channel(f"127.0.0.1:{rating.port}") as channel:
        yield rating_pb2_grpc.RatingServiceStub(channel)


async def bot_account(client, name: str) -> str:
    """A registered player the directory calls a bot (as BecomeBot leaves it)."""
    player_id = await PlayerDirectory(client).register(name)
    await client.hset(player_key(player_id), BOT, "1")
    assert await is_bot(client, player_id)
    return player_id


async def board(stub, ladder: int) -> rating_pb2.LeaderboardPage:
    request = rating_pb2.LeaderboardRequest(preset="classic", season="2025", ladder=ladder)
    return (await stub.Leaderboard(request)).page


async def test_a_mixed_match_rates_people_among_people_and_bots_among_bots(client, stream, stub):
    """Two people, a bot account and a bot level at one ranked table: the people's ladder holds
    the two people, the bots' ladder the two bots (rated between themselves); the bot account
    gains no XP and is shown as a bot in its profile and in every seat of the match."""
    directory = PlayerDirectory(client)
    ada, bob = await directory.register("Ada"), await directory.register("Bob")
    botty = await bot_account(client, "Botty")
    match = result(
        [
            seat(0, botty, total=0, winner=True, rounds_won=2),
            seat(1, ada, total=20),
            seat(2, bot="heuristic", total=30),
            seat(3, bob, total=40),
        ]
    )
    await publish(client, stream, [match])
    botty_profile = await profile_after(stub, botty, 1)

    people, bots = await board(stub, PEOPLE), await board(stub, BOTS)
    assert [e.player_id for e in people.entries] == [ada, bob], "Ada finished ahead of Bob"
    assert not any(e.bot for e in people.entries)
    assert [e.player_id for e in bots.entries] == [botty, "bot:heuristic"]
    assert [e.name for e in bots.entries] == ["Botty", "heuristic bot"]
    assert all(e.bot for e in bots.entries) and bots.total == 2

    assert botty_profile.bot and botty_profile.xp == 0
    assert not botty_profile.ratings, "unset: the people's ladder, where a bot never is"
    request = rating_pb2.GetProfileRequest(player_id=botty, ladder=BOTS)
    [rating] = (await stub.GetProfile(request)).profile.ratings
    assert (rating.ladder, rating.rank, rating.matches_won) == (BOTS, 1, 1)
    [summary] = botty_profile.recent
    assert [s.bot for s in summary.seats] == [True, False, True, False]

    around = rating_pb2.AroundRequest(player_id=ada, preset="classic", season="2025", ladder=BOTS)
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await stub.Around(around)
    assert refused.value.code() == grpc.StatusCode.NOT_FOUND
    assert "bots' classic ladder" in (refused.value.details() or "")


async def test_a_bot_level_rated_among_people_before_leaves_the_peoples_ladder(
    client, stream, stub, tag
):
    """A bot level on this season's people's ladder (rated there before the bots' ladder) is
    taken off it by its next ranked match, which rates it on the bots' ladder."""
    store = RatingStore(client, tag)
    directory = PlayerDirectory(client)
    ada, bob = await directory.register("Ada"), await directory.register("Bob")
    await client.zadd(store.ladder_key("classic", "2025"), {"bot:strong": 3.0})
    people_match = result([seat(0, ada, winner=True), seat(1, bob, total=30)])
    match = result([seat(0, bot="strong", winner=True), seat(1, bot="random", total=30)])
    await publish(client, stream, [people_match, match])
    await eventually(lambda: applied_count(client, stream), 10, "the results applied")
    people = await board(stub, PEOPLE)
    assert [e.player_id for e in people.entries] == [ada, bob]
    bots = await board(stub, BOTS)
    assert [e.player_id for e in bots.entries] == ["bot:strong", "bot:random"]


async def test_a_bots_result_delivered_twice_counts_once(client, stream, stub):
    """Results exactly once, on the bots' ladder as on the people's."""
    first, second = await bot_account(client, "One"), await bot_account(client, "Two")
    match = result([seat(0, first, winner=True), seat(1, second, total=30)], match_id="twice")
    await publish(client, stream, [match, match])
    await eventually(lambda: applied_count(client, stream), 10, "both deliveries handled")
    await publish(client, stream, [match])
    await eventually(lambda: applied_count(client, stream), 10, "the third delivery handled")
    bots = await board(stub, BOTS)
    assert [(e.player_id, e.matches_played) for e in bots.entries] == [(first, 1), (second, 1)]


seats_drawn = st.lists(
    st.tuples(st.sampled_from(["person", "account", "level"]), st.integers(0, 60)),
    min_size=2,
    max_size=8,
)


@settings(max_examples=200, deadline=None)
@given(seats_drawn, st.integers(0, 7))
def test_a_bots_rating_is_that_of_the_match_without_its_people(drawn, winner) -> None:
    """Whatever people sit at a table, each bot is rated exactly as in the same match with the
    people's seats taken away: no result against people moves a bot. Each person is rated
    against the whole table, as before there were two ladders (every seat a person's)."""
    levels = ["random", "heuristic", "strong"]
    seats = tuple(
        SeatResult(
            n,
            "" if kind == "level" else f"{kind}{n}",
            levels[n % 3] if kind == "level" else "",
            False,
            n,
            total,
            0,
            0,
            n == winner % len(drawn),
        )
        for n, (kind, total) in enumerate(drawn)
    )

    def match(kept: tuple[SeatResult, ...]) -> Result:
        renumbered = tuple(
            SeatResult(n, s.player_id, s.bot_level, False, n, s.total, 0, 0, s.winner)
            for n, s in enumerate(kept)
        )
        found = Result("m", "classic", "classic", True, False, renumbered, (), "target", 3, 0.0)
        found.mark_bot_accounts({s.player_id for s in kept if s.player_id.startswith("account")})
        return found

    whole = match(seats)
    priors = dict.fromkeys(whole.rated, DEFAULT_SKILL)
    rated = rate(whole, priors, places(whole))
    bots = match(tuple(s for s in whole.seats if s.bot))
    expected = rate(bots, priors, places(bots)) if len(bots.seats) >= 2 else {}
    assert {r: v for r, v in rated.items() if whole.rated[r][0].bot} == expected
    as_people = match(seats)
    for each in as_people.seats:
        each.bot = False
    everyone = rate(as_people, priors, places(as_people))
    people = {r for r, own in whole.rated.items() if not own[0].bot}
    assert {r: v for r, v in rated.items() if r in people} == {r: everyone[r] for r in people}
