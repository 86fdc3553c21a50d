"""Throughput of the rules core under random legal play, the fast path search uses."""

from __future__ import annotations

import random
import time

from maumau.rules import Match, Phase, Ruleset


def random_rounds(
    preset: str, seats: int, min_seconds: float, cards_first: bool = False, seed: int = 0
) -> dict[str, float]:
    """Complete rounds of random play for at least ``min_seconds`` of CPU time (this process's,
    so other work on the machine does not count); returns rounds/s, actions/s
    and the mean size in bytes of the serialized match, sampled every 64th action.

    A timed action is what a reference engine's random rollout does per move: list the legal
    actions, choose one uniformly (``random.Random.choice``, as the references' drivers do),
    apply it (its events included). ``cards_first`` lists only a seat's plays when it has any
    (:meth:`Match.cards_first_list`): RLCard's UNO offers a draw only when no card fits, so this
    is the like-for-like play for comparing rounds per second. The driver is as lean as the
    references' (methods bound to locals, the list taken as the core builds it). Sampling the
    bytes is not part of that, so its time is left out of the clock."""
    ruleset = Ruleset.create(preset)
    rng = random.Random(seed)
    choose = rng.choice
    over, starter_suit = Phase.OVER, Phase.STARTER_SUIT
    rounds = actions = samples = size = 0
    clock = time.process_time  # CPU time: a fair clock on a machine busy with other work
    start = clock()
    elapsed = sampling = 0.0
    while elapsed < min_seconds:
        match = Match.new(ruleset, seats, str(rng.random()))
        listed = match.cards_first_list if cards_first else match.legal_list
        apply = match.apply_unchecked
        while match.phase is not over:
            seat = match.chooser if match.phase is starter_suit else match.turn
            apply(seat, choose(listed(seat)))
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
