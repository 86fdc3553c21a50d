"""The engine plays bot seats through the Bots service, which sees only a seat's own view."""

import asyncio
import time

import grpc
from prometheus_client import REGISTRY

from maumau.bots.service import BotsService
from maumau.common.config import ServiceConfig
from maumau.common.server import ServiceServer, create_server
from maumau.engine.matches import EngineSettings
from maumau.engine.store import MatchStore
from maumau.rules import Match
from maumau.v1 import bots_pb2_grpc, engine_pb2, engine_pb2_grpc, game_pb2
from tests.support.engine import SECRET, service_token, start_engine
from tests.support.rpc import auth

BOTS = {
    0: game_pb2.BOT_LEVEL_HEURISTIC,
    1: game_pb2.BOT_LEVEL_RANDOM,
    2: game_pb2.BOT_LEVEL_STRONG,
    3: game_pb2.BOT_LEVEL_HEURISTIC,
}


def fallbacks() -> float:
    return REGISTRY.get_sample_value("engine_bot_fallbacks_total") or 0.0


async def nothing_to_probe() -> None:
    """A bot service needs nothing outside its process."""


async def serve_bots(servicer: BotsService) -> ServiceServer:
    server = create_server(
        {
            "maumau.v1.BotsService": lambda grpc_server: (
                bots_pb2_grpc.add_BotsServiceServicer_to_server(servicer, grpc_server)
            )
        },
        ServiceConfig(host="127.0.0.1", port=0, metrics_port=0),
        nothing_to_probe,
    )  # fmt: skip
    await server.start()
    return server


async def play_bot_match(engine_port: int, store: MatchStore, preset: str) -> Match:
    """A 4-seat match of bots only, created by a service; returns it once it is over."""
    async with grpc.aio.insecure_channel(f"127.0.0.1:{engine_port}") as channel:
        created = await engine_pb2_grpc.EngineServiceStub(channel).CreateMatch(
            engine_pb2.CreateMatchRequest(
                ruleset=game_pb2.Ruleset(preset=preset), seats=4, bots=BOTS, auto_start=True
            ),
            metadata=auth(service_token(SECRET)),
        )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        stored = await store.load(created.match.match_id)
        if stored is not None and stored.record.status == "over":
            return Match.from_bytes(stored.state)
        await asyncio.sleep(0.05)
    raise AssertionError("the bot match did not finish within 60 s")


async def test_every_view_a_bot_gets_is_exactly_its_seats_view(redis_server):
    """No hidden card reaches a bot: each view sent equals the seat's own hand in the stored
    match at the version the view names, and the View message holds no other hand at all."""
    audited: list[tuple[game_pb2.View, bytes]] = []
    stores: list[MatchStore] = []

    class AuditingBots(BotsService):
        async def Decide(self, request, context):
            stored = await stores[0].load(request.view.match_id)
            if stored is not None and stored.version == request.view.version:
                audited.append((request.view, stored.state))
            return await super().Decide(request, context)

    bots = await serve_bots(AuditingBots(SECRET))
    fallbacks_before = fallbacks()
    settings = EngineSettings(
        bot_delay_seconds=0, bot_addresses={"": f"127.0.0.1:{bots.port}"}, bot_budget_ms=5
    )
    app, client = await start_engine(redis_server.url, settings)
    stores.append(MatchStore(client))
    try:
        for preset in ("classic", "colour"):
            final = await play_bot_match(app.port, stores[0], preset)
            assert final.outcome is not None
    finally:
        await app.stop(0)
        await client.aclose()
        await bots.stop(0)
    assert len(audited) > 20
    assert fallbacks() == fallbacks_before  # the engine's bots token was taken every time
    for view, state in audited:
        truth = Match.from_bytes(state)
        assert view.seat in BOTS
        assert list(view.hand) == [card.text for card in truth.hands[view.seat]]
        assert list(view.hand_sizes) == [len(hand) for hand in truth.hands]


async def test_a_dead_bots_service_never_stalls_a_match(redis_server):
    """If the bot service is down, the engine moves bot seats itself."""
    settings = EngineSettings(bot_delay_seconds=0, bot_addresses={"": "127.0.0.1:1"})
    app, client = await start_engine(redis_server.url, settings)
    try:
        final = await play_bot_match(app.port, MatchStore(client), "online")
        assert final.outcome is not None
    finally:
        await app.stop(0)
        await client.aclose()


async def test_a_slow_bot_holds_up_only_its_own_match(redis_server):
    """Due bot seats are handled concurrently: while one match's bot server sits on a decision,
    another match's bots play on to the end."""
    asked, release = asyncio.Event(), asyncio.Event()

    class SlowBots(BotsService):
        async def Decide(self, request, context):
            asked.set()
            await release.wait()
            return await super().Decide(request, context)

    bots = await serve_bots(SlowBots(SECRET))
    settings = EngineSettings(
        bot_delay_seconds=0,
        bot_addresses={"strong": f"127.0.0.1:{bots.port}", "": ""},  # others: the engine's own
        bot_budget_ms=5,
    )
    app, client = await start_engine(redis_server.url, settings)
    # The slow bot is never cut off by the engine's own timeout, on neither side: the deadline
    # loop (app.deadlines) is the one that asks bots.
    app.matches.bots.timeout = app.deadlines.bots.timeout = 600
    store = MatchStore(client)
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{app.port}") as channel:
            engine = engine_pb2_grpc.EngineServiceStub(channel)

            async def bot_match(level: int) -> str:
                created = await engine.CreateMatch(
                    engine_pb2.CreateMatchRequest(
                        ruleset=game_pb2.Ruleset(preset="online"),
                        seats=2,
                        bots={0: level, 1: level},
                        auto_start=True,
                    ),
                    metadata=auth(service_token(SECRET)),
                )
                return str(created.match.match_id)

            slow = await bot_match(game_pb2.BOT_LEVEL_STRONG)
            await asyncio.wait_for(asked.wait(), 60)
            fast = await bot_match(game_pb2.BOT_LEVEL_RANDOM)
            deadline = time.monotonic() + 120
            while (stored := await store.load(fast)) is None or stored.record.status != "over":
                assert time.monotonic() < deadline, "the other match stalled behind the slow bot"
                await asyncio.sleep(0.05)
            waiting = await store.load(slow)
            assert waiting is not None and waiting.record.status == "playing"
    finally:
        release.set()
        await app.stop(0)
        await client.aclose()
        await bots.stop(0)
