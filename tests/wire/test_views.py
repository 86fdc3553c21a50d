"""The wire form of a view carries all of it: a client or bot reading ``maumau.v1.View`` sees
exactly what the rules core showed that seat, the experience-point counters included."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from maumau.rules import Match, Ruleset
from maumau.wire import view_from_pb, view_to_pb
from tests.rules.support import random_step

TABLES = [("classic", 3), ("online", 2), ("ostfriesland", 4), ("colour", 4)]


@settings(max_examples=20, deadline=None)
@given(table=st.sampled_from(TABLES), seed=st.integers(0, 10_000), steps=st.integers(0, 120))
def test_every_view_survives_the_wire(table: tuple[str, int], seed: int, steps: int) -> None:
    preset, seats = table
    match = Match.new(Ruleset.create(preset), seats, seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if match.view(None).outcome is not None:
            break
        match.apply(*random_step(match, rng))
    for seat in [None, *range(seats)]:
        view = match.view(seat)
        assert view_from_pb(view_to_pb(view, "m", 1)) == view


def test_a_view_carries_the_counters_experience_is_earned_by() -> None:
    """Rating text: XP comes from round wins and the penalty special cards a seat played."""
    match = Match.new(Ruleset.create("classic"), 2, 7)
    rng = random.Random(7)
    while match.view(None).outcome is None:
        match.apply(*random_step(match, rng))
    view = match.view(0)
    message = view_to_pb(view, "m", 1)
    assert list(message.specials) == list(view.specials) and len(view.specials) == 2
    assert sum(view.specials) > 0, "a whole classic match plays some 7s, 8s or Jacks"
    assert list(message.round_wins) == list(view.round_wins)


@settings(max_examples=20, deadline=None)
@given(table=st.sampled_from(TABLES), seed=st.integers(0, 10_000), steps=st.integers(0, 120))
def test_a_view_without_to_act_reads_as_the_seat_the_match_waits_for(
    table: tuple[str, int], seed: int, steps: int
) -> None:
    """game.proto, View.to_act, which servers before it did not send: a view read without it
    (a bot server handed one by an older engine) names the same seat, worked out from its
    phase, chooser and turn."""
    preset, seats = table
    match = Match.new(Ruleset.create(preset), seats, seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if match.view(None).outcome is not None:
            break
        match.apply(*random_step(match, rng))
    view = match.view(0)
    message = view_to_pb(view, "m", 1)
    message.ClearField("to_act")
    assert view_from_pb(message).to_act == view.to_act
