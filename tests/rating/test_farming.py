"""The ladder's rules against farming (issue 10, "A ladder worth trusting"), as properties of the
pure module: familiar opponents count less, and beating much weaker opponents over and over lifts
no rating past them."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from maumau.rating.farming import (
    CLIMB_MARGIN,
    MEETINGS_KEPT,
    REPEATS_IGNORED,
    WINDOW_SECONDS,
    climb_cap,
    familiar_meetings,
    kept,
    kept_ratings,
    recent,
    repeat_weight,
)
from maumau.rating.ladder import DEFAULT_SKILL, Result, SeatResult, Skill, places, rate
from maumau.rating.states import PresetState

mus = st.floats(min_value=-20, max_value=70, allow_nan=False)
sigmas = st.floats(min_value=0.5, max_value=10, allow_nan=False)
skills = st.builds(Skill, mus, sigmas)
weights = st.floats(min_value=0, max_value=1)
caps = st.one_of(st.just(-math.inf), st.floats(min_value=-60, max_value=80))


def two_seat(winner: str, loser: str, at: float, bot: str = "") -> Result:
    """A ranked two-seat classic match ``winner`` won; ``loser`` may be a bot level."""
    seats = (
        SeatResult(0, winner, "", False, 0, 0, 1, 0, True),
        SeatResult(1, "" if bot else loser, bot, False, 1, 30, 0, 0, False),
    )
    return Result(f"m{at}", "classic", "classic", True, False, seats, (0,), "target", 3, at)


@given(st.integers(min_value=0, max_value=50))
def test_the_weight_halves_with_each_meeting_and_ends_at_nothing(meetings: int) -> None:
    weight = repeat_weight(meetings)
    assert 0 <= weight <= 1
    assert repeat_weight(meetings + 1) <= weight
    assert (weight == 0) == (meetings >= REPEATS_IGNORED)


@given(skills, skills, caps)
def test_a_match_of_no_weight_changes_nothing(prior: Skill, rated: Skill, cap: float) -> None:
    assert kept(prior, rated, weight=0.0, cap=cap) == prior


@given(skills, skills, weights, caps)
def test_what_is_kept_lies_between_prior_and_openskill_and_rises_no_higher_than_the_cap(
    prior: Skill, rated: Skill, weight: float, cap: float
) -> None:
    result = kept(prior, rated, weight=weight, cap=cap)
    low, high = sorted((prior.ordinal, rated.ordinal))
    assert low - 1e-9 <= result.ordinal <= high + 1e-9
    if result.ordinal > prior.ordinal + 1e-9:
        assert result.ordinal <= cap + 1e-9


@given(skills, skills, weights, caps)
def test_losses_are_never_capped(prior: Skill, rated: Skill, weight: float, cap: float) -> None:
    if rated.ordinal <= prior.ordinal:
        assert kept(prior, rated, weight=weight, cap=cap) == kept(
            prior, rated, weight=weight, cap=math.inf
        )


@given(
    st.lists(
        st.tuples(
            st.floats(min_value=0, max_value=3 * WINDOW_SECONDS),
            st.lists(st.sampled_from("bcdef"), max_size=3),
        ),
        max_size=40,
    ),
    st.sets(st.sampled_from("bcdef"), max_size=3),
    st.floats(min_value=0, max_value=3 * WINDOW_SECONDS),
)
def test_meetings_count_within_the_window_only_and_pruning_keeps_the_count(
    earlier: list[tuple[float, list[str]]], opponents: set[str], now: float
) -> None:
    found = familiar_meetings(earlier, opponents, now)
    in_window = [m for m in earlier if now - WINDOW_SECONDS < m[0] <= now]
    assert found == max((sum(o in met for _, met in in_window) for o in opponents), default=0)
    older = [m for m in earlier if m[0] <= now]
    assert (
        familiar_meetings(recent(older, now), opponents, now)
        == familiar_meetings(older, opponents, now)
        or len(in_window) > 64
    )


@settings(deadline=None, max_examples=40)
@given(
    st.floats(min_value=-10, max_value=30),
    st.integers(min_value=1, max_value=60),
    skills,
)
def test_beating_weaker_opponents_over_and_over_never_lifts_past_them(
    weak: float, wins: int, start: Skill
) -> None:
    """Win after win over a bot level of ordinal ``weak`` (far from each other account, so rule 1
    does not apply): the ordinal ends no higher than max(its start, weak + CLIMB_MARGIN)."""
    bot = Skill(weak + 3 * 2.0, 2.0)
    skill = start
    for n in range(wins):
        result = two_seat("farmer", "", float(n), bot="random")
        before = {"farmer": skill, "bot:random": bot}
        place = places(result)
        after = kept_ratings(result, place, before, rate(result, before, place), {})
        skill = after["farmer"]
    assert skill.ordinal <= max(start.ordinal, weak + CLIMB_MARGIN) + 1e-9


def test_a_new_player_beating_random_bots_thirty_times_stays_near_them() -> None:
    """Finding 3's farm, replayed on the rules: openskill alone would lift the display far."""
    bot, farmer, plain = Skill(20.0, 3.0), DEFAULT_SKILL, DEFAULT_SKILL
    for n in range(30):
        result = two_seat("farmer", "", float(n), bot="random")
        place = places(result)
        before = {"farmer": farmer, "bot:random": bot}
        farmer = kept_ratings(result, place, before, rate(result, before, place), {})["farmer"]
        unruled = rate(result, {"farmer": plain, "bot:random": bot}, place)
        plain = unruled["farmer"]
    assert plain.display > 1400  # what the ladder showed without the rule
    assert farmer.ordinal <= bot.ordinal + CLIMB_MARGIN + 1e-9
    assert farmer.display <= round(1000 + 40 * (bot.ordinal + CLIMB_MARGIN))


def test_a_second_account_handing_over_wins_counts_less_then_nothing() -> None:
    """Main beats alt again and again within a day: full, half, a quarter, then nothing."""
    main, alt = DEFAULT_SKILL, Skill(40.0, 2.0)  # alt strong, so rule 2 allows the climb
    earlier: list[tuple[float, list[str]]] = []
    gains = []
    for n in range(6):
        result = two_seat("main", "alt", float(n))
        place = places(result)
        before = {"main": main, "alt": alt}
        openskill = rate(result, before, place)
        after = kept_ratings(result, place, before, openskill, {"main": earlier})
        gains.append(
            (after["main"].ordinal - main.ordinal) / (openskill["main"].ordinal - main.ordinal)
        )
        earlier.append((float(n), ["alt"]))
        main = after["main"]
    assert [round(g, 6) for g in gains] == [1.0, 0.5, 0.25, 0.0, 0.0, 0.0]
    # A day later they count again; with a window of an hour (the setting), an hour later.
    for at, window in ((WINDOW_SECONDS + 10, WINDOW_SECONDS), (3610.0, 3600.0)):
        result = two_seat("main", "alt", at)
        place = places(result)
        before = {"main": main, "alt": alt}
        openskill = rate(result, before, place)
        after = kept_ratings(result, place, before, openskill, {"main": earlier}, window=window)
        assert after["main"] == openskill["main"]
    result = two_seat("main", "alt", 3590.0)
    place = places(result)
    before = {"main": main, "alt": alt}
    openskill = rate(result, before, place)
    after = kept_ratings(result, place, before, openskill, {"main": earlier}, window=3600.0)
    assert after["main"] == main  # within the hour: the fourth meeting counts nothing


def test_climb_cap_is_the_best_beaten_plus_the_margin() -> None:
    assert climb_cap([1.0, 7.5, -3.0]) == 7.5 + CLIMB_MARGIN
    assert climb_cap([]) == -math.inf


@settings(deadline=None, max_examples=300)
@given(
    st.lists(
        st.tuples(
            st.floats(min_value=0, max_value=1),
            st.lists(st.sampled_from("bcdef"), min_size=1, max_size=3),
        ),
        max_size=90,
    ),
    st.integers(min_value=1, max_value=90),
    st.floats(min_value=1, max_value=3 * WINDOW_SECONDS),
    st.booleans(),
    st.sampled_from([WINDOW_SECONDS, 3600.0, 60.0]),
)
def test_a_state_remembers_its_meetings_as_the_window_prunes_them(
    times: list[tuple[float, list[str]]], stored: int, span: float, in_order: bool, window: float
) -> None:
    """A player's state appends each new match to its meetings (pruned to the window, at most
    MEETINGS_KEPT) without sorting them all again: in any order of matches, it keeps exactly
    what pruning every meeting so far keeps, also across a write and a read of the state."""
    matches = [(at * span, accounts) for at, accounts in times]
    if in_order:  # as results nearly always come
        matches.sort(key=lambda match: match[0])
    state = PresetState()
    everything: list[tuple[float, list[str]]] = []
    for n, (finished_at, accounts) in enumerate(matches):
        if n == stored:
            state = PresetState(state.dumps())
        state.meet(finished_at, accounts, window)
        everything = recent([*everything, (finished_at, accounts)], finished_at, window)
        assert [list(m) for m in state.meetings()] == [list(m) for m in everything]
    assert len(state.meetings()) <= MEETINGS_KEPT
