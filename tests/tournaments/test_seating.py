"""The table change of the East-Frisian tournament rules (rule text 002, 'Turniermodus'): the
worse half of each table by points moves on to the next table after every block of rounds."""

import doctest

from hypothesis import given
from hypothesis import strategies as st

from maumau.tournaments import seating
from maumau.tournaments.seating import Score, change_tables, first_seating, worse_half


def test_doctests() -> None:
    assert doctest.testmod(seating).failed == 0


@st.composite
def field(draw: st.DrawFn) -> tuple[list[list[str]], dict[str, Score], int]:
    """A balanced seating of 2-64 entrants with random scores, and the table limit."""
    max_per_table = draw(st.integers(3, 8))
    players = draw(st.integers(2, 64))
    entrants = [f"p{i}" for i in range(players)]
    tables = first_seating(entrants, max_per_table, draw(st.text(max_size=5)))
    scores = {e: Score(draw(st.integers(-80, 60)), draw(st.integers(0, 2))) for e in entrants}
    return tables, scores, max_per_table


def test_the_first_seating_spreads_players_evenly() -> None:
    tables = first_seating([str(i) for i in range(24)], 8, "seed")
    assert [len(t) for t in tables] == [8, 8, 8]
    tables = first_seating([str(i) for i in range(17)], 8, "seed")
    assert sorted(len(t) for t in tables) == [5, 6, 6]


@given(field())
def test_the_worse_half_of_each_table_moves_to_the_next(case) -> None:  # type: ignore[no-untyped-def]
    tables, scores, max_per_table = case
    everyone = {e for t in tables for e in t}
    change = change_tables(tables, scores, everyone, max_per_table)
    count = len(tables)
    # Nobody lost, nobody twice, no table over the limit, sizes differ by at most one.
    seated = [e for t in change.tables for e in t]
    assert sorted(seated) == sorted(everyone)
    sizes = [len(t) for t in change.tables]
    assert max(sizes) <= max_per_table and max(sizes) - min(sizes) <= 1
    if count == 1:
        assert change.tables == tables and not change.moves
        return
    # With nobody leaving, the rule alone keeps the tables balanced: no further moves.
    assert len(change.moves) == sum(len(t) // 2 for t in tables)
    for i, table in enumerate(tables):
        movers = worse_half(table, scores)
        stayers = [e for e in table if e not in movers]
        assert change.tables[i][: len(stayers)] == stayers
        arrived_at = change.tables[(i + 1) % count]
        assert arrived_at[len(arrived_at) - len(movers) :] == movers
        # Every mover has at least as many points as every stayer (or equal with fewer Mau-Maus).
        for m in movers:
            for s in stayers:
                key_m = (scores[m].points, -scores[m].maumaus)
                key_s = (scores[s].points, -scores[s].maumaus)
                assert key_m >= key_s


def test_odd_tables_keep_the_middle_player_and_ties_send_the_later_seat() -> None:
    scores = {e: Score(10) for e in "abcdefg"}
    scores["a"] = Score(50)
    # a is worst; the rest tie on points: the later seats go.
    assert worse_half(list("abcdefg"), scores) == ["f", "g", "a"]
    scores["g"] = Score(10, maumaus=1)  # a Mau-Mau finish breaks the tie for g
    assert worse_half(list("abcdefg"), scores) == ["e", "f", "a"]


@given(field(), st.data())
def test_players_who_left_are_not_seated_and_tables_even_out(case, data) -> None:  # type: ignore[no-untyped-def]
    tables, scores, max_per_table = case
    everyone = sorted({e for t in tables for e in t})
    playing = set(data.draw(st.lists(st.sampled_from(everyone), min_size=2, unique=True)))
    change = change_tables(tables, scores, playing, max_per_table)
    seated = [e for t in change.tables for e in t]
    assert sorted(seated) == sorted(playing)
    sizes = [len(t) for t in change.tables]
    assert max(sizes) <= max_per_table and max(sizes) - min(sizes) <= 1
    assert len(change.tables) == seating.table_count(len(playing), max_per_table)
    assert min(sizes) >= 2 or len(change.tables) == 1
