"""Random play checked by the referee of each preset (``referee.py``), written from the rule
texts: every played card may lie on the card below it, every play lists exactly the call it
owes, and exactly the seats the rules say owe a call may be caught, or may call on their own."""

import random

from hypothesis import given
from hypothesis import strategies as st

from maumau.rules import Match, Pass, Play
from maumau.rules.events import RoundOver, RoundStarted
from tests.rules.referee import Referee, fits
from tests.rules.support import random_step
from tests.rules.test_rule_properties import tables


@given(table=tables, seed=st.integers(0, 2**32), steps=st.integers(1, 400))
def test_the_referee_agrees_with_every_step_of_random_play(table, seed, steps):
    ruleset, seats = table
    match = Match.new(ruleset, seats, seed)
    referee = Referee(ruleset)
    rng = random.Random(seed)
    for _ in range(steps):
        before = match.view(None)
        if before.outcome is not None:
            break
        mover = match.view(before.chooser if before.phase == "starter_suit" else before.turn)
        referee.check_listed_plays(before, mover, list(mover.legal))
        seat, action = random_step(match, rng)
        if isinstance(action, Play):
            wishing = action.suit is not None
            assert fits(ruleset, before, action.card, wishing), f"{action.text} on {before.top}"
        events = match.apply(seat, action)
        if any(isinstance(event, RoundOver | RoundStarted) for event in events):
            referee.new_round()
            continue
        after = match.view(None)
        referee.follow(before, events)
        if isinstance(action, Pass):
            referee.kept_drawn(seat, after)
        assert set(after.owing_call) == referee.catchable(after), action.text
        referee.check_calls_alone(after, [list(match.legal_actions(s)) for s in range(seats)])
