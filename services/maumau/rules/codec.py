"""A match as compact bytes and back: zlib-compressed JSON, one key per declared state field.

Cards are written as one character each (their code + 32), a hand as a string of them. The keys
and codecs come from the field declarations in :mod:`.state`, so the format follows the state.
Version 1 is the format since the first release; every byte string written since decodes.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable, Iterable
from typing import Any, Final, TypeVar

from .cards import ALL_CARDS, Card
from .kinds import Outcome, Pending, Phase
from .ruleset import Ruleset
from .state import STATE_FIELDS, MatchState

VERSION: Final = 1

S = TypeVar("S", bound=MatchState)
"""The class decoded into: Match, or a subclass."""


def _codes(cards: Iterable[Card]) -> str:
    return bytes(card.code + 32 for card in cards).decode("latin-1")


def _cards(text: str) -> list[Card]:
    return [ALL_CARDS[ord(char) - 32] for char in text]


def _encode_outcome(outcome: Outcome | None) -> Any:
    return [list(outcome.winners), outcome.reason.value] if outcome is not None else None


def _decode_outcome(value: Any) -> Outcome | None:
    return Outcome(tuple(value[0]), value[1]) if value else None


Encoder = Callable[[Any], Any]
Decoder = Callable[[Any], Any]

CODECS: Final[dict[str, tuple[Encoder | None, Decoder | None]]] = {
    "plain": (None, None),
    "ruleset": (lambda ruleset: ruleset.text, Ruleset.parse),
    "cards": (_codes, _cards),
    "hands": (lambda hands: [_codes(hand) for hand in hands], lambda v: [_cards(h) for h in v]),
    "card": (
        lambda card: card.code if card is not None else -1,
        lambda code: ALL_CARDS[code] if code >= 0 else None,
    ),
    "missed": (
        lambda missed: [[seat, word, closes] for seat, (word, closes) in missed.items()],
        lambda rows: {seat: (word, closes) for seat, word, closes in rows},
    ),
    "outcome": (_encode_outcome, _decode_outcome),
    "phase": (None, {phase.value: phase for phase in Phase}.__getitem__),
    "pending": (None, {pending.value: pending for pending in Pending}.__getitem__),
}
"""Codec name -> (encode to a JSON value, decode from it); None where JSON takes the value as it
is (numbers, text, enumerations of text, lists of them): the common case, kept off calls.
Enumerations decode through a dict, several times faster than calling the enum class."""

_WRITTEN: Final = tuple(
    (f.name, f.metadata["key"] or f.name, *CODECS[f.metadata["codec"]])
    for f in STATE_FIELDS
    if f.metadata["codec"]
)
_ENCODED: Final = tuple((name, key, enc) for name, key, enc, _ in _WRITTEN if enc is not None)
_DECODED: Final = tuple((name, key, dec) for name, key, _, dec in _WRITTEN if dec is not None)
_PLAIN_OUT: Final = tuple((name, key) for name, key, enc, _ in _WRITTEN if enc is None)
_PLAIN_IN: Final = tuple((name, key) for name, key, _, dec in _WRITTEN if dec is None)


def encode(state: MatchState) -> bytes:
    """The whole state as bytes; :func:`decode` restores it exactly."""
    data: dict[str, Any] = {"v": VERSION}
    for name, key, to_json in _ENCODED:
        data[key] = to_json(getattr(state, name))
    for name, key in _PLAIN_OUT:
        data[key] = getattr(state, name)
    return zlib.compress(json.dumps(data, separators=(",", ":")).encode(), 6)


def decode(cls: type[S], data: bytes) -> S:
    """The state that :func:`encode` wrote, as an instance of ``cls``."""
    values = json.loads(zlib.decompress(data))
    decoded = {name: from_json(values[key]) for name, key, from_json in _DECODED}
    decoded.update((name, values[key]) for name, key in _PLAIN_IN)
    state = cls(decoded.pop("ruleset"), decoded.pop("seats"), decoded.pop("seed"))
    for name, value in decoded.items():
        setattr(state, name, value)
    return state
