"""The Bots service over real gRPC: decisions and hints from a view, clear errors."""

from collections.abc import AsyncIterator

import grpc
import pytest

from maumau.bots.app import BotsApp
from maumau.common.config import ServiceConfig
from maumau.v1 import bots_pb2, bots_pb2_grpc, game_pb2
from maumau.wire import action_from_pb, bot_level_to_pb, view_to_pb
from tests.bots.test_policies import position


@pytest.fixture
async def bots() -> AsyncIterator[bots_pb2_grpc.BotsStub]:
    server = BotsApp(ServiceConfig(host="127.0.0.1", port=0, metrics_port=0))
    await server.start()
    async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
        yield bots_pb2_grpc.BotsStub(channel)
    await server.stop(0)


@pytest.mark.parametrize("level", ["random", "heuristic", "strong"])
async def test_decide_answers_a_legal_action_for_the_view(bots, level):
    for seed in range(4):
        match = position("colour", 3, seed, steps=5 + seed)
        seat = match.chooser if match.phase == "starter_suit" else match.turn
        reply = await bots.Decide(
            bots_pb2.DecideRequest(
                view=view_to_pb(match.view(seat), "m", 1),
                level=bot_level_to_pb(level),
                budget_ms=20,
            )
        )
        assert action_from_pb(reply.action) in list(match.legal_actions(seat))


async def test_hint_ranks_every_legal_action_with_a_reason(bots):
    match = position("classic", 4, 9, steps=6)
    seat = match.turn
    reply = await bots.Hint(bots_pb2.HintRequest(view=view_to_pb(match.view(seat), "m", 1)))
    assert {action_from_pb(r.action) for r in reply.actions} == set(match.legal_actions(seat))
    assert reply.actions[0].reason


@pytest.mark.parametrize(
    ("request_fields", "code", "words"),
    [
        ({"level": 99}, grpc.StatusCode.INVALID_ARGUMENT, "no bot level 99: choose one of"),
        ({}, grpc.StatusCode.INVALID_ARGUMENT, "name a bot level: one of random"),
        (
            {"level": game_pb2.BOT_LEVEL_STRONG, "budget_ms": 99_999},
            grpc.StatusCode.INVALID_ARGUMENT,
            "budget_ms",
        ),
    ],
)
async def test_bad_requests_are_refused_clearly(bots, request_fields, code, words):
    match = position("online", 2, 1, steps=2)
    view = view_to_pb(match.view(match.turn), "m", 1)
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await bots.Decide(bots_pb2.DecideRequest(view=view, **request_fields))
    assert refused.value.code() == code
    assert words in refused.value.details()


async def test_a_malformed_view_is_invalid_argument(bots):
    view = game_pb2.View(ruleset="classic", seat=0, hand=["ZZ"], top="7H", hand_sizes=[1, 1])
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await bots.Decide(bots_pb2.DecideRequest(view=view, level=game_pb2.BOT_LEVEL_RANDOM))
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "'ZZ' is not a card" in refused.value.details()
