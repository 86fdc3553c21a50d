"""What a commit leaves to do once it is stored, and the one story of how it gets done."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence

from maumau import wire
from maumau.engine.record import MatchRecord, Status, Stored
from maumau.engine.settings import EngineSettings
from maumau.engine.store import MatchStore
from maumau.rules import Match
from maumau.v1 import game_pb2

log = logging.getLogger(__name__)


class AfterCommit:
    """The owner of every obligation a commit leaves: the match's deadline where the commit
    round could not write it for good (``deadlines.ClusterDeadlines``), the set of matches being
    played, and a finished match's result handed on (the results stream, its players' lists,
    its deadline dropped).

    How each gets done, whatever fails: the commit is stored before any of this runs, and every
    step is idempotent. The match's deadline is what brings it back: while it is set, the
    deadline loop (``Matches.handle_due``) redoes whatever is left: it hands a finished match's
    result on (due ``RESULT_GRACE_SECONDS`` after the end), moves a bot, times out a turn. So a
    step that fails is logged and the call still answers with its commit, except when no
    deadline is known to be set and no result went out: then the call fails with the error
    (UNAVAILABLE), and its retry (the same request id) finds the commit stored and calls
    :meth:`replayed`, which does the obligations again."""

    def __init__(self, store: MatchStore, settings: EngineSettings) -> None:
        self.store = store
        self.settings = settings

    async def committed(
        self, was: Status, record: MatchRecord, state: bytes, due: float | None, written: bool
    ) -> None:
        """After a commit that took the match from status ``was`` to ``record``'s, with the
        deadline ``due`` (``written``: the commit's round trip wrote it)."""
        unset: Exception | None = None
        try:
            await self.store.deadlines.again(record.match_id, due)
        except Exception as error:
            log.warning("match %s: its deadline was not set: %r", record.match_id, error)
            unset = None if written else error
        # Apart from the deadline: its node may be the one that failed, and a finished match's
        # result must not wait for it.
        try:
            if record.status != was:
                active = self.store.active_call(record.match_id, record.status == Status.PLAYING)
                await self.store.durability.run([active])
            if record.status == Status.OVER and was != Status.OVER:
                await self.finish(record, state)
                unset = None  # finished: no deadline is needed any more
        except Exception:
            log.exception(
                "match %s: after-commit work failed; its deadline retries it", record.match_id
            )
        if unset is not None:
            raise unset

    async def created(self, settled: Sequence[tuple[str, float | None, bool]]) -> None:
        """After ``MatchStore.commit_new``, in one round trip: each (match id, deadline,
        playing)'s deadline set again where the strategy says so (confirmed by replicas) and a
        started match put among the active ones. Raises when that failed: the call's retry (the
        same request ids) finds the matches stored and calls :meth:`replayed` for each."""
        calls = self.store.deadlines.again_calls([(match_id, due) for match_id, due, _ in settled])
        calls += [self.store.active_call(match_id, True) for match_id, _, on in settled if on]
        await self.store.durability.run(calls)

    async def replayed(self, stored: Stored, due: float | None) -> None:
        """A retried request found its work stored: its first call may have failed after the
        commit with its obligations undone. Hand a finished match's result on again, else set
        its deadline ``due`` again (only earlier). A failure fails the retry, which the caller
        makes again."""
        if stored.record.status == Status.OVER:
            await self.finish(stored.record, stored.state)
        else:
            await self.store.deadlines.again(stored.record.match_id, due)

    async def finish(self, record: MatchRecord, state: bytes) -> None:
        """Hand the result to the results stream and move the match among the finished ones
        of its players' lists, then drop its deadline (again after a crash: all idempotent)."""
        result = match_result(record, Match.from_bytes(state))
        settings = self.settings
        await self.store.publish_result(result, settings.retention_seconds)
        await self.store.index_players(
            [(player_id, record.match_id) for player_id in record.players if player_id],
            result.finished_at,
            settings.player_history,
            settings.retention_seconds,
            finished=True,
        )
        await self.store.deadlines.clear(record.match_id)


def walked_away(record: MatchRecord, seat: int) -> bool:
    """A player of a ranked match whose seat the stand-in bot still plays at the end (handed over
    after turn timeouts): on the ladder that is leaving, and leaving counts as finishing last."""
    return record.ranked and bool(record.players[seat]) and bool(record.bots[seat])


def match_result(record: MatchRecord, match: Match) -> game_pb2.MatchResult:
    """The finished match as the results stream carries it (the contract: ``MatchResult``)."""
    outcome = match.outcome
    winners = outcome.winners if outcome else ()
    return game_pb2.MatchResult(
        match_id=record.match_id,
        ruleset=record.ruleset,
        preset=match.ruleset.preset,
        ranked=record.ranked,
        teams=match.ruleset.teams,
        seats=[
            game_pb2.MatchResult.Seat(
                seat=s,
                player_id=record.players[s],
                bot_level=wire.bot_level_to_pb(record.bots[s] if not record.players[s] else ""),
                left=record.left[s] or walked_away(record, s),
                team=match.team_of(s)[0],
                total=match.totals[s],
                rounds_won=match.round_wins[s],
                specials=match.specials[s],
                winner=s in winners,
            )
            for s in range(record.seats)
        ],
        winners=winners,
        reason=outcome.reason if outcome else "",
        rounds=match.round,
        finished_at=time.time(),
    )
