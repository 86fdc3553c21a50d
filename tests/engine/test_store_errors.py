"""A bug in the store is reported as one, not disguised as an outage (issue 25): Redis answering
the engine's commit script with an error no retry mends (here WRONGTYPE, a key of the match
holding the wrong type) ends the call INTERNAL saying the error was reported, with the error
code ``store_error``; the engine logs it at ERROR naming the script and its keys, counts it in
``maumau_store_errors_total{script}``, and the counter as scraped fires ``MaumauStoreErrors``.
Before, any error raised inside redis-py was UNAVAILABLE, "retry with the same request id", and
logged nowhere: a client retried it forever."""

from __future__ import annotations

import logging
import random
import subprocess
from pathlib import Path

import grpc
import pytest
import redis.asyncio
import yaml
from prometheus_client import REGISTRY

from maumau.common.error_codes import STORE_ERROR
from maumau.common.errors import ERROR_CODE_KEY
from maumau.engine.keys import match_key
from maumau.v1 import engine_pb2
from tests.support.engine import Client, acting, close_all, pick
from tests.support.programs import require
from tests.support.rpc import auth

RULES = Path(__file__).resolve().parents[2] / "deploy" / "prometheus" / "rules.yml"


def store_errors(script: str) -> float:
    return REGISTRY.get_sample_value("maumau_store_errors_total", {"script": script}) or 0.0


def alert_fires(
    tmp_path: Path, script: str, before: float, after: float
) -> subprocess.CompletedProcess[str]:
    """``promtool test rules`` of MaumauStoreErrors over the counter as a scrape every 15 s
    would have seen it: ``before`` for two minutes, then ``after``; it must fire."""
    labels = f'job="maumau", service="engine", instance="a", script="{script}"'
    series = f"maumau_store_errors_total{{{labels}}}"
    tests = {
        "rule_files": [str(RULES)],
        "evaluation_interval": "15s",
        "tests": [
            {
                "interval": "15s",
                "input_series": [{"series": series, "values": f"{before:g}x8 {after:g}x20"}],
                "alert_rule_test": [
                    {
                        "eval_time": "3m",
                        "alertname": "MaumauStoreErrors",
                        "exp_alerts": [
                            {
                                "exp_labels": {
                                    "severity": "warning",
                                    "service": "engine",
                                    "script": script,
                                },
                                "exp_annotations": {
                                    "summary": f"engine: Redis refused {script} (a bug of the "
                                    "platform, not an outage)",
                                    "runbook": "deploy/README.md#maumaustoreerrors",
                                },
                            }
                        ],
                    }
                ],
            }
        ],
    }
    path = tmp_path / "store_errors.test.yml"
    path.write_text(yaml.safe_dump(tests))
    promtool = require("promtool", "prometheus")
    return subprocess.run([promtool, "test", "rules", str(path)], capture_output=True, text=True)


async def test_a_wrongtype_in_the_commit_script_is_internal_logged_counted_and_alerted(
    address: str, client: redis.asyncio.Redis, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    players = [await Client.register(address, f"store bug {n}") for n in range(2)]
    try:
        match = await players[0].create("classic", 2, options={"target": "0"})
        await players[1].join(match.match_id)
        await players[1].engine.StartMatch(
            engine_pb2.StartMatchRequest(match_id=match.match_id),
            metadata=auth(players[1].token),
        )
        views = [await player.view(match.match_id) for player in players]
        mover, view = next((p, v) for p, v in zip(players, views, strict=True) if acting(v))
        # The commit script appends to the match's event stream: make that key a string.
        events = f"{match_key(match.match_id)}:events"
        await client.delete(events)
        await client.set(events, "not a stream")
        try:
            before = store_errors("engine.commit")

            with (
                caplog.at_level(logging.ERROR, "maumau.common.redis_client"),
                pytest.raises(grpc.aio.AioRpcError) as refused,
            ):
                await mover.act(match.match_id, pick(view, random.Random(25)))

            assert refused.value.code() == grpc.StatusCode.INTERNAL
            assert "reported" in (refused.value.details() or "")
            assert (ERROR_CODE_KEY, STORE_ERROR) in tuple(refused.value.trailing_metadata() or ())
            lines = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
            assert any(
                "script engine.commit" in line and events in line and "WRONGTYPE" in line
                for line in lines
            ), lines
            after = store_errors("engine.commit")
            assert after == before + 1
            done = alert_fires(tmp_path, "engine.commit", before, after)
            assert done.returncode == 0, done.stdout + done.stderr
        finally:
            # Mend the key, so that the shared engine plays the match's deadlines on quietly.
            await client.delete(events)
    finally:
        await close_all(players)
