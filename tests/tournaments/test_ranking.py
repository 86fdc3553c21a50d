"""Final places, deciding rounds and championship points (rule text 002: 'Turniermodus',
'Meisterschaft', 'Turnierpunkte')."""

import doctest
import itertools
import random

from hypothesis import given
from hypothesis import strategies as st

from maumau.tournaments import ranking
from maumau.tournaments.ranking import (
    ChampionshipEntry,
    Tally,
    championship_order,
    championship_year,
    deciding_groups,
    final_places,
    merge_deciding,
)


def test_doctests() -> None:
    assert doctest.testmod(ranking).failed == 0


tallies = st.lists(
    st.builds(
        Tally,
        entrant=st.just(""),
        points=st.integers(-40, 40),
        maumaus=st.integers(0, 2),
        left=st.booleans(),
    ),
    min_size=1,
    max_size=40,
).map(lambda ts: [Tally(f"p{i}", t.points, t.maumaus, i, t.left) for i, t in enumerate(ts)])


@given(tallies)
def test_fewest_points_win_then_most_mau_mau_finishes(field: list[Tally]) -> None:
    places = final_places(field)
    by_id = {t.entrant: t for t in field}
    assert sorted(p.entrant for p in places) == sorted(by_id)
    for better, worse in itertools.pairwise(places):
        a, b = by_id[better.entrant], by_id[worse.entrant]
        assert (a.points, -a.maumaus) <= (b.points, -b.maumaus)
        assert better.place <= worse.place
    # Paid places have one holder each; the points follow the table 12, 10, 8, 7, ...
    paid = [p for p in places if p.place <= ranking.PAID_PLACES]
    assert [p.place for p in paid] == list(range(1, len(paid) + 1))
    assert [p.championship_points for p in paid] == list(ranking.CHAMPIONSHIP_POINTS[: len(paid)])
    assert all(p.championship_points == 0 for p in places[ranking.PAID_PLACES :])


@given(tallies, st.data())
def test_deciding_rounds_end_every_tie_for_a_paid_place(field: list[Tally], data) -> None:  # type: ignore[no-untyped-def]
    for _ in range(ranking.MAX_DECIDING_ROUNDS + 1):
        groups = deciding_groups(field)
        if not groups:
            break
        for group in groups:
            assert len(group) > 1
            assert not any(t.left for t in field if t.entrant in group)
            points = {e: data.draw(st.integers(-40, 30)) for e in group}
            field = merge_deciding(field, points)
    assert deciding_groups(field) == []
    places = final_places(field)
    assert len({p.place for p in places if p.place <= 10}) == min(len(places), 10)


def test_a_deciding_round_orders_players_level_on_points_and_mau_maus() -> None:
    field = [Tally("a", 10, 1, 0), Tally("b", 10, 1, 1), Tally("c", 10, 0, 2), Tally("d", 5, 0, 3)]
    assert deciding_groups(field) == [["a", "b"]]
    field = merge_deciding(field, {"a": 15, "b": -40})
    assert deciding_groups(field) == []
    assert [(p.entrant, p.place, p.championship_points) for p in final_places(field)] == [
        ("d", 1, 12),
        ("b", 2, 10),
        ("a", 3, 8),
        ("c", 4, 7),
    ]


def test_no_deciding_round_beyond_the_paid_places_they_share_the_place() -> None:
    field = [Tally(f"p{i}", i, 0, i) for i in range(10)] + [
        Tally("x", 50, 0, 10),
        Tally("y", 50, 0, 11),
    ]
    assert deciding_groups(field) == []
    places = {p.entrant: p.place for p in final_places(field)}
    assert places["x"] == places["y"] == 11


def test_a_player_who_left_loses_a_tie_and_plays_no_deciding_round() -> None:
    field = [Tally("a", 10, 0, 0, left=True), Tally("b", 10, 0, 1)]
    assert deciding_groups(field) == []
    assert [p.entrant for p in final_places(field)] == ["b", "a"]


def test_championship_most_points_then_mau_maus_then_a_shared_place() -> None:
    rows = championship_order(
        [
            ChampionshipEntry("a", 20, 1),
            ChampionshipEntry("b", 20, 3),
            ChampionshipEntry("c", 12, 0),
            ChampionshipEntry("d", 12, 0),
        ]
    )
    assert [(r.entry.player, r.place, r.tied) for r in rows] == [
        ("b", 1, False),
        ("a", 2, False),
        ("c", 3, True),
        ("d", 3, True),
    ]


def test_the_championship_year_is_the_calendar_year_in_the_time_zone() -> None:
    new_year_berlin = 1798758000.0  # 2027-01-01 00:00 in Berlin, 2026-12-31 23:00 UTC
    assert championship_year(new_year_berlin - 1, "Europe/Berlin") == 2026
    assert championship_year(new_year_berlin, "Europe/Berlin") == 2027
    assert championship_year(new_year_berlin, "UTC") == 2026
    assert ranking.year_over_at(2026, "Europe/Berlin") == new_year_berlin


entries = st.lists(
    st.builds(
        ChampionshipEntry,
        st.sampled_from("abcdefghij"),
        st.integers(0, 3).map(lambda n: n * 4),
        st.integers(0, 1),
    ),
    max_size=10,
    unique_by=lambda e: e.player,
)


@given(entries, st.randoms())
def test_a_deciding_tournament_orders_exactly_its_tied_group(
    field: list[ChampionshipEntry], rng: random.Random
) -> None:
    """Each group owed a deciding game is level on points and Mau-Mau finishes and tied for a
    place up to the podium; once its deciding tournament has ranked it, the group takes
    consecutive places in that order, nobody else moves, and no decider is owed for it."""
    before = championship_order(field)
    groups = ranking.championship_deciders(before)
    for group in groups:
        tied = [p for p in before if p.entry.player in group]
        assert len(tied) == len(group) > 1 and len({p.place for p in tied}) == 1
        assert tied[0].place <= ranking.DECIDED_CHAMPIONSHIP_PLACES
        assert len({(p.entry.points, p.entry.maumaus) for p in tied}) == 1
    decided: dict[str, int] = {}
    for group in groups:
        order = rng.sample(group, len(group))
        decided.update({player: place for place, player in enumerate(order, 1)})
    after = championship_order(field, decided)
    assert ranking.championship_deciders(after) == []
    places = {p.entry.player: p for p in after}
    for group in groups:
        first = min(places[player].place for player in group)
        for player in group:
            assert places[player].place == first + decided[player] - 1
            assert not places[player].tied
    untouched = {p.entry.player: (p.place, p.tied) for p in before if p.entry.player not in decided}
    assert {k: (places[k].place, places[k].tied) for k in untouched} == untouched
