"""One view contract: the SDK's ``View`` is the rules core's view as ``maumau.wire`` decodes it,
plus what the message carries beside it (match id, version, seats), so a field the rules core's
view gains reaches SDK users without a second list of fields to keep in step."""

from __future__ import annotations

import dataclasses
import random

import pytest

from maumau import rules, wire
from maumau.rules import Match, Ruleset
from maumau.v1 import game_pb2
from maumau_sdk import SeatInfo, View
from tests.rules.support import random_step

BESIDE = ("match_id", "version", "seats")
"""The message's fields beside the rules core's view, each an attribute of the SDK's View."""


def played(preset: str, seats: int, seed: int, steps: int) -> Match:
    match = Match.new(Ruleset.create(preset), seats, seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if match.view(None).outcome is not None:
            break
        match.apply(*random_step(match, rng))
    return match


def message_of(match: Match, seat: int | None) -> game_pb2.View:
    message = wire.view_to_pb(match.view(seat), "m1", 12)
    message.seats.extend(
        game_pb2.SeatInfo(seat=s, player_id=f"p{s}", name=f"Player {s}") for s in range(match.seats)
    )
    return message


def test_the_message_is_the_rules_view_and_what_the_sdk_adds_beside_it():
    rules_fields = [f.name for f in dataclasses.fields(rules.View)]
    assert sorted(game_pb2.View.DESCRIPTOR.fields_by_name) == sorted([*rules_fields, *BESIDE])
    seat_fields = [f.name for f in game_pb2.SeatInfo.DESCRIPTOR.fields]
    assert [f.name for f in dataclasses.fields(SeatInfo)] == seat_fields


@pytest.mark.parametrize(("preset", "seats"), [("classic", 3), ("ostfriesland", 4), ("colour", 4)])
def test_every_field_of_the_rules_view_reads_the_same_through_the_sdk(preset, seats):
    match = played(preset, seats, seed=5, steps=40)
    view = View.from_pb(message_of(match, 1))
    assert view.rules == match.view(1)
    for field in dataclasses.fields(rules.View):
        assert getattr(view, field.name) == getattr(match.view(1), field.name), field.name
    assert (view.match_id, view.version) == ("m1", 12)
    assert view.seats == tuple(SeatInfo(s, f"p{s}", f"Player {s}", "", False) for s in range(seats))


def test_the_counters_the_sdk_lacked_before_read_through_it():
    """Rating text: XP comes from round wins and the penalty special cards a seat played; the
    East-Frisian tie-break counts Mau-Mau finishes."""
    match = played("ostfriesland", 3, seed=11, steps=10_000)
    view = View.from_pb(message_of(match, 0))
    assert view.over and sum(view.specials) > 0
    assert view.specials == match.view(0).specials and view.maumaus == match.view(0).maumaus
    assert view.starter_open is match.view(0).starter_open


def test_a_spectator_s_seat_is_minus_one_as_on_the_wire():
    match = played("classic", 2, seed=3, steps=5)
    view = View.from_pb(message_of(match, None))
    assert view.seat == -1 and view.rules.seat is None and view.hand == ()
    assert not view.my_turn


def test_a_view_is_a_frozen_value():
    match = played("classic", 2, seed=3, steps=5)
    one, two = View.from_pb(message_of(match, 0)), View.from_pb(message_of(match, 0))
    assert one == two and hash(one) == hash(two)
    assert one != View.from_pb(message_of(match, 1))
    with pytest.raises(dataclasses.FrozenInstanceError):
        one.version = 13  # type: ignore[misc]
    assert "match_id='m1'" in repr(one) and "hand_sizes=" in repr(one)
