"""The match record: everything about a match besides its rules state, and how its hash holds it
(``meta``, beside ``version`` and ``state``: see ``engine/keys.py``)."""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass, field
from enum import StrEnum

import orjson

from maumau import fairness


class Status(StrEnum):
    """Where a match is in its life: seats being taken, cards being played, finished."""

    LOBBY = "lobby"
    PLAYING = "playing"
    OVER = "over"


@dataclass
class MatchRecord:
    """Everything about a match besides the rules state: seats, players, timers, fairness."""

    match_id: str
    ruleset: str
    seats: int
    ranked: bool
    turn_seconds: int
    max_timeouts: int
    auto_start: bool
    seed_commitment: str
    server_seed: str
    players: list[str] = field(default_factory=list)
    """Player id per seat, '' for a free or bot seat."""
    names: list[str] = field(default_factory=list)
    bots: list[str] = field(default_factory=list)
    """Bot level per seat, '' for a human seat."""
    nonces: list[str] = field(default_factory=list)
    left: list[bool] = field(default_factory=list)
    timeouts: list[int] = field(default_factory=list)
    status: Status = Status.LOBBY
    deal_seed: str = ""
    turn_started_at: float = 0.0
    created_at: float = 0.0
    moved_at: float = 0.0
    """When the last action was taken (or the deal); 0 in a lobby."""

    def free_seats(self) -> list[int]:
        return [s for s in range(self.seats) if not self.players[s] and not self.bots[s]]

    def to_json(self) -> str:
        """The fields' values in their order, without their names (a third of the text); times
        to the millisecond; the seed commitment and the deal seed empty when they are the ones
        the server seed (and the nonces) give, as they are but in tests (:meth:`from_json`
        derives them again: 130 bytes less per match). A field added later goes last, with a
        default, so a record written before it reads."""
        return self.to_json_bytes().decode()

    def to_json_bytes(self) -> bytes:
        """:meth:`to_json` as the UTF-8 bytes a commit stores."""
        values = [round(v, 3) if type(v) is float else v for v in vars(self).values()]
        derived = self._derived_seeds()
        for at, name in _DERIVABLE:
            if values[at] == derived[name]:
                values[at] = ""
        return orjson.dumps(values)

    def _derived_seeds(self) -> dict[str, str]:
        """The seed commitment and deal seed that the server seed and nonces give."""
        return _derived_seeds(self.server_seed, tuple(self.nonces))

    def copy(self) -> MatchRecord:
        """An independent copy (the per-seat lists too), for a change to work on."""
        copied = object.__new__(MatchRecord)
        fields = copied.__dict__
        fields.update(vars(self))
        for name, value in fields.items():
            if type(value) is list:
                fields[name] = value[:]
        return copied

    @classmethod
    def from_json(cls, text: str | bytes) -> MatchRecord:
        """A record as :meth:`to_json` writes it."""
        record = cls(*orjson.loads(text))
        record.status = Status(record.status)
        if not record.seed_commitment or (not record.deal_seed and record.status != Status.LOBBY):
            derived = record._derived_seeds()
            record.seed_commitment = record.seed_commitment or derived["seed_commitment"]
            if record.status != Status.LOBBY:
                record.deal_seed = record.deal_seed or derived["deal_seed"]
        return record


@functools.lru_cache(maxsize=1024)
def _derived_seeds(server_seed: str, nonces: tuple[str, ...]) -> dict[str, str]:
    """Two hashes that every commit of a match would compute again, remembered for the matches
    a replica is serving (the caller must not change the dict). An entry is about 0.9 KB and a
    miss costs two SHA-256s, so the bound is kept small: about 1 MB, filled early in a replica's
    life rather than growing for hours."""
    return {
        "seed_commitment": fairness.commitment(server_seed),
        "deal_seed": fairness.deal_seed(server_seed, nonces),
    }


_DERIVABLE = [
    (at, item.name)
    for at, item in enumerate(dataclasses.fields(MatchRecord))
    if item.name in ("seed_commitment", "deal_seed")
]
"""The positions of the seeds that :meth:`MatchRecord.to_json` leaves empty when derivable."""


@dataclass
class Stored:
    """A match as its hash holds it: the record, the rules state's bytes, the version."""

    record: MatchRecord
    state: bytes
    version: int
