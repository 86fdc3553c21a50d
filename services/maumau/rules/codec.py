"""A match as compact bytes and back.

Version 2, written since the engine stores a match on every action, is binary: a first byte 2,
then every written state field in declaration order (:data:`.state.STATE_FIELDS`): whole numbers
as variable-length integers (signed ones zigzagged), texts and card lists with their length first,
a card as its code. It is several times faster to write and read than version 1 and about half its
size. Version 1 (zlib-compressed JSON, one key per field, cards as characters of code + 32; its
first byte is zlib's 0x78) still decodes, so every byte string written since the first release
does.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable
from typing import Any, Final, TypeVar

from .actions import CALLS
from .cards import ALL_CARDS, Card
from .kinds import Outcome, Pending, Phase, Reason
from .ruleset import Ruleset
from .state import STATE_FIELDS, MatchState

VERSION: Final = 2
S = TypeVar("S", bound=MatchState)
"""The class decoded into: Match, or a subclass."""

_PHASES: Final = tuple(Phase)
_PHASE_CODES: Final[dict[Phase, int]] = {phase: code for code, phase in enumerate(_PHASES)}
_PENDINGS: Final = tuple(Pending)
_PENDING_CODES: Final[dict[Pending, int]] = {kind: code for code, kind in enumerate(_PENDINGS)}
_REASONS: Final = tuple(Reason)
_REASON_CODES: Final[dict[Reason, int]] = {reason: code for code, reason in enumerate(_REASONS)}
_CALL_CODES: Final[dict[str, int]] = {word: code for code, word in enumerate(CALLS)}

WRITTEN: Final = (
    "ruleset", "seats", "seed", "round", "dealer", "totals", "round_wins", "maumaus", "specials",
    "in_round", "deciding", "hands", "draw_pile", "discard", "turn", "turn_no", "direction",
    "wished", "wish_jack", "pending", "pending_count", "pending_optional", "chain", "bluff",
    "bluffer", "drawn", "phase", "chooser", "missed", "declared", "out_seat", "reshuffles",
    "outcome", "penalty_last",
)  # fmt: skip
"""The fields :func:`encode` writes, in order: the declared ones with a codec (checked below)."""
if tuple(f.name for f in STATE_FIELDS if f.metadata["codec"]) != WRITTEN:
    raise AssertionError("codec.WRITTEN must list every written state field in declaration order")


# ------------------------------------------------------------------ writing


def _uint(out: list[int], value: int) -> None:
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)


def _int(out: list[int], value: int) -> None:
    _uint(out, value * 2 if value >= 0 else -value * 2 - 1)


def _ints(out: list[int], values: list[int]) -> None:
    _uint(out, len(values))
    for value in values:
        _int(out, value)


def _flags(out: list[int], values: list[bool]) -> None:
    _uint(out, len(values))
    for value in values:
        out.append(1 if value else 0)


def _text(out: list[int], text: str) -> None:
    data = text.encode()
    _uint(out, len(data))
    out.extend(data)


def _cards(out: list[int], cards: list[Card]) -> None:
    _uint(out, len(cards))
    for card in cards:
        out.append(card.code)


def _optional(out: list[int], value: int | None) -> None:
    """None as 0, a number as its zigzag code plus one."""
    if value is None:
        out.append(0)
    else:
        _uint(out, (value * 2 if value >= 0 else -value * 2 - 1) + 1)


def encode(m: MatchState) -> bytes:
    """The whole state as bytes (version 2); :func:`decode` restores it exactly."""
    out = [VERSION]
    _text(out, m.ruleset.text)
    _uint(out, m.seats)
    _text(out, m.seed)
    _uint(out, m.round)
    _uint(out, m.dealer)
    _ints(out, m.totals)
    _ints(out, m.round_wins)
    _ints(out, m.maumaus)
    _ints(out, m.specials)
    _flags(out, m.in_round)
    out.append(1 if m.deciding else 0)
    _uint(out, len(m.hands))
    for hand in m.hands:
        _cards(out, hand)
    _cards(out, m.draw_pile)
    _cards(out, m.discard)
    _uint(out, m.turn)
    _uint(out, m.turn_no)
    _int(out, m.direction)
    _text(out, m.wished or "")  # no suit is the empty text
    out.append(1 if m.wish_jack else 0)
    out.append(_PENDING_CODES[m.pending])
    _uint(out, m.pending_count)
    out.append(1 if m.pending_optional else 0)
    _uint(out, m.chain)
    out.append(1 if m.bluff else 0)
    _int(out, m.bluffer)
    out.append(0 if m.drawn is None else m.drawn.code + 1)
    out.append(_PHASE_CODES[m.phase])
    _int(out, m.chooser)
    _uint(out, len(m.missed))
    for seat, (word, closes) in m.missed.items():
        _uint(out, seat)
        out.append(_CALL_CODES[word])
        _uint(out, closes)
    _flags(out, m.declared)
    _optional(out, m.out_seat)
    _uint(out, m.reshuffles)
    if m.outcome is None:
        out.append(0)
    else:
        out.append(_REASON_CODES[m.outcome.reason] + 1)
        _uint(out, len(m.outcome.winners))
        for seat in m.outcome.winners:
            _uint(out, seat)
    _flags(out, m.penalty_last)
    return bytes(out)


# ------------------------------------------------------------------ reading


class _Reader:
    """The bytes of version 2 and the position read up to."""

    __slots__ = ("at", "data")

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.at = 1

    def byte(self) -> int:
        value = self.data[self.at]
        self.at += 1
        return value

    def uint(self) -> int:
        value = shift = 0
        while True:
            byte = self.data[self.at]
            self.at += 1
            value |= (byte & 0x7F) << shift
            if byte < 0x80:
                return value
            shift += 7

    def signed(self) -> int:
        return _unzig(self.uint())

    def ints(self) -> list[int]:
        return [self.signed() for _ in range(self.uint())]

    def flags(self) -> list[bool]:
        return [self.byte() == 1 for _ in range(self.uint())]

    def text(self) -> str:
        size = self.uint()
        start = self.at
        self.at += size
        return self.data[start : self.at].decode()

    def cards(self) -> list[Card]:
        return [ALL_CARDS[self.byte()] for _ in range(self.uint())]


def _decode_binary(state: MatchState, r: _Reader) -> None:
    state.round = r.uint()
    state.dealer = r.uint()
    state.totals = r.ints()
    state.round_wins = r.ints()
    state.maumaus = r.ints()
    state.specials = r.ints()
    state.in_round = r.flags()
    state.deciding = r.byte() == 1
    state.hands = [r.cards() for _ in range(r.uint())]
    state.draw_pile = r.cards()
    state.discard = r.cards()
    state.turn = r.uint()
    state.turn_no = r.uint()
    state.direction = r.signed()
    state.wished = r.text() or None
    state.wish_jack = r.byte() == 1
    state.pending = _PENDINGS[r.byte()]
    state.pending_count = r.uint()
    state.pending_optional = r.byte() == 1
    state.chain = r.uint()
    state.bluff = r.byte() == 1
    state.bluffer = r.signed()
    drawn = r.byte()
    state.drawn = ALL_CARDS[drawn - 1] if drawn else None
    state.phase = _PHASES[r.byte()]
    state.chooser = r.signed()
    missed: dict[int, tuple[str, int]] = {}
    for _ in range(r.uint()):
        seat = r.uint()
        word = CALLS[r.byte()]
        missed[seat] = (word, r.uint())
    state.missed = missed
    state.declared = r.flags()
    out_seat = r.uint()
    state.out_seat = None if out_seat == 0 else _unzig(out_seat - 1)
    state.reshuffles = r.uint()
    reason = r.byte()
    if reason == 0:
        state.outcome = None
    else:
        winners = tuple(r.uint() for _ in range(r.uint()))
        state.outcome = Outcome(winners, _REASONS[reason - 1])
    # Written since East-Frisian penalty cards owe 'Letzte Karte': absent from earlier bytes.
    state.penalty_last = r.flags() if r.at < len(r.data) else [False] * state.seats


def _unzig(code: int) -> int:
    """The signed number a zigzag ``code`` stands for (0, -1, 1, -2, ... as 0, 1, 2, 3, ...)."""
    return -((code + 1) >> 1) if code & 1 else code >> 1


def decode(cls: type[S], data: bytes) -> S:
    """The state that :func:`encode` wrote (either version), as an instance of ``cls``."""
    if data[:1] != b"\x02":
        return _decode_v1(cls, data)
    r = _Reader(data)
    ruleset = Ruleset.parse(r.text())
    seats = r.uint()
    state = cls(ruleset, seats, r.text())
    _decode_binary(state, r)
    return state


# ------------------------------------------------------------------ version 1


def _v1_cards(text: str) -> list[Card]:
    return [ALL_CARDS[ord(char) - 32] for char in text]


def _v1_outcome(value: Any) -> Outcome | None:
    return Outcome(tuple(value[0]), value[1]) if value else None


_V1_DECODERS: Final[dict[str, Callable[[Any], Any]]] = {
    "ruleset": Ruleset.parse,
    "cards": _v1_cards,
    "hands": lambda hands: [_v1_cards(hand) for hand in hands],
    "card": lambda code: ALL_CARDS[code] if code >= 0 else None,
    "missed": lambda rows: {seat: (word, closes) for seat, word, closes in rows},
    "outcome": _v1_outcome,
    "phase": {phase.value: phase for phase in Phase}.__getitem__,
    "pending": {pending.value: pending for pending in Pending}.__getitem__,
}
"""Version 1's decoders by a field's codec (its ``metadata``); plain fields are JSON as they are."""
_V1_FIELDS: Final = tuple(
    (f.name, f.metadata["key"] or f.name, _V1_DECODERS.get(f.metadata["codec"]))
    for f in STATE_FIELDS
    if f.metadata["codec"]
)


def _decode_v1(cls: type[S], data: bytes) -> S:
    values = json.loads(zlib.decompress(data))
    values.setdefault("penalty_last", [False] * values["n"])  # younger than version 1
    decoded: dict[str, Any] = {}
    for name, key, from_json in _V1_FIELDS:
        decoded[name] = values[key] if from_json is None else from_json(values[key])
    state = cls(decoded.pop("ruleset"), decoded.pop("seats"), decoded.pop("seed"))
    for name, value in decoded.items():
        setattr(state, name, value)
    return state
