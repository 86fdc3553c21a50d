"""A demonstration: random players play a short match of every preset, printed as a readable log.

Run ``python -m maumau.demo [seed]``.
"""

from __future__ import annotations

import random
import sys

from maumau.rules import Match, Ruleset
from maumau.rules.events import TurnStarted
from maumau.rules.narrate import describe

DEMO_MATCHES = [
    ("classic", {"target": 30}, 4),
    ("online", {"wins": 2}, 3),
    ("ostfriesland", {"rounds": 2}, 5),
    ("colour", {"target": 100, "teams": True}, 4),
]


def play_random_match(ruleset: Ruleset, seats: int, seed: int) -> list[str]:
    """The log of one match between random players (turn announcements left out)."""
    match, events = Match.start(ruleset, seats, seed)
    rng = random.Random(seed)
    while match.phase != "over":
        seat = rng.choice([s for s in range(seats) if match.legal_actions(s)])
        events += match.apply(seat, rng.choice(list(match.legal_actions(seat))))
    return [describe(event) for event in events if not isinstance(event, TurnStarted)]


def main() -> None:
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 2026
    for preset, options, seats in DEMO_MATCHES:
        ruleset = Ruleset.create(preset, options)
        print(f"\n=== {ruleset.text}, {seats} random players, seed {seed} ===")
        lines = play_random_match(ruleset, seats, seed)
        shown = lines if len(lines) <= 60 else [*lines[:40], "...", *lines[-20:]]
        print("\n".join(shown))


if __name__ == "__main__":
    main()
