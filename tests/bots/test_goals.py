"""The bots' goals table: each round counted once, levels rated by the ladder's openskill model."""

from bench.goals import GOALS, HELD_OUT, Goal, figures_of, rate_levels, run, table
from maumau.bots.league import play_league
from maumau.rating.ladder import DEFAULT_SKILL


def test_every_round_is_recorded_with_its_seating_and_winners():
    result = play_league("colour", ["heuristic", "random", "random"], 12, seed=3)
    assert len(result.rounds_played) == 12
    for seating, winners in result.rounds_played:
        assert sorted(seating) == ["heuristic", "random", "random"]
        assert len(winners) == 1
    won = sum(seating[seat] == "heuristic" for seating, w in result.rounds_played for seat in w)
    assert won == result.wins["heuristic"]


def test_a_level_that_wins_more_is_rated_higher_and_surer():
    result = play_league("classic", ["heuristic", "random"], 40, seed=1)
    assert result.wins["heuristic"] > result.wins["random"]
    skills = rate_levels([result])
    assert skills["heuristic"].ordinal > DEFAULT_SKILL.ordinal > skills["random"].ordinal
    assert skills["heuristic"].sigma < DEFAULT_SKILL.sigma


def test_the_table_names_each_matchup_its_rounds_and_whether_the_goal_is_met():
    goal = Goal("colour", ("heuristic", "random"), 0.9)
    played = run([goal], 20, 0.01, 10, seed=2)
    text = table(played)
    assert "colour, 2 seats, heuristic vs random" in text
    assert " 20 " in text and text.splitlines()[1].split()[-1] in ("yes", "no", "open")
    figures = figures_of(goal, played[0][1], prefix="held_out.")
    assert figures["held_out.bots.colour.2.heuristic_vs_random.rounds"] == 20


def test_the_held_out_tables_are_not_among_the_tuned_ones():
    tuned = {(g.preset, len(g.levels)) for g in GOALS}
    assert all((g.preset, len(g.levels)) not in tuned for g in HELD_OUT)
    assert all(g.levels[0] == "strong" for g in (*GOALS, *HELD_OUT))
