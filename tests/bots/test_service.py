"""The Bots service over real gRPC: decisions and hints from a view, clear errors."""

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import grpc
import pytest

from maumau.bots.app import BotsApp
from maumau.bots.service import budget_for
from maumau.common.config import ServiceConfig
from maumau.common.tokens import (
    bearer_metadata,
    issue_bots_token,
    issue_player_token,
    issue_seat_token,
    issue_service_token,
)
from maumau.v1 import bots_pb2, bots_pb2_grpc, game_pb2
from maumau.wire import action_from_pb, bot_level_to_pb, view_to_pb
from tests.bots.test_policies import position

SECRET = b"bots tests secret"
ENGINE = bearer_metadata(issue_bots_token(SECRET, "engine"))


class Bots:
    """The Bots stub with the engine's bots token on every call, as the engine calls it."""

    def __init__(self, channel: grpc.aio.Channel, metadata: Any = ENGINE) -> None:
        self.stub = bots_pb2_grpc.BotsServiceStub(channel)
        self.metadata = metadata

    def __getattr__(self, name: str) -> Callable[..., Any]:
        method = getattr(self.stub, name)
        return lambda request, **kw: method(request, metadata=kw.pop("metadata", self.metadata))


async def started(max_searches: int = 4) -> tuple[BotsApp, grpc.aio.Channel]:
    config = ServiceConfig(host="127.0.0.1", port=0, metrics_port=0)
    server = BotsApp(config, SECRET, max_searches=max_searches)
    await server.start()
    return server, grpc.aio.insecure_channel(f"127.0.0.1:{server.port}")


@pytest.fixture
async def bots() -> AsyncIterator[Bots]:
    server, channel = await started()
    yield Bots(channel)
    await channel.close()
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
    view = game_pb2.View(
        ruleset="classic",
        seat=0,
        hand=["ZZ"],
        top="7H",
        hand_sizes=[1, 1],
        phase="play",
        direction=1,
    )
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await bots.Decide(bots_pb2.DecideRequest(view=view, level=game_pb2.BOT_LEVEL_RANDOM))
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "'ZZ' is not a card" in refused.value.details()


def _view() -> game_pb2.View:
    """A position with several legal actions, so a strong bot thinks for its whole budget."""
    match = position("colour", 4, 3, steps=4)
    return view_to_pb(match.view(match.turn), "m", 1)


def _broken(**changes: Any) -> game_pb2.View:
    view = _view()
    for name, value in changes.items():
        if isinstance(value, list):
            del getattr(view, name)[:]
            getattr(view, name).extend(value)
        else:
            setattr(view, name, value)
    return view


@pytest.mark.parametrize(
    ("view", "field"),
    [
        (_broken(ruleset=""), "view.ruleset"),
        (_broken(ruleset="   "), "view.ruleset"),
        (_broken(turn=7), "view.turn"),
        (_broken(turn=-5), "view.turn"),
        (_broken(seat=4), "view.seat"),
        (_broken(seat=-1), "view.seat"),
        (_broken(hand_sizes=[]), "view.hand_sizes"),
        (_broken(hand_sizes=[5] * 9), "view.hand_sizes"),
        (_broken(dealer=99), "view.dealer"),
        (_broken(owing_call=[12]), "view.owing_call"),
        (_broken(totals=[1]), "view.totals"),
        (_broken(phase="dancing"), "view.phase"),
        (_broken(pending_count=-1), "view.pending_count"),
        (_broken(direction=0), "view.direction"),
        (_broken(top=""), "view.top"),
    ],
)
async def test_malformed_views_are_refused_naming_the_field(bots, view, field):
    """Bots.Decide and Bots.Hint answer INVALID_ARGUMENT naming the field, never UNKNOWN."""
    calls = [
        bots.Decide(bots_pb2.DecideRequest(view=view, level=game_pb2.BOT_LEVEL_HEURISTIC)),
        bots.Hint(bots_pb2.HintRequest(view=view)),
    ]
    for call in calls:
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await call
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert field in refused.value.details()


async def test_decide_takes_the_engines_bots_token_only(bots):
    """bots.proto: 'A missing or bad token is UNAUTHENTICATED, a valid token of another kind
    PERMISSION_DENIED'."""
    request = bots_pb2.DecideRequest(view=_view(), level=game_pb2.BOT_LEVEL_RANDOM)
    player = issue_player_token(SECRET, "p")
    unauthenticated, denied = grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED
    refusals = {
        "no token": ((), unauthenticated, "authorization: Bearer"),
        "a player's": (bearer_metadata(player), denied, "a bots token is needed"),
        "a platform service's for other services": (
            bearer_metadata(issue_service_token(SECRET, "engine")),
            denied,
            "a bots token is needed",
        ),
        "another secret's": (
            bearer_metadata(issue_bots_token(b"elsewhere", "engine")),
            unauthenticated,
            "signature does not match",
        ),
    }
    for name, (metadata, code, words) in refusals.items():
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await bots.Decide(request, metadata=metadata)
        assert refused.value.code() == code, name
        assert words in refused.value.details(), name
    await bots.Decide(request)


async def test_hint_takes_a_players_or_seats_token_for_tips(bots):
    request = bots_pb2.HintRequest(view=_view())
    for token in (issue_player_token(SECRET, "p"), issue_seat_token(SECRET, "m", 0, "p")):
        reply = await bots.Hint(request, metadata=bearer_metadata(token))
        assert reply.actions
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await bots.Hint(request, metadata=())
    assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED


async def test_searches_beyond_the_limit_are_refused_with_a_retry_hint():
    """At most max_searches decisions think at once; the next caller hears so at once."""
    server, channel = await started(max_searches=1)
    bots = Bots(channel)
    request = bots_pb2.DecideRequest(view=_view(), level=game_pb2.BOT_LEVEL_STRONG, budget_ms=1500)
    answers = await asyncio.gather(
        *(bots.Decide(request) for _ in range(3)), return_exceptions=True
    )
    refused = [a for a in answers if isinstance(a, grpc.aio.AioRpcError)]
    assert len(refused) < 3 and refused
    for error in refused:
        assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "retry in" in error.details()
        assert dict(error.trailing_metadata())["retry-after-ms"].isdigit()
    await bots.Decide(request)  # a slot is free again once the searches are done
    await channel.close()
    await server.stop(0)


def test_a_budget_above_the_ceiling_is_clamped_and_beyond_the_protocol_refused():
    assert budget_for(0, ceiling_ms=500) == 200  # the default
    assert budget_for(300, ceiling_ms=500) == 300
    assert budget_for(2000, ceiling_ms=500) == 500
    for wrong in (-1, 2001, 2**31 - 1):
        with pytest.raises(ValueError, match="budget_ms must be from 1 to 2000"):
            budget_for(wrong, ceiling_ms=500)
