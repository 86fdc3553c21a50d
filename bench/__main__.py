"""``make bench``: every benchmark of the platform, with ratios against references in the same run.

Figures (figure name -> number) are merged with what other parts wrote before into
``bench/latest.json``, which git ignores, so a run leaves the tree clean; ``--save`` (``make bench
SAVE=1``) merges them into the committed ``bench/results.json`` too, the figures tracked over time.
The run ends with a table of the goals, each beside this run's figure and the saved one.
``python -m bench [--save] [seconds] [part ...]`` sets the time per measurement (default 3) and
runs only the parts named (rules, references, engine, streams, bots, rating, matchmaking,
arena, gateway, tournaments, accounts; default all of them). The bot league plays
MAUMAU_BENCH_LEAGUE_ROUNDS rounds per matchup (default 100), the search capped at 100 iterations.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path

from bench import references
from bench.accounts import bench_accounts
from bench.arena import ARENA_SECONDS, bench_arena
from bench.bots import bench_bots
from bench.engine import bench_engine
from bench.gateway import bench_gateway
from bench.matchmaking import bench_matchmaking
from bench.rating import bench_rating
from bench.rules import random_rounds
from bench.streams import bench_streams
from bench.tournaments import bench_tournaments
from maumau import rules

RESULTS = Path(__file__).with_name("results.json")
LATEST = Path(__file__).with_name("latest.json")
TABLES = [("classic", 4), ("online", 4), ("ostfriesland", 4), ("ostfriesland", 8), ("colour", 4)]


def record(figures: dict[str, float], path: Path, family: str | None = None) -> None:
    """Merge ``figures`` into the JSON file at ``path``. With ``family`` (a name prefix such as
    ``load.cluster.``), every figure of that family goes first: one run's figures replace the
    last run's whole, so a figure the new run has not (a count of errors that did not happen)
    does not linger from an earlier one."""
    results = json.loads(path.read_text()) if path.exists() else {}
    if family:
        results = {name: value for name, value in results.items() if not name.startswith(family)}
    results.update({name: round(value, 3) for name, value in figures.items()})
    path.write_text(json.dumps(results, indent=2, sort_keys=True) + "\n")


GOALS: list[tuple[str, str, str, float]] = [
    *(
        (
            f"{preset} {seats} seats actions/s vs OpenSpiel moves/s",
            f"ratio.{preset}.{seats}.actions_vs_openspiel_moves",
            ">=",
            1.0,
        )
        for preset, seats in [("classic", 4), ("online", 4), ("ostfriesland", 4), ("colour", 4)]
    ),
    (
        "colour rounds/s (cards first) vs RLCard UNO games/s",
        "ratio.colour_rounds_vs_rlcard_uno_games.plays_first",
        ">=",
        3.0,
    ),
    *(
        (
            f"engine Act moves/s vs ceiling, c{c}",
            f"ratio.engine_vs_ceiling.c{c}.throughput",
            ">=",
            0.8,
        )
        for c in (16, 64)
    ),
    *(
        (f"engine Act p99 vs ceiling p99, c{c}", f"ratio.engine_vs_ceiling.c{c}.p99", "<=", 1.5)
        for c in (16, 64)
    ),
    *(
        (
            f"engine server CPU per Act vs ceiling's per call, c{c}",
            f"ratio.engine_vs_ceiling.c{c}.cpu_per_call",
            "<=",
            1.5,
        )
        for c in (16, 64)
    ),
    ("Redis bytes per 4-seat match, started", "engine.redis.bytes_per_4seat_match", "<=", 4096),
    (
        "Redis bytes per 4-seat match, after 40 moves",
        "engine.redis.bytes_per_4seat_match.after_40_moves",
        "<=",
        4096,
    ),
    ("Redis bytes per 4-seat match, over", "engine.redis.bytes_per_4seat_match.over", "<=", 4096),
    ("10,000 tickets seated, s (2 engines)", "matchmaking.with_engine.seat_all_s", "<=", 5.0),
    ("rating applied/s vs openskill rate()/s", "ratio.rating_applied_vs_openskill_rate", ">=", 0.5),
    ("gateway: added latency over a direct Act p50, ms", "gateway.added_latency.p50_ms", "<=", 3),
    ("gateway: added latency over a direct Act p99, ms", "gateway.added_latency.p99_ms", "<=", 8),
    (
        "gateway: a move's first frame, 50 pages playing, p99 ms",
        "gateway.sessions.event_delivery_p99_ms",
        "<=",
        50,
    ),
    ("gateway: live pages with a WebSocket held", "gateway.sessions.held", ">=", 1000),
    ("gateway: front page first load, KB over the wire", "gateway.first_load.kb", "<=", 150),
    # Lighthouse's "good" marks for these two:
    ("gateway: front page first contentful paint, ms", "gateway.first_load.fcp_ms", "<=", 1800),
    ("gateway: front page total blocking time, ms", "gateway.first_load.tbt_ms", "<=", 200),
    ("Follow: 5,000 streams, event delivery p99 ms", "streams.delivery_p99_ms", "<=", 100),
    ("Follow: health answers not SERVING meanwhile", "streams.health_not_serving", "<=", 0),
    ("Follow: followers missing events at the end", "streams.followers_behind_at_end", "<=", 0),
    ("accounts: argon2id ms of a core per hash, at least", "accounts.argon2.hash_cpu_ms", ">=", 50),
    ("accounts: argon2id ms of a core per hash, at most", "accounts.argon2.hash_cpu_ms", "<=", 150),
    ("accounts: password sign-ins/s per process", "accounts.sign_ins_per_s", ">=", 10),
    (
        "bots: colour 2 seats, strong's win rate vs heuristic",
        "bots.colour.2.strong_vs_heuristic.win_rate",
        ">=",
        0.65,
    ),
    (
        "bots: colour 4 seats, strong's win rate vs 3 heuristics",
        "bots.colour.4.strong_vs_heuristic.win_rate",
        ">=",
        0.40,
    ),
    (
        "bots: classic 2 seats, strong's win rate vs heuristic",
        "bots.classic.2.strong_vs_heuristic.win_rate",
        ">=",
        0.62,
    ),
    (
        "bots: colour, strong's win rate vs random",
        "bots.colour.2.strong_vs_random.win_rate",
        ">=",
        0.99,
    ),
    (
        "bots: colour 2 seats, strong's decision p95 ms",
        "bots.colour.2.strong_vs_heuristic.strong_decision_p95_ms",
        "<=",
        200,
    ),
    ("arena: account events delivery p99 ms", "arena.events.delivery_p99_ms", "<=", 100),
]
"""(what, figure name, comparison, goal): the goals of the platform's figures."""


def goal_table(figures: dict[str, float], saved: dict[str, float]) -> str:
    """The goals with this run's figure beside each ('-' when its part did not run) and the
    figure last saved in ``bench/results.json``."""
    lines = [f"{'figure':52} {'saved':>10} {'this run':>10}  {'goal':10} met", "-" * 90]
    for what, name, comparison, goal in GOALS:
        before = f"{saved[name]:10,.2f}" if name in saved else f"{'-':>10}"
        if name not in figures:
            lines.append(f"{what:52} {before} {'-':>10}  {comparison} {goal:<7g}")
            continue
        value = figures[name]
        met = value >= goal if comparison == ">=" else value <= goal
        lines.append(
            f"{what:52} {before} {value:10,.2f}  {comparison} {goal:<7g} {'yes' if met else 'NO'}"
        )
    return "\n".join(lines)


def pure_python_actions_per_s(preset: str, seats: int, seconds: float) -> float:
    """Actions/s of the same random play with the pure-Python modules (``MAUMAU_PURE_PYTHON=1``
    in a fresh interpreter), the reference of the compiled core in the same run."""
    code = (
        "import json, sys; from bench.rules import random_rounds; "
        f"print(json.dumps(random_rounds({preset!r}, {seats}, {seconds})))"
    )
    run = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "MAUMAU_PURE_PYTHON": "1"},
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[1],
    )
    return float(json.loads(run.stdout)["actions_per_s"])


def bench_rules(seconds: float) -> dict[str, float]:
    figures: dict[str, float] = {"rules.compiled": float(rules.COMPILED)}
    print(f"rules core ({'compiled' if rules.COMPILED else 'pure Python'}), random legal play:")
    for preset, seats in TABLES:
        result = random_rounds(preset, seats, seconds)
        for name, value in result.items():
            figures[f"rules.{preset}.{seats}.{name}"] = value
        print(
            f"  {preset:12} {seats} seats: {result['rounds_per_s']:9,.0f} rounds/s "
            f"{result['actions_per_s']:9,.0f} actions/s "
            f"{result['actions_per_round']:7.1f} actions/round "
            f"{result['bytes_per_match']:5.0f} bytes/match"
        )
    if rules.COMPILED:
        pure = pure_python_actions_per_s("classic", 4, seconds)
        figures["rules.pure.classic.4.actions_per_s"] = pure
        ratio = figures["rules.classic.4.actions_per_s"] / pure
        figures["ratio.rules_compiled_vs_pure.classic.4.actions"] = ratio
        print(
            f"  classic 4 seats, pure Python: {pure:9,.0f} actions/s; compiled/pure = {ratio:.2f}"
        )
    colour = random_rounds("colour", 4, seconds, cards_first=True)
    figures["rules.colour.4.plays_first.rounds_per_s"] = colour["rounds_per_s"]
    figures["rules.colour.4.plays_first.actions_per_s"] = colour["actions_per_s"]
    print(
        f"  colour, cards before draws: {colour['rounds_per_s']:9,.0f} rounds/s "
        f"{colour['actions_per_s']:9,.0f} actions/s "
        f"{colour['actions_per_round']:7.1f} actions/round"
    )
    return figures


SLICES = 3
"""Turns each side of a comparison with a reference takes (see :func:`interleaved`)."""

Measure = Callable[[float], dict[str, float]]


def interleaved(measures: dict[str, Measure], seconds: float) -> dict[str, dict[str, float]]:
    """Each measure run in SLICES turns of ``seconds / SLICES``, the sides taking turns, and
    the mean of each of its figures: a reference and the rules core measured one after the
    other met different moments of the machine, and their ratio swung from 0.9 to 2.3 between
    quiet runs."""
    totals: dict[str, dict[str, float]] = {name: {} for name in measures}
    for _ in range(SLICES):
        for name, measure in measures.items():
            for figure, value in measure(seconds / SLICES).items():
                totals[name][figure] = totals[name].get(figure, 0.0) + value
    return {
        name: {figure: total / SLICES for figure, total in figures.items()}
        for name, figures in totals.items()
    }


def bench_references(seconds: float, figures: dict[str, float]) -> None:
    """The references, each measured in turns with the rules core's figures it is compared to
    (the rules core's own figures are :func:`bench_rules`')."""
    print(f"references, 4 players, random legal play (in {SLICES} turns with the rules core):")
    try:
        uno = interleaved(
            {
                "rlcard": references.rlcard_uno_games_per_second,
                "uniform": partial(random_rounds, "colour", 4),
                "plays_first": partial(random_rounds, "colour", 4, cards_first=True),
            },
            seconds,
        )
        rlcard = uno["rlcard"]
        figures["ref.rlcard_uno.games_per_s"] = rlcard["games_per_s"]
        figures["ref.rlcard_uno.moves_per_s"] = rlcard["moves_per_s"]
        print(
            f"  RLCard UNO: {rlcard['games_per_s']:,.0f} games/s, "
            f"{rlcard['moves_per_s']:,.0f} moves/s"
        )
        for key in ("uniform", "plays_first"):
            ratio = uno[key]["rounds_per_s"] / rlcard["games_per_s"]
            figures[f"ratio.colour_rounds_vs_rlcard_uno_games.{key}"] = ratio
            print(f"  colour rounds/s ({key}) / RLCard UNO games/s = {ratio:.2f} (goal >= 3)")
    except RuntimeError as missing:
        print(f"  RLCard skipped: {missing}")
    try:
        eights = interleaved(
            {
                "openspiel": references.openspiel_crazy_eights_moves_per_second,
                **{f"{p}.{n}": partial(random_rounds, p, n) for p, n in TABLES},
            },
            seconds,
        )
        moves = eights["openspiel"]["player_moves_per_s"]
        figures["ref.openspiel_crazy_eights.player_moves_per_s"] = moves
        print(f"  OpenSpiel crazy_eights: {moves:,.0f} player moves/s")
        for preset, seats in TABLES:
            ratio = eights[f"{preset}.{seats}"]["actions_per_s"] / moves
            figures[f"ratio.{preset}.{seats}.actions_vs_openspiel_moves"] = ratio
            print(
                f"  {preset} {seats} seats actions/s / OpenSpiel moves/s = {ratio:.2f} (goal >= 1)"
            )
    except RuntimeError as missing:
        print(f"  OpenSpiel skipped: {missing}")


PARTS = (
    "rules",
    "references",
    "engine",
    "streams",
    "bots",
    "rating",
    "matchmaking",
    "arena",
    "gateway",
    "tournaments",
    "accounts",
)


def main() -> None:
    args = sys.argv[1:]
    save = "--save" in args
    args = [arg for arg in args if arg != "--save"]
    seconds = float(args[0]) if args else 3.0
    parts = set(args[1:]) or set(PARTS)
    unknown = parts - set(PARTS)
    if unknown:
        sys.exit(f"unknown part(s) {', '.join(sorted(unknown))}: use {', '.join(PARTS)}")
    figures: dict[str, float] = {}
    if "rules" in parts or "references" in parts:
        figures.update(bench_rules(seconds))
    if "references" in parts:
        bench_references(seconds, figures)
    if "engine" in parts:
        figures.update(bench_engine(seconds))
    if "streams" in parts:
        figures.update(bench_streams(seconds))
    if "gateway" in parts:
        figures.update(bench_gateway(seconds))
    if "bots" in parts:
        rounds = int(os.environ.get("MAUMAU_BENCH_LEAGUE_ROUNDS", "100"))
        figures.update(bench_bots(rounds, budget_seconds=0.2, max_iterations=100))
    if "rating" in parts:
        figures.update(bench_rating(seconds))
    if "matchmaking" in parts:
        figures.update(bench_matchmaking())
    if "arena" in parts:
        figures.update(bench_arena(max(seconds, 10.0), max(seconds, ARENA_SECONDS)))
    if "tournaments" in parts:
        figures.update(bench_tournaments())
    if "accounts" in parts:
        figures.update(bench_accounts(seconds))
    saved = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    print(goal_table(figures, saved))
    record(figures, LATEST)
    print(f"figures written to {LATEST}")
    if save:
        record(figures, RESULTS)
        print(f"and to {RESULTS}")


if __name__ == "__main__":
    main()
