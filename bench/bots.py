"""The bot league as a benchmark: a short version of the bots' goals table (``make league`` runs
the whole of it), win rates with 95% intervals, decision times and the search's speed."""

from __future__ import annotations

import random
import time

from bench.goals import GOALS, HELD_OUT, HELD_OUT_SEED, TUNING_SEED, figures_of, run, table
from maumau.policies import ismcts, rank
from maumau.rules import Match, Ruleset

SHORT = [GOALS[0], GOALS[1], GOALS[2], GOALS[-1]]
"""colour 2 and 4 seats and classic 2 seats against the heuristic, colour against random."""


def bench_bots(rounds: int, budget_seconds: float, max_iterations: int) -> dict[str, float]:
    """Figures per matchup: strong's win rate, its interval and decision p95; the held-out
    colour table beside them; the search's iterations per second."""
    print(
        f"bot league ({rounds} rounds each, strong: {budget_seconds * 1000:.0f} ms or "
        f"{max_iterations} iterations per decision):"
    )
    figures: dict[str, float] = {}
    played = run(SHORT, rounds, budget_seconds, max_iterations, TUNING_SEED)
    held_out = run(HELD_OUT[1:], rounds, budget_seconds, max_iterations, HELD_OUT_SEED)
    print(table(played))
    print(f"held out (seed {HELD_OUT_SEED}):")
    print(table(held_out))
    for goal, result in played:
        figures.update(figures_of(goal, result))
    for goal, result in held_out:
        figures.update(figures_of(goal, result, prefix="held_out."))
    for preset, seats in [("colour", 2), ("classic", 4), ("ostfriesland", 8)]:
        rate = iterations_per_second(preset, seats)
        print(f"search iterations/s, {preset} {seats} seats: {rate:,.0f}")
        figures[f"bots.search.{preset}.{seats}.iterations_per_s"] = rate
    return figures


def iterations_per_second(preset: str, seats: int, deals: int = 5) -> float:
    """The search's iterations per second from the first decision of a few deals, 0.2 s each."""
    iterations, seconds = 0, 0.0
    for deal in range(deals):
        match = Match.new(Ruleset.create(preset), seats, f"bench/{deal}")
        view = match.view(match.chooser if match.phase == "starter_suit" else match.turn)
        prior = [r.action for r in rank(view)]
        started = time.perf_counter()
        outcome = ismcts.search(view, random.Random(deal), 0.2, 10**9, prior)
        if outcome.stopped == "time":  # not a single legal move answered at once
            seconds += time.perf_counter() - started
            iterations += outcome.iterations
    return iterations / seconds if seconds else 0.0
