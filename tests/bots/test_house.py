"""The platform's own levels playing seats as bots do (issue 27, "Playing"): a seat played to
the end through the engine's Follow, GetView and Act with its seat token over real gRPC (the
``engine`` fixture of tests/conftest.py on the shared real redis-server), each decision the
level's own."""

from __future__ import annotations

import asyncio
import random

import pytest

from maumau.bots.house import play_seat
from maumau_sdk import Platform


@pytest.mark.parametrize(("first", "second"), [("random", "heuristic"), ("strong", "random")])
async def test_two_house_bots_play_a_match_to_its_end(address: str, first: str, second: str):
    async with Platform.connect(address) as platform:
        host, guest = await platform.register("House A"), await platform.register("House B")
        created = await host.create_match("classic", 2, options={"target": 0})
        joined = await guest.join(created.match_id)
        finals = await asyncio.gather(
            play_seat(host, created.match_id, 0, created.token, first, random.Random(1)),
            play_seat(guest, joined.match_id, 1, joined.token, second, random.Random(2)),
        )
        assert all(final.over for final in finals)
        info = await host.match(created.match_id)
        assert info.status == "over"
        assert [s.player_id for s in info.seat_info] == [host.player_id, guest.player_id]
        assert not any(s.left for s in info.seat_info), "no stand-in took a seat"
        assert info.outcome is not None
