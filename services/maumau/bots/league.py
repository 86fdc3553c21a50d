"""The bot league: rounds between bot levels, win rates with 95% confidence intervals.

``python -m maumau.bots.league --preset colour --levels strong,random --rounds 200``

Seats rotate through the levels' order every round, so no level keeps the same seat; each round
is played from a fresh deal and counts one win for the seat (or team) that went out.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from maumau.policies import LEVELS, decide
from maumau.rules import Action, Call, Catch, Match, Ruleset

ONE_ROUND = {"classic": {"target": 0}, "online": {"wins": 1}, "ostfriesland": {"rounds": 1}}


@dataclass
class LeagueResult:
    levels: list[str]
    rounds: int
    wins: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    seats_played: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    decision_seconds: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    rounds_played: list[tuple[tuple[str, ...], frozenset[int]]] = field(default_factory=list)
    """Every round's seating (a level per seat) and the seats that won it, for ratings."""

    def win_rate(self, level: str) -> tuple[float, float, float]:
        """The share of rounds a seat of ``level`` won, with its 95% Wilson interval."""
        return wilson(self.wins[level], self.seats_played[level] // self.levels.count(level))

    def decision_ms(self, level: str, quantile: float) -> float:
        times = sorted(self.decision_seconds[level])
        return 1000 * times[min(len(times) - 1, int(quantile * len(times)))] if times else 0.0


def wilson(successes: int, trials: int, z: float = 1.96) -> tuple[float, float, float]:
    """The rate and its Wilson score interval (sound near 0% and 100%, unlike the normal one)."""
    if trials == 0:
        return 0.0, 0.0, 1.0
    rate = successes / trials
    centre = (rate + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * math.sqrt(rate * (1 - rate) / trials + z * z / (4 * trials * trials))
    half /= 1 + z * z / trials
    return rate, max(0.0, centre - half), min(1.0, centre + half)


def play_league(
    preset: str,
    levels: list[str],
    rounds: int,
    budget_seconds: float = 0.2,
    seed: int = 0,
    max_worlds: int = 2000,
    outsiders: Mapping[str, Callable[[Match, int], Action]] | None = None,
) -> LeagueResult:
    """Play ``rounds`` single rounds with one seat per entry of ``levels``; a name among
    ``outsiders`` is a player from outside the platform (an OpenSpiel bot), asked for the action
    of a seat with the whole match, which it must only look at through that seat's view."""
    ruleset = Ruleset.create(preset, ONE_ROUND.get(preset, {"target": 0}))
    rng = random.Random(seed)
    result = LeagueResult(levels, rounds)
    seats = len(levels)
    for number in range(rounds):
        seating = levels[number % seats :] + levels[: number % seats]
        match = Match.new(ruleset, seats, str(rng.random()))
        while match.round == 1 and match.phase != "over":
            seat = next(s for s in range(seats) if _is_due(match, s))
            started = time.perf_counter()
            player = seating[seat]
            if outsiders and player in outsiders:
                action = outsiders[player](match, seat)
            else:
                action = decide(match.view(seat), player, rng, budget_seconds, max_worlds)
            result.decision_seconds[seating[seat]].append(time.perf_counter() - started)
            match.apply(seat, action)
        winner = max(range(seats), key=lambda s: match.round_wins[s])
        for seat in match.team_of(winner):
            result.wins[seating[seat]] += 1
        result.rounds_played.append((tuple(seating), frozenset(match.team_of(winner))))
        for level in seating:
            result.seats_played[level] += 1
    return result


def _is_due(match: Match, seat: int) -> bool:
    """Calls and catches first (any seat), then the seat the match waits for."""
    legal = list(match.legal_actions(seat))
    waited_for = match.chooser if match.phase == "starter_suit" else match.turn
    return bool(legal) and (seat == waited_for or any(type(a) in (Call, Catch) for a in legal))


def report(preset: str, result: LeagueResult) -> str:
    lines = [f"{preset}, {len(result.levels)} seats, {result.rounds} rounds:"]
    for level in dict.fromkeys(result.levels):
        rate, low, high = result.win_rate(level)
        lines.append(
            f"  {level:9} wins {rate:6.1%} (95% CI {low:.1%}-{high:.1%}); decision p50 "
            f"{result.decision_ms(level, 0.5):.1f} ms, p95 {result.decision_ms(level, 0.95):.1f} ms"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--preset", default="colour", choices=["classic", "online", "ostfriesland", "colour"]
    )
    parser.add_argument(
        "--levels", default="strong,random", help=f"comma-separated: {', '.join(LEVELS)}"
    )
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--budget-ms", type=int, default=200, help="thinking time of 'strong'")
    parser.add_argument("--worlds", type=int, default=2000, help="sampled worlds at most")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    levels = args.levels.split(",")
    result = play_league(
        args.preset, levels, args.rounds, args.budget_ms / 1000, args.seed, args.worlds
    )
    print(report(args.preset, result))


if __name__ == "__main__":
    main()
