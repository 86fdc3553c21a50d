"""What the matchmaker's queue holds: a queue (ruleset and mode, its hash tag and keys), a
ticket's spec and status, and a formation (a table claimed while its match is created), each
with the JSON it is stored as.

Plain values without I/O, apart from ``queue``, which reads and writes them in Redis, so that
the service, the worker and the tests build and read them without a store.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from dataclasses import dataclass, field

from maumau.matchmaking.forming import Table, Waiting

SEARCHING, SEATED, CANCELLED, EXPIRED = "searching", "seated", "cancelled", "expired"


class LiveTicket(Exception):
    """A player of a new ticket has a live one: FAILED_PRECONDITION, naming that ticket (the
    shape the bootstrap turns into a status with ``maumau-error-code`` metadata)."""

    code = "live_ticket"

    def __init__(self, player_id: str, ticket_id: str) -> None:
        self.params = {"player_id": player_id, "ticket_id": ticket_id}
        self.message = (
            f"player {player_id} already has a live ticket {ticket_id}: follow or cancel it"
        )
        super().__init__(self.message)


@dataclass(frozen=True)
class QueueInfo:
    ruleset: str
    """The ruleset's text form, e.g. ``classic target=50``."""
    ranked: bool

    @property
    def name(self) -> str:
        return f"{self.ruleset} {'ranked' if self.ranked else 'casual'}"

    @property
    def tag(self) -> str:
        return hashlib.sha1(self.name.encode()).hexdigest()[:12]

    @property
    def preset(self) -> str:
        return self.ruleset.split()[0]

    def key(self, part: str) -> str:
        return f"mm:{{{self.tag}}}:{part}"

    def to_json(self) -> str:
        return json.dumps({"ruleset": self.ruleset, "ranked": self.ranked})

    @classmethod
    def from_json(cls, text: str | bytes) -> QueueInfo:
        data = json.loads(text)
        return cls(data["ruleset"], data["ranked"])


@dataclass(frozen=True)
class TicketSpec:
    """What the ticket asked for; never changes."""

    players: tuple[str, ...]
    sizes: tuple[int, ...]
    preferred: int
    bots_after: float | None
    enqueued_at: float
    expires_at: float
    request_id: str = ""
    """The caller's id for the Enqueue that queued it: a retry answers this ticket."""

    def to_json(self) -> str:
        """Without ``request_id`` when it is unset, so a replica of the version before reads
        the spec."""
        data = dict(self.__dict__)
        if not self.request_id:
            del data["request_id"]
        return json.dumps(data, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str | bytes) -> TicketSpec:
        """A spec as :meth:`to_json` writes it; fields of later versions are left out."""
        data = {k: v for k, v in json.loads(text).items() if k in _SPEC_FIELDS}
        data["players"], data["sizes"] = tuple(data["players"]), tuple(data["sizes"])
        return cls(**data)

    def waiting(self, ticket_id: str, rating: float = 0.0) -> Waiting:
        return Waiting(
            ticket_id,
            self.players,
            frozenset(self.sizes),
            self.preferred,
            self.bots_after,
            self.enqueued_at,
            rating,
        )


_SPEC_FIELDS = frozenset(TicketSpec.__dataclass_fields__)


@dataclass(frozen=True)
class TicketStatus:
    state: str
    at: float
    """Searching: when queued; seated: when its table formed; else when it ended."""
    match_id: str = ""
    seats: dict[str, int] = field(default_factory=dict)
    table_seats: int = 0
    bot_seats: int = 0
    reason: str = ""

    def to_json(self) -> str:
        data = {k: v for k, v in self.__dict__.items() if v or k in ("state", "at")}
        return json.dumps(data, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str | bytes) -> TicketStatus:
        return cls(**json.loads(text))


@dataclass(frozen=True)
class Ticket:
    ticket_id: str
    queue: QueueInfo
    spec: TicketSpec
    status: TicketStatus

    @property
    def live(self) -> bool:
        return self.status.state == SEARCHING


@dataclass(frozen=True)
class Formation:
    """A table claimed for creation: its tickets, seats and the commitment of its server seed,
    by which a replica taking over finds the match if it was created."""

    formation_id: str
    tickets: tuple[tuple[str, float, tuple[str, ...]], ...]
    """(ticket id, queued at, players) per ticket."""
    seats: int
    seating: tuple[tuple[str, int], ...]
    bot_seats: tuple[int, ...]
    commitment: str
    formed_at: float
    rating: float = 0.0
    """The mean rating of the table's players (ranked): its bots are chosen by it."""

    @classmethod
    def of(cls, table: Table, commitment: str) -> Formation:
        return cls(
            secrets.token_hex(8),
            tuple((t.ticket_id, t.enqueued_at, t.players) for t in table.tickets),
            table.seats,
            table.seating,
            table.bot_seats,
            commitment,
            table.formed_at,
            table.rating,
        )

    def to_json(self) -> str:
        return json.dumps(self.__dict__, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str | bytes) -> Formation:
        data = json.loads(text)
        return cls(
            data["formation_id"],
            tuple((t, at, tuple(players)) for t, at, players in data["tickets"]),
            data["seats"],
            tuple((p, s) for p, s in data["seating"]),
            tuple(data["bot_seats"]),
            data["commitment"],
            data["formed_at"],
            data.get("rating", 0.0),
        )

    def seated(self, players: tuple[str, ...], match_id: str) -> TicketStatus:
        seats = dict(self.seating)
        return TicketStatus(
            SEATED,
            self.formed_at,
            match_id,
            {p: seats[p] for p in players},
            self.seats,
            len(self.bot_seats),
        )


def queue_of(ticket_id: str) -> str:
    """The queue tag of a ticket id."""
    return ticket_id.partition(".")[0]
