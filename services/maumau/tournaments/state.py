"""A tournament as a value, and every change to it as a pure function of (state, input, now).

The store reads the state, applies one of these changes, and writes the result only if nobody
wrote in between (compare-and-set on a version), retrying from the top otherwise. Each change is
idempotent: applying a round, a result or a deciding round a second time changes nothing, so a
replica that repeats work after a crash or a lost race never counts anything twice.

A change returns the new state and the events it caused (``TournamentEvent`` messages, without
ids), or raises :class:`Refused` with a gRPC status and a message a person can act on.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc

from maumau.common.errors import ServiceError
from maumau.tournaments import ranking, seating
from maumau.v1 import tournaments_pb2 as pb

REGISTRATION = "registration"
PLAYING = "playing"
DECIDING = "deciding"
FINISHED = "finished"
CANCELLED = "cancelled"
STATUSES = (REGISTRATION, PLAYING, DECIDING, FINISHED, CANCELLED)
OVER = (FINISHED, CANCELLED)

Events = list[pb.TournamentEvent]


class Refused(ServiceError):
    """A call the tournament does not allow; nothing was changed."""


def refused(status: grpc.StatusCode, message: str) -> Refused:
    return Refused(status, message)


def precondition(message: str) -> Refused:
    return Refused(grpc.StatusCode.FAILED_PRECONDITION, message)


BOT_ENTRANT = "bot:"
"""The prefix of a bot entrant's id (``bot:<name>``); a person's id is their player id."""


@dataclass
class Entrant:
    entrant_id: str
    name: str
    bot_level: str = ""
    left: bool = False


@dataclass
class TableMatch:
    """One engine match of the tournament: a block at a table, or a deciding round."""

    entrants: list[str]
    match_id: str = ""
    commitment: str = ""
    """Seed commitment of the creation in progress; the creation's request id is made of it, so a
    replica taking over repeats the creation and gets the same match."""
    attempt: int = 0
    rounds_applied: int = 0
    result_in: bool = False
    totals: list[int] = field(default_factory=list)

    def done(self, rounds: int) -> bool:
        return self.result_in and self.rounds_applied >= rounds


@dataclass
class Config:
    """What the organizer chose; fixed at creation."""

    name: str
    organizer_id: str
    ruleset: str
    rounds: int
    change_every: int
    max_per_table: int
    registration_closes_at: float
    start_at: float
    fill_with_bots: bool
    ranked: bool
    max_entrants: int
    min_entrants: int
    turn_seconds: int
    bot_level: str
    decides_year: int = 0
    """A championship deciding tournament: the year whose tie it plays out."""

    @property
    def blocks(self) -> int:
        return self.rounds // self.change_every


@dataclass
class Tournament:
    tournament_id: str
    config: Config
    created_at: float
    seed: str
    """Seeds the first seating (shuffled entrants)."""
    status: str = REGISTRATION
    start_requested: bool = False
    entrants: list[Entrant] = field(default_factory=list)
    block: int = 0
    tables: list[TableMatch] = field(default_factory=list)
    points: dict[str, int] = field(default_factory=dict)
    maumaus: dict[str, int] = field(default_factory=dict)
    rounds_played: dict[str, int] = field(default_factory=dict)
    deciding: dict[str, list[int]] = field(default_factory=dict)
    decider: TableMatch | None = None
    decider_attempt: int = 0
    started_at: float = 0.0
    finished_at: float = 0.0
    year: int = 0
    final: list[dict[str, Any]] = field(default_factory=list)
    """The final places: entrant, place, championship points."""
    awarded: bool = False
    """The championship and the players' histories hold this tournament's places."""

    # ------------------------------------------------------------ serialization

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str | bytes) -> Tournament:
        data = json.loads(text)
        data["config"] = Config(**data["config"])
        data["entrants"] = [Entrant(**e) for e in data["entrants"]]
        data["tables"] = [TableMatch(**t) for t in data["tables"]]
        if data["decider"] is not None:
            data["decider"] = TableMatch(**data["decider"])
        return cls(**data)

    # ------------------------------------------------------------ reading

    def entrant(self, entrant_id: str) -> Entrant | None:
        return next((e for e in self.entrants if e.entrant_id == entrant_id), None)

    def playing(self) -> set[str]:
        return {e.entrant_id for e in self.entrants if not e.left}

    def table_of(self, entrant_id: str) -> int:
        for index, table in enumerate(self.tables):
            if entrant_id in table.entrants:
                return index
        return -1

    def tallies(self) -> list[ranking.Tally]:
        return [
            ranking.Tally(
                e.entrant_id,
                self.points.get(e.entrant_id, 0),
                self.maumaus.get(e.entrant_id, 0),
                order,
                e.left,
                tuple(self.deciding.get(e.entrant_id, ())),
            )
            for order, e in enumerate(self.entrants)
        ]

    def block_done(self) -> bool:
        return all(t.done(self.config.change_every) for t in self.tables)

    def match_of(self, match_id: str) -> TableMatch | None:
        """The current block's table or deciding round played as ``match_id``."""
        if self.decider is not None and self.decider.match_id == match_id:
            return self.decider
        return next((t for t in self.tables if t.match_id == match_id), None)

    def rounds_of(self, match: TableMatch) -> int:
        return 1 if match is self.decider else self.config.change_every

    # ------------------------------------------------------------ registration

    def register(self, entrant: Entrant, now: float) -> Events:
        if self.status != REGISTRATION:
            raise precondition("registration is closed: the tournament has started")
        closes = self.config.registration_closes_at
        if closes and now >= closes:
            raise precondition("registration closed at the time the organizer set")
        if self.entrant(entrant.entrant_id) is not None:
            raise precondition(f"{entrant.name} is registered already")
        if len(self.entrants) >= self.config.max_entrants:
            raise refused(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"the tournament is full ({self.config.max_entrants} entrants)",
            )
        self.entrants.append(entrant)
        return [pb.TournamentEvent(registered=entrant_pb(entrant))]

    def unregister(self, entrant_id: str) -> tuple[Events, TableMatch | None]:
        """Withdraw before the start; leave after it. Returns the events and, for a player
        leaving mid-block, the match whose seat a bot should take over."""
        entrant = self.entrant(entrant_id)
        if entrant is None or entrant.left:
            raise precondition("not registered in this tournament")
        if self.status in OVER:
            raise precondition("the tournament is over")
        if self.status == REGISTRATION:
            self.entrants.remove(entrant)
            return [pb.TournamentEvent(unregistered=entrant_pb(entrant))], None
        entrant.left = True
        table = self.table_of(entrant_id)
        seat_match = self.tables[table] if table >= 0 and self.status == PLAYING else None
        if self.decider is not None and entrant_id in self.decider.entrants:
            seat_match = self.decider
        return [pb.TournamentEvent(unregistered=entrant_pb(entrant))], seat_match

    def request_start(self, caller: str) -> None:
        if caller != self.config.organizer_id:
            raise refused(grpc.StatusCode.PERMISSION_DENIED, "only the organizer starts it")
        if self.status != REGISTRATION:
            raise precondition(f"the tournament is {self.status}, not open for a start")
        if len(self.entrants) < self.config.min_entrants and not self.config.fill_with_bots:
            raise precondition(
                f"{len(self.entrants)} entrants; at least {self.config.min_entrants} "
                "are needed to start"
            )
        if not self.entrants:
            raise precondition("nobody is registered; bots fill tables, not an empty field")
        self.start_requested = True

    def due_to_start(self, now: float) -> bool:
        return self.status == REGISTRATION and (
            self.start_requested or bool(self.config.start_at and now >= self.config.start_at)
        )

    def start(self, now: float) -> Events:
        """Fill with bots if allowed, seat the first block; or cancel with too few entrants."""
        if not self.due_to_start(now):
            return []
        c = self.config
        if c.fill_with_bots:
            size = seating.table_count(len(self.entrants), c.max_per_table) * c.max_per_table
            size = min(max(size, c.min_entrants), c.max_entrants)
            number = 1
            while len(self.entrants) < size:
                bot = Entrant(f"{BOT_ENTRANT}Bot {number}", f"Bot {number}", c.bot_level)
                number += 1
                if self.entrant(bot.entrant_id) is None:
                    self.entrants.append(bot)
        if len(self.entrants) < max(2, c.min_entrants):
            return self.cancel(
                f"{len(self.entrants)} entrants at the start; {c.min_entrants} needed", now
            )
        self.status = PLAYING
        self.started_at = now
        ids = [e.entrant_id for e in self.entrants]
        for entrant_id in ids:
            self.points[entrant_id] = 0
            self.maumaus[entrant_id] = 0
            self.rounds_played[entrant_id] = 0
        self.tables = [
            TableMatch(t) for t in seating.first_seating(ids, c.max_per_table, self.seed)
        ]
        return [self._seated_event([])]

    def cancel(self, reason: str, now: float) -> Events:
        if self.status != REGISTRATION:
            return []
        self.status = CANCELLED
        self.finished_at = now
        return [pb.TournamentEvent(cancelled=reason)]

    # ------------------------------------------------------------ matches

    def begin_creation(self, match: TableMatch, commitment: str) -> None:
        """Record the seed commitment of the match about to be created, with a new attempt."""
        match.commitment = commitment
        match.attempt += 1

    def set_match(self, target: TableMatch, commitment: str, match_id: str, table: int) -> Events:
        """Record the created match if the creation is still the one in progress."""
        if target.match_id or target.commitment != commitment:
            return []
        target.match_id = match_id
        if target is self.decider:
            return [
                pb.TournamentEvent(
                    deciding_round=pb.DecidingRound(
                        attempt=self.decider_attempt, entrants=target.entrants, match_id=match_id
                    )
                )
            ]
        return [
            pb.TournamentEvent(
                block_started=pb.BlockStarted(block=self.block, table=table, match_id=match_id)
            )
        ]

    def apply_round(
        self, match_id: str, round_number: int, winner: int, finish: str, points: Sequence[int]
    ) -> Events:
        """Count one round of a table's block (once: rounds come in order, a repeat is ignored).
        A player who left gets no points from rounds after leaving."""
        match = self.match_of(match_id)
        if match is None or round_number != match.rounds_applied + 1:
            return []
        if round_number > self.rounds_of(match) or len(points) != len(match.entrants):
            return []
        match.rounds_applied = round_number
        if match is self.decider:
            return []
        for seat, entrant_id in enumerate(match.entrants):
            entrant = self.entrant(entrant_id)
            if entrant is None or entrant.left:
                continue
            self.points[entrant_id] += points[seat]
            self.rounds_played[entrant_id] += 1
            if seat == winner and finish == "maumau":
                self.maumaus[entrant_id] += 1
        return [
            pb.TournamentEvent(
                round_result=pb.RoundResult(
                    block=self.block,
                    table=self.tables.index(match),
                    round=round_number,
                    winner=match.entrants[winner] if 0 <= winner < len(match.entrants) else "",
                    finish=finish,
                    entrants=match.entrants,
                    points=list(points),
                )
            )
        ]

    def apply_result(self, match_id: str, totals: Sequence[int]) -> Events:
        """The engine's final totals of a match (from the results stream); once."""
        match = self.match_of(match_id)
        if match is None or match.result_in or len(totals) != len(match.entrants):
            return []
        match.result_in = True
        match.totals = list(totals)
        return []

    # ------------------------------------------------------------ between blocks

    def advance(self, now: float, zone: str) -> Events:
        """When every table of the block is done: the next block's seating, or the deciding
        rounds, or the final ranking. Nothing while a match is still being played."""
        if self.status == PLAYING and self.block_done():
            if self.block + 1 < self.config.blocks:
                return self._next_block()
            self.status = DECIDING
            return [
                pb.TournamentEvent(block_finished=pb.BlockFinished(block=self.block)),
                *self._next_decider(now, zone),
            ]
        if self.status == DECIDING and self.decider is not None and self.decider.done(1):
            round_points = dict(zip(self.decider.entrants, self.decider.totals, strict=True))
            for entrant_id, value in round_points.items():
                self.deciding.setdefault(entrant_id, []).append(value)
            event = pb.TournamentEvent(
                deciding_round=pb.DecidingRound(
                    attempt=self.decider_attempt,
                    entrants=self.decider.entrants,
                    match_id=self.decider.match_id,
                    points=self.decider.totals,
                )
            )
            self.decider = None
            return [event, *self._next_decider(now, zone)]
        return []

    def _next_block(self) -> Events:
        scores = {e: seating.Score(self.points[e], self.maumaus[e]) for e in self.points}
        change = seating.change_tables(
            [t.entrants for t in self.tables], scores, self.playing(), self.config.max_per_table
        )
        finished = pb.TournamentEvent(block_finished=pb.BlockFinished(block=self.block))
        self.block += 1
        self.tables = [TableMatch(t) for t in change.tables]
        return [finished, self._seated_event(change.moves)]

    def _next_decider(self, now: float, zone: str) -> Events:
        """Open the next deciding round, or make the final ranking when none is owed."""
        for group in ranking.deciding_groups(self.tallies()):
            if len(group) > self.config.max_per_table:
                # Too many for one table: registration order decides (see the README).
                for entrant_id in group:
                    self.deciding[entrant_id] = [0] * ranking.MAX_DECIDING_ROUNDS
                continue
            self.decider_attempt = len(self.deciding.get(group[0], ())) + 1
            self.decider = TableMatch(group)
            return []
        return self._finish(now, zone)

    def _finish(self, now: float, zone: str) -> Events:
        self.status = FINISHED
        self.finished_at = now
        self.year = ranking.championship_year(now, zone)
        self.final = [
            {"entrant": p.entrant, "place": p.place, "championship_points": p.championship_points}
            for p in ranking.final_places(self.tallies())
        ]
        return [pb.TournamentEvent(final_ranking=self.standings())]

    def _seated_event(self, moves: Sequence[seating.Move]) -> pb.TournamentEvent:
        return pb.TournamentEvent(
            seated=pb.Seating(
                block=self.block,
                tables=[
                    table_pb(i, t, self.config.change_every) for i, t in enumerate(self.tables)
                ],
                moves=[
                    pb.TableMove(entrant_id=m.entrant, from_table=m.from_table, to_table=m.to_table)
                    for m in moves
                ],
            )
        )

    # ------------------------------------------------------------ views

    def standings(self) -> pb.Standings:
        names = {e.entrant_id: e for e in self.entrants}
        if self.final:
            order = [(p["entrant"], p["place"], p["championship_points"]) for p in self.final]
        else:
            ranked = ranking.standings_order(self.tallies())
            order = []
            for index, tally in enumerate(ranked):
                tied = index and (ranked[index - 1].points, ranked[index - 1].maumaus) == (
                    tally.points,
                    tally.maumaus,
                )
                place = order[-1][1] if tied else index + 1
                order.append((tally.entrant, place, 0))
        rows = [
            pb.Standing(
                place=place,
                entrant_id=entrant_id,
                name=names[entrant_id].name,
                points=self.points.get(entrant_id, 0),
                maumaus=self.maumaus.get(entrant_id, 0),
                rounds_played=self.rounds_played.get(entrant_id, 0),
                table=self.table_of(entrant_id) if self.status == PLAYING else -1,
                left=names[entrant_id].left,
                deciding=self.deciding.get(entrant_id, []),
                championship_points=points,
            )
            for entrant_id, place, points in order
        ]
        return pb.Standings(
            tournament_id=self.tournament_id,
            status=self.status,
            final=self.status == FINISHED,
            rows=rows,
        )

    def to_pb(self) -> pb.Tournament:
        c = self.config
        return pb.Tournament(
            tournament_id=self.tournament_id,
            name=c.name,
            organizer_id=c.organizer_id,
            ruleset=c.ruleset,
            rounds=c.rounds,
            change_every=c.change_every,
            max_per_table=c.max_per_table,
            registration_closes_at=c.registration_closes_at,
            start_at=c.start_at,
            fill_with_bots=c.fill_with_bots,
            ranked=c.ranked,
            max_entrants=c.max_entrants,
            min_entrants=c.min_entrants,
            turn_seconds=c.turn_seconds,
            status=self.status,
            entrants=[entrant_pb(e) for e in self.entrants],
            block=self.block,
            blocks=c.blocks,
            tables=[table_pb(i, t, c.change_every) for i, t in enumerate(self.tables)],
            created_at=self.created_at,
            started_at=self.started_at,
            finished_at=self.finished_at,
            championship_year=self.year,
            decides_championship=c.decides_year,
        )


def entrant_pb(e: Entrant) -> pb.Entrant:
    return pb.Entrant(entrant_id=e.entrant_id, name=e.name, bot_level=e.bot_level, left=e.left)


def table_pb(index: int, t: TableMatch, rounds: int) -> pb.Table:
    return pb.Table(table=index, entrants=t.entrants, match_id=t.match_id, done=t.done(rounds))


def places_of(t: Tournament) -> Mapping[str, dict[str, Any]]:
    return {p["entrant"]: p for p in t.final}


CHAMPIONSHIP_ORGANIZER = "championship"
"""The organizer id of the deciding tournaments the service schedules itself."""


def championship_decider(
    year: int, group: Sequence[tuple[str, str]], now: float, start_at: float
) -> Tournament:
    """The deciding tournament of a championship tie: the tied (player, name) pairs as entrants
    in championship order, one unranked round of the East-Frisian rules, starting at
    ``start_at``. Its id is made of the year and the players, so scheduling it twice (two
    replicas, or one after a crash) finds the first."""
    players = [player for player, _ in group]
    digest = hashlib.sha256(f"championship\0{year}\0{chr(0).join(players)}".encode()).digest()
    config = Config(
        name=f"Championship {year}: deciding game",
        organizer_id=CHAMPIONSHIP_ORGANIZER,
        ruleset="ostfriesland",
        rounds=1,
        change_every=1,
        max_per_table=8,
        registration_closes_at=0.0,
        start_at=start_at,
        fill_with_bots=False,
        ranked=False,
        max_entrants=len(group),
        min_entrants=2,
        turn_seconds=60,
        bot_level="heuristic",
        decides_year=year,
    )
    return Tournament(
        tournament_id=base64.urlsafe_b64encode(digest[:16]).rstrip(b"=").decode(),
        config=config,
        created_at=now,
        seed=digest[16:].hex(),
        entrants=[
            Entrant(player, name or player, "heuristic" if player.startswith(BOT_ENTRANT) else "")
            for player, name in group
        ],
    )
