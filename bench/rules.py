"""Throughput of the rules core under random legal play, the fast path search uses."""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from maumau.rules import Action, Match, Play, Ruleset

Policy = Callable[[list[Action], random.Random], Action]


def uniform(actions: list[Action], rng: random.Random) -> Action:
    """A uniformly random legal action."""
    return rng.choice(actions)


def plays_first(actions: list[Action], rng: random.Random) -> Action:
    """A random card if any fits, else a random other action: RLCard's UNO offers a draw only
    when no card fits, so this is the like-for-like policy for comparing rounds per second."""
    plays = [action for action in actions if type(action) is Play]
    return rng.choice(plays or actions)


def random_rounds(
    preset: str, seats: int, min_seconds: float, policy: Policy = uniform, seed: int = 0
) -> dict[str, float]:
    """Complete rounds of random play for at least ``min_seconds`` of CPU time (this process's,
    so other work on the machine does not count); returns rounds/s, actions/s
    and the mean size in bytes of the serialized match, sampled every 64th action.

    A timed action is what a reference engine's random rollout does per move: list the legal
    actions, choose one, apply it. Sampling the bytes is not part of that, so its time is left
    out of the clock."""
    ruleset = Ruleset.create(preset)
    rng = random.Random(seed)
    rounds = actions = samples = size = 0
    clock = time.process_time  # CPU time: a fair clock on a machine busy with other work
    start = clock()
    elapsed = sampling = 0.0
    while elapsed < min_seconds:
        match = Match.new(ruleset, seats, str(rng.random()))
        while match.phase != "over":
            seat = match.chooser if match.phase == "starter_suit" else match.turn
            number = match.round
            match.apply_unchecked(seat, policy(list(match.legal_actions(seat)), rng))
            actions += 1
            rounds += match.round != number or match.phase == "over"
            if actions % 64 == 0:
                paused = clock()
                samples += 1
                size += len(match.to_bytes())
                sampling += clock() - paused
        elapsed = clock() - start - sampling
    return {
        "rounds_per_s": rounds / elapsed,
        "actions_per_s": actions / elapsed,
        "actions_per_round": actions / rounds,
        "bytes_per_match": size / max(samples, 1),
    }
