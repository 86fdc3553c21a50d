"""The view a page gets is the view message in JSON (``upstream.to_json``: what protobuf's own
printer gives, proto field names), so it carries what ``maumau.wire`` maps and nothing written out
a second time; and the page reads no field of a view that this JSON lacks."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maumau.engine.record import MatchRecord, Status
from maumau.engine.service import seat_view
from maumau.gateway.upstream import to_json
from maumau.rules import Match, Ruleset
from maumau.v1 import (
    accounts_pb2,
    arena_pb2,
    bots_pb2,
    engine_pb2,
    game_pb2,
    matchmaking_pb2,
    players_pb2,
    rating_pb2,
    tournaments_pb2,
)
from maumau.wire import bot_level_from_pb
from tests.rules.support import random_step

WEB = Path(__file__).resolve().parents[2] / "clients" / "web"
VIEW_READ = re.compile(r"(?<![\w$])(?:view|v)\.([A-Za-z_]\w*)")
"""A property read of the page's view: it names a view ``view`` (``this.view``, ``answer.view``,
``table.view``) or, where it reads many fields, ``v``."""


def page_reads() -> dict[str, set[str]]:
    """The view fields the browser client reads, with the files reading each."""
    reads: dict[str, set[str]] = {}
    for script in sorted(WEB.glob("*.js")):
        for name in VIEW_READ.findall(script.read_text()):
            reads.setdefault(name, set()).add(script.name)
    return reads


def sent_views(preset: str, seats: int, seed: int) -> list[dict[str, Any]]:
    """The JSON the gateway hands a page for seat 0 of a real match: in its first round, some
    moves on, and over."""
    ruleset = Ruleset.create(preset, {"target": 0} if preset == "classic" else {})
    match = Match.new(ruleset, seats, seed)
    record = MatchRecord(
        match_id="m1",
        ruleset=ruleset.text,
        seats=seats,
        ranked=False,
        turn_seconds=0,
        max_timeouts=0,
        auto_start=True,
        seed_commitment="",
        server_seed="",
        players=["p0", *[""] * (seats - 1)],
        names=["Ada", *[""] * (seats - 1)],
        bots=["", *["random"] * (seats - 1)],
        nonces=[""] * seats,
        left=[False] * seats,
        timeouts=[0] * seats,
        status=Status.PLAYING,
    )
    rng = random.Random(seed)
    sent, version = [], 1
    for steps in (0, 12, 10_000):
        for _ in range(steps):
            if match.view(None).outcome is not None:
                break
            match.apply(*random_step(match, rng))
            version += 1
        sent.append(to_json(seat_view(record, match, 0, version)))
    assert sent[-1]["phase"] == "over"
    return sent


def test_the_gateway_sends_a_view_with_every_field_of_its_message_by_its_proto_name():
    fields = set(game_pb2.View.DESCRIPTOR.fields_by_name)
    *playing, over = sent_views("classic", 3, seed=4)
    for view in playing:
        assert set(view) == fields - {"outcome"}  # a message field is printed once it is set
    assert set(over) == fields
    assert over["seat"] == 0 and over["seats"][1]["bot_level"] == "random"
    assert isinstance(over["specials"], list) and len(over["specials"]) == 3


def test_the_page_reads_only_view_fields_the_gateway_sends():
    reads = page_reads()
    assert {"hand", "legal", "top", "version", "seat"} <= reads.keys(), "the scan finds reads"
    for preset, seats in [("classic", 3), ("colour", 4), ("ostfriesland", 4), ("online", 2)]:
        sent = set().union(*sent_views(preset, seats, seed=9))
        missing = {name: sorted(files) for name, files in reads.items() if name not in sent}
        assert not missing, f"{preset}: the page reads view fields the gateway never sends"


PROTOS = (accounts_pb2, arena_pb2, bots_pb2, engine_pb2, game_pb2, matchmaking_pb2, players_pb2,
          rating_pb2, tournaments_pb2)  # fmt: skip


def message_types() -> list[Descriptor]:
    """Every message of the platform's protos, nested ones too (a map's entries are the map)."""
    found: list[Descriptor] = []

    def add(descriptor: Descriptor) -> None:
        if not descriptor.GetOptions().map_entry:
            found.append(descriptor)
            for nested in descriptor.nested_types:
                add(nested)

    for module in PROTOS:
        for descriptor in module.DESCRIPTOR.message_types_by_name.values():
            add(descriptor)
    return found


SCALARS = {
    FieldDescriptor.CPPTYPE_INT32: st.integers(-(2**31), 2**31 - 1),
    FieldDescriptor.CPPTYPE_UINT32: st.integers(0, 2**32 - 1),
    FieldDescriptor.CPPTYPE_INT64: st.integers(-(2**63), 2**63 - 1),
    FieldDescriptor.CPPTYPE_UINT64: st.integers(0, 2**64 - 1),
    FieldDescriptor.CPPTYPE_DOUBLE: st.floats(),
    FieldDescriptor.CPPTYPE_BOOL: st.booleans(),
    FieldDescriptor.CPPTYPE_STRING: st.text(max_size=8),
}


def fill(draw: Any, message: Message, depth: int) -> None:
    """Sets some of ``message``'s fields to drawn values, its messages ``depth`` levels deep;
    an enum may hold a number its proto does not name (a newer service's)."""

    def value(field: FieldDescriptor) -> Any:
        if field.cpp_type == FieldDescriptor.CPPTYPE_ENUM:
            numbers = [v.number for v in field.enum_type.values]
            return draw(st.sampled_from([*numbers, max(numbers) + 7]))
        return draw(SCALARS[field.cpp_type])

    for field in message.DESCRIPTOR.fields:
        if not draw(st.booleans()):
            continue
        target = getattr(message, field.name)
        kind = field.message_type
        if kind is not None and kind.GetOptions().map_entry:
            key_field, value_field = kind.fields
            for _ in range(draw(st.integers(0, 2))):
                key = value(key_field)
                if value_field.message_type is None:
                    target[key] = value(value_field)
                elif depth:
                    fill(draw, target[key], depth - 1)
        elif field.is_repeated:
            for _ in range(draw(st.integers(0, 2))):
                if kind is None:
                    target.append(value(field))
                elif depth:
                    fill(draw, target.add(), depth - 1)
        elif kind is not None:
            if depth:
                target.SetInParent()
                fill(draw, target, depth - 1)
        else:
            setattr(message, field.name, value(field))


LEVEL_WORDS = {
    name: bot_level_from_pb(number) for name, number in game_pb2.BotLevel.items()
}  # fmt: skip


def named_levels(printed: Any) -> Any:
    """protobuf's JSON with each bot level's enum name as its word (BOT_LEVEL_STRONG: strong)."""
    if isinstance(printed, dict):
        return {key: named_levels(item) for key, item in printed.items()}
    if isinstance(printed, list):
        return [named_levels(item) for item in printed]
    return LEVEL_WORDS.get(printed, printed) if isinstance(printed, str) else printed


@pytest.mark.parametrize("descriptor", message_types(), ids=lambda d: d.full_name)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_message_prints_as_protobufs_own_json_printer(descriptor, data):
    message = GetMessageClass(descriptor)()
    fill(data.draw, message, depth=3)
    expected = json_format.MessageToDict(
        message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
    )
    assert to_json(message) == named_levels(expected)
