"""deploy/prometheus and deploy/grafana against the real tools: promtool checks the rules and
runs their unit tests, and a real Prometheus scrapes a running platform while a match is played,
with a scrape configuration generated from the rendered manifests, until every target is up,
every rule has evaluated without error and every dashboard panel's query returns data."""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
import yaml

from maumau.common.redis_server import EmbeddedRedis, free_port
from maumau.run import SERVICES
from maumau.v1 import engine_pb2, engine_pb2_grpc, game_pb2, matchmaking_pb2, matchmaking_pb2_grpc
from maumau_sdk import Platform
from tests.deploy.kube import DEPLOY, RENDERED, kubectl, render
from tests.deploy.platform import Process, platform
from tests.support.programs import require

RULES = DEPLOY / "prometheus" / "rules.yml"
DASHBOARD = DEPLOY / "grafana" / "maumau.json"
READY_TIMEOUT_SECONDS = 150.0

pytestmark = pytest.mark.timeout(600)


def test_promtool_checks_the_rules() -> None:
    promtool = require("promtool", "prometheus")
    done = subprocess.run([promtool, "check", "rules", str(RULES)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "SUCCESS" in done.stdout


def test_promtool_unit_tests_fire_and_spare_every_alert() -> None:
    promtool = require("promtool", "prometheus")
    tests = sorted((DEPLOY / "prometheus" / "tests").glob("*.yml"))
    done = subprocess.run(
        [promtool, "test", "rules", *map(str, tests)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    # Every alert has a test case that expects it to fire.
    alerts = {
        r["alert"]
        for g in yaml.safe_load(RULES.read_text())["groups"]
        for r in g["rules"]
        if "alert" in r
    }
    tested = {
        case["alertname"]
        for path in tests
        for group in yaml.safe_load(path.read_text())["tests"]
        for case in group.get("alert_rule_test", [])
        if case.get("exp_alerts")
    }
    assert alerts == tested


def dashboard_queries() -> list[str]:
    dashboard = json.loads(DASHBOARD.read_text())
    return [target["expr"] for panel in dashboard["panels"] for target in panel["targets"]]


def test_every_alert_has_a_runbook_in_the_readme() -> None:
    readme = (DEPLOY / "README.md").read_text()
    for group in yaml.safe_load(RULES.read_text())["groups"]:
        for rule in group["rules"]:
            if "alert" in rule:
                assert f"### {rule['alert']}" in readme, f"no runbook for {rule['alert']}"
                assert rule["annotations"]["runbook"].endswith("#" + rule["alert"].lower())
                assert rule["labels"]["severity"] in ("warning", "critical")


def scrape_targets(services: dict[str, Process]) -> dict[str, int]:
    """Service -> local metrics port, for every service the rendered base scrapes (a container
    port named metrics) that this platform runs."""
    objects = render(kubectl(), DEPLOY / RENDERED["base"])
    scraped = {
        o["metadata"]["name"]
        for o in objects
        if o["kind"] == "Deployment"
        for c in o["spec"]["template"]["spec"]["containers"]
        if any(p["name"] == "metrics" for p in c["ports"])
    }
    missing = {s.name for s in SERVICES} - scraped
    assert not missing, f"the manifests do not scrape {missing}"
    return {name: services[name].metrics_port for name in sorted(scraped & set(services))}


def write_config(folder: Path, targets: dict[str, int], redis_exporter_port: int) -> Path:
    rules = yaml.safe_load(RULES.read_text())
    for group in rules["groups"]:
        group["interval"] = "1s"  # the schedule only: evaluate often enough for a short test
    (folder / "rules.yml").write_text(yaml.safe_dump(rules, sort_keys=False))
    config = {
        "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
        "rule_files": ["rules.yml"],
        "scrape_configs": [
            {
                "job_name": "maumau",
                "static_configs": [
                    {"targets": [f"127.0.0.1:{port}"], "labels": {"service": name}}
                    for name, port in targets.items()
                ],
            },
            {
                "job_name": "redis",
                "static_configs": [{"targets": [f"127.0.0.1:{redis_exporter_port}"]}],
            },
        ],
    }
    path = folder / "prometheus.yml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def started(command: list[str], log: Path) -> subprocess.Popen[bytes]:
    with open(log, "wb") as out:
        return subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)


def stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


class Api:
    def __init__(self, port: int) -> None:
        self.base = f"http://127.0.0.1:{port}/api/v1"

    def get(self, path: str, **params: str) -> Any:
        url = f"{self.base}/{path}?{urllib.parse.urlencode(params)}"
        with urllib.request.urlopen(url, timeout=5) as reply:
            body = json.load(reply)
        assert body["status"] == "success", body
        return body["data"]


@pytest.fixture
def prometheus(
    tmp_path: Path, redis_server: EmbeddedRedis
) -> Iterator[tuple[Api, dict[str, Process]]]:
    server = require("prometheus", "prometheus")
    exporter = require("prometheus-redis-exporter", "prometheus-redis-exporter")
    with platform(Path(sys.executable), redis_server.url, tmp_path / "platform") as services:
        exporter_port, port = free_port(), free_port()
        config = write_config(tmp_path, scrape_targets(services), exporter_port)
        processes = [
            started(
                [
                    exporter,
                    f"--redis.addr=redis://127.0.0.1:{redis_server.port}",
                    f"--web.listen-address=127.0.0.1:{exporter_port}",
                ],
                tmp_path / "exporter.log",
            ),
            started(
                [
                    server,
                    f"--config.file={config}",
                    f"--storage.tsdb.path={tmp_path / 'tsdb'}",
                    f"--web.listen-address=127.0.0.1:{port}",
                ],
                tmp_path / "prometheus.log",
            ),
        ]
        try:
            yield Api(port), services
        finally:
            for process in processes:
                stop(process)


async def play(services: dict[str, Process]) -> None:
    """A whole match through the SDK, a queued ticket seated with bots, and one refused call."""
    engine = services["engine"].address
    async with Platform.connect(engine) as connected:
        player = await connected.register("Watcher")
        seat = await player.create_match("classic", 2, bots=["random"], options={"target": 0})
        async for view in seat.turns():
            await seat.act(random.choice(view.legal))
        async with grpc.aio.insecure_channel(services["matchmaking"].address) as channel:
            ticket = (
                await matchmaking_pb2_grpc.MatchmakingServiceStub(channel).Enqueue(
                    matchmaking_pb2.EnqueueRequest(
                        ruleset=game_pb2.Ruleset(preset="classic"),
                        seat_counts=[2],
                        allow_bots=True,
                        bots_after_seconds=0,
                    ),
                    metadata=(("authorization", f"Bearer {player.token}"),),
                )
            ).ticket
            assert ticket.state in ("searching", "seated")
    async with grpc.aio.insecure_channel(engine) as channel:
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await engine_pb2_grpc.EngineServiceStub(channel).GetView(
                engine_pb2.GetViewRequest(), metadata=(("authorization", "Bearer forged"),)
            )
        assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED


async def test_a_real_prometheus_scrapes_the_platform_and_every_rule_and_panel_works(
    prometheus: tuple[Api, dict[str, Process]],
) -> None:
    api, services = prometheus
    await play(services)
    queries = dashboard_queries()
    deadline = time.monotonic() + READY_TIMEOUT_SECONDS
    missing: list[str] = ["(not asked yet)"]
    while time.monotonic() < deadline:
        await asyncio.sleep(2)
        try:
            targets = api.get("targets")["activeTargets"]
            rules = [r for g in api.get("rules")["groups"] for r in g["rules"]]
        except OSError:
            continue  # Prometheus still starting
        down = [t["labels"] for t in targets if t["health"] != "up"]
        unevaluated = [r["name"] for r in rules if r["health"] != "ok"]
        missing = [q for q in queries if not api.get("query", query=q)["result"]]
        if not down and not unevaluated and not missing:
            break
    else:
        raise AssertionError(
            f"after {READY_TIMEOUT_SECONDS:.0f} s: targets down {down}, rules not ok "
            f"{unevaluated}, panels without data {missing}"
        )
    jobs = {(t["labels"]["job"], t["labels"].get("service")) for t in targets}
    assert jobs == {("maumau", s.name) for s in SERVICES} | {("redis", None)}
    for rule in rules:
        assert rule.get("lastError", "") == "", f"{rule['name']}: {rule['lastError']}"
    assert len(rules) == sum(len(g["rules"]) for g in yaml.safe_load(RULES.read_text())["groups"])
    # The platform is healthy, so no alert may be firing (Redis and every service are up).
    firing = [
        a["labels"]["alertname"] for a in api.get("alerts")["alerts"] if a["state"] == "firing"
    ]
    assert firing == []
