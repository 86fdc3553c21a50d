"""``make bench``: every benchmark of the platform, with ratios against references in the same run.

Figures are written to ``bench/results.json`` (figure name -> number), merged with what other parts
wrote before, so they can be tracked over time. ``python -m bench [seconds] [part ...]`` sets the
time per measurement (default 3) and runs only the parts named (rules, references, engine, bots,
rating, matchmaking, gateway, tournaments; default all of them). The bot league plays
MAUMAU_BENCH_LEAGUE_ROUNDS rounds per matchup (default 100).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from bench import references
from bench.bots import bench_bots
from bench.engine import bench_engine
from bench.gateway import bench_gateway
from bench.matchmaking import bench_matchmaking
from bench.rating import bench_rating
from bench.rules import plays_first, random_rounds
from bench.tournaments import bench_tournaments

RESULTS = Path(__file__).with_name("results.json")
TABLES = [("classic", 4), ("online", 4), ("ostfriesland", 4), ("ostfriesland", 8), ("colour", 4)]


def record(figures: dict[str, float]) -> None:
    """Merge ``figures`` into ``bench/results.json``."""
    results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    results.update({name: round(value, 3) for name, value in figures.items()})
    RESULTS.write_text(json.dumps(results, indent=2, sort_keys=True) + "\n")


def bench_rules(seconds: float) -> dict[str, float]:
    figures: dict[str, float] = {}
    print("rules core, random legal play (fast path):")
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
    colour = random_rounds("colour", 4, seconds, policy=plays_first)
    figures["rules.colour.4.plays_first.rounds_per_s"] = colour["rounds_per_s"]
    figures["rules.colour.4.plays_first.actions_per_s"] = colour["actions_per_s"]
    print(
        f"  colour, cards before draws: {colour['rounds_per_s']:9,.0f} rounds/s "
        f"{colour['actions_per_s']:9,.0f} actions/s "
        f"{colour['actions_per_round']:7.1f} actions/round"
    )
    return figures


def bench_references(seconds: float, figures: dict[str, float]) -> None:
    print("references, 4 players, random legal play:")
    try:
        uno = references.rlcard_uno_games_per_second(seconds)
        figures["ref.rlcard_uno.games_per_s"] = uno["games_per_s"]
        figures["ref.rlcard_uno.moves_per_s"] = uno["moves_per_s"]
        print(f"  RLCard UNO: {uno['games_per_s']:,.0f} games/s, {uno['moves_per_s']:,.0f} moves/s")
        for key, ours in (
            ("uniform", "rules.colour.4.rounds_per_s"),
            ("plays_first", "rules.colour.4.plays_first.rounds_per_s"),
        ):
            ratio = figures[ours] / uno["games_per_s"]
            figures[f"ratio.colour_rounds_vs_rlcard_uno_games.{key}"] = ratio
            print(f"  colour rounds/s ({key}) / RLCard UNO games/s = {ratio:.2f} (goal >= 3)")
    except RuntimeError as missing:
        print(f"  RLCard skipped: {missing}")
    try:
        eights = references.openspiel_crazy_eights_moves_per_second(seconds)
        figures["ref.openspiel_crazy_eights.player_moves_per_s"] = eights["player_moves_per_s"]
        print(f"  OpenSpiel crazy_eights: {eights['player_moves_per_s']:,.0f} player moves/s")
        for preset, seats in TABLES:
            ratio = figures[f"rules.{preset}.{seats}.actions_per_s"] / eights["player_moves_per_s"]
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
    "bots",
    "rating",
    "matchmaking",
    "gateway",
    "tournaments",
)


def main() -> None:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 3.0
    parts = set(sys.argv[2:]) or set(PARTS)
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
    if "gateway" in parts:
        figures.update(bench_gateway(seconds))
    if "bots" in parts:
        rounds = int(os.environ.get("MAUMAU_BENCH_LEAGUE_ROUNDS", "100"))
        figures.update(bench_bots(rounds, budget_seconds=0.2, max_worlds=40))
    if "rating" in parts:
        figures.update(bench_rating(seconds))
    if "matchmaking" in parts:
        figures.update(bench_matchmaking())
    if "tournaments" in parts:
        figures.update(bench_tournaments())
    record(figures)
    print(f"figures written to {RESULTS}")


if __name__ == "__main__":
    main()
