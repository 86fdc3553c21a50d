"""The lobby's rules on plain values: no server, no Redis, the clock passed in."""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable

import grpc
import pytest
from hypothesis import given
from hypothesis import strategies as st

from maumau import fairness
from maumau.common.errors import ServiceError
from maumau.engine import lobby
from maumau.engine.record import MatchRecord, Status
from maumau.rules import BadInput, Match, Ruleset
from maumau.v1 import engine_pb2

NOW = 1_700_000_000.0
SEED = "ab" * 32


def new(seats: int = 3, preset: str = "classic", **fields: object) -> MatchRecord:
    table = lobby.Table(Ruleset.parse(preset), seats, **fields)  # type: ignore[arg-type]
    return lobby.new_match("m1", table, SEED, NOW, default_max_timeouts=3, default_turn_seconds=120)


def refusal(call: Callable[[], object]) -> ServiceError:
    with pytest.raises(ServiceError) as refused:
        call()
    return refused.value


def full(record: MatchRecord) -> MatchRecord:
    for seat in record.free_seats():
        lobby.join(record, f"p{seat}", f"P{seat}", seat, "")
    return record


def test_a_new_match_has_its_bot_seats_taken_and_every_other_seat_free() -> None:
    record = new(4, bots={1: "random", 3: "strong"}, turn_seconds=30)
    assert record.status == Status.LOBBY and record.free_seats() == [0, 2]
    assert record.bots == ["", "random", "", "strong"]
    assert record.names == ["", "random bot", "", "strong bot"]
    assert record.created_at == NOW and record.turn_seconds == 30 and record.max_timeouts == 3
    # The commitment is published before anyone joins: the server seed's SHA-256.
    assert record.seed_commitment == hashlib.sha256(SEED.encode()).hexdigest()


@pytest.mark.parametrize(
    ("fields", "complaint"),
    [
        ({"bots": {3: "random"}}, "bot seat 3 is not a seat of this 3-seat table"),
        ({"bots": {-1: "random"}}, "bot seat -1"),
        ({"bots": {1: "genius"}}, "bot level 'genius': choose one of random, heuristic, strong"),
        ({"turn_seconds": 3601}, "turn_seconds must be from 0"),
        ({"turn_seconds": -1}, "turn_seconds must be from 0"),
        ({"max_timeouts": -1}, "max_timeouts must not be negative"),
    ],
)
def test_a_table_that_cannot_be_is_refused_with_a_reason(
    fields: dict[str, object], complaint: str
) -> None:
    refused = refusal(lambda: new(3, **fields))
    assert refused.status == grpc.StatusCode.INVALID_ARGUMENT
    assert complaint in str(refused)


@pytest.mark.parametrize(("preset", "seats"), [("classic", 1), ("online", 5), ("classic", 9)])
def test_a_seat_count_the_rules_do_not_allow_is_a_bad_input(preset: str, seats: int) -> None:
    with pytest.raises(BadInput, match="seats"):
        new(seats, preset)


def test_a_chosen_max_timeouts_replaces_the_default() -> None:
    assert new(max_timeouts=7).max_timeouts == 7


def test_the_creator_takes_the_first_seat_no_bot_holds() -> None:
    assert lobby.first_free_seat(new(3, bots={0: "random"})) == 1
    refused = refusal(lambda: lobby.first_free_seat(new(2, bots={0: "random", 1: "random"})))
    assert refused.status == grpc.StatusCode.INVALID_ARGUMENT and "leave one" in str(refused)


def test_a_creator_places_players_only_on_free_seats() -> None:
    record = new(3, bots={2: "random"})
    joined = lobby.sit(record, 1, "ada", "Ada", "my nonce")
    assert joined.seat_joined.seat == 1 and joined.seat_joined.nonce == "my nonce"
    assert record.players == ["", "ada", ""] and record.names[1] == "Ada"
    for seat in (1, 2, 3, -1):  # taken, a bot's, beyond the table, none at all
        assert refusal(lambda s=seat: lobby.sit(record, s, "bob", "Bob", "")).status == (
            grpc.StatusCode.INVALID_ARGUMENT
        )
    assert record.players == ["", "ada", ""]


def test_joining_takes_the_first_free_seat_or_the_one_asked_for() -> None:
    record = new(3)
    assert lobby.join(record, "ada", "Ada", None, "").seat_joined.seat == 0  # type: ignore[union-attr]
    assert lobby.join(record, "bob", "Bob", 2, "n").seat_joined.seat == 2  # type: ignore[union-attr]
    assert record.players == ["ada", "", "bob"] and record.nonces == ["", "", "n"]


def test_a_taken_seat_a_full_table_and_a_started_match_refuse_a_newcomer() -> None:
    record = new(2)
    lobby.join(record, "ada", "Ada", 0, "")
    taken = refusal(lambda: lobby.join(record, "bob", "Bob", 0, ""))
    assert taken.status == grpc.StatusCode.FAILED_PRECONDITION and "seat 0 is not free" in str(
        taken
    )
    assert refusal(lambda: lobby.join(record, "bob", "Bob", 2, "")).status == (
        grpc.StatusCode.INVALID_ARGUMENT
    )
    lobby.join(record, "bob", "Bob", None, "")
    assert "the match is full" in str(refusal(lambda: lobby.join(record, "cy", "Cy", None, "")))
    lobby.start(record, NOW)
    started = refusal(lambda: lobby.join(record, "cy", "Cy", None, ""))
    assert "only its players can rejoin" in str(started)


def test_a_seated_player_rejoins_without_a_change_unless_they_left_during_play() -> None:
    record = full(new(2))
    before = record.copy()
    assert lobby.join(record, "p0", "P0", 1, "other nonce") is None
    assert record == before
    lobby.start(record, NOW)
    lobby.leave(record, 0)
    refused = refusal(lambda: lobby.join(record, "p0", "P0", None, ""))
    assert refused.status == grpc.StatusCode.FAILED_PRECONDITION and "left" in str(refused)


def test_a_long_nonce_is_refused_and_changes_nothing() -> None:
    record = new(2)
    before = record.copy()
    refused = refusal(lambda: lobby.join(record, "ada", "Ada", None, "x" * 257))
    assert refused.status == grpc.StatusCode.INVALID_ARGUMENT and "256" in str(refused)
    assert record == before
    assert lobby.join(record, "ada", "Ada", None, "x" * 256) is not None


def test_leaving_the_lobby_frees_the_seat_and_leaving_play_hands_it_to_a_bot() -> None:
    record = new(3)
    lobby.join(record, "ada", "Ada", None, "nonce")
    events = lobby.leave(record, 0)
    assert [e.WhichOneof("kind") for e in events] == ["left"]
    assert record.free_seats() == [0, 1, 2] and record.nonces[0] == "" and record.names[0] == ""
    full(record)
    lobby.start(record, NOW)
    events = lobby.leave(record, 1)
    assert [e.WhichOneof("kind") for e in events] == ["left", "handed_to_bot"]
    assert record.left == [False, True, False] and record.bots[1] == lobby.STAND_IN_BOT
    assert record.players[1] == "p1"  # the seat's results stay the player's
    record.status = Status.OVER
    assert "over" in str(refusal(lambda: lobby.leave(record, 0)))


def test_a_seat_token_counts_only_while_its_player_holds_the_seat() -> None:
    record = full(new(2))
    lobby.check_seat(record, 0, "p0")
    for seat, player in ((0, "p1"), (2, "p0"), (-1, "p0")):
        refused = refusal(lambda s=seat, p=player: lobby.check_seat(record, s, p))
        assert refused.status == grpc.StatusCode.PERMISSION_DENIED
    lobby.start(record, NOW)
    lobby.leave(record, 0)
    assert "you left" in str(refusal(lambda: lobby.check_seat(record, 0, "p0")))


def test_only_a_seated_player_or_a_service_may_start() -> None:
    record = full(new(2))
    lobby.may_start(record, "p1")
    lobby.may_start(record, None)
    assert refusal(lambda: lobby.may_start(record, "eve")).status == (
        grpc.StatusCode.PERMISSION_DENIED
    )


def test_a_match_starts_by_itself_once_its_last_seat_is_taken_if_it_asked_to() -> None:
    record = new(2, auto_start=True)
    lobby.join(record, "ada", "Ada", None, "")
    assert not lobby.ready(record)
    lobby.join(record, "bob", "Bob", None, "")
    assert lobby.ready(record)
    assert not lobby.ready(full(new(2)))  # not asked to
    lobby.start(record, NOW)
    assert not lobby.ready(record)  # started already


def test_the_deal_comes_from_the_server_seed_and_every_nonce() -> None:
    """The fair-deal rule: deal seed = SHA-256(server seed | nonce 0 | nonce 1 ...)."""
    record = new(3, bots={2: "heuristic"})
    lobby.join(record, "ada", "Ada", None, "ada's words")
    lobby.join(record, "bob", "Bob", None, "")
    match, events = lobby.start(record, NOW + 5)
    assert record.deal_seed == fairness.deal_seed(SEED, ["ada's words", "", ""])
    assert match == Match.new(Ruleset.parse("classic"), 3, record.deal_seed)
    assert record.status == Status.PLAYING and record.turn_started_at == NOW + 5
    assert events[0].WhichOneof("kind") == "match_started"
    assert list(events[0].match_started.nonces) == ["ada's words", "", ""]
    assert "already started" in str(refusal(lambda: lobby.start(record, NOW)))


def test_a_match_with_free_seats_does_not_start() -> None:
    record = new(3)
    lobby.join(record, "ada", "Ada", None, "")
    refused = refusal(lambda: lobby.start(record, NOW))
    assert refused.status == grpc.StatusCode.FAILED_PRECONDITION
    assert "seats [1, 2] are still free" in str(refused)
    assert record.status == Status.LOBBY and record.deal_seed == ""


@given(
    st.lists(
        st.tuples(st.sampled_from(["join", "leave"]), st.integers(0, 4), st.integers(-1, 4)),
        max_size=40,
    )
)
def test_no_seat_is_held_twice_whatever_joins_and_leaves_come(
    steps: list[tuple[str, int, int]],
) -> None:
    """However players come and go before the start, a player holds at most one seat, a seat
    at most one player, and a bot seat is never taken."""
    record = new(4, bots={3: "random"})
    for kind, player, seat in steps:
        with contextlib.suppress(ServiceError):  # a refused step changes nothing
            if kind == "join":
                lobby.join(record, f"p{player}", "", seat, "")
            elif f"p{player}" in record.players:
                lobby.leave(record, record.players.index(f"p{player}"))
        held = [p for p in record.players if p]
        assert len(held) == len(set(held))
        assert record.players[3] == "" and record.bots[3] == "random"
        assert sorted(record.free_seats() + [s for s, p in enumerate(record.players) if p]) == [
            0,
            1,
            2,
        ]


def test_a_join_names_a_seat_or_none_for_any_free_one() -> None:
    """engine.proto, JoinMatchRequest.seat: left out, any free seat; a seat from 0 is that seat
    (0 included); -1 is still any free seat (deprecated); other negative numbers are refused."""

    def asked(**seat: int) -> int | None:
        return lobby.requested_seat(engine_pb2.JoinMatchRequest(match_id="m1", **seat))

    assert asked() is None
    assert asked(seat=0) == 0 and asked(seat=3) == 3
    assert asked(seat=-1) is None
    for negative in (-2, -7, -(2**31)):
        refused = refusal(lambda n=negative: asked(seat=n))
        assert refused.status == grpc.StatusCode.INVALID_ARGUMENT and f"seat {negative}" in str(
            refused
        )
