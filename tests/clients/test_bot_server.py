"""The example third-party bot (clients/python/examples/bot_server.py) as its own process, plugged
into the engine for one level through MAUMAU_BOTS_ADDRESS_STRONG: it plays a whole match's bot
moves, none of them left to the engine's fallback."""

from __future__ import annotations

import asyncio
import random
import re
import subprocess
import sys

import pytest
from prometheus_client import REGISTRY

from maumau.common.redis_server import EmbeddedRedis
from maumau.engine.settings import Settings
from maumau_sdk import Platform
from tests.clients.platform import ROOT
from tests.clients.test_sdk import choose
from tests.support.engine import start_engine

EXAMPLE = ROOT / "clients" / "python" / "examples" / "bot_server.py"


@pytest.fixture
def bot_server():
    process = subprocess.Popen(
        [sys.executable, str(EXAMPLE), "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    banner = process.stdout.readline()
    found = re.search(r"on 127\.0\.0\.1:(\d+)", banner)
    assert found, banner
    yield process, f"127.0.0.1:{found.group(1)}"
    process.terminate()
    process.wait(10)


def fallbacks() -> float:
    return REGISTRY.get_sample_value("engine_bot_fallbacks_total") or 0.0


async def test_the_example_bot_plays_every_strong_seat_of_a_match(
    bot_server, redis_server: EmbeddedRedis, monkeypatch
):
    process, address = bot_server
    monkeypatch.setenv("MAUMAU_BOTS_ADDRESS_STRONG", address)
    monkeypatch.setenv("MAUMAU_BOTS_ADDRESS", "")  # other levels: the engine's own policies
    monkeypatch.setenv("MAUMAU_ENGINE_BOT_DELAY_MS", "0")
    settings = Settings().engine()
    assert settings.bot_addresses["strong"] == address
    engine, client = await start_engine(redis_server.url, settings)
    before = fallbacks()
    try:
        async with Platform.connect(f"127.0.0.1:{engine.port}") as platform:
            player = await platform.register("Ada")
            seat = await player.create_match(
                "classic", 3, bots={1: "strong", 2: "random"}, options={"target": 0}
            )
            rng = random.Random(7)
            final = await seat.play(lambda view: choose(view, rng))
            events = [e async for e in seat.events()]
    finally:
        await engine.stop(0)
        await client.aclose()
    assert final.over
    strong_moves = [e for e in events if e.kind == "played" and e.pb.played.seat == 1]
    process.terminate()
    answers = await asyncio.to_thread(process.stdout.read)
    decided = re.findall(r"^seat 1: (\S+)", answers, re.MULTILINE)
    assert strong_moves and len(decided) >= len(strong_moves)
    assert fallbacks() == before
