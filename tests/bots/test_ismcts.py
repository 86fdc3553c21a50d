"""The information-set search: legal, deterministic for a seed and iteration cap, anytime, and
blind to every card its seat has not seen."""

import itertools
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from maumau.policies import ismcts, rank
from maumau.rules import Match, Ruleset
from maumau.rules.determinize import determinize

PRESETS = ["classic", "online", "ostfriesland", "colour"]


def still_clock() -> float:
    """A clock that never moves: the iteration cap alone ends the search."""
    return 0.0


def position(preset: str, seats: int, seed: int, steps: int, options: dict | None = None) -> Match:
    """A match after ``steps`` random actions, or before the action that would end it."""
    match = Match.new(Ruleset.create(preset, options or {}), seats, str(seed))
    rng = random.Random(seed)
    for _ in range(steps):
        seat = match.chooser if match.phase == "starter_suit" else match.turn
        trial = match.copy()
        action = rng.choice(list(match.legal_actions(seat)))
        trial.apply(seat, action)
        if trial.phase == "over":
            break
        match = trial
    return match


def mover(match: Match) -> int:
    return match.chooser if match.phase == "starter_suit" else match.turn


def think(match: Match, seed: int, iterations: int = 40) -> ismcts.Outcome:
    view = match.view(mover(match))
    prior = [r.action for r in rank(view)]
    return ismcts.search(view, random.Random(seed), 1.0, iterations, prior, clock=still_clock)


@settings(max_examples=40, deadline=None)
@given(
    preset=st.sampled_from(PRESETS),
    seats=st.integers(2, 4),
    seed=st.integers(0, 10_000),
    steps=st.integers(0, 60),
)
def test_the_search_plays_a_legal_action_and_stops_on_its_cap(preset, seats, seed, steps):
    match = position(preset, seats, seed, steps)
    outcome = think(match, seed)
    view = match.view(mover(match))
    assert outcome.action in view.legal
    if len(view.legal) == 1:
        assert (outcome.stopped, outcome.iterations) == ("single", 0)
    else:
        assert (outcome.stopped, outcome.iterations) == ("cap", 40)
        assert [choice.visits for choice in outcome.choices] == [40] * min(3, len(view.legal))
        assert outcome.choices[0].action == outcome.action


@settings(max_examples=25, deadline=None)
@given(preset=st.sampled_from(PRESETS), seed=st.integers(0, 10_000), steps=st.integers(0, 40))
def test_the_same_seed_and_cap_give_the_same_search(preset, seed, steps):
    match = position(preset, 3, seed, steps)
    assert think(match, seed) == think(match, seed)


@settings(max_examples=25, deadline=None)
@given(preset=st.sampled_from(PRESETS), seed=st.integers(0, 10_000), steps=st.integers(0, 40))
def test_matches_alike_from_the_seats_view_get_the_same_decision(preset, seed, steps):
    """A world dealt differently in every card the seat has not seen changes nothing."""
    match = position(preset, 3, seed, steps)
    seat = mover(match)
    other = determinize(match.view(seat), random.Random(seed + 1))
    assert other.view(seat) == match.view(seat)
    assert think(other, seed) == think(match, seed)


def test_the_search_stops_when_its_clock_says_the_budget_is_spent():
    ticks = itertools.count()
    match = position("colour", 2, 3, 4)
    view = match.view(mover(match))
    assert len(view.legal) > 1
    outcome = ismcts.search(view, random.Random(0), 10.0, 10_000, clock=lambda: float(next(ticks)))
    assert outcome.stopped == "time"
    # the deadline is tick 10 and an iteration takes a tick: at tick 9 one more would end at
    # tick 10, so the search stops short of the budget rather than after it
    assert outcome.iterations == 8
    assert outcome.action in view.legal


def test_the_eight_seat_ostfriesland_table_gets_a_legal_action():
    for seed in range(6):
        match = position("ostfriesland", 8, seed, seed * 7)
        outcome = think(match, seed, iterations=30)
        assert outcome.action in list(match.legal_actions(mover(match)))


def test_deciding_rounds_get_a_legal_action():
    """Late in a match of several rounds, where one round may decide it."""
    for preset, options in [("classic", {"target": 60}), ("online", {"wins": 2})]:
        for seed in range(4):
            match = position(preset, 3, seed, 400, options)
            assert match.round > 1 or match.phase != "over"
            outcome = think(match, seed, iterations=30)
            assert outcome.action in list(match.legal_actions(mover(match)))
