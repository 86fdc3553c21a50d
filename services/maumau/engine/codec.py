"""The bytes of the engine's commit path, written and read without I/O: a seat's kept answers,
a used request id's record, and a commit's stream entry.

Kept apart from the store so that what a commit writes can be read, changed and tested as data
(``tests/engine/test_codec.py`` checks each round trip on generated values); the commit script
(``store.COMMIT``) writes the same layouts in Lua, where noted.
"""

from __future__ import annotations

from dataclasses import dataclass

KEPT_ANSWERS_PER_SEAT = 2
"""Answers kept per seat of a match, for retried request ids. A client retries its latest
action as soon as its answer is lost, before it sends another, so its seat's latest answer is
the one a retry asks for; two cover a second action sent while the first was in flight. They
are kept per seat, so what the other seats do meanwhile never pushes a seat's answer out. Of
an answer only its request id, version and the id of its commit's stream entry are kept: a
retry (rare) reads the events from that entry again (the stream is never trimmed while the
match lives) and shows the seat's view as it is then. Older request ids are in the match's
``request_ids`` hash, which the commit script checks."""


@dataclass(frozen=True)
class KeptAnswer:
    """What is kept of an applied action for a retry of its request id: the version it made
    and the id of its commit's stream entry, whose events a retry reads again ('': none)."""

    version: int
    entry_id: str
    action: str | None = None
    """The text of the action the request carried, from the match's request ids hash (None:
    not known: a seat's kept answers do not hold it)."""


def varint(number: int) -> bytes:
    """``number`` (>= 0) in 7-bit groups, lowest first, each but the last with its high bit
    set (as the commit script's ``varint`` writes it)."""
    out = bytearray()
    while number > 0x7F:
        out.append(number & 0x7F | 0x80)
        number >>= 7
    out.append(number)
    return bytes(out)


def read_varint(data: bytes, at: int) -> tuple[int, int]:
    """The varint at ``at`` and where what follows it starts."""
    number, shift = 0, 0
    while True:
        byte = data[at]
        at += 1
        number |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return number, at


# ---------------------------------------------------------------- stream entries


def packed_events(events: list[bytes]) -> bytes:
    """The events of one commit as its stream entry holds them (field ``p``): each preceded by
    its length."""
    return b"".join(varint(len(event)) + event for event in events)


def stream_events(entry_id: str, fields: dict[bytes, bytes]) -> list[tuple[str, bytes]]:
    """The events of one stream entry, each with its id: the entry's id is that of its last
    event, and the ones before it count down from there (the ids one entry per event would
    have had; the commit script leaves room for them).

    >>> stream_events("17-5", {b"p": packed_events([b"ab", b"c"])})
    [('17-4', b'ab'), ('17-5', b'c')]
    """
    data, events, at = fields[b"p"], [], 0
    while at < len(data):
        length, at = read_varint(data, at)
        events.append(data[at : at + length])
        at += length
    ms, seq = entry_id.split("-")
    first = int(seq) - len(events) + 1
    return [(f"{ms}-{first + n}", event) for n, event in enumerate(events)]


def stream_position(event_id: str) -> tuple[int, int]:
    """An event id (or "0", the start) as numbers, in the order of the stream.

    >>> stream_position("1700000000000-3") > stream_position("1700000000000-2")
    True
    """
    ms, _, seq = event_id.partition("-")
    return int(ms), int(seq or 0)


# ---------------------------------------------------------------- used request ids


def used_value(version: int, entry_id: str, action: str) -> bytes:
    """What the request ids hash holds of a request (the commit script writes the same):
    version, stream entry id and the action's text, apart by spaces."""
    return f"{version} {entry_id} {action}".encode()


def used_answer(value: bytes) -> KeptAnswer:
    """A request ids hash's value, as :func:`used_value` writes it.

    >>> used_answer(b"7 1700000000000-2 JD:S!mau")
    KeptAnswer(version=7, entry_id='1700000000000-2', action='JD:S!mau')
    """
    version, entry_id, action = value.decode().split(" ", 2)
    return KeptAnswer(int(version), entry_id, action or None)


# ---------------------------------------------------------------- a seat's kept answers

REFERENCE, HEX_REFERENCE = b"R", b"H"
"""The kinds of a kept answer's record: its request id as UTF-8, or a request id of lowercase
hex digits as the bytes they spell (half the size: the clients' ids are 32 such digits)."""


def kept_answers(value: bytes | None) -> list[tuple[str, KeptAnswer]]:
    """A seat's kept answers, oldest first, from its ``a{seat}`` field of the match's hash,
    each with its request id. A record is its kind, the request id (a varint length, then its
    bytes), the version, the entry's milliseconds and sequence (varints; 0 and 0: no entry)."""
    return [(request_id, answer) for request_id, answer, _ in _records(value)]


def with_answer(value: bytes | None, request_id: str, version: int) -> bytes:
    """The seat's field with an answer for ``request_id`` at ``version`` kept, but for its
    stream entry id (the commit script appends it: :func:`entry_suffix`), the oldest beyond
    the latest KEPT_ANSWERS_PER_SEAT forgotten."""
    records = [record for _, _, record in _records(value)]
    earlier = records[max(0, len(records) + 1 - KEPT_ANSWERS_PER_SEAT) :]
    kind, spelt = _spelt(request_id)
    return b"".join([*earlier, kind, varint(len(spelt)), spelt, varint(version)])


def entry_suffix(entry_id: str) -> bytes:
    """A stream entry id as the commit script appends it to a kept answer (0 and 0: none)."""
    ms, _, seq = entry_id.partition("-")
    return varint(int(ms or 0)) + varint(int(seq or 0))


@dataclass
class Answers:
    """The answers a seat keeps for retried request ids, as read with the match (a commit
    writes them back with one more, the version check keeping them current)."""

    seat: int
    kept: bytes | None

    def answer(self, request_id: str) -> KeptAnswer | None:
        """What is kept of the answer to ``request_id`` (None: not applied, or long ago)."""
        kept = self.kept
        if not kept:
            return None
        # The usual case, told without reading the records: the id is in none of them.
        if request_id.encode() not in kept and _spelt(request_id)[1] not in kept:
            return None
        return next((a for kept_id, a in kept_answers(kept) if kept_id == request_id), None)


def _records(value: bytes | None) -> list[tuple[str, KeptAnswer, bytes]]:
    """Each record of a seat's field with its request id, its answer and its bytes."""
    records: list[tuple[str, KeptAnswer, bytes]] = []
    at = 0
    while value and at < len(value):
        start, kind = at, value[at : at + 1]
        length, at = read_varint(value, at + 1)
        spelt = value[at : at + length]
        request_id = spelt.hex() if kind == HEX_REFERENCE else spelt.decode()
        version, at = read_varint(value, at + length)
        ms, at = read_varint(value, at)
        seq, at = read_varint(value, at)
        answer = KeptAnswer(version, f"{ms}-{seq}" if ms else "")
        records.append((request_id, answer, value[start:at]))
    return records


def _spelt(request_id: str) -> tuple[bytes, bytes]:
    """A request id's kind of record and its bytes there: the bytes its digits spell when it
    is pairs of lowercase hex digits (they read back the same), else its UTF-8."""
    if request_id:
        try:
            spelt = bytes.fromhex(request_id)
        except ValueError:
            pass
        else:
            if spelt.hex() == request_id:
                return HEX_REFERENCE, spelt
    return REFERENCE, request_id.encode()
