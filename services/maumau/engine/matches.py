"""Match life cycle on top of the store: create, seat, start, move, time out, finish.

Every change is one optimistic transaction: read the record, state and version; compute the new
ones with the rules core; commit them only if the version is unchanged (see ``store.COMMIT``);
on a lost race read again and recompute. So two replicas never lose or double a move. What a
commit leaves to do is ``aftercommit.AfterCommit``'s.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial

import grpc
import prometheus_client
from google.protobuf.message import Message

from maumau import wire
from maumau.common.errors import ServiceError
from maumau.engine import lobby
from maumau.engine.aftercommit import AfterCommit
from maumau.engine.bots import BotPlayers
from maumau.engine.codec import Answers, KeptAnswer
from maumau.engine.record import MatchRecord, Status, Stored
from maumau.engine.settings import EngineSettings
from maumau.engine.store import Committed, MatchStore, NewMatch
from maumau.rules import Action, Call, Catch, Match, Ruleset
from maumau.rules import events as ev
from maumau.rules.kinds import Outcome, Phase, Reason
from maumau.v1 import engine_pb2, game_pb2

log = logging.getLogger(__name__)

MAX_RETRIES = 50
RESULT_GRACE_SECONDS = 5.0

MOVES = prometheus_client.Counter("engine_moves_total", "Actions applied, by preset.", ["preset"])
_MOVES_BY_PRESET: dict[str, prometheus_client.Counter] = {}
"""MOVES per preset, its label looked up once (a lookup takes a lock)."""
CAS_RETRIES = prometheus_client.Counter(
    "engine_cas_retries_total", "Commits retried after another replica changed the match first."
)
TIMEOUTS = prometheus_client.Counter("engine_timeouts_total", "Turn timers that ran out.")
MATCHES_STARTED = prometheus_client.Counter("engine_matches_started_total", "Matches dealt.")
MATCHES_FINISHED = prometheus_client.Counter("engine_matches_finished_total", "Matches over.")
MATCHES_ACTIVE = prometheus_client.Gauge(
    "engine_matches_active", "Matches being played, as counted in Redis."
)
DEADLINE_OVERDUE = prometheus_client.Gauge(
    "engine_deadline_overdue_seconds",
    "How long the earliest deadline (turn timer, bot move) is past due, as seen in Redis: "
    "above a lease, the matches behind it stand still longer than their timers allow.",
)


@dataclass(frozen=True)
class BotDecision:
    """A bot seat's action, chosen for one version of the match."""

    version: int
    seat: int
    action: Action


@dataclass
class Change:
    """What one transaction writes: the new record and state, the events, the answer to keep."""

    record: MatchRecord
    state: bytes
    events: list[game_pb2.Event] = field(default_factory=list)
    match: Match | None = None
    """The rules state that ``state`` encodes, when the change has it at hand: what comes after
    the commit (deadline, answer) reads it instead of decoding ``state`` again."""
    answer: Message | None = None
    """What the caller is told."""
    keep_answer: bool = False
    """Whether the answer is kept for a retry of the same request: its version and events (see
    ``codec.KeptAnswer``)."""
    action: str = ""
    """The text of the action a kept answer answers, kept with its request id."""
    moved: str = ""
    """The preset, when the change applies actions (counted once it is committed)."""
    started: bool = False
    timed_out: bool = False

    def rules(self) -> Match:
        """The rules state of the match after the change (decoded once, if at all)."""
        if self.match is None:
            self.match = Match.from_bytes(self.state)
        return self.match


@dataclass
class Updated:
    """What ``Matches.update`` did."""

    stored: Stored
    """The match as this update committed it, or as it was read when nothing was written."""
    change: Change | None
    """What was committed; None: nothing to change, or a repeated request."""
    earlier: KeptAnswer | None = None
    """What was kept of the first answer, when the request was applied before."""


def dealt(record: MatchRecord, now: float, before: Sequence[game_pb2.Event] = ()) -> Change:
    """The change that deals the first round (after the events ``before``)."""
    match, events = lobby.start(record, now)
    return Change(record, match.to_bytes(), [*before, *events], match=match, started=True)


def seated(record: MatchRecord, state: bytes, events: list[game_pb2.Event], now: float) -> Change:
    """A change of the lobby; when it took the last seat of a match that starts by itself, the
    same transaction deals."""
    if lobby.ready(record):
        return dealt(record, now, events)
    return Change(record, state, events)


def due_seat(match: Match) -> int:
    """The seat the match waits for."""
    return match.chooser if match.phase == "starter_suit" else match.turn


def info(
    record: MatchRecord, version: int, outcome: game_pb2.Outcome | None = None
) -> engine_pb2.MatchInfo:
    """Public facts of a match; the server seed only once the match is over."""
    ruleset = Ruleset.parse(record.ruleset)
    return engine_pb2.MatchInfo(
        match_id=record.match_id,
        ruleset=wire.ruleset_to_pb(ruleset),
        ruleset_text=record.ruleset,
        seats=record.seats,
        seat_info=seat_info(record),
        status=record.status,
        ranked=record.ranked,
        turn_seconds=record.turn_seconds,
        seed_commitment=record.seed_commitment,
        server_seed=record.server_seed if record.status == Status.OVER else "",
        nonces=record.nonces if record.status != Status.LOBBY else [],
        version=version,
        outcome=outcome,
    )


def seat_info(record: MatchRecord) -> tuple[game_pb2.SeatInfo, ...]:
    """Who sits in each seat. The messages are shared (the same seats are shown on every
    action): whoever uses them copies them, never changes them."""
    return _seat_info(
        tuple(record.players), tuple(record.names), tuple(record.bots), tuple(record.left)
    )


@functools.lru_cache(maxsize=1024)
def _seat_info(
    players: tuple[str, ...], names: tuple[str, ...], bots: tuple[str, ...], left: tuple[bool, ...]
) -> tuple[game_pb2.SeatInfo, ...]:
    return tuple(
        game_pb2.SeatInfo(
            seat=s,
            player_id=players[s],
            name=names[s],
            bot_level=wire.bot_level_to_pb(bots[s]),
            left=left[s],
        )
        for s in range(len(players))
    )


class Matches:
    """The engine's operations on matches; the gRPC servicer and the timer loop call these."""

    def __init__(self, store: MatchStore, settings: EngineSettings, secret: bytes) -> None:
        self.store = store
        self.settings = settings
        self.bots = BotPlayers(settings.bot_addresses, secret, settings.bot_budget_ms)
        self.after_commit = AfterCommit(store, settings)

    async def load(self, match_id: str) -> Stored:
        stored = await self.store.load(match_id)
        if stored is None:
            raise ServiceError(grpc.StatusCode.NOT_FOUND, f"no match {match_id!r}")
        return stored

    async def update(
        self,
        match_id: str,
        change: Callable[[Stored], Change | None],
        request: tuple[int, str] | None = None,
    ) -> Updated:
        """Apply ``change`` to the latest state, retrying lost races. ``request``: the seat and
        request id of an action; when it was applied before, nothing is computed or written and
        what was kept of its first answer is returned.

        The change starts from the match as this replica remembers it (``store.current``); the
        commit's version check catches one that moved on elsewhere. Only a commit confirms what
        is remembered, so a change that fails, finds nothing to do or finds its request
        answered on it is computed again from a fresh read before that is answered."""
        for _ in range(MAX_RETRIES):
            current = await self.store.current(match_id)
            if current is None:
                raise ServiceError(grpc.StatusCode.NOT_FOUND, f"no match {match_id!r}")
            stored = current.stored
            answers = None
            if request is not None:
                seat, request_id = request
                answers = current.answers(seat)
                earlier = answers.answer(request_id)
                if earlier is not None:
                    if not current.fresh:  # answered with the match as it is now
                        self.store.cache.forget(match_id)
                        continue
                    # What the request carried, to tell a retry from a reuse for another action.
                    used = await self.store.used_request(match_id, seat, request_id)
                    await self.settle_replayed(stored)
                    return Updated(stored, None, used or earlier)
            # The change works on a copy: ``stored`` stays the state it was computed from, so the
            # status before and after can be told apart after the commit.
            try:
                result = change(Stored(stored.record.copy(), stored.state, stored.version))
            except Exception:
                if not current.fresh:
                    self.store.cache.forget(match_id)
                    continue
                if request is not None:  # refused now: an older request of the seat's again?
                    used = await self.store.used_request(match_id, *request)
                    if used is not None:
                        await self.settle_replayed(stored)
                        return Updated(stored, None, used)
                raise
            if result is None:
                if not current.fresh:
                    self.store.cache.forget(match_id)
                    continue
                return Updated(stored, None)
            answered = None
            if answers is not None and request is not None and result.keep_answer:
                answered = (answers, request[1])
            committed = await self._commit(stored, result, answered)
            if committed.status == "ok":
                return Updated(Stored(result.record, result.state, committed.version), result)
            if committed.status == "used":  # an older request id of the seat's, used again
                fresh = await self.store.load_current(match_id)
                if fresh is None:
                    raise ServiceError(grpc.StatusCode.NOT_FOUND, f"no match {match_id!r}")
                await self.settle_replayed(fresh.stored)
                return Updated(fresh.stored, None, committed.earlier)
            CAS_RETRIES.inc()
        raise ServiceError(grpc.StatusCode.ABORTED, "the match is too busy; try again")

    async def kept_events(self, match_id: str, kept: KeptAnswer) -> list[game_pb2.Event]:
        """The events of a kept answer's commit, as they were committed (for every seat)."""
        events = await self.store.entry_events(match_id, kept.entry_id)
        if events is None:
            raise ServiceError(grpc.StatusCode.NOT_FOUND, f"no match {match_id!r}")
        return [game_pb2.Event.FromString(event) for event in events]

    async def create(self, change: Change) -> Stored:
        """Store a new match (dealt already when it starts by itself)."""
        committed = await self._commit(None, change)
        if committed.status != "ok":
            raise ServiceError(
                grpc.StatusCode.ALREADY_EXISTS, f"match {change.record.match_id} exists"
            )
        return Stored(change.record, change.state, committed.version)

    async def create_many(self, changes: list[Change]) -> list[Stored | None]:
        """Store new matches as :meth:`create` does, in one round trip for all of them and one
        for what follows their commits; None for a match that exists already."""
        now = time.time()
        dues = [self.next_deadline(change, now) for change in changes]
        committed = await self.store.commit_new(
            [
                NewMatch(
                    change.record,
                    change.state,
                    [event.SerializeToString() for event in change.events],
                    self._lifetime(change.record.status),
                    due,
                )
                for change, due in zip(changes, dues, strict=True)
            ]
        )
        settled = []
        for change, due, done in zip(changes, dues, committed, strict=True):
            if done.status == "ok":
                if change.started:
                    MATCHES_STARTED.inc()
                playing = change.record.status == Status.PLAYING
                settled.append((change.record.match_id, due, playing))
        await self.after_commit.created(settled)
        return [
            Stored(change.record, change.state, done.version) if done.status == "ok" else None
            for change, done in zip(changes, committed, strict=True)
        ]

    async def _commit(
        self,
        before: Stored | None,
        change: Change,
        answered: tuple[Answers, str] | None = None,
    ) -> Committed:
        """Write ``change`` if the match is still at ``before``'s version (None: new), with its
        next deadline in the same round trip (``deadlines``), so a replica dying right after it
        leaves no match without its deadline; then count it and do what it leaves to do."""
        record = change.record
        due = self.next_deadline(change, time.time())
        committed = await self.store.commit(
            record.match_id,
            None if before is None else before.version,
            record,
            change.state,
            [event.SerializeToString() for event in change.events],
            answered,
            self._lifetime(record.status),
            deadline=due,
            action=change.action,
        )
        if committed.status == "ok":
            was = Status.LOBBY if before is None else before.record.status
            _count(was, change)
            await self.after_commit.committed(
                was, record, change.state, due, committed.deadline_written
            )
        return committed

    def _lifetime(self, status: Status) -> int:
        """How long a match's keys live from a commit: a lobby only so long without a change,
        a finished match for the retention, a match being played for good (it ends by itself,
        at the latest as abandoned)."""
        if status == Status.LOBBY:
            return self.settings.lobby_seconds
        return self.settings.retention_seconds if status == Status.OVER else 0

    async def settle_replayed(self, stored: Stored) -> None:
        """A retried request found its work stored: what its first call may have left undone
        is done again (``AfterCommit.replayed``)."""
        due = self.next_deadline(Change(stored.record, stored.state), time.time())
        await self.after_commit.replayed(stored, due)

    # ---------------------------------------------------------------- play

    def move(
        self,
        stored: Stored,
        seat: int,
        action: Action,
        extra: list[game_pb2.Event] | None = None,
        timed_out: bool = False,
    ) -> Change:
        """Apply one action of ``seat``; a rules error propagates and nothing is written.
        ``timed_out``: the action is a silent seat's default, which ends its turn."""
        record = stored.record
        if record.status != Status.PLAYING:
            raise ServiceError(
                grpc.StatusCode.FAILED_PRECONDITION,
                "the match has not started yet"
                if record.status == Status.LOBBY
                else "the match is over",
            )
        match = Match.from_bytes(stored.state)
        waited_for, was_phase = due_seat(match), match.phase
        rules_events = match.apply(seat, action)
        if timed_out and match.phase == "drawn" and due_seat(match) == seat:
            # A timed-out turn ends: the drawn card is kept (one timeout per turn, not two).
            rules_events += match.apply(seat, match.default_action(seat))
        record.moved_at = time.time()
        if self._turn_changed(match, waited_for, was_phase, rules_events):
            record.turn_started_at = record.moved_at
        events = [*(extra or []), *map(_event_pb, rules_events)]
        if match.phase == "over":
            record.status = Status.OVER
            events.append(
                game_pb2.Event(
                    seed_revealed=game_pb2.SeedRevealed(
                        server_seed=record.server_seed, deal_seed=record.deal_seed
                    )
                )
            )
        return Change(record, match.to_bytes(), events, match=match, moved=match.ruleset.preset)

    @staticmethod
    def _turn_changed(
        match: Match, waited_for: int, was_phase: str, rules_events: list[ev.Event]
    ) -> bool:
        """Whether a new turn (with a fresh turn timer) began: another seat is due, a turn
        started (also the same seat's again, after a skip around a small table), the starter's
        suit was named, or the match ended."""
        return (
            due_seat(match) != waited_for
            or match.phase == "over"
            or (was_phase == "starter_suit" and match.phase != "starter_suit")
            or any(isinstance(event, ev.TurnStarted) for event in rules_events)
        )

    # ---------------------------------------------------------------- deadlines

    def next_deadline(self, change: Change, now: float) -> float | None:
        """When the match next needs the engine itself: a bot to move, a turn timer, a result
        (the replica that finishes a match hands the result on at once and drops the deadline;
        it comes due only when that replica died first, so two rarely hand it on together)."""
        record = change.record
        if record.status == Status.OVER:
            return now + RESULT_GRACE_SECONDS
        if record.status != Status.PLAYING:
            return None
        if bot_seat(record, change.rules()) is not None:
            return now + self.settings.bot_delay_seconds
        abandoned = self.abandoned_at(record)
        if record.turn_seconds:
            return min(record.turn_started_at + record.turn_seconds, abandoned)
        return abandoned

    def abandoned_at(self, record: MatchRecord) -> float:
        """When the match ends as abandoned if nobody acts."""
        return record.moved_at + self.settings.abandon_seconds

    async def handle_due(self, match_id: str) -> None:
        """Act on a claimed deadline: publish a result, move a bot, or time out a silent seat."""
        stored = await self.store.load(match_id)
        if stored is None:
            await self.store.deadlines.clear(match_id)
            return
        if stored.record.status == Status.OVER:
            await self.after_commit.finish(stored.record, stored.state)
            return
        decision = await self._bot_decision(stored)
        updated = await self.update(match_id, partial(self._due_change, decision))
        if updated.change is None:
            await self._reschedule(updated.stored)

    async def _reschedule(self, stored: Stored) -> None:
        """Nothing was due (early, or no longer): move the deadline to when the state needs it,
        or drop it. Then look again: a move another replica committed meanwhile may need it
        sooner, and setting or dropping it here must not cost that move its bot or timer (the
        move also sets its deadline after its commit; this covers a commit that came first)."""
        match_id = stored.record.match_id
        due = self.next_deadline(Change(stored.record, stored.state), time.time())
        if due is None:
            await self.store.deadlines.clear(match_id)
        else:
            await self.store.deadlines.set(match_id, due)
        latest = await self.store.load(match_id)
        if latest is not None and latest.version != stored.version:
            due = self.next_deadline(Change(latest.record, latest.state), time.time())
            if due is not None:
                await self.store.deadlines.set(match_id, due, only_earlier=True)

    async def _bot_decision(self, stored: Stored) -> BotDecision | None:
        """Ask the bot of the seat that is to act, if any (outside the transaction: the bot
        service may think for a while, and the move is dropped if the match moved meanwhile)."""
        if stored.record.status != Status.PLAYING:
            return None
        match = Match.from_bytes(stored.state)
        seat = bot_seat(stored.record, match)
        if seat is None:
            return None
        level = stored.record.bots[seat]
        view = match.view(seat)
        action = await self.bots.decide(view, level, stored.record.match_id, stored.version)
        return BotDecision(stored.version, seat, action)

    def _due_change(self, decision: BotDecision | None, stored: Stored) -> Change | None:
        record = stored.record
        if record.status != Status.PLAYING:
            return None
        if time.time() >= self.abandoned_at(record):
            return abandon(stored)
        if decision is not None:
            if decision.version != stored.version:
                return None  # the match moved on: the rescheduled deadline asks again
            return self.move(stored, decision.seat, decision.action)
        match = Match.from_bytes(stored.state)
        seat = due_seat(match)
        if record.bots[seat]:
            return None
        if not record.turn_seconds or time.time() < record.turn_started_at + record.turn_seconds:
            return None
        extra = [game_pb2.Event(timed_out=game_pb2.SeatOnly(seat=seat))]
        record.timeouts[seat] += 1
        if record.timeouts[seat] >= record.max_timeouts:
            record.bots[seat] = lobby.STAND_IN_BOT
            extra.append(game_pb2.Event(handed_to_bot=game_pb2.SeatOnly(seat=seat)))
        change = self.move(stored, seat, match.default_action(seat), extra, timed_out=True)
        change.timed_out = True
        return change


@functools.lru_cache(maxsize=1024)
def _event_pb(event: ev.Event) -> game_pb2.Event:
    """``wire.event_to_pb`` remembered: the same few events (a card played, a turn started)
    recur in every match. The message is shared, so a change's events are never changed in
    place: they are serialized for the commit and copied into answers."""
    return wire.event_to_pb(event)


def abandon(stored: Stored) -> Change:
    """End a match nobody acted in for too long: no winners, reason ``abandoned``; its result
    goes to the results stream like any other."""
    record = stored.record
    match = Match.from_bytes(stored.state)
    match.phase = Phase.OVER
    match.outcome = Outcome((), Reason.ABANDONED)
    record.status = Status.OVER
    over = ev.MatchOver((), tuple(match.totals), Reason.ABANDONED.value)
    revealed = game_pb2.Event(
        seed_revealed=game_pb2.SeedRevealed(
            server_seed=record.server_seed, deal_seed=record.deal_seed
        )
    )
    return Change(record, match.to_bytes(), [wire.event_to_pb(over), revealed], match=match)


def bot_seat(record: MatchRecord, match: Match) -> int | None:
    """The bot seat with something to do: the seat the match waits for, or any bot seat that
    may make a call or catch another seat's missed one (bots do both at once)."""
    waited_for = due_seat(match)
    if record.bots[waited_for]:
        return waited_for
    for seat in range(record.seats):
        if record.bots[seat] and any(
            type(action) in (Call, Catch) for action in match.legal_actions(seat)
        ):
            return seat
    return None


def _count(was: Status, change: Change) -> None:
    """Count a committed change in the engine's metrics."""
    if change.moved:
        moves = _MOVES_BY_PRESET.get(change.moved)
        if moves is None:
            moves = _MOVES_BY_PRESET[change.moved] = MOVES.labels(change.moved)
        moves.inc()
    if change.started:
        MATCHES_STARTED.inc()
    if change.timed_out:
        TIMEOUTS.inc()
    if change.record.status == Status.OVER and was != Status.OVER:
        MATCHES_FINISHED.inc()
