"""The lobby's rules: what a new table may be, who takes which seat, leaving, and the deal.

Pure: the functions check and change a :class:`MatchRecord` value (the clock passed in as
``now``) and return the events that tell the followers; they read no token and touch no Redis.
The servicer resolves tokens and names before, and ``Matches`` commits what they compute.
A refusal is a :class:`ServiceError` carrying the status a caller gets.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from maumau import fairness, wire
from maumau.common.errors import denied, invalid, precondition
from maumau.engine.record import MatchRecord, Status
from maumau.rules import Match, Ruleset
from maumau.v1 import engine_pb2, game_pb2
from maumau.wire import BOT_LEVELS

MAX_TURN_SECONDS = 3600
MAX_NONCE_CHARS = 256
STAND_IN_BOT = "random"
"""The bot that takes over a seat whose player left or let the turn timer run out too often."""


@dataclass(frozen=True)
class Table:
    """A match as its creator asks for it, before anyone sits down."""

    ruleset: Ruleset
    seats: int
    bots: Mapping[int, str] = field(default_factory=dict)
    """Bot level by seat."""
    ranked: bool = False
    turn_seconds: int = 0
    """0: the engine's default turn timer."""
    max_timeouts: int = 0
    """Timeouts in a row before a bot takes the seat; 0: the default."""
    auto_start: bool = False


def new_match(
    match_id: str,
    table: Table,
    server_seed: str,
    now: float,
    default_max_timeouts: int,
    default_turn_seconds: int,
) -> MatchRecord:
    """The record of a new match with its bot seats taken and every other seat free; with the
    default turn timer when the table asks for none (a match with people always has one)."""
    table.ruleset.check_seats(table.seats)
    bots = [""] * table.seats
    for seat, level in table.bots.items():
        if not 0 <= seat < table.seats:
            raise invalid(f"bot seat {seat} is not a seat of this {table.seats}-seat table")
        if not level:
            raise invalid(f"bot seat {seat} names no level: choose one of {', '.join(BOT_LEVELS)}")
        if level not in BOT_LEVELS:
            raise invalid(f"bot level {level!r}: choose one of {', '.join(BOT_LEVELS)}")
        bots[seat] = level
    if not 0 <= table.turn_seconds <= MAX_TURN_SECONDS:
        raise invalid(f"turn_seconds must be from 0 (the default) to {MAX_TURN_SECONDS}")
    if table.max_timeouts < 0:
        raise invalid("max_timeouts must not be negative")
    return MatchRecord(
        match_id=match_id,
        ruleset=table.ruleset.text,
        seats=table.seats,
        ranked=table.ranked,
        turn_seconds=table.turn_seconds or default_turn_seconds,
        max_timeouts=table.max_timeouts or default_max_timeouts,
        auto_start=table.auto_start,
        seed_commitment=fairness.commitment(server_seed),
        server_seed=server_seed,
        players=[""] * table.seats,
        names=[f"{level} bot" if level else "" for level in bots],
        bots=bots,
        nonces=[""] * table.seats,
        left=[False] * table.seats,
        timeouts=[0] * table.seats,
        created_at=now,
    )


def first_free_seat(record: MatchRecord) -> int:
    """The seat a player creating the match takes."""
    free = record.free_seats()
    if not free:
        raise invalid("every seat is a bot seat: leave one for yourself")
    return free[0]


def sit(record: MatchRecord, seat: int, player_id: str, name: str, nonce: str) -> game_pb2.Event:
    """Seat a player at a free seat of a new match (as its creator places them)."""
    if not 0 <= seat < record.seats or record.players[seat] or record.bots[seat]:
        raise invalid(f"seat {seat} cannot take a player")
    return _seat(record, seat, player_id, name, nonce)


ANY_SEAT_DEPRECATED = -1
"""``JoinMatchRequest.seat`` -1: "any free seat" from before the field was optional; still taken
so in this release (deprecated: leave the seat out instead), refused from the next one."""


def requested_seat(request: engine_pb2.JoinMatchRequest) -> int | None:
    """The seat a JoinMatch asks for; None for any free one (no seat, or the deprecated -1).
    Any other negative number is INVALID_ARGUMENT."""
    if not request.HasField("seat") or request.seat == ANY_SEAT_DEPRECATED:
        return None
    if request.seat < 0:
        raise invalid(
            f"seat {request.seat} is not a seat: name one from 0, or leave seat out for any "
            "free one"
        )
    return request.seat


def join(
    record: MatchRecord, player_id: str, name: str, seat: int | None, nonce: str
) -> game_pb2.Event | None:
    """A player takes ``seat`` (or the first free one when None); None when the player is
    seated already (a rejoin, which changes nothing)."""
    if player_id in record.players:
        if record.left[record.players.index(player_id)]:
            raise precondition("you left this match for good; a bot plays your seat")
        return None
    if record.status != Status.LOBBY:
        raise precondition("the match has started; only its players can rejoin")
    if seat is not None and seat >= record.seats:
        raise invalid(f"there is no seat {seat} at this table of {record.seats}")
    free = record.free_seats()
    if seat is None:
        if not free:
            raise precondition("the match is full")
        seat = free[0]
    if seat not in free:
        raise precondition(f"seat {seat} is not free")
    return _seat(record, seat, player_id, name, nonce)


def _seat(record: MatchRecord, seat: int, player_id: str, name: str, nonce: str) -> game_pb2.Event:
    if len(nonce) > MAX_NONCE_CHARS:
        raise invalid(f"a nonce is at most {MAX_NONCE_CHARS} characters")
    record.players[seat], record.names[seat], record.nonces[seat] = player_id, name, nonce
    return game_pb2.Event(
        seat_joined=game_pb2.SeatJoined(seat=seat, player_id=player_id, name=name, nonce=nonce)
    )


def check_seat(record: MatchRecord, seat: int, player_id: str) -> None:
    """Refuse a seat token whose player does not (or no longer) hold that seat."""
    if not 0 <= seat < record.seats or record.players[seat] != player_id:
        raise denied("this seat token is not for a seat of this match")
    if record.left[seat]:
        raise denied("you left this match; a bot plays your seat now")


def leave(record: MatchRecord, seat: int) -> list[game_pb2.Event]:
    """Before the start the seat is free again; during play a bot takes it for good."""
    left = game_pb2.Event(left=game_pb2.SeatOnly(seat=seat))
    if record.status == Status.LOBBY:
        record.players[seat], record.names[seat], record.nonces[seat] = "", "", ""
        return [left]
    if record.status == Status.OVER:
        raise precondition("the match is over")
    record.left[seat], record.bots[seat] = True, STAND_IN_BOT
    return [left, game_pb2.Event(handed_to_bot=game_pb2.SeatOnly(seat=seat))]


def may_start(record: MatchRecord, player_id: str | None) -> None:
    """Only a seated player (or a platform service: ``player_id`` None) starts a match."""
    if player_id is not None and player_id not in record.players:
        raise denied("only a player seated at this match may start it")


def ready(record: MatchRecord) -> bool:
    """Whether the match starts by itself now: it asked to, and the last seat was taken."""
    return record.auto_start and record.status == Status.LOBBY and not record.free_seats()


def start(record: MatchRecord, now: float) -> tuple[Match, list[game_pb2.Event]]:
    """Deal the first round: the deal seed comes from the server seed and every nonce."""
    if record.status != Status.LOBBY:
        raise precondition("the match has already started")
    free = record.free_seats()
    if free:
        raise precondition(f"seats {free} are still free: fill them or make them bot seats")
    record.deal_seed = fairness.deal_seed(record.server_seed, record.nonces)
    match, events = Match.start(Ruleset.parse(record.ruleset), record.seats, record.deal_seed)
    record.status = Status.PLAYING
    record.turn_started_at = record.moved_at = now
    started = game_pb2.Event(
        match_started=game_pb2.MatchStarted(
            seed_commitment=record.seed_commitment, nonces=record.nonces
        )
    )
    return match, [started, *map(wire.event_to_pb, events)]
