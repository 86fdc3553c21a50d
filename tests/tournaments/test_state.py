"""The tournament's changes are idempotent: rounds and results delivered again, late or out of
order (a replica taking over replays a block from the engine's events) count once."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from maumau.tournaments.state import Config, Entrant, Tournament


def started(entrants: int = 6) -> Tournament:
    config = Config(
        name="cup",
        organizer_id="org",
        ruleset="ostfriesland",
        rounds=10,
        change_every=5,
        max_per_table=3,
        registration_closes_at=0,
        start_at=0,
        fill_with_bots=False,
        ranked=True,
        max_entrants=64,
        min_entrants=2,
        turn_seconds=0,
        bot_level="heuristic",
    )
    t = Tournament("t1", config, created_at=0.0, seed="seed")
    for number in range(entrants):
        t.register(Entrant(f"bot:{number}", str(number), "random"), now=0.0)
    t.request_start("org")
    t.start(now=1.0)
    for index, table in enumerate(t.tables):
        t.begin_creation(table, f"c{index}")
        t.set_match(table, f"c{index}", f"m{index}", index)
    return t


rounds = st.lists(
    st.tuples(
        st.integers(0, 1),  # table
        st.integers(1, 6),  # round number (6: the engine's tie-break round, never counted)
        st.integers(0, 2),  # winner seat
        st.sampled_from(["out", "mau", "maumau"]),
        st.lists(st.integers(-40, 90), min_size=3, max_size=3),
    ),
    max_size=40,
)


@given(rounds)
def test_each_round_counts_once_in_order(deliveries) -> None:  # type: ignore[no-untyped-def]
    t = started()
    first: dict[tuple[int, int], tuple[int, str, list[int]]] = {}
    counted: list[tuple[int, int]] = []
    for table, number, winner, finish, points in deliveries:
        before = t.tables[table].rounds_applied
        events = t.apply_round(f"m{table}", number, winner, finish, points)
        if events:
            counted.append((table, number))
            first[(table, number)] = (winner, finish, points)
            assert number == before + 1 <= 5
        else:
            assert t.tables[table].rounds_applied == before
    # Rounds count in order 1, 2, ... per table, each once.
    for table in (0, 1):
        numbers = [n for tb, n in counted if tb == table]
        assert numbers == list(range(1, len(numbers) + 1))
    # The standings are the sum of the counted rounds.
    for entrant in t.points:
        table = t.table_of(entrant)
        seat = t.tables[table].entrants.index(entrant)
        rounds_of = [v for (tb, _), v in first.items() if tb == table]
        assert t.points[entrant] == sum(points[seat] for _, _, points in rounds_of)
        assert t.rounds_played[entrant] == len(rounds_of)
        assert t.maumaus[entrant] == sum(
            1 for winner, finish, _ in rounds_of if finish == "maumau" and winner == seat
        )


def test_a_block_is_done_with_every_round_and_its_result_and_a_result_counts_once() -> None:
    t = started()
    for table in (0, 1):
        for number in range(1, 6):
            t.apply_round(f"m{table}", number, 0, "out", [0, 5, 10])
    assert not t.block_done()
    t.apply_result("m0", [0, 25, 50])
    t.apply_result("m0", [99, 99, 99])  # again, from a replayed stream: ignored
    assert t.tables[0].totals == [0, 25, 50]
    t.apply_result("m-unknown", [1, 2, 3])  # a match the tournament does not hold
    assert not t.block_done()
    t.apply_result("m1", [0, 25, 50])
    assert t.block_done()
    events = t.advance(now=2.0, zone="Europe/Berlin")
    assert [e.WhichOneof("kind") for e in events] == ["block_finished", "seated"]
    assert t.advance(now=2.0, zone="Europe/Berlin") == []  # the new block is not done
    assert t.block == 1 and all(not table.match_id for table in t.tables)
    # A late round of the old block's match changes nothing.
    assert t.apply_round("m0", 5, 0, "out", [0, 5, 10]) == []
