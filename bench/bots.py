"""The bot league as a benchmark: win rates between levels with 95% intervals, decision times."""

from __future__ import annotations

from maumau.bots.league import play_league, report

MATCHUPS = [
    ("colour", ["strong", "random"]),
    ("colour", ["strong", "heuristic"]),
    ("colour", ["strong", "heuristic", "heuristic", "heuristic"]),
    ("classic", ["strong", "heuristic"]),
]


def bench_bots(rounds: int, budget_seconds: float, max_worlds: int) -> dict[str, float]:
    """Figures per matchup: the first level's win rate, its interval and decision times."""
    figures: dict[str, float] = {}
    print(
        f"bot league ({rounds} rounds each, strong: {budget_seconds * 1000:.0f} ms or "
        f"{max_worlds} worlds per decision):"
    )
    for preset, levels in MATCHUPS:
        result = play_league(preset, levels, rounds, budget_seconds, 0, max_worlds)
        print(report(preset, result))
        name = f"bots.{preset}.{len(levels)}.{'_vs_'.join(dict.fromkeys(levels))}"
        rate, low, high = result.win_rate(levels[0])
        figures.update({f"{name}.win_rate": rate, f"{name}.ci_low": low, f"{name}.ci_high": high})
        for level in dict.fromkeys(levels):
            figures[f"bots.{preset}.{level}.decision_p50_ms"] = result.decision_ms(level, 0.5)
            figures[f"bots.{preset}.{level}.decision_p95_ms"] = result.decision_ms(level, 0.95)
    return figures
