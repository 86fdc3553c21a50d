"""Seat fields survive JSON printing (game.proto: seat fields are `optional`), so seat 0 is shown
by grpcurl and protobuf's json_format instead of being dropped as a default value."""

from __future__ import annotations

import json

from google.protobuf import json_format

from maumau import wire
from maumau.rules import Match, Ruleset
from maumau.rules.events import TurnStarted
from maumau.v1 import game_pb2
from maumau_sdk import View


def test_seat_zero_to_act_keeps_seat_and_turn_in_json():
    match, _ = Match.start(Ruleset.create("classic"), 3, "json seat zero")
    while match.turn != 0 or match.phase != "play":  # let seat 0 be the one to act
        seat = match.chooser if match.phase == "starter_suit" else match.turn
        match.apply(seat, next(iter(match.legal_actions(seat))))
    message = wire.view_to_pb(match.view(0), "m1", 1)
    printed = json.loads(json_format.MessageToJson(message))
    assert printed["seat"] == 0 and printed["turn"] == 0
    # The SDK reads the same message into the same plain integers.
    view = View.from_pb(message)
    assert view.seat == 0 and view.turn == 0 and view.my_turn


def test_events_of_seat_zero_name_their_seat_in_json():
    message = wire.event_to_pb(TurnStarted(0))
    assert json.loads(json_format.MessageToJson(message)) == {"turnStarted": {"seat": 0}}
    joined = game_pb2.Event(seat_joined=game_pb2.SeatJoined(seat=0, player_id="p", name="Ada"))
    assert json.loads(json_format.MessageToJson(joined))["seatJoined"]["seat"] == 0
