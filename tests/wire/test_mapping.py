"""Every field of every message ``maumau.wire`` maps is mapped both ways: a rules value with every
field set encodes to a message with every field set (walked through the protos' descriptors,
into every message-typed field), and decodes back to the same value.

A field added to a proto and not to ``wire`` fails here by its name ("maumau.v1.View.x: never
set"); one added to the rules core's value and not to the proto or ``wire`` fails as a field the
round trip changed ("View.x").
"""

from __future__ import annotations

import ast
import dataclasses
import enum
import itertools
import re
import sys
import types
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Union, get_args, get_origin

import pytest
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

from maumau import wire
from maumau.rules import Card, Ruleset, parse_action
from maumau.rules import View as RulesView
from maumau.rules import events as ev
from maumau.rules.reasons import Reason
from maumau.v1 import bots_pb2, game_pb2
from maumau_sdk import View
from maumau_sdk.values import ENGINE_EVENTS

# ---------------------------------------------------------------------- the checker


@dataclass(frozen=True)
class Mapping:
    """A message's two functions in ``wire``, and values to send through them."""

    root: Descriptor
    encode: Callable[[Any], Message]
    decode: Callable[[Message], Any]
    samples: Sequence[Any]
    beside: frozenset[str] = frozenset()
    """Full names of the fields no rules value carries (the engine's own events), left out."""


def unmapped(mapping: Mapping) -> list[str]:
    """What is not mapped both ways, a line per field: a proto field the samples never set, a
    proto field lost decoding, a field of the rules value the round trip changed."""
    problems: list[str] = []
    seen: set[str] = set()
    for value in mapping.samples:
        message = mapping.encode(value)
        seen |= set(set_fields(message))
        back = mapping.decode(message)
        if back != value:
            lost = differing(message, mapping.encode(back))
            problems += [f"{name}: lost decoding" for name in lost]
            problems += [f"{name}: changed by the round trip" for name in changed(value, back)]
    never = fields_under(mapping.root, mapping.beside) - seen
    problems += [f"{name}: never set encoding" for name in sorted(never)]
    return list(dict.fromkeys(problems))


def _is_map(field: FieldDescriptor) -> bool:
    return field.message_type is not None and field.message_type.GetOptions().map_entry


def _is_set(message: Message, field: FieldDescriptor) -> bool:
    value = getattr(message, field.name)
    if field.is_repeated:
        return len(value) > 0
    if field.has_presence:
        return message.HasField(field.name)
    return bool(value != field.default_value)


def messages_under(root: Descriptor, beside: frozenset[str] = frozenset()) -> list[Descriptor]:
    """``root`` and every message its fields hold, through every level (maps and the fields
    ``beside`` left out)."""
    found: dict[str, Descriptor] = {}
    todo = [root]
    while todo:
        descriptor = todo.pop()
        if descriptor.full_name in found:
            continue
        found[descriptor.full_name] = descriptor
        for field in descriptor.fields:
            if (
                field.message_type is not None
                and not _is_map(field)
                and field.full_name not in beside
            ):
                todo.append(field.message_type)
    return list(found.values())


def fields_under(root: Descriptor, beside: frozenset[str] = frozenset()) -> set[str]:
    """Every field of ``root`` and of the messages its fields hold, by full name."""
    return {
        field.full_name
        for descriptor in messages_under(root, beside)
        for field in descriptor.fields
        if field.full_name not in beside
    }


def _held(message: Message, field: FieldDescriptor) -> list[Message]:
    """The messages a set message-typed field holds (none for maps and scalars)."""
    if field.message_type is None or _is_map(field) or not _is_set(message, field):
        return []
    value = getattr(message, field.name)
    return list(value) if field.is_repeated else [value]


def set_fields(message: Message) -> Iterator[str]:
    """The full names of the fields set in ``message`` and in the messages it holds."""
    for field in message.DESCRIPTOR.fields:
        if _is_set(message, field):
            yield field.full_name
        for held in _held(message, field):
            yield from set_fields(held)


def differing(one: Message, other: Message) -> list[str]:
    """The fields, by full name, whose values differ between two messages of one type."""
    names: list[str] = []
    for field in one.DESCRIPTOR.fields:
        mine, theirs = _held(one, field), _held(other, field)
        if mine and len(mine) == len(theirs):
            names += [n for a, b in zip(mine, theirs, strict=True) for n in differing(a, b)]
        elif getattr(one, field.name) != getattr(other, field.name):
            names.append(field.full_name)
    return names


def changed(value: object, back: object, where: str = "value") -> list[str]:
    """The fields of a rules value (``View.maumaus``) that differ from the value decoded."""
    if value == back:
        return []
    if dataclasses.is_dataclass(value) and type(value) is type(back):
        name = type(value).__name__
        return [
            n
            for f in dataclasses.fields(value)
            for n in changed(getattr(value, f.name), getattr(back, f.name), f"{name}.{f.name}")
        ]
    if isinstance(value, tuple) and isinstance(back, tuple) and len(value) == len(back):
        return [n for a, b in zip(value, back, strict=True) for n in changed(a, b, where)]
    return [where]


# ---------------------------------------------------------------------- values with every field set

TEXTS = {
    "ruleset": Ruleset.create("classic", {"target": 50}).text,
    "suit": "H",
    "call": "mau",
    "word": "last",
}
"""Texts ``wire`` parses (a ruleset, a suit, a call word); any other text field gets its name."""
CARDS = ("QH", "7S", "JD", "10C", "AS", "8H", "KD")


def source_hints(cls: type) -> dict[str, Any]:
    """The type hints of a rules type as its module's source writes them. A class of the
    compiled core (mypyc) keeps only erased ones (``int | None`` reads as ``type``,
    ``tuple[Card, ...]`` as ``tuple``), so they are read from the pure module, which is there
    either way, and evaluated among the names of the module that runs."""
    module = sys.modules[cls.__module__]
    package, _, name = cls.__module__.rpartition(".")
    source = Path(str(sys.modules[package].__file__)).parent / f"{name}.py"
    tree = ast.parse(source.read_text())
    node = next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == cls.__name__)
    hints = {
        line.target.id: eval(ast.unparse(line.annotation), vars(module))
        for line in node.body
        if isinstance(line, ast.AnnAssign) and isinstance(line.target, ast.Name)
    }
    return {name: hint for name, hint in hints.items() if get_origin(hint) is not ClassVar}


class Filler:
    """Values of a rules type built from its type hints: every field set, no two numbers or
    neighbouring cards alike (so swapped fields show), one of each kind where a union allows
    several (every action, so every branch of ``maumau.v1.Action``'s oneof)."""

    def __init__(self) -> None:
        self.numbers = itertools.count(1)
        self.cards = itertools.cycle(CARDS)

    def of(self, cls: type) -> Any:
        hints = source_hints(cls)
        if not hints:  # an action of no fields ("draw"): the rules core's one value of it
            return parse_action(cls.text)  # type: ignore[attr-defined]
        return cls(**{name: self.value(hint, name) for name, hint in hints.items()})

    def value(self, hint: Any, name: str) -> Any:
        if hint is bool:
            return True
        if hint is int:
            return next(self.numbers)
        if hint is str:
            return TEXTS.get(name, name)
        if hint is Card:
            return Card.parse(next(self.cards))
        if isinstance(hint, type) and issubclass(hint, enum.Enum):
            return list(hint)[-1]
        if isinstance(hint, type) and dataclasses.is_dataclass(hint):
            return self.of(hint)
        kinds = [k for k in get_args(hint) if k is not type(None)]
        if get_origin(hint) in (Union, types.UnionType) and len(kinds) == 1:
            return self.value(kinds[0], name)
        if get_origin(hint) is tuple and get_args(hint)[1:] == (Ellipsis,):
            item = get_args(hint)[0]
            alternatives = get_args(item) if get_origin(item) in (Union, types.UnionType) else ()
            if alternatives:
                return tuple(self.value(kind, name) for kind in alternatives)
            return (self.value(item, name), self.value(item, name))
        raise TypeError(f"no sample value for {name}: {hint}; teach Filler.value the type")


def _view_to_pb(value: tuple[RulesView, str, int]) -> game_pb2.View:
    return wire.view_to_pb(*value)


def _view_from_pb(message: game_pb2.View) -> tuple[RulesView, str, int]:
    """What a client reads of a view message: the SDK's View is the rules core's, as ``wire``
    decodes it, with the match id and version beside it."""
    view = View.from_pb(message)
    return view.rules, view.match_id, view.version


_SEATED = Filler().of(RulesView)
_WATCHING = dataclasses.replace(
    _SEATED, seat=None, hand=(), wished=None, drawn=None, legal=(), outcome=None
)
VIEW_SAMPLES = [(_SEATED, "m1", 12), (_WATCHING, "m2", 3)]
"""A seat's view with every field set, and a spectator's with what may be absent left out."""

VIEW_BESIDE = frozenset({"maumau.v1.View.seats"})
"""The seats come from the engine's match record, not the rules core (tests/clients/
test_sdk_view.py reads them through the SDK)."""

MAPPINGS = {
    "view": Mapping(
        game_pb2.View.DESCRIPTOR, _view_to_pb, _view_from_pb, VIEW_SAMPLES, VIEW_BESIDE
    ),
    "event": Mapping(
        game_pb2.Event.DESCRIPTOR,
        wire.event_to_pb,
        wire.event_from_pb,
        [Filler().of(kind) for kind in get_args(ev.Event)],
        frozenset(f"maumau.v1.Event.{kind}" for kind in ENGINE_EVENTS),
    ),
    "ruleset": Mapping(
        game_pb2.Ruleset.DESCRIPTOR,
        wire.ruleset_to_pb,
        wire.ruleset_from_pb,
        [
            Ruleset.create("classic", {"target": 50, "deck": "skat32", "ace_power": "skip"}),
            Ruleset.create("colour", {"teams": True}),
            Ruleset.create("ostfriesland", {"rounds": 3}),
        ],
    ),
    "reason": Mapping(
        bots_pb2.Reason.DESCRIPTOR,
        lambda reason: wire.reasons_to_pb([reason])[0],
        lambda message: wire.reasons_from_pb([message])[0],
        [Reason.of("catch", seat=2, word="mau"), Reason.of("draw")],
    ),
}


@pytest.mark.parametrize("name", sorted(MAPPINGS))
def test_every_field_is_mapped_both_ways(name: str) -> None:
    assert unmapped(MAPPINGS[name]) == []


def test_the_samples_set_every_field_of_the_rules_view():
    """The view's samples have no field left at its default, so a rules field the proto lacks
    cannot hide behind a default that decodes back the same."""
    view = VIEW_SAMPLES[0][0]
    for field in dataclasses.fields(RulesView):
        assert getattr(view, field.name) not in (None, "", 0, False, ()), field.name


def test_every_message_wire_builds_is_walked():
    """Each message ``wire`` constructs lies under one of the mappings checked here."""
    built = set(re.findall(r"\b(?:pb|bots_pb)\.([A-Z]\w*)\(", Path(wire.__file__).read_text()))
    walked = {d.name for m in MAPPINGS.values() for d in messages_under(m.root, m.beside)}
    assert built and built <= walked, built - walked


# ---------------------------------------------------------------------- the checker fails


def test_the_checker_names_a_field_encoding_leaves_out():
    def without_specials(value: tuple[RulesView, str, int]) -> game_pb2.View:
        message = _view_to_pb(value)
        message.ClearField("specials")
        return message

    mapping = dataclasses.replace(MAPPINGS["view"], encode=without_specials)
    problems = unmapped(mapping)
    assert "maumau.v1.View.specials: never set encoding" in problems
    assert "View.specials: changed by the round trip" in problems


def test_the_checker_names_a_field_decoding_loses():
    def without_maumaus(message: game_pb2.View) -> tuple[RulesView, str, int]:
        view, match_id, version = _view_from_pb(message)
        return dataclasses.replace(view, maumaus=()), match_id, version

    problems = unmapped(dataclasses.replace(MAPPINGS["view"], decode=without_maumaus))
    assert "maumau.v1.View.maumaus: lost decoding" in problems
    assert not any("specials" in problem for problem in problems)


def test_the_checker_names_a_proto_field_wire_does_not_know():
    """game.proto with one field more in View (as if added to the proto alone)."""
    protos = descriptor_pool.DescriptorPool()
    for file in (descriptor_pb2.DESCRIPTOR, game_pb2.DESCRIPTOR):
        copy = descriptor_pb2.FileDescriptorProto()
        file.CopyToProto(copy)
        if file is game_pb2.DESCRIPTOR:
            view = next(m for m in copy.message_type if m.name == "View")
            view.field.add(
                name="penalty_last",
                number=99,
                type=descriptor_pb2.FieldDescriptorProto.TYPE_INT32,
                label=descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED,
            )
        protos.Add(copy)
    wider = message_factory.GetMessageClass(protos.FindMessageTypeByName("maumau.v1.View"))

    mapping = Mapping(
        wider.DESCRIPTOR,
        lambda value: wider.FromString(_view_to_pb(value).SerializeToString()),
        lambda message: _view_from_pb(game_pb2.View.FromString(message.SerializeToString())),
        VIEW_SAMPLES,
        VIEW_BESIDE,
    )
    assert unmapped(mapping) == ["maumau.v1.View.penalty_last: never set encoding"]
