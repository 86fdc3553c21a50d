"""Private rooms: an invite code, seats kept for the same people, match after match, a tally.

A room lives under ``mm:room:{CODE}`` (JSON, changed with WATCH/MULTI, so replicas never lose a
change; it expires ``room_ttl_seconds`` after its last change). Its life:

- open: the host created it (seat 0); players join by code and take the next free seat. The host
  starts it (bots of the room's level take the empty seats), or it starts when its last seat is
  taken.
- starting: one replica holds a lease on it while it creates the match on the engine (the
  commitments of the seeds it tried are kept, so a replica taking over a stalled start finds a
  match created before its creator died). ``mm:rooms:starting`` (sorted set: code -> lease end)
  lets any replica's sweep find stalled starts.
- playing: ``match_id`` is on. The engine publishes each finished match on the results stream
  (``MatchResult``); the matchmakers read it as the consumer group ``matchmaking``
  (:class:`RoomResults`: each result handled by one replica, again by another if that one dies
  before acknowledging it), add the winners' seats to the tally and start the next match with the
  same seats: starting again.

``mm:room-match:{match_id}`` names the room of a match, for the results.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import secrets
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import cast

import grpc
import prometheus_client
import redis.asyncio as redis
from redis.exceptions import WatchError

from maumau.common.config import ConsumerSettings
from maumau.common.errors import ServiceError
from maumau.common.results import RESULTS_STREAM, BadEntry, read_result
from maumau.common.streams import StreamConsumer, StreamEntry
from maumau.matchmaking.notify import Notifier
from maumau.matchmaking.tables import MatchPlan, Tables, new_seed
from maumau.v1 import game_pb2

log = logging.getLogger(__name__)

CODE_LETTERS = "ABCDEFGHJKMNPQRSTUVWXYZ"
"""The alphabet without I, L and O, which read like 1, 1 and 0."""
CODE_LENGTH = 6
STARTING = "mm:rooms:starting"
GROUP = "matchmaking"
OPEN, STARTING_STATUS, PLAYING = "open", "starting", "playing"

ROOMS_CREATED = prometheus_client.Counter("matchmaking_rooms_created_total", "Rooms opened.")
ROOM_MATCHES = prometheus_client.Counter(
    "matchmaking_room_matches_started_total", "Matches started in rooms."
)


def room_key(code: str) -> str:
    return f"mm:room:{{{code}}}"


def room_match_key(match_id: str) -> str:
    return f"mm:room-match:{{{match_id}}}"


def link(code: str) -> str:
    return f"maumau://room/{code}"


def web_path(code: str) -> str:
    return f"/room/{code}"


def normalize_code(text: str) -> str:
    """The code of ``text``: a code in any case with separators, or a link ending in one."""
    last = text.strip().rstrip("/").rsplit("/", 1)[-1]
    code = re.sub(r"[\s_-]", "", last).upper()
    if len(code) != CODE_LENGTH or any(c not in CODE_LETTERS for c in code):
        raise ServiceError(
            grpc.StatusCode.INVALID_ARGUMENT,
            f"{text!r} is not a room code: six letters like KXWMPQ, or a link ending in one",
        )
    return code


@dataclass
class RoomRecord:
    code: str
    ruleset: str
    seats: int
    bot_level: str
    turn_seconds: int
    host: str
    players: list[str]
    """Per seat: the player sitting there, '' for a bot or a free seat."""
    bots: list[str]
    """Per seat: the bot level of a bot seat, else ''."""
    wins: list[int]
    status: str = OPEN
    match_id: str = ""
    matches: int = 0
    owner: str = ""
    lease_until: float = 0.0
    commitments: list[str] = field(default_factory=list)
    version: int = 0

    def to_json(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str | bytes) -> RoomRecord:
        return cls(**json.loads(text))

    def seat_of(self, player_id: str) -> int:
        return self.players.index(player_id) if player_id in self.players else -1

    def free_seats(self) -> list[int]:
        return [s for s in range(self.seats) if not self.players[s] and not self.bots[s]]

    def plan(self) -> MatchPlan:
        return MatchPlan(
            ruleset=self.ruleset,
            seats=self.seats,
            seating=[(p, s) for s, p in enumerate(self.players) if p],
            bots={s: level for s, level in enumerate(self.bots) if level},
            turn_seconds=self.turn_seconds,
        )


class Rooms:
    def __init__(
        self,
        client: redis.Redis,
        tables: Tables,
        notifier: Notifier,
        replica: str,
        lease_seconds: float,
        ttl_seconds: float,
    ) -> None:
        self.redis = client
        self.tables = tables
        self.notifier = notifier
        self.replica = replica
        self.lease_seconds = lease_seconds
        self.ttl = int(ttl_seconds)

    # ---------------------------------------------------------------- storage

    async def load(self, code: str) -> RoomRecord:
        text = await self.redis.get(room_key(code))
        if text is None:
            raise ServiceError(grpc.StatusCode.NOT_FOUND, f"no room {code}")
        return RoomRecord.from_json(text)

    async def update(
        self, code: str, change: Callable[[RoomRecord], bool]
    ) -> tuple[RoomRecord, bool]:
        """Apply ``change`` (True: it changed the room) to the latest room, retrying when another
        replica changed it first. The room as stored after, and whether it changed."""
        key = room_key(code)
        async with self.redis.pipeline(transaction=True) as pipe:
            while True:
                try:
                    await pipe.watch(key)
                    text = await pipe.get(key)
                    if text is None:
                        raise ServiceError(grpc.StatusCode.NOT_FOUND, f"no room {code}")
                    room = RoomRecord.from_json(text)
                    if not change(room):
                        await pipe.unwatch()  # type: ignore[no-untyped-call]
                        return room, False
                    room.version += 1
                    pipe.multi()  # type: ignore[no-untyped-call]
                    pipe.set(key, room.to_json(), ex=self.ttl)
                    await pipe.execute()
                except WatchError:
                    continue
                await self.notifier.publish([f"r:{code}"])
                return room, True

    # ---------------------------------------------------------------- life cycle

    async def create(
        self, host: str, ruleset: str, seats: int, bot_level: str, turn_seconds: int
    ) -> RoomRecord:
        for _ in range(20):
            code = "".join(secrets.choice(CODE_LETTERS) for _ in range(CODE_LENGTH))
            room = RoomRecord(
                code,
                ruleset,
                seats,
                bot_level,
                turn_seconds,
                host,
                players=[host] + [""] * (seats - 1),
                bots=[""] * seats,
                wins=[0] * seats,
            )
            if await self.redis.set(room_key(code), room.to_json(), nx=True, ex=self.ttl):
                ROOMS_CREATED.inc()
                return room
        raise ServiceError(grpc.StatusCode.UNAVAILABLE, "no free room code found; try again")

    async def join(self, code: str, player: str) -> RoomRecord:
        """Seat the player (or give a member their seat back); start the room when full."""

        def take_seat(room: RoomRecord) -> bool:
            if player in room.players:
                return False
            if room.status != OPEN:
                raise ServiceError(
                    grpc.StatusCode.FAILED_PRECONDITION,
                    "the room is playing: only its players can come back",
                )
            free = room.free_seats()
            if not free:
                raise ServiceError(grpc.StatusCode.FAILED_PRECONDITION, "the room is full")
            room.players[free[0]] = player
            return True

        room, joined = await self.update(code, take_seat)
        if joined and not room.free_seats():
            room = await self.launch(code)
        return await self.recover(room)

    async def start(self, code: str, player: str) -> RoomRecord:
        room = await self.load(code)
        if room.host != player:
            raise ServiceError(grpc.StatusCode.PERMISSION_DENIED, "only the host starts the room")
        if room.status != OPEN:
            raise ServiceError(grpc.StatusCode.FAILED_PRECONDITION, "the room has started")
        if room.free_seats() and not room.bot_level:
            raise ServiceError(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"seats {room.free_seats()} are free and the room has no bots: wait for players",
            )
        return await self.launch(code)

    async def launch(
        self, code: str, finished: str = "", winners: Sequence[int] = (), takeover: bool = False
    ) -> RoomRecord:
        """Start the room's next match: the first (the room is open), the next after
        ``finished`` ended with ``winners`` (tallied here), or a stalled start (``takeover``).
        Does nothing when the room is not in the state the call expects."""
        now = time.time()
        seed, commitment = new_seed()
        earlier: list[str] = []
        await self.redis.zadd(STARTING, {code: now + self.lease_seconds})

        def claim(room: RoomRecord) -> bool:
            if finished:
                if room.status != PLAYING or room.match_id != finished:
                    return False
                for seat in winners:
                    room.wins[seat] += 1
            elif takeover:
                if room.status != STARTING_STATUS or room.lease_until > now:
                    return False
            elif room.status != OPEN:
                return False
            for seat in room.free_seats():
                room.bots[seat] = room.bot_level
            if room.free_seats():
                return False
            earlier[:] = room.commitments
            room.status, room.owner = STARTING_STATUS, self.replica
            room.lease_until = now + self.lease_seconds
            room.commitments = [*room.commitments, commitment]
            return True

        room, claimed = await self.update(code, claim)
        if not claimed:
            return room
        first_player = next(p for p in room.players if p)
        match_id = None
        try:
            for tried in earlier:
                match_id = match_id or await self.tables.find(first_player, tried)
            if match_id is None:
                match_id = await self.tables.create(room.plan(), seed)
        except Exception as error:
            log.warning("room %s: starting a match failed (%r); retried later", code, error)
            return room
        await self.redis.set(room_match_key(match_id), code, ex=self.ttl)

        def started(room: RoomRecord) -> bool:
            if room.status != STARTING_STATUS or room.owner != self.replica:
                return False
            room.status, room.match_id, room.commitments = PLAYING, match_id, []
            room.matches += 1
            return True

        room, done = await self.update(code, started)
        if done:
            ROOM_MATCHES.inc()
            await self.redis.zrem(STARTING, code)
        elif room.match_id != match_id and room.status != STARTING_STATUS:
            await self.tables.abandon(match_id, room.plan().seating)
        return room

    async def recover(self, room: RoomRecord) -> RoomRecord:
        """A room whose start stalled (its replica died) is started again on sight."""
        if room.status == STARTING_STATUS and room.lease_until <= time.time():
            return await self.launch(room.code, takeover=True)
        return room

    async def sweep(self) -> None:
        """Start the rooms whose start stalled; forget the entries of rooms that did start."""
        due = await self.redis.zrangebyscore(STARTING, "-inf", time.time(), 0, 20)
        for entry in cast(list[bytes], due):
            code = entry.decode()
            try:
                room = await self.launch(code, takeover=True)
            except ServiceError:  # the room is gone
                await self.redis.zrem(STARTING, code)
                continue
            if room.status != STARTING_STATUS:
                await self.redis.zrem(STARTING, code)


class RoomResults(StreamConsumer):
    """The matchmakers' consumer group ``matchmaking`` on the results stream: a room's finished
    match tallies its winners and starts the next one (once, whichever replica reads it), and
    every result is handed to ``arena`` too (the arena frees its bots: at least once, as the
    group delivers, so it must take a result twice as once)."""

    def __init__(
        self,
        rooms: Rooms,
        settings: ConsumerSettings,
        stream: str = RESULTS_STREAM,
        drain: bool = False,
        arena: Callable[[game_pb2.MatchResult], Awaitable[object]] | None = None,
    ):
        # A group made now starts at the stream's end: older results belong to no room's present.
        super().__init__(rooms.redis, stream, GROUP, settings, start_at="$", drain=drain)
        self.rooms = rooms
        self.arena = arena

    async def handle(self, entries: Sequence[StreamEntry]) -> None:
        for entry in entries:
            if not entry.fields:  # trimmed away meanwhile
                continue
            try:
                result = read_result(entry)
            except BadEntry as error:
                log.error("results entry skipped: %s", error)
                continue
            if self.arena is not None:
                await self.arena(result)
            code = cast(bytes | None, await self.rooms.redis.get(room_match_key(result.match_id)))
            if code is not None:
                with contextlib.suppress(ServiceError):  # the room is gone
                    await self.rooms.launch(
                        code.decode(), finished=result.match_id, winners=list(result.winners)
                    )
