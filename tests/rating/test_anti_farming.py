"""The rules against farming through the real results consumer (issue 10, finding 3): a second
account that joins ranked matches and leaves them lifts its owner less each time, then not at all;
and the ordinals the matchmaker compares are published after each match."""

from __future__ import annotations

import itertools
import time

import grpc
import orjson
import pytest

from maumau.common.ratings import rating_key
from maumau.rating.farming import CLIMB_MARGIN, REPEATS_IGNORED
from maumau.rating.settings import Settings
from maumau.v1 import rating_pb2, rating_pb2_grpc
from tests.rating.support import publish, result, seat
from tests.support.polling import eventually


@pytest.fixture
async def stub(rating):
    async with grpc.aio.insecure_channel(f"127.0.0.1:{rating.port}") as channel:
        yield rating_pb2_grpc.RatingServiceStub(channel)


async def ordinal_after(stub, player_id: str, played: int) -> float:
    async def probe():
        profile = (await stub.GetProfile(rating_pb2.GetProfileRequest(player_id=player_id))).profile
        if profile.matches_played < played:
            return None
        return profile.ratings[0].skill.ordinal

    return await eventually(probe, 10, f"{played} matches of {player_id} applied")


async def test_a_second_account_that_joins_and_leaves_stops_counting(client, stream, stub):
    main, alt, stranger = (f"{name}-{stream}" for name in ("main", "alt", "stranger"))
    for player in (main, alt, stranger):
        await client.hset(f"player:{{{player}}}", mapping={"name": player[:32]})
    mains, alts = [0.0], [0.0]
    now = time.time()
    for n in range(REPEATS_IGNORED + 2):
        # The alt account sits down and leaves: main wins, the alt ranks last.
        match = result(
            [seat(0, main, winner=True), seat(1, alt, left=True, total=40)],
            finished_at=now + n,
        )
        await publish(client, stream, [match])
        mains.append(await ordinal_after(stub, main, n + 1))
        alts.append(await ordinal_after(stub, alt, n + 1))
    # The first match counts; after it main stands 5 above the alt's ordinal (rule 2), and the
    # alt's drop shrinks by half each time and stops after three meetings (rule 1).
    assert mains[1] > 0 and mains[2:] == [mains[1]] * (len(mains) - 2)
    assert mains[1] <= alts[0] + CLIMB_MARGIN
    drops = [before - after for before, after in itertools.pairwise(alts)]
    assert drops[0] > drops[1] > drops[2] > 0
    assert drops[REPEATS_IGNORED:] == [0.0] * (len(drops) - REPEATS_IGNORED)
    alt_ordinal = alts[-1]
    # A match against someone else counts in full again.
    await publish(
        client,
        stream,
        [result([seat(0, main, winner=True), seat(1, stranger, total=40)], finished_at=now + 10)],
    )
    assert await ordinal_after(stub, main, REPEATS_IGNORED + 3) > mains[-1]
    # The matchmaker reads the current season's ordinals from the shared keys.
    published = await client.get(rating_key("classic", alt))
    assert published is not None and float(published) == pytest.approx(alt_ordinal)


class TestAShorterWindow:
    """``MAUMAU_RATING_FARMING_WINDOW_SECONDS``: meetings older than the window neither count
    nor stay in the players' states."""

    @pytest.fixture
    def rating_settings(self) -> Settings:
        return Settings(consumer="replica-1", block_seconds=0.05, farming_window_seconds=60)

    async def test_meetings_older_than_the_window_count_again_and_are_forgotten(
        self, client, stream, stub, rating
    ):
        main, alt = (f"{name}-{stream}" for name in ("main", "alt"))
        for player in (main, alt):
            await client.hset(f"player:{{{player}}}", mapping={"name": player[:32]})
        alts = [0.0]
        now = time.time()
        at = [now + n for n in range(REPEATS_IGNORED + 1)] + [now + REPEATS_IGNORED + 61]
        for n, finished_at in enumerate(at):
            match = result(
                [seat(0, main, winner=True), seat(1, alt, total=40)], finished_at=finished_at
            )
            await publish(client, stream, [match])
            alts.append(await ordinal_after(stub, alt, n + 1))
        drops = [before - after for before, after in itertools.pairwise(alts)]
        assert drops[REPEATS_IGNORED] == 0.0  # the fourth meeting within the window
        assert drops[-1] == pytest.approx(drops[0], rel=0.5)  # past it: counts in full again
        state = orjson.loads(await client.get(rating.store.state_key(alt, "classic")))
        assert [finished for finished, _ in state["met"]] == [at[-1]]
