"""The rating rules, pure: XP, levels, places, the openskill update, seasons, parsing results.

XP rests on the colour rule text (003, shared/rules/README.md): "XP: play a game 8, win a game 14,
win a round 2, each draw-2 or draw-4 played 1, none for leaving", used for every preset (issue 6).
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from openskill.models import PlackettLuce

from maumau.rating.ladder import (
    DEFAULT_SKILL,
    BadResult,
    Result,
    SeatResult,
    Skill,
    level_for,
    places,
    rate,
    season_of,
    soften,
    xp_earned,
    xp_for_level,
)
from maumau.rating.synthetic import synthetic_results
from maumau.v1 import game_pb2
from tests.rating.support import JANUARY_2025, result, seat


def one(message: game_pb2.MatchResult) -> Result:
    return Result.from_pb(message)


def xp_of(**fields: object) -> int:
    [found] = one(result([seat(0, "ada", **fields)])).seats  # type: ignore[arg-type]
    return xp_earned(found)


def test_xp_table_per_event() -> None:
    """Playing a match is worth 8; winning it 14 more; each round won 2; each penalty card
    played (a 7, a draw-2, a draw-4) 1."""
    assert xp_of() == 8
    assert xp_of(winner=True) == 8 + 14
    assert xp_of(rounds_won=3) == 8 + 3 * 2
    assert xp_of(specials=5) == 8 + 5
    assert xp_of(winner=True, rounds_won=2, specials=4) == 8 + 14 + 4 + 4


def test_a_seat_that_left_gets_no_xp_even_if_its_bot_won() -> None:
    """'None for leaving': a forfeited seat earns nothing for the match, whatever the bot that
    played on for it did."""
    assert xp_of(left=True) == 0
    assert xp_of(left=True, winner=True, rounds_won=4, specials=3) == 0


def test_bot_seats_earn_no_xp() -> None:
    [bot] = one(result([seat(0, bot="strong", winner=True, rounds_won=2)])).seats
    assert bot.rated_id == "bot:strong"
    assert xp_earned(bot) == 0


def test_levels_follow_the_documented_curve() -> None:
    """Level L starts at 50 L (L - 1) XP: each level takes 100 XP more than the one before."""
    assert [xp_for_level(level) for level in range(1, 6)] == [0, 100, 300, 600, 1000]
    assert [level_for(xp) for xp in (0, 99, 100, 299, 300, 599, 600, 1000)] == [
        1,
        1,
        2,
        2,
        3,
        3,
        4,
        5,
    ]
    for xp in range(0, 20000, 7):
        level = level_for(xp)
        assert xp_for_level(level) <= xp < xp_for_level(level + 1)


@pytest.mark.parametrize(
    ("preset", "totals", "expected"),
    [
        # penalty points: the lowest total is best
        ("classic", [30, 10, 50], [2, 1, 3]),
        ("ostfriesland", [-40, 65, 65], [1, 2, 2]),
        # round wins and collected points: the highest total is best
        ("online", [1, 3, 2], [3, 1, 2]),
        ("colour", [120, 0, 45], [1, 3, 2]),
    ],
)
def test_free_for_all_places_follow_the_presets_scoring(preset, totals, expected) -> None:
    """Winners first, then by total, the better end as the rules core's Ruleset.scoring says;
    equal totals share a place."""
    best = expected.index(1)
    seats = [seat(n, f"p{n}", total=t, winner=n == best) for n, t in enumerate(totals)]
    assert places(one(result(seats, preset=preset))) == expected


def test_the_winner_ranks_first_whatever_the_totals_and_a_leaver_ranks_last() -> None:
    """The rules core decides the winner (a tie-break round, the Mau-Mau count): the winner
    flag outranks totals. A seat that left ranks below everyone who stayed."""
    seats = [
        seat(0, "a", total=20, winner=False),
        seat(1, "b", total=20, winner=True),
        seat(2, "c", total=5, left=True),
        seat(3, "d", total=60),
    ]
    assert places(one(result(seats))) == [2, 1, 4, 3]


def test_colour_in_teams_places_the_two_pairs() -> None:
    """colour teams=true: seats 0+2 against 1+3; the winning pair shares first place."""
    seats = [
        seat(s, f"p{s}", team=s % 2, total=100 if s % 2 == 0 else 0, winner=s % 2 == 0)
        for s in range(4)
    ]
    assert places(one(result(seats, preset="colour", teams=True))) == [1, 2, 1, 2]


def test_team_ratings_are_openskills_plackett_luce_for_two_teams() -> None:
    """The ladder's update of a team match is exactly openskill's Plackett-Luce with the two
    pairs as teams, the winners ranked first."""
    seats = [seat(s, f"p{s}", team=s % 2, total=0, winner=s % 2 == 1) for s in range(4)]
    match = one(result(seats, preset="colour", teams=True))
    priors = {f"p{s}": Skill(20.0 + s, 5.0 + s / 2) for s in range(4)}
    model = PlackettLuce()
    ratings = [model.rating(*priors[f"p{s}"]) for s in range(4)]
    [[r0, r2], [r1, r3]] = model.rate([[ratings[0], ratings[2]], [ratings[1], ratings[3]]], [2, 1])
    expected = {"p0": r0, "p1": r1, "p2": r2, "p3": r3}
    rated = rate(match, priors, places(match))
    assert rated == {rid: Skill(r.mu, r.sigma) for rid, r in expected.items()}
    assert rated["p1"].mu > priors["p1"].mu and rated["p0"].mu < priors["p0"].mu


def test_free_for_all_ratings_are_openskills_plackett_luce() -> None:
    seats = [seat(n, f"p{n}", total=t, winner=n == 2) for n, t in enumerate([40, 70, 0, 40])]
    match = one(result(seats))
    priors = {f"p{n}": DEFAULT_SKILL for n in range(4)}
    model = PlackettLuce()
    teams = model.rate([[model.rating()] for _ in range(4)], ranks=[2, 4, 1, 2])
    assert rate(match, priors, places(match)) == {
        f"p{n}": Skill(team[0].mu, team[0].sigma) for n, team in enumerate(teams)
    }


@settings(max_examples=200, deadline=None)
@given(
    st.integers(min_value=0, max_value=10_000),
    st.lists(st.tuples(st.floats(-20, 70), st.floats(0.5, 10)), min_size=8, max_size=8),
)
def test_every_update_is_openskills_rate_to_the_bit(
    seed: int, priors: list[tuple[float, float]]
) -> None:
    """rate() hands openskill teams whose copy refills pooled rating objects: whatever the
    match (2-8 seats, bots, teams), the update equals a plain ``rate()`` on fresh objects."""
    [message] = synthetic_results(1, seed=seed, ranked=1.0, bots=0.0)
    match = one(message)
    skills = {rid: Skill(*prior) for rid, prior in zip(match.rated, priors, strict=False)}
    place = places(match)
    sides: dict[int, list[int]] = {}
    for s in match.seats:
        sides.setdefault(s.team if match.teams else s.seat, []).append(s.seat)
    model = PlackettLuce()
    teams = [
        [model.rating(*skills[match.seats[n].rated_id]) for n in side] for side in sides.values()
    ]
    expected = model.rate(teams, ranks=[place[side[0]] for side in sides.values()])
    rated = rate(match, skills, place)
    for side, team in zip(sides.values(), expected, strict=True):
        for n, rating in zip(side, team, strict=True):
            assert rated[match.seats[n].rated_id] == Skill(rating.mu, rating.sigma)


def test_a_bot_level_at_two_seats_sums_its_seats_changes() -> None:
    """Bot levels rate as players of their own; one level at two seats moves by both seats'
    changes (mu by the sum, sigma by the product of the factors)."""
    seats = [
        seat(0, bot="random", total=0, winner=True),
        seat(1, bot="heuristic", total=30),
        seat(2, bot="random", total=60),
    ]
    match = one(result(seats))
    priors = {"bot:random": DEFAULT_SKILL, "bot:heuristic": DEFAULT_SKILL}
    model = PlackettLuce()
    first, second, third = model.rate([[model.rating()] for _ in range(3)], ranks=[1, 2, 3])
    rated = rate(match, priors, places(match))
    mu = DEFAULT_SKILL.mu + (first[0].mu - DEFAULT_SKILL.mu) + (third[0].mu - DEFAULT_SKILL.mu)
    sigma = DEFAULT_SKILL.sigma * (first[0].sigma / DEFAULT_SKILL.sigma)
    sigma *= third[0].sigma / DEFAULT_SKILL.sigma
    assert rated["bot:random"] == pytest.approx(Skill(mu, sigma))
    assert rated["bot:heuristic"] == Skill(second[0].mu, second[0].sigma)


def test_bots_and_people_in_one_match_are_rated_on_separate_ladders() -> None:
    """rating.proto: bots and people never share a ladder. A bot is rated among the match's
    bots as if no person had been there (one bot alone is not rated); a person against
    everyone at the table, as before."""
    seats = [
        seat(0, bot="strong", total=0, winner=True),
        seat(1, "ada", total=30),
        seat(2, "bob", total=40),
        seat(3, "botty", total=50),
    ]
    match = one(result(seats))
    match.mark_bot_accounts({"botty"})
    assert [s.ladder for s in match.seats] == ["bots", "people", "people", "bots"]
    priors = dict.fromkeys(["bot:strong", "ada", "bob", "botty"], DEFAULT_SKILL)
    rated = rate(match, priors, places(match))
    model = PlackettLuce()
    won, lost = model.rate([[model.rating()], [model.rating()]], ranks=[1, 2])
    assert rated["bot:strong"] == Skill(won[0].mu, won[0].sigma)
    assert rated["botty"] == Skill(lost[0].mu, lost[0].sigma)
    everyone = model.rate([[model.rating()] for _ in range(4)], ranks=[1, 2, 3, 4])
    assert rated["ada"] == Skill(everyone[1][0].mu, everyone[1][0].sigma)
    assert rated["bob"] == Skill(everyone[2][0].mu, everyone[2][0].sigma)

    alone = one(result([seat(0, bot="strong", winner=True), seat(1, "ada"), seat(2, "bob")]))
    assert set(rate(alone, priors, places(alone))) == {"ada", "bob"}, "one bot: unrated"


def test_ladder_shows_the_conservative_rating() -> None:
    assert Skill(30.0, 4.0).ordinal == 30.0 - 12.0
    assert DEFAULT_SKILL.ordinal == pytest.approx(0.0) and DEFAULT_SKILL.display == 1000
    assert Skill(25.0, 3.0).display == 1640  # the "strong bot: 1,640"


def test_seasons_are_calendar_years_and_start_from_a_softened_rating() -> None:
    """The East-Frisian championship year: a season is the UTC calendar year of the match's
    end; a new season keeps mu and moves sigma halfway back to a new player's."""
    assert season_of(JANUARY_2025) == "2025"
    assert season_of(JANUARY_2025 - 15 * 86400 - 1) == "2024"
    softened = soften(Skill(31.0, 2.0))
    assert softened.mu == 31.0
    assert softened.sigma == pytest.approx((2.0 + DEFAULT_SKILL.sigma) / 2)
    assert softened.ordinal < Skill(31.0, 2.0).ordinal


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: r.ClearField("match_id"), "empty match_id"),
        (lambda r: setattr(r, "preset", "poker"), "unknown preset"),
        (lambda r: r.ClearField("seats"), "0 seats"),
        (lambda r: setattr(r.seats[1], "seat", 5), "seats in order"),
        (lambda r: setattr(r.seats[1], "bot_level", 99), "no bot level 99"),
    ],
)
def test_a_result_this_service_cannot_apply_is_refused_with_a_reason(change, message) -> None:
    """MatchResult (game.proto) fixes the types; what the types allow and the rating rules
    cannot use is refused, saying what is wrong."""
    message_ = result([seat(0, "a", winner=True), seat(1, "b")])
    change(message_)
    with pytest.raises(BadResult, match=message):
        Result.from_pb(message_)


def test_synthetic_results_parse_and_cover_every_case() -> None:
    """The generated stream the exactly-once tests use holds every kind of seat and match."""
    results = [Result.from_pb(message) for message in synthetic_results(1000, seed=7)]
    seats = [s for r in results for s in r.seats]
    assert {r.preset for r in results} == {"classic", "online", "ostfriesland", "colour"}
    assert {r.ranked for r in results} == {True, False}
    assert any(r.teams for r in results)
    assert {r.season for r in results} == {"2024", "2025"}
    assert any(s.left for s in seats) and any(s.bot_level for s in seats)
    assert {len(r.seats) for r in results} == set(range(2, 9))
    assert all(
        isinstance(s, SeatResult) and (s.player_id == "") == bool(s.bot_level) for s in seats
    )
