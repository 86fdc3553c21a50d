"""Table forming on its own (issue 5, "Forming tables"): sizes, waits, bots, parties, teams,
ratings. Pure: tickets in, tables out, the time given."""

from __future__ import annotations

from maumau.matchmaking.forming import Policy, Waiting, form_tables


def ticket(
    name: str,
    at: float = 0.0,
    sizes: tuple[int, ...] = (2, 3, 4),
    preferred: int = 4,
    party: int = 1,
    bots_after: float | None = None,
    rating: float = 0.0,
) -> Waiting:
    players = tuple(f"{name}{k}" if party > 1 else name for k in range(party))
    return Waiting(name, players, frozenset(sizes), preferred, bots_after, at, rating)


def names(tables: list) -> list[list[str]]:
    return [sorted(t.ticket_id for t in table.tickets) for table in tables]


def test_a_table_fills_to_the_preferred_size_oldest_first() -> None:
    waiting = [ticket(n, at=i) for i, n in enumerate("abcde")]
    (table,) = form_tables(waiting, Policy(), now=5)
    assert names([table]) == [["a", "b", "c", "d"]]
    assert table.seats == 4 and not table.bot_seats


def test_too_few_tickets_wait_until_smaller_tables_are_allowed() -> None:
    waiting = [ticket("a"), ticket("b")]
    assert form_tables(waiting, Policy(smaller_after=10), now=9) == []
    (table,) = form_tables(waiting, Policy(smaller_after=10), now=10)
    assert table.seats == 2  # the largest size both accept


def test_a_size_is_taken_only_when_every_ticket_accepts_it_now() -> None:
    waiting = [
        ticket("a", at=0, sizes=(3, 4), preferred=3),
        ticket("b", at=1, sizes=(4,), preferred=4),
        ticket("c", at=2, sizes=(3, 4), preferred=3),
        ticket("d", at=3, sizes=(3, 4), preferred=3),
    ]
    (table,) = form_tables(waiting, Policy(smaller_after=10), now=5)
    assert table.seats == 3 and names([table]) == [["a", "c", "d"]]


def test_bots_fill_only_when_every_ticket_at_the_table_waited_its_bot_wait() -> None:
    waiting = [ticket("a", bots_after=2), ticket("b", at=1, bots_after=5)]
    assert form_tables(waiting, Policy(smaller_after=99), now=1.5) == []
    # at 2.5 a lets bots in, b does not yet: a alone takes the bots
    (table,) = form_tables(waiting, Policy(smaller_after=99), now=2.5)
    assert names([table]) == [["a"]] and table.bot_seats == (1, 2, 3)
    (table,) = form_tables(waiting, Policy(smaller_after=99), now=6)
    assert names([table]) == [["a", "b"]] and len(table.bot_seats) == 2


def test_a_ticket_without_bots_never_gets_them() -> None:
    assert form_tables([ticket("a", bots_after=None)], Policy(smaller_after=0), now=1e6) == []


def test_a_party_sits_together_on_adjacent_seats() -> None:
    waiting = [ticket("a", at=0), ticket("p", at=1, party=3), ticket("b", at=2), ticket("c", at=3)]
    (table,) = form_tables(waiting, Policy(), now=0)
    seats = dict(table.seating)
    assert sorted(seats[f"p{k}"] for k in range(3)) == [1, 2, 3]
    assert names([table]) == [["a", "p"]]  # b and c no longer fit


def test_in_a_team_game_a_party_of_two_is_a_team() -> None:
    waiting = [
        ticket("a", sizes=(4,)),
        ticket("p", sizes=(4,), party=2),
        ticket("b", sizes=(4,)),
    ]
    (table,) = form_tables(waiting, Policy(teams=True), now=0)
    seats = dict(table.seating)
    assert {seats["p0"], seats["p1"]} in ({0, 2}, {1, 3})
    assert {seats["a"], seats["b"]} in ({0, 2}, {1, 3})


def test_ranked_prefers_close_ratings() -> None:
    policy = Policy(ranked=True, window=5, widen_per_second=0)
    waiting = [
        ticket("a", rating=0, sizes=(2,), preferred=2),
        ticket("b", rating=50, sizes=(2,), preferred=2),
        ticket("c", rating=51, sizes=(2,), preferred=2),
        ticket("d", rating=1, sizes=(2,), preferred=2),
    ]
    assert names(form_tables(waiting, policy, now=0)) == [["a", "d"], ["b", "c"]]


def test_ranked_window_widens_with_the_wait() -> None:
    policy = Policy(ranked=True, window=10, widen_per_second=10, max_window=1000)
    waiting = [
        ticket("a", rating=0, sizes=(2,), preferred=2),
        ticket("b", rating=60, sizes=(2,), preferred=2),
    ]
    assert form_tables(waiting, policy, now=4.9) == []  # window 59
    (table,) = form_tables(waiting, policy, now=5)  # window 60
    assert table.spread == 60


def test_ranked_spread_is_bounded_by_the_newest_tickets_window() -> None:
    policy = Policy(ranked=True, window=10, widen_per_second=10, max_window=1000)
    waiting = [
        ticket("old", rating=0, sizes=(2,), preferred=2),
        ticket("new", at=10, rating=50, sizes=(2,), preferred=2),
    ]
    # old's window is 110 by now, but new's is still 10
    assert form_tables(waiting, policy, now=10) == []
    assert len(form_tables(waiting, policy, now=14)) == 1


def test_every_ticket_sits_at_one_table_at_most() -> None:
    waiting = [
        ticket(f"t{i}", at=i * 0.01, party=1 + i % 3, sizes=(2, 3, 4, 5, 6), preferred=6)
        for i in range(300)
    ]
    tables = form_tables(waiting, Policy(smaller_after=0), now=100)
    seen = [t.ticket_id for table in tables for t in table.tickets]
    assert len(seen) == len(set(seen))
    # 600 players in parties of one to three fill exactly 100 tables of their preferred six.
    assert sorted(seen) == sorted(w.ticket_id for w in waiting)
    assert [table.seats for table in tables] == [6] * 100
    for table in tables:
        players = [p for p, _ in table.seating]
        assert len(players) + len(table.bot_seats) == table.seats
        assert sorted([s for _, s in table.seating] + list(table.bot_seats)) == list(
            range(table.seats)
        )
