"""Helpers the rule tests share: act by text, refuse without a trace, pick events, find deals."""

from collections.abc import Callable

import pytest

from maumau.rules import Event, IllegalAction, Match, Ruleset, parse_action


def act(match: Match, seat: int, text: str) -> list[Event]:
    return match.apply(seat, parse_action(text))


def refused(match: Match, seat: int, text: str) -> str:
    """The error code that refuses ``text``, after checking it left the match unchanged."""
    before = match.copy()
    with pytest.raises(IllegalAction) as err:
        act(match, seat, text)
    assert match == before
    return err.value.code


def named(events: list[Event], kind: str) -> list[Event]:
    return [event for event in events if type(event).__name__ == kind]


def dealt_where(ruleset: Ruleset, seats: int, test: Callable[[Match], bool]) -> Match:
    """The first match dealt by ``Match.new`` (seeds 0, 1, ...) whose position passes ``test``."""
    for seed in range(5000):
        match = Match.new(ruleset, seats=seats, seed=seed)
        if test(match):
            return match
    raise AssertionError("no seed deals such a position")
