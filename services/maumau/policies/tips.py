"""Tips from the search: the move the search prefers, first, with the reason from its own
statistics (its win estimate against the next best move's), then the heuristic's ranking."""

from __future__ import annotations

import random

from maumau.policies import ismcts
from maumau.policies.levels import Ranked, arguing_for, rank
from maumau.rules import View
from maumau.rules.reasons import Reason


def tips(
    view: View, rng: random.Random, budget_seconds: float, max_iterations: int
) -> list[Ranked]:
    """Every legal action, the search's choice first; a call, a catch, the last card or a
    single legal move needs no search, and the heuristic's ranking stands."""
    ranked = rank(view)
    if len(ranked) < 2 or ranked[0].score >= 95:
        return ranked
    outcome = ismcts.search(view, rng, budget_seconds, max_iterations, [r.action for r in ranked])
    if outcome.iterations == 0:
        return ranked
    best, *others = outcome.choices  # the chosen move first
    runner_up = max(others, key=lambda choice: choice.win_rate)
    code = "search_best" if best.win_rate >= runner_up.win_rate else "search_no_better"
    because = Reason.of(
        code,
        win=round(100 * best.win_rate),
        worlds=outcome.iterations,
        next=round(100 * runner_up.win_rate),
    )
    chosen = next(r for r in ranked if r.action == best.action)
    first = arguing_for(chosen, len(ranked))
    score = max(r.score for r in ranked) + 1
    return [
        Ranked(best.action, score, (because, *first.reasons)),
        *(r for r in ranked if r.action != best.action),
    ]
