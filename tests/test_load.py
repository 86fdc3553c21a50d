"""`make load` in small: a handful of simulated players against the platform as `make run` starts
it, for a few seconds; the report's figures come from what really happened."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.__main__ import record
from bench.load import Options, run, summary

pytestmark = pytest.mark.skipif(not Path("/proc/self").exists(), reason="reads /proc")


def test_a_short_load_run_reports_real_figures(tmp_path: Path) -> None:
    options = Options(
        players=6,
        seconds=20,
        warmup=5,
        ramp=1,
        think=(0.02, 0.1),
        bots_after=1,
        env={"MAUMAU_ENGINE_BOT_DELAY_MS": "10"},
    )
    report = run(options, tmp_path)
    figures = report.figures

    assert not report.errors, f"errors nobody provoked: {dict(report.errors)}"
    assert figures["load.single.errors"] == 0
    assert figures["load.single.registered"] == 6
    assert figures["load.single.seated"] >= 1
    assert figures["load.single.moves"] > 0
    assert 0 < figures["load.single.act_ms.p50"] <= figures["load.single.act_ms.p99"]
    assert figures["load.single.matchmaking_wait_s.p50"] > 0
    if figures["load.single.matches_finished"]:
        assert figures["load.single.rating_lag.samples"] >= 1
    # Memory is read from the real processes: every service and the one Redis.
    for name in ("engine", "matchmaking", "rating", "bots", "tournaments", "gateway", "redis"):
        for stage in ("start", "warm", "end"):
            assert figures[f"load.single.rss_mb.{name}.{stage}"] > 1, (name, stage)
    assert figures["load.single.redis_mb.end"] > 0
    # Without the buffers Redis sizes to its connections, less is left, but not nothing.
    assert 0 < figures["load.single.redis_data_mb.end"] <= figures["load.single.redis_mb.end"]
    # What the players made is in Redis, named by key family, with its bytes.
    end = report.readings[-1]
    assert any(family.startswith("match:{}") for family in end.families)
    assert all(end.family_bytes[family] > 0 for family in end.families)
    assert all(
        key in figures
        for key in (
            "load.single.redis_trend_pct",
            "load.single.redis_data_trend_pct",
            "load.single.services_rss_trend_pct",
        )
    )
    text = summary(report, options, {})
    assert "Act p50 / p99 ms" in text
    assert len(text.splitlines()) <= 26  # one screen


def test_a_runs_figures_replace_the_last_runs_of_its_store_whole(tmp_path: Path) -> None:
    """A run without errors leaves no count of errors from the run before it, and the other
    store's figures and every other figure stay."""
    path = tmp_path / "figures.json"
    record(
        {"load.cluster.errors": 3, "load.cluster.errors.UNAVAILABLE": 3, "load.single.errors": 1},
        path,
    )
    record({"ratio.rating": 0.2}, path)
    record({"load.cluster.errors": 0}, path, "load.cluster.")
    assert json.loads(path.read_text()) == {
        "load.cluster.errors": 0,
        "load.single.errors": 1,
        "ratio.rating": 0.2,
    }
