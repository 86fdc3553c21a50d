"""Throughput of the rules core under random legal play, the fast path search uses."""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from maumau.rules import Action, Match, Phase, Play, Ruleset

Chooser = Callable[[list[Action]], Action]
Policy = Callable[[random.Random], Chooser]
"""A policy makes, from a random generator, the function that picks one of the legal actions."""


def uniform(rng: random.Random) -> Chooser:
    """A uniformly random legal action."""
    return rng.choice


def plays_first(rng: random.Random) -> Chooser:
    """A random card if any fits, else a random other action: RLCard's UNO offers a draw only
    when no card fits, so this is the like-for-like policy for comparing rounds per second."""
    choice = rng.choice

    def choose(actions: list[Action]) -> Action:
        if type(actions[0]) is not Play:  # the core lists a seat's plays first: it has none
            return choice(actions)
        while True:  # a uniform choice among the plays, without building their list
            action = choice(actions)
            if type(action) is Play:
                return action

    return choose


def random_rounds(
    preset: str, seats: int, min_seconds: float, policy: Policy = uniform, seed: int = 0
) -> dict[str, float]:
    """Complete rounds of random play for at least ``min_seconds`` of CPU time (this process's,
    so other work on the machine does not count); returns rounds/s, actions/s
    and the mean size in bytes of the serialized match, sampled every 64th action.

    A timed action is what a reference engine's random rollout does per move: list the legal
    actions, choose one, apply it (its events included). The driver is as lean as the references'
    (methods bound to locals, the list of legal actions taken as the core builds it). Sampling the
    bytes is not part of that, so its time is left out of the clock."""
    ruleset = Ruleset.create(preset)
    rng = random.Random(seed)
    choose = policy(rng)
    over, starter_suit = Phase.OVER, Phase.STARTER_SUIT
    rounds = actions = samples = size = 0
    clock = time.process_time  # CPU time: a fair clock on a machine busy with other work
    start = clock()
    elapsed = sampling = 0.0
    while elapsed < min_seconds:
        match = Match.new(ruleset, seats, str(rng.random()))
        legal_list, apply = match.legal_list, match.apply_unchecked
        while match.phase is not over:
            seat = match.chooser if match.phase is starter_suit else match.turn
            apply(seat, choose(legal_list(seat)))
            actions += 1
            if actions % 64 == 0:
                paused = clock()
                samples += 1
                size += len(match.to_bytes())
                sampling += clock() - paused
        rounds += match.round  # every round of a match is played out, the last one ends it
        elapsed = clock() - start - sampling
    return {
        "rounds_per_s": rounds / elapsed,
        "actions_per_s": actions / elapsed,
        "actions_per_round": actions / rounds,
        "bytes_per_match": size / max(samples, 1),
    }
