"""The ticket queue in Redis: the matchmaker's one access layer for tickets and formations.

A queue is a ruleset (text form) and a mode (ranked or casual). Every key of one queue carries
the queue's hash tag ``{tag}`` (a digest of the queue's name), so each script below touches one
Redis Cluster slot and claims the tickets of a table all at once or not at all:

- ``mm:{tag}:waiting``     sorted set: ticket id -> queued at (tickets free to be claimed)
- ``mm:{tag}:expiry``      sorted set: ticket id -> expires at (until the ticket ends)
- ``mm:{tag}:tickets``     hash: ticket id -> the ticket's spec (JSON, never changes)
- ``mm:{tag}:status``      hash: ticket id -> the ticket's status (JSON)
- ``mm:{tag}:done``        sorted set: ticket id -> ended at (spec and status go after retention)
- ``mm:{tag}:leases``      sorted set: formation id -> lease end
- ``mm:{tag}:formations``  hash: formation id -> the table being created (JSON)
- ``mm:{tag}:owners``      hash: formation id -> the replica whose lease it is
- ``mm:{tag}:created``     hash: formation id -> the match created for it, left by a replica
  whose lease ran out meanwhile, for the replica that took over

- ``mm:{tag}:info``       the queue's ruleset and mode (JSON); deleted with the queue's last ticket

Global keys (each names a queue by its tag only, so the matchmaker's work follows what is queued,
not how many queues were ever used):

- ``mm:active``  sorted set: tag -> last enqueue, the queues holding live tickets (waiting,
  claimed or leased). Enqueue adds the tag after its ticket is waiting; a matchmaker drops it
  when it finds the queue idle, then looks again and adds it back if a ticket came meanwhile.
- ``mm:forget``  sorted set: tag -> when its oldest ended ticket is due to be forgotten.
- ``mm:player:{player_id}`` the player's latest ticket id.

A ticket id is ``<tag>.<random>``, so the id alone finds its queue. A claimed ticket leaves
``waiting`` while its table is created; its status stays "searching" until the table is there.

The values it stores (queues, tickets, formations) and their JSON are in ``tickets``.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Awaitable, Callable
from typing import cast

import grpc
import redis.asyncio as redis

from maumau.common.errors import ServiceError
from maumau.common.redis_client import Durability, Script
from maumau.matchmaking.forming import Waiting
from maumau.matchmaking.ratings import RatingLookup
from maumau.matchmaking.tickets import (
    CANCELLED,
    EXPIRED,
    SEARCHING,
    Formation,
    LiveTicket,
    QueueInfo,
    Ticket,
    TicketSpec,
    TicketStatus,
    queue_of,
)

ACTIVE, FORGET = "mm:active", "mm:forget"
LEGACY_QUEUES, LEGACY_QUEUE_INFO = "mm:queues", "mm:queue-info"
"""The registries of earlier versions (every queue ever used), adopted once and deleted."""

# KEYS: waiting, leases, formations, owners. ARGV: lease end, owner, then per table:
# formation id, formation JSON, ticket count, ticket ids. Claims every table whose tickets are
# all still waiting; answers the formation ids claimed.
_CLAIM = Script(
    "matchmaking.claim",
    """
local claimed = {}
local i = 3
while i <= #ARGV do
  local n = tonumber(ARGV[i + 2])
  local free = true
  for k = 1, n do
    if not redis.call('ZSCORE', KEYS[1], ARGV[i + 2 + k]) then free = false break end
  end
  if free then
    for k = 1, n do redis.call('ZREM', KEYS[1], ARGV[i + 2 + k]) end
    redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 1])
    redis.call('HSET', KEYS[4], ARGV[i], ARGV[2])
    redis.call('ZADD', KEYS[2], ARGV[1], ARGV[i])
    claimed[#claimed + 1] = ARGV[i]
  end
  i = i + 3 + n
end
return claimed
""",
)

# KEYS: leases, formations, owners, created, status, done, expiry. ARGV: owner, now, then per
# formation: formation id, match id, ticket count, then ticket id and seated status per ticket.
# Seats a formation's tickets if its lease is still the owner's ('ok'); else leaves the match for
# the replica that took over ('handed'), or, when the formation is gone, answers its first
# ticket's status ('gone'). Answers an outcome and a status ('' but for 'gone') per formation.
_COMMIT = Script(
    "matchmaking.commit",
    """
local out = {}
local i = 3
while i <= #ARGV do
  local id, match, n = ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2])
  local owner = redis.call('HGET', KEYS[3], id)
  if owner == ARGV[1] then
    for k = 0, n - 1 do
      local ticket = ARGV[i + 3 + 2 * k]
      redis.call('HSET', KEYS[5], ticket, ARGV[i + 4 + 2 * k])
      redis.call('ZADD', KEYS[6], ARGV[2], ticket)
      redis.call('ZREM', KEYS[7], ticket)
    end
    redis.call('ZREM', KEYS[1], id)
    redis.call('HDEL', KEYS[2], id)
    redis.call('HDEL', KEYS[3], id)
    redis.call('HDEL', KEYS[4], id)
    out[#out + 1] = 'ok'
    out[#out + 1] = ''
  elseif owner then
    redis.call('HSET', KEYS[4], id, match)
    out[#out + 1] = 'handed'
    out[#out + 1] = ''
  else
    out[#out + 1] = 'gone'
    out[#out + 1] = redis.call('HGET', KEYS[5], ARGV[i + 3]) or ''
  end
  i = i + 3 + 2 * n
end
return out
""",
)

# KEYS: leases, owners, formations, created. ARGV: now, new lease end, owner, limit. Takes over
# formations whose lease ran out; answers formation id, formation JSON and match left, each.
_RECLAIM = Script(
    "matchmaking.reclaim",
    """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[4])
local out = {}
for _, id in ipairs(due) do
  redis.call('ZADD', KEYS[1], ARGV[2], id)
  redis.call('HSET', KEYS[2], id, ARGV[3])
  out[#out + 1] = id
  out[#out + 1] = redis.call('HGET', KEYS[3], id) or ''
  out[#out + 1] = redis.call('HGET', KEYS[4], id) or ''
end
return out
""",
)

# KEYS: leases, formations, owners, created, waiting. ARGV: formation id, owner, then ticket id
# and queued-at per ticket. Puts the tickets back in the queue, unless a match was left for the
# formation meanwhile ('adopt') or the lease is someone else's ('lost').
_GIVE_BACK = Script(
    "matchmaking.give_back",
    """
if redis.call('HGET', KEYS[3], ARGV[1]) ~= ARGV[2] then return {'lost'} end
local created = redis.call('HGET', KEYS[4], ARGV[1])
if created then return {'adopt', created} end
for i = 3, #ARGV, 2 do redis.call('ZADD', KEYS[5], ARGV[i + 1], ARGV[i]) end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
return {'returned'}
""",
)

# KEYS: waiting, expiry, status, done. ARGV: ticket id, now, cancelled status. 1: cancelled.
_CANCEL = Script(
    "matchmaking.cancel",
    """
if redis.call('ZREM', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[4], ARGV[2], ARGV[1])
return 1
""",
)

# KEYS: waiting, expiry, status, done. ARGV: now, limit, expired status. Expires the waiting
# tickets whose time is up (a claimed one expires if its table fails and it comes back).
_EXPIRE = Script(
    "matchmaking.expire",
    """
local due = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1], 'LIMIT', 0, ARGV[2])
local out = {}
for _, id in ipairs(due) do
  if redis.call('ZREM', KEYS[1], id) == 1 then
    redis.call('ZREM', KEYS[2], id)
    redis.call('HSET', KEYS[3], id, ARGV[3])
    redis.call('ZADD', KEYS[4], ARGV[1], id)
    out[#out + 1] = id
  end
end
return out
""",
)

# KEYS: done, tickets, status, info. ARGV: ended before, limit. Forgets tickets ended long ago;
# answers how many and when the oldest ticket left ended ('' for none). The queue's info goes
# with its last ticket (an enqueue writes info and ticket in one transaction).
_FORGET = Script(
    "matchmaking.forget",
    """
local old = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[2])
for _, id in ipairs(old) do
  redis.call('HDEL', KEYS[2], id)
  redis.call('HDEL', KEYS[3], id)
  redis.call('ZREM', KEYS[1], id)
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if #oldest == 0 and redis.call('HLEN', KEYS[2]) == 0 then redis.call('DEL', KEYS[4]) end
return {#old, oldest[2] or ''}
""",
)

# KEYS: waiting, expiry, leases. Whether the queue holds a live ticket (waiting, claimed for a
# table being created, or not yet ended).
_BUSY = Script(
    "matchmaking.busy",
    """
return redis.call('ZCARD', KEYS[1]) + redis.call('ZCARD', KEYS[2]) + redis.call('ZCARD', KEYS[3])
""",
)

# KEYS: a player's latest-ticket key. ARGV: expected ticket id, new ticket id ('': none),
# seconds to keep.
_REPLACE = Script(
    "matchmaking.replace",
    """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] == '' then redis.call('DEL', KEYS[1]) return 1 end
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
return 1
""",
)


def player_key(player_id: str) -> str:
    return f"mm:player:{{{player_id}}}"


class TicketQueue:
    def __init__(
        self,
        client: redis.Redis,
        lease_seconds: float,
        retention_seconds: float,
        durability: Durability | None = None,
    ) -> None:
        self.redis = client
        self.durability = durability or Durability(client)
        """Seatings are confirmed by replicas before the tickets' players hear of them."""
        self.lease_seconds = lease_seconds
        self.retention_seconds = retention_seconds
        self._queues: dict[str, QueueInfo] = {}
        self._specs: dict[str, dict[str, tuple[TicketSpec, float]]] = {}
        """Per queue tag: the specs (and ratings) of the waiting tickets last seen."""

    # ---------------------------------------------------------------- queues

    async def active(self) -> list[QueueInfo]:
        """The queues holding live tickets."""
        return await self._infos(cast(list[bytes], await self.redis.zrange(ACTIVE, 0, -1)))

    async def due_to_forget(self, now: float) -> list[QueueInfo]:
        """The queues holding ended tickets due to be forgotten."""
        tags = cast(list[bytes], await self.redis.zrangebyscore(FORGET, "-inf", now))
        return await self._infos(tags)

    async def known(self) -> list[QueueInfo]:
        """Every queue holding a ticket, live or ended."""
        tags = set(cast(list[bytes], await self.redis.zrange(ACTIVE, 0, -1)))
        tags |= set(cast(list[bytes], await self.redis.zrange(FORGET, 0, -1)))
        return await self._infos(list(tags))

    async def _infos(self, tags: list[bytes]) -> list[QueueInfo]:
        infos = []
        for tag in tags:
            info = await self._queue(tag.decode())
            if info is not None:
                infos.append(info)
        return infos

    def keep_only(self, queues: list[QueueInfo]) -> None:
        """Drop what this replica remembers of queues it no longer visits, once that is much
        more than it visits (so a flood of queues leaves no lasting memory behind)."""
        if len(self._queues) > 2 * len(queues) + 256:
            tags = {queue.tag for queue in queues}
            self._queues = {t: q for t, q in self._queues.items() if t in tags}
            self._specs = {t: s for t, s in self._specs.items() if t in tags}

    async def settle(self, queue: QueueInfo) -> bool:
        """Drop an idle queue from the active ones; whether it stays active. Dropped first,
        then looked at: an enqueue adds its tag after its ticket is waiting, so a ticket that
        comes meanwhile is seen here (and its tag kept), or adds the tag back itself."""
        await self.redis.zrem(ACTIVE, queue.tag)
        keys = [queue.key(k) for k in ("waiting", "expiry", "leases")]
        if await self.durability.call(_BUSY, keys):
            await self.redis.zadd(ACTIVE, {queue.tag: time.time()})
            return True
        self._specs.pop(queue.tag, None)
        return False

    async def adopt_legacy(self) -> None:
        """Take over the registries of earlier versions: every queue they name is looked at
        once (and settled) like an active one; then they are deleted."""
        tags = cast(list[bytes], await self.redis.zrange(LEGACY_QUEUES, 0, -1))
        for tag in tags:
            info = await self.redis.hget(LEGACY_QUEUE_INFO, tag)
            if info is not None:
                queue = QueueInfo.from_json(info)
                await self.redis.set(queue.key("info"), info, nx=True)
                await self.redis.zadd(ACTIVE, {queue.tag: time.time()})
                await self._ended(queue, time.time())
        await self.redis.delete(LEGACY_QUEUES, LEGACY_QUEUE_INFO)

    async def _ended(self, queue: QueueInfo, at: float) -> None:
        """A ticket of ``queue`` ended at ``at``: the queue is to be looked at when it is due
        to be forgotten (the earliest such time is kept)."""
        await self.redis.zadd(FORGET, {queue.tag: at + self.retention_seconds}, lt=True)

    async def depth(self, queue: QueueInfo) -> int:
        depth: int = await self.redis.zcard(queue.key("waiting"))
        return depth

    # ---------------------------------------------------------------- tickets

    async def enqueue(
        self,
        queue: QueueInfo,
        spec: TicketSpec,
        consent: Callable[[], Awaitable[None]] | None = None,
    ) -> str:
        """Queue a ticket; LiveTicket when one of its players has a live ticket. ``consent``
        is checked once every player points at the ticket, before it joins the queue: a party
        member who left the party before then is not queued (one who leaves after finds the
        ticket as their latest and cancels it)."""
        ticket_id = f"{queue.tag}.{secrets.token_urlsafe(12)}"
        status = TicketStatus(SEARCHING, spec.enqueued_at)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.set(queue.key("info"), queue.to_json())
            pipe.hset(queue.key("tickets"), ticket_id, spec.to_json())
            pipe.hset(queue.key("status"), ticket_id, status.to_json())
            await pipe.execute()
        # Written searching before the players point at it, so a racing second enqueue sees a
        # live ticket; it joins the queue only once every player points at it.
        taken: list[tuple[str, str]] = []
        keep = int(spec.expires_at - spec.enqueued_at + self.retention_seconds + 60)
        for player in spec.players:
            live, previous = await self._point(player, ticket_id, keep)
            if live:
                for other, before in taken:  # they point at their latest ticket again
                    await self.durability.call(
                        _REPLACE, [player_key(other)], [ticket_id, before, keep]
                    )
                ended = TicketStatus(CANCELLED, time.time(), reason="a player has a live ticket")
                await self._end(queue, ticket_id, ended)
                raise LiveTicket(player, live)
            taken.append((player, previous))
        if consent is not None:
            try:
                await consent()
            except ServiceError:
                ended = TicketStatus(CANCELLED, time.time(), reason="a party member withdrew")
                await self._end(queue, ticket_id, ended)
                raise
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.zadd(queue.key("waiting"), {ticket_id: spec.enqueued_at})
            pipe.zadd(queue.key("expiry"), {ticket_id: spec.expires_at})
            await pipe.execute()
        await self.redis.zadd(ACTIVE, {queue.tag: spec.enqueued_at})
        return ticket_id

    async def _point(self, player: str, ticket_id: str, keep: int) -> tuple[str, str]:
        """Make ``ticket_id`` the player's latest ticket, unless the latest is live: (the live
        ticket in the way or '', the latest ticket before or '')."""
        key = player_key(player)
        for _ in range(10):
            if await self.redis.set(key, ticket_id, nx=True, ex=keep):
                return "", ""
            current = cast(bytes | None, await self.redis.get(key))
            if current is None:
                continue
            current_id = current.decode()
            ticket = await self.get(current_id)
            if ticket is not None and self._live(ticket):
                return current_id, ""
            if await self.durability.call(_REPLACE, [key], [current_id, ticket_id, keep]):
                return "", current_id
        raise ServiceError(grpc.StatusCode.ABORTED, "too many enqueues at once; try again")

    def _live(self, ticket: Ticket) -> bool:
        """Searching, and not a leftover of an enqueue that died halfway (those are searching
        without ever joining the queue, and count as ended once they would have expired)."""
        margin = 2 * self.lease_seconds
        return ticket.live and time.time() < ticket.spec.expires_at + margin

    async def _end(self, queue: QueueInfo, ticket_id: str, status: TicketStatus) -> None:
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(queue.key("status"), ticket_id, status.to_json())
            pipe.zadd(queue.key("done"), {ticket_id: status.at})
            await pipe.execute()
        await self._ended(queue, status.at)

    async def get(self, ticket_id: str) -> Ticket | None:
        queue = await self._queue(queue_of(ticket_id))
        if queue is None:
            return None
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hget(queue.key("tickets"), ticket_id)
            pipe.hget(queue.key("status"), ticket_id)
            spec, status = await pipe.execute()
        if spec is None or status is None:
            return None
        return Ticket(ticket_id, queue, TicketSpec.from_json(spec), TicketStatus.from_json(status))

    async def _queue(self, tag: str) -> QueueInfo | None:
        """The queue of a tag (a tag's queue never changes, so it is kept once read)."""
        if tag not in self._queues:
            info = await self.redis.get(f"mm:{{{tag}}}:info")
            if info is None:
                return None
            self._queues[tag] = QueueInfo.from_json(info)
        return self._queues[tag]

    async def latest(self, player_id: str) -> str | None:
        ticket_id = cast(bytes | None, await self.redis.get(player_key(player_id)))
        return ticket_id.decode() if ticket_id else None

    async def cancel(self, ticket: Ticket, reason: str) -> Ticket:
        """The ticket cancelled, or as it is when it is no longer waiting."""
        queue = ticket.queue
        status = TicketStatus(CANCELLED, time.time(), reason=reason)
        if await self.durability.call(
            _CANCEL,
            [queue.key(k) for k in ("waiting", "expiry", "status", "done")],
            [ticket.ticket_id, status.at, status.to_json()],
        ):
            await self._ended(queue, status.at)
        return await self.get(ticket.ticket_id) or ticket

    # ---------------------------------------------------------------- forming

    async def waiting(
        self, queue: QueueInfo, limit: int, ratings: RatingLookup | None = None
    ) -> list[Waiting]:
        """The oldest ``limit`` waiting tickets; ``ratings`` gives each ticket its players' mean
        rating, read once per ticket."""
        entries = cast(list[bytes], await self.redis.zrange(queue.key("waiting"), 0, limit - 1))
        ids = [entry.decode() for entry in entries]
        known = self._specs.get(queue.tag, {})
        missing = [i for i in ids if i not in known]
        fresh: dict[str, tuple[TicketSpec, float]] = {}
        if missing:
            texts = await self.redis.hmget(queue.key("tickets"), missing)
            specs = {i: TicketSpec.from_json(t) for i, t in zip(missing, texts, strict=True) if t}
            players = [p for spec in specs.values() for p in spec.players]
            found: dict[str, float] = {}
            if ratings is not None and players:
                found = dict(zip(players, await ratings(queue.preset, players), strict=True))
            for ticket_id, spec in specs.items():
                rating = sum(found.get(p, 0.0) for p in spec.players) / len(spec.players)
                fresh[ticket_id] = (spec, rating)
        current = {i: known.get(i) or fresh[i] for i in ids if i in known or i in fresh}
        self._specs[queue.tag] = current
        return [spec.waiting(i, rating) for i, (spec, rating) in current.items()]

    async def claim(
        self, queue: QueueInfo, formations: list[Formation], owner: str, lease_until: float
    ) -> list[Formation]:
        """Claim each formation's tickets, all or none per formation; the ones claimed."""
        if not formations:
            return []
        args: list[str | float | int] = [lease_until, owner]
        for formation in formations:
            ids = [ticket_id for ticket_id, _, _ in formation.tickets]
            args += [formation.formation_id, formation.to_json(), len(ids), *ids]
        keys = [queue.key(k) for k in ("waiting", "leases", "formations", "owners")]
        claimed = {fid.decode() for fid in await self.durability.call(_CLAIM, keys, args)}
        return [f for f in formations if f.formation_id in claimed]

    async def commit(
        self, queue: QueueInfo, seatings: list[tuple[Formation, str]], owner: str
    ) -> list[tuple[str, TicketStatus | None]]:
        """Seat each formation's tickets at its match if the lease is still ``owner``'s:
        ('ok', None); ('handed', None) when another replica took over (it gets the match);
        ('gone', its first ticket's status) when the formation is gone. One answer each."""
        if not seatings:
            return []
        args: list[str | float | int] = [owner, time.time()]
        for formation, match_id in seatings:
            args += [formation.formation_id, match_id, len(formation.tickets)]
            for ticket_id, _, players in formation.tickets:
                args += [ticket_id, formation.seated(players, match_id).to_json()]
        parts = ("leases", "formations", "owners", "created", "status", "done", "expiry")
        flat = await self.durability.call(_COMMIT, [queue.key(k) for k in parts], args, wait=True)
        await self._ended(queue, float(args[1]))
        return [
            (flat[k].decode(), TicketStatus.from_json(flat[k + 1]) if flat[k + 1] else None)
            for k in range(0, len(flat), 2)
        ]

    async def reclaim(
        self, queue: QueueInfo, owner: str, now: float, limit: int = 50
    ) -> list[tuple[Formation, str]]:
        """Take over formations whose lease ran out: each with the match id a late replica left
        for it ('' when none)."""
        keys = [queue.key(k) for k in ("leases", "owners", "formations", "created")]
        flat = await self.durability.call(
            _RECLAIM, keys, [now, now + self.lease_seconds, owner, limit]
        )
        taken = []
        for k in range(0, len(flat), 3):
            if flat[k + 1]:
                taken.append((Formation.from_json(flat[k + 1]), flat[k + 2].decode()))
        return taken

    async def give_back(
        self, queue: QueueInfo, formation: Formation, owner: str
    ) -> tuple[str, str]:
        """Return the formation's tickets to the queue: ('returned', ''), ('adopt', match id)
        when a late replica left a match for it meanwhile, or ('lost', '')."""
        args: list[str | float] = [formation.formation_id, owner]
        for ticket_id, queued_at, _ in formation.tickets:
            args += [ticket_id, queued_at]
        keys = [queue.key(k) for k in ("leases", "formations", "owners", "created", "waiting")]
        answer = await self.durability.call(_GIVE_BACK, keys, args)
        return answer[0].decode(), answer[1].decode() if len(answer) > 1 else ""

    async def expire(self, queue: QueueInfo, now: float, limit: int = 1000) -> list[str]:
        status = TicketStatus(EXPIRED, now, reason="no table within the ticket's wait")
        keys = [queue.key(k) for k in ("waiting", "expiry", "status", "done")]
        expired = await self.durability.call(_EXPIRE, keys, [now, limit, status.to_json()])
        if expired:
            await self._ended(queue, now)
        return [ticket_id.decode() for ticket_id in expired]

    async def forget(self, queue: QueueInfo, now: float, limit: int = 1000) -> int:
        """Forget tickets that ended longer than the retention ago; the queue is looked at
        again when its oldest ended ticket is due (dropped first, then added back, so a ticket
        ending meanwhile is never missed)."""
        await self.redis.zrem(FORGET, queue.tag)
        keys = [queue.key(k) for k in ("done", "tickets", "status", "info")]
        forgotten, oldest = await self.durability.call(
            _FORGET, keys, [now - self.retention_seconds, limit]
        )
        if oldest:
            await self._ended(queue, float(oldest))
        if forgotten >= limit:  # more are due: at once
            await self._ended(queue, now - self.retention_seconds)
        return int(forgotten)
