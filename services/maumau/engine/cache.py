"""What a replica remembers of the matches it serves, so a change usually starts without a read."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

from maumau.engine.codec import Answers
from maumau.engine.record import MatchRecord, Status, Stored


@dataclass(frozen=True)
class Current:
    """A match as a change starts from: the stored match and every seat's kept answers at its
    version. ``fresh``: read from Redis for this change, not remembered (see MatchCache)."""

    stored: Stored
    requests: dict[int, bytes]
    fresh: bool = True

    def answers(self, seat: int) -> Answers:
        return Answers(seat, self.requests.get(seat))


def current_from_hash(fields: dict[bytes, bytes]) -> Current | None:
    """The match as its hash holds it, with every seat's kept answers (its ``a{seat}``
    fields); None: the match is gone."""
    version, meta = fields.get(b"version"), fields.get(b"meta")
    if version is None or meta is None:
        return None
    stored = Stored(MatchRecord.from_json(meta), fields.get(b"state", b""), int(version))
    requests = {int(name[1:]): kept for name, kept in fields.items() if name[:1] == b"a"}
    return Current(stored, requests)


class MatchCache:
    """The matches this replica read or committed last, each as of its version (at most
    ``size``, the least recently used forgotten first; 0 remembers nothing). A finished match
    is not remembered: it takes no more actions, and keeping it would hold a replica's memory
    until ``size`` finished matches filled the cache.

    A change usually starts from here without reading Redis: the commit's version check refuses
    one computed from a match that another replica moved on meanwhile, and the refusal brings
    the match as it is now (see ``store.COMMIT``). What is remembered decides nothing by
    itself: a change that fails or finds nothing to do on it is computed again from a fresh
    read."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: OrderedDict[str, Current] = OrderedDict()

    def get(self, match_id: str) -> Current | None:
        entry = self._entries.get(match_id)
        if entry is not None:
            self._entries.move_to_end(match_id)
        return entry

    def put(self, match_id: str, current: Current | None) -> None:
        """Remember ``current`` (None: the match is gone, and is forgotten)."""
        if self.size == 0:
            return
        if current is None or current.stored.record.status is Status.OVER:
            self.forget(match_id)
            return
        self._entries[match_id] = Current(current.stored, current.requests, fresh=False)
        self._entries.move_to_end(match_id)
        if len(self._entries) > self.size:
            self._entries.popitem(last=False)

    def forget(self, match_id: str) -> None:
        self._entries.pop(match_id, None)

    def committed(
        self, match_id: str, expected: int | None, stored: Stored, kept: tuple[int, bytes] | None
    ) -> None:
        """Remember a commit of ``stored`` over version ``expected`` (None: a new match) that
        kept ``kept`` (seat, its answers); forget the match when what it was is not at hand."""
        if expected is None:
            requests: dict[int, bytes] = {}
        else:
            before = self._entries.get(match_id)
            if before is None or before.stored.version != expected:
                self.forget(match_id)
                return
            requests = before.requests if kept is None else {**before.requests, kept[0]: kept[1]}
        self.put(match_id, Current(stored, requests))
