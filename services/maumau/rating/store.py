"""The rating service's one Redis access layer: applying matches exactly once, and reading back.

The keys are sharded by preset: every key of one preset shares the hash tag ``{rating:<preset>}``,
so the script that applies a batch of one preset's matches touches a single Redis Cluster slot
(a match is of one preset; its players' ratings, the preset's ladders and the applied marks must
change together), and each preset's traffic has a slot of its own. A ladder is one sorted set, so
its top N and a player's rank are read from one key, exactly as before.

- ``{rating:<preset>}:player:<id>``  JSON per player (or bot level, ``bot:<level>``) in the
  preset: XP and match counts, and each season's rating (see :class:`PresetState`)
- ``{rating:<preset>}:ladder:<season>``  sorted set: rated id -> ordinal (mu - 3 sigma), the
  people's ladder
- ``{rating:<preset>}:bots:<season>``  sorted set: the same for the bots' ladder (bot levels and
  bot accounts, whose ``bot`` field in the player directory's ``player:{id}`` is ``"1"``)
- ``{rating:<preset>}:history:<id>``  sorted set: match id -> finished_at (the latest
  HISTORY_KEPT; the oldest are trimmed each time the player's count of matches in the preset
  passes a multiple of HISTORY_KEPT, so at most twice as many pile up, and those that finished a
  match retention before the newest at once); a player's history is the newest of every
  preset's, merged when read. It expires with the newest match record it names.
- ``{rating:<preset>}:match:<id>``  ``"<seq> <record>"``: the order in which the preset's matches
  were applied and the match's record (JSON, see :func:`apply_result`); its existence marks the
  match applied. It expires after the match retention, far longer than a result stays in the
  results stream (trimmed once every group has it), so no delivery of a result can outlive it.
- ``{rating:<preset>}:seq``  counter of the preset's applied matches

Earlier versions kept every key under the one tag ``{rating}`` (``{rating}:player:<id>:<preset>``,
``{rating}:ladder:<preset>:<season>``, ...); :meth:`RatingStore.migrate_single_slot` moves them
(``python -m maumau.rating.migrate``, with the rating replicas stopped).

Applying a batch: read which matches are applied and the players' states of the presets played,
compute the new states in Python (openskill; :mod:`maumau.rating.states`), then one Lua script
writes everything only if none of the matches was applied meanwhile and every state is still the
one read (compare and set: a state only ever changes by growing counts, so it never returns to an
earlier value); otherwise read again and recompute. So a match counts once however often it is
delivered, and two replicas applying matches of the same player lose no update.
"""

from __future__ import annotations

import heapq
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import orjson
import redis.asyncio as redis

from maumau.common.players import BOT, player_key
from maumau.common.ratings import RATING_KEPT_SECONDS, rating_key
from maumau.common.redis_client import Call, Durability, Script
from maumau.rating.farming import WINDOW_SECONDS
from maumau.rating.ladder import BOT_PREFIX, BOTS, PEOPLE, Result, Skill, current_season
from maumau.rating.states import PresetState, SeasonRating, apply_result
from maumau.rules.ruleset import PRESETS

log = logging.getLogger(__name__)

HISTORY_KEPT = 100
"""Matches kept in each player's history."""

# KEYS: the seq counter, the M match keys, the P player keys, then keys named by index in ARGV[1].
# ARGV[1]: JSON {"matches": M, "players": P, "expire": seconds a match record is kept,
# "sorted": [[key, [score, member, ...], oldest, trim], ...], "removed": [[key, [member, ...]],
# ...]}: a history (``oldest`` is then the oldest score it keeps, else false) is trimmed by score,
# and by rank to the newest ``keep`` when ``trim``, and expires with the newest match record it
# names; ``removed`` takes bots off a people's ladder (bot levels rated there before);
# ARGV[2]: history entries kept; then M match records, the P player states as read ('' for none)
# and the P new player states. Scores travel as strings: Lua numbers would lose digits.
_APPLY = Script(
    "rating.apply",
    """
local p = cjson.decode(ARGV[1])
local m, n, keep = p.matches, p.players, tonumber(ARGV[2])
if redis.call('EXISTS', unpack(KEYS, 2, m + 1)) > 0 then return 'conflict' end
if n > 0 then
  local current = redis.call('MGET', unpack(KEYS, m + 2, m + n + 1))
  for i = 1, n do
    if (current[i] or '') ~= ARGV[2 + m + i] then return 'conflict' end
  end
end
local seq = redis.call('INCRBY', KEYS[1], m) - m
for i = 1, m do
  redis.call('SET', KEYS[1 + i], (seq + i) .. ' ' .. ARGV[2 + i], 'EX', p.expire)
end
if n > 0 then
  local writes = {}
  for i = 1, n do
    writes[2 * i - 1], writes[2 * i] = KEYS[1 + m + i], ARGV[2 + m + n + i]
  end
  redis.call('MSET', unpack(writes))
end
for _, z in ipairs(p.sorted) do
  redis.call('ZADD', KEYS[z[1]], unpack(z[2]))
  if z[3] then
    redis.call('ZREMRANGEBYSCORE', KEYS[z[1]], '-inf', '(' .. z[3])
    if z[4] then
      redis.call('ZREMRANGEBYRANK', KEYS[z[1]], 0, -(keep + 1))
    end
    redis.call('EXPIRE', KEYS[z[1]], p.expire)
  end
end
for _, z in ipairs(p.removed) do
  redis.call('ZREM', KEYS[z[1]], unpack(z[2]))
end
return 'ok'
""",
)


@dataclass
class Applied:
    """What one apply() did: matches applied now, matches skipped as already applied (or
    repeated within the batch), and how many times a concurrent change forced a recompute."""

    applied: list[str] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)
    conflicts: int = 0


@dataclass
class _Step:
    """One preset's part of a batch: its results not applied yet, the states of everyone they
    rate (by rated id, as read, then as applied), and the ladders ((ladder, season) -> rated
    ids) they change."""

    preset: str
    fresh: list[Result]
    states: dict[str, PresetState]
    ladders: dict[tuple[str, str], dict[str, None]] = field(default_factory=dict)


@dataclass
class LadderRow:
    rated_id: str
    rank: int
    rating: SeasonRating


@dataclass
class Player:
    """Everything kept about one rated id: its state per preset played."""

    presets: dict[str, PresetState]

    def count(self, name: str) -> int:
        """``xp``, ``played``, ``won`` or ``left``, over every preset."""
        return sum(state.count(name) for state in self.presets.values())

    def ratings(self, ladder: str = PEOPLE) -> list[SeasonRating]:
        return [r for preset, state in self.presets.items() for r in state.ratings(preset, ladder)]


class RatingStore:
    """Reads and atomic writes of ratings in Redis; every replica uses one of these."""

    def __init__(
        self,
        client: redis.Redis,
        tag: str = "rating",
        durability: Durability | None = None,
        match_retention_seconds: int = 180 * 86400,
        farming_window_seconds: float = WINDOW_SECONDS,
    ) -> None:
        self.redis = client
        self.match_retention_seconds = match_retention_seconds
        self.farming_window_seconds = farming_window_seconds
        self.durability = durability or Durability(client)
        self.tag = tag

    # ---------------------------------------------------------------- keys

    def slot(self, preset: str) -> str:
        """The hash tag of every key of ``preset``: one Cluster slot per preset."""
        return f"{{{self.tag}:{preset}}}"

    def state_key(self, rated_id: str, preset: str) -> str:
        return f"{self.slot(preset)}:player:{rated_id}"

    def ladder_key(self, preset: str, season: str, ladder: str = PEOPLE) -> str:
        kind = "bots" if ladder == BOTS else "ladder"
        return f"{self.slot(preset)}:{kind}:{season}"

    def history_key(self, rated_id: str, preset: str) -> str:
        return f"{self.slot(preset)}:history:{rated_id}"

    def match_key(self, match_id: str, preset: str) -> str:
        return f"{self.slot(preset)}:match:{match_id}"

    def seq_key(self, preset: str) -> str:
        return f"{self.slot(preset)}:seq"

    @property
    def seq_keys(self) -> list[str]:
        """One key in every preset's slot (the health probe reads them)."""
        return [self.seq_key(preset) for preset in PRESETS]

    # ---------------------------------------------------------------- applying

    async def apply(self, results: Sequence[Result]) -> Applied:
        """Apply each match of ``results`` that is not applied yet, in order, in one atomic
        step per preset (the steps of all presets read in one round trip and written in
        another); a concurrent change to a player or match involved makes that preset's step
        read and try again."""
        outcome = Applied()
        bots = await self.bot_accounts({s.player_id for r in results for s in r.seats})
        for result in results:
            result.mark_bot_accounts(bots)
        unique: dict[str, Result] = {}
        for result in results:
            if result.match_id in unique:
                outcome.duplicates.append(result.match_id)
            else:
                unique[result.match_id] = result
        pending: dict[str, list[Result]] = {}
        for result in unique.values():
            pending.setdefault(result.preset, []).append(result)
        applied: set[str] = set()
        while pending:
            steps = await self._read(pending)
            retry: dict[str, list[Result]] = {}
            for step, committed in zip(steps, await self._commit(steps), strict=True):
                if committed:
                    applied.update(result.match_id for result in step.fresh)
                else:
                    outcome.conflicts += 1
                    retry[step.preset] = pending[step.preset]
            pending = retry
        outcome.applied = [match_id for match_id in unique if match_id in applied]
        outcome.duplicates += [match_id for match_id in unique if match_id not in applied]
        return outcome

    async def bot_accounts(self, player_ids: Iterable[str]) -> set[str]:
        """Those of ``player_ids`` the player directory calls bots (``players.is_bot``'s field,
        for many players in one round trip)."""
        wanted = sorted(player_id for player_id in player_ids if player_id)
        if not wanted:
            return set()
        async with self.redis.pipeline(transaction=False) as pipe:
            for player_id in wanted:
                pipe.hget(player_key(player_id), BOT)
            flags = await pipe.execute()
        return {player_id for player_id, flag in zip(wanted, flags, strict=True) if flag == b"1"}

    async def _read(self, by_preset: dict[str, list[Result]]) -> list[_Step]:
        """Per preset with results not applied yet: those, and the states (by rated id) of
        everyone rated in the preset's results; one round trip for every preset."""
        wanted = {
            preset: list(dict.fromkeys(rated_id for r in results for rated_id in r.rated))
            for preset, results in by_preset.items()
        }
        async with self.redis.pipeline(transaction=False) as pipe:
            # As raw commands: a cluster pipeline refuses its mget method (the keys share the
            # preset's slot, so the command itself is fine).
            for preset, results in by_preset.items():
                pipe.execute_command(
                    "MGET", *(self.match_key(result.match_id, preset) for result in results)
                )
                if wanted[preset]:  # MGET of no key is an error
                    pipe.execute_command(
                        "MGET", *(self.state_key(rated_id, preset) for rated_id in wanted[preset])
                    )
            replies = iter(await pipe.execute())
        steps = []
        for preset, results in by_preset.items():
            applied = next(replies)
            states = next(replies) if wanted[preset] else []
            fresh = [result for result, seen in zip(results, applied, strict=True) if not seen]
            found = zip(wanted[preset], states, strict=True)
            if fresh:
                steps.append(_Step(preset, fresh, {r: PresetState(state) for r, state in found}))
        return steps

    async def _commit(self, steps: list[_Step]) -> list[bool]:
        """Apply each step in memory and write it, each script sent as soon as computed (Redis
        runs it while the next is computed); for each, whether it was written (False: one of its
        matches or players changed since it was read)."""
        statuses = await self.durability.run(
            Call(_APPLY, *self._commit_args(step), wait=True) for step in steps
        )
        committed = [status == b"ok" for status in statuses]
        await self._publish_ratings([step for step, ok in zip(steps, committed, strict=True) if ok])
        return committed

    def _commit_args(self, step: _Step) -> tuple[list[str], list[Any]]:
        """Apply ``step``'s results to its states in memory, in order; the keys and arguments
        of the script that writes them all if nothing changed meanwhile."""
        preset, fresh, states = step.preset, step.fresh, step.states
        changed = list(dict.fromkeys(rated_id for r in fresh for rated_id in r.rated))
        # A history gains one entry per match counted in ``played``: trimming it when that
        # count passes a multiple of HISTORY_KEPT keeps it below twice as many, uncounted.
        played = {
            rated_id: states[rated_id].count("played") // HISTORY_KEPT for rated_id in changed
        }
        window = self.farming_window_seconds
        records = [apply_result(result, states, window) for result in fresh]
        history: dict[str, list[str]] = {}
        newest: dict[str, float] = {}
        for result in fresh:
            at = repr(result.finished_at)
            for rated_id in result.rated:
                history.setdefault(rated_id, []).extend((at, result.match_id))
                if newest.get(rated_id, result.finished_at) <= result.finished_at:
                    newest[rated_id] = result.finished_at
                if result.ranked:
                    ladder = result.rated[rated_id][0].ladder
                    step.ladders.setdefault((ladder, result.season), {})[rated_id] = None
        slot = self.slot(preset)
        keys = [
            f"{slot}:seq",
            *(f"{slot}:match:{result.match_id}" for result in fresh),
            *(f"{slot}:player:{rated_id}" for rated_id in changed),
        ]
        scores = []
        for rated_id, entries in history.items():
            keys.append(f"{slot}:history:{rated_id}")
            # Lua counts keys from 1. Records of matches that finished a retention before this
            # player's newest are gone or about to go: their places in the history go too.
            oldest = newest[rated_id] - self.match_retention_seconds
            trim = states[rated_id].count("played") // HISTORY_KEPT != played[rated_id]
            scores.append([len(keys), entries, repr(oldest), trim])
        removed = []
        for (ladder, season), rated in step.ladders.items():
            entries = []
            for rated_id in rated:
                # None: a seat alone on its ladder in this match (one person among bots), unrated
                skill = states[rated_id].skill(season, ladder)
                if skill is not None:
                    entries += [repr(skill.ordinal), rated_id]
            if entries:
                keys.append(self.ladder_key(preset, season, ladder))
                scores.append([len(keys), entries, False])
            if ladder == BOTS:
                keys.append(self.ladder_key(preset, season, PEOPLE))
                removed.append([len(keys), list(rated)])
        payload = {
            "matches": len(fresh),
            "players": len(changed),
            "expire": self.match_retention_seconds,
            "sorted": scores,
            "removed": removed,
        }
        return keys, [
            orjson.dumps(payload),
            HISTORY_KEPT,
            *records,
            *(states[rated_id].read for rated_id in changed),
            *(states[rated_id].dumps() for rated_id in changed),
        ]

    async def _publish_ratings(self, steps: list[_Step]) -> None:
        """Write the current season's ordinals the ranked queue compares
        (:mod:`maumau.common.ratings`). After the commit, not in it: those keys live in the
        players' own slots; a replica that dies in between leaves them one match behind."""
        season = current_season()
        ratings = [
            (step.preset, rated_id, step.states[rated_id].skill(season, ladder))
            for step in steps
            for (ladder, rated_season), rated in step.ladders.items()
            if rated_season == season
            for rated_id in rated
        ]
        if not any(skill for _, _, skill in ratings):
            return
        async with self.redis.pipeline(transaction=False) as pipe:
            for preset, rated_id, skill in ratings:
                if skill is None:
                    continue
                pipe.set(rating_key(preset, rated_id), repr(skill.ordinal), ex=RATING_KEPT_SECONDS)
            await pipe.execute()

    # ---------------------------------------------------------------- reading

    async def player(self, rated_id: str) -> Player | None:
        """Everything kept about ``rated_id``, or None if no match of theirs was applied."""
        async with self.redis.pipeline(transaction=False) as pipe:  # one slot per preset
            for preset in PRESETS:
                pipe.get(self.state_key(rated_id, preset))
            states = await pipe.execute()
        presets = {
            preset: PresetState(state)
            for preset, state in zip(PRESETS, states, strict=True)
            if state
        }
        return Player(presets) if presets else None

    async def ranks(
        self, rated_id: str, ladders: Iterable[tuple[str, str]], ladder: str = PEOPLE
    ) -> list[int | None]:
        """The 1-based rank of ``rated_id`` on ``ladder`` of each (preset, season), None if not
        on it."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for preset, season in ladders:
                pipe.zrevrank(self.ladder_key(preset, season, ladder), rated_id)
            replies = await pipe.execute()
        return [None if rank is None else rank + 1 for rank in replies]

    async def ladder_size(self, preset: str, season: str, ladder: str = PEOPLE) -> int:
        size: int = await self.redis.zcard(self.ladder_key(preset, season, ladder))
        return size

    async def ladder(
        self, preset: str, season: str, start: int, count: int, ladder: str = PEOPLE
    ) -> list[LadderRow]:
        """``count`` rows of ``ladder`` from 0-based place ``start``, best first."""
        if count <= 0:
            return []
        key = self.ladder_key(preset, season, ladder)
        members = cast(list[bytes], await self.redis.zrevrange(key, start, start + count - 1))
        rated = [member.decode() for member in members]
        if not rated:
            return []
        states = await self.redis.mget([self.state_key(rated_id, preset) for rated_id in rated])
        rows = []
        for place, (rated_id, state) in enumerate(zip(rated, states, strict=True), start + 1):
            mu, sigma, played, won = PresetState(state).seasons(ladder)[season]
            rating = SeasonRating(preset, season, ladder, Skill(mu, sigma), played, won)
            rows.append(LadderRow(rated_id, place, rating))
        return rows

    async def history(self, rated_id: str, start: int, count: int) -> tuple[int, list[Any]]:
        """How many matches are kept for ``rated_id`` (the newest HISTORY_KEPT of every
        preset's), and the records of ``count`` of them from 0-based position ``start``, newest
        first."""
        end = min(start + count, HISTORY_KEPT)
        if start >= end:
            return min(await self._history_size(rated_id), HISTORY_KEPT), []
        async with self.redis.pipeline(transaction=False) as pipe:
            for preset in PRESETS:
                pipe.zcard(self.history_key(rated_id, preset))
                pipe.zrevrange(self.history_key(rated_id, preset), 0, end - 1, withscores=True)
            replies = await pipe.execute()
        total = min(sum(replies[0::2]), HISTORY_KEPT)
        newest = heapq.merge(  # by time only: ties keep each preset's order
            *(
                [(-at, preset, match_id.decode()) for match_id, at in entries]
                for preset, entries in zip(PRESETS, replies[1::2], strict=True)
            ),
            key=lambda entry: entry[0],
        )
        chosen = list(newest)[start:end]
        if not chosen:
            return total, []
        async with self.redis.pipeline(transaction=False) as pipe:
            for _, preset, match_id in chosen:
                pipe.get(self.match_key(match_id, preset))
            records = cast(list[bytes | None], await pipe.execute())
        return total, [orjson.loads(record.partition(b" ")[2]) for record in records if record]

    async def _history_size(self, rated_id: str) -> int:
        async with self.redis.pipeline(transaction=False) as pipe:
            for preset in PRESETS:
                pipe.zcard(self.history_key(rated_id, preset))
            return sum(await pipe.execute())

    async def applied_order(self) -> list[str]:
        """Every applied match id, each preset's in the order they were applied, presets one
        after the other (for tests and audits)."""
        order: list[tuple[str, int, str]] = []
        for preset in PRESETS:
            prefix = self.match_key("", preset)
            async for key in self.redis.scan_iter(match=_glob(prefix) + "*", count=1000):
                seq = cast(bytes, await self.redis.get(key)).partition(b" ")[0]
                order.append((preset, int(seq), key.decode().removeprefix(prefix)))
        return [match_id for _, _, match_id in sorted(order)]

    async def is_applied(self, match_id: str, preset: str) -> bool:
        return bool(await self.redis.exists(self.match_key(match_id, preset)))

    # ---------------------------------------------------------------- the single-slot layout

    @property
    def single_slot(self) -> str:
        """The one hash tag of every rating key in earlier versions."""
        return f"{{{self.tag}}}"

    async def warn_of_single_slot_keys(self) -> bool:
        """Log (and answer) whether keys of the earlier single-slot layout are still stored."""
        if not await self.redis.exists(f"{self.single_slot}:seq"):
            return False
        log.warning(
            "rating keys of the single-slot layout (%s:*) are still stored: stop the rating "
            "replicas and run python -m maumau.rating.migrate to move them",
            self.single_slot,
        )
        return True

    async def migrate_single_slot(self) -> int:
        """Move every key of the single-slot layout into the per-preset one, deleting each old
        key once copied; how many old keys were moved. Run it with no rating replica applying
        results (they would write states this copies over); running it again continues."""
        old = self.single_slot
        moved = 0

        async def old_keys(kind: str) -> list[tuple[str, str]]:
            prefix = f"{old}:{kind}:"
            found = []
            async for key in self.redis.scan_iter(match=_glob(prefix) + "*", count=1000):
                found.append((key.decode(), key.decode().removeprefix(prefix)))
            return found

        for key, name in await old_keys("player"):  # <id>:<preset>; an id may hold ':'
            rated_id, _, preset = name.rpartition(":")
            state = await self.redis.get(key)
            if state is not None:
                await self.redis.set(self.state_key(rated_id, preset), state)
            moved += await self.redis.delete(key)
        for key, name in await old_keys("ladder"):  # <preset>:<season>
            preset, _, season = name.partition(":")
            entries = await self._scores(key)
            if entries:
                await self.redis.zadd(self.ladder_key(preset, season), entries)
            moved += await self.redis.delete(key)
        for key, rated_id in await old_keys("history"):  # a match's preset is in its record
            for member, at in (await self._scores(key)).items():
                found = cast(bytes | None, await self.redis.get(f"{old}:match:{member.decode()}"))
                if found is not None:
                    await self.redis.zadd(self.history_key(rated_id, _preset(found)), {member: at})
            moved += await self.redis.delete(key)
        seq = await self.redis.get(f"{old}:seq")
        if seq is not None:  # every preset counts on from the old count: the order stays
            for preset in PRESETS:
                await self.redis.set(self.seq_key(preset), seq, nx=True)
        for key, match_id in await old_keys("match"):
            record = cast(bytes | None, await self.redis.get(key))
            expires = await self.redis.pttl(key)
            if record is not None:
                await self.redis.set(
                    self.match_key(match_id, _preset(record)),
                    record,
                    px=expires if expires > 0 else None,
                )
            moved += await self.redis.delete(key)
        return moved + await self.redis.delete(f"{old}:seq")

    async def _scores(self, key: str) -> dict[bytes, float]:
        entries = cast(
            list[tuple[bytes, float]], await self.redis.zrange(key, 0, -1, withscores=True)
        )
        return dict(entries)


def _preset(record: bytes) -> str:
    """The preset of a stored match record (``"<seq> <record>"``)."""
    preset: str = orjson.loads(record.partition(b" ")[2])["result"]["preset"]
    return preset


def _glob(prefix: str) -> str:
    """``prefix`` as a literal in a SCAN pattern."""
    return "".join("\\" + c if c in "*?[]\\" else c for c in prefix)


def is_bot(rated_id: str) -> bool:
    return rated_id.startswith(BOT_PREFIX)
