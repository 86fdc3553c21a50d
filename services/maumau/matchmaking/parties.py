"""Parties: players who queue together, each by their own consent.

The leader invites a player by id; the invited player accepts with their own token; only then may
the leader name them in a ticket. The pure part (:class:`PartyRecord` and its changes, the clock
passed in as ``now``) decides; :class:`Parties` keeps the records in Redis:

- ``mm:party:{party_id}``   JSON of the party (changed with WATCH/MULTI, so replicas never lose a
  change); it expires ``ttl`` seconds after its last change, so an unused party goes away
- ``mm:in-party:{player}``  the id of the party the player joined or leads (an index: the party's
  record is the truth, a pointer to a party that does not list the player means no party)
- ``mm:invites:{player}``   sorted set: party id -> when the invitation expires (the newest
  MAX_INVITATIONS kept; the key expires with the newest invitation)
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import cast

import grpc
import redis.asyncio as redis
from redis.exceptions import WatchError

from maumau.common import tokens
from maumau.common.errors import ServiceError, denied, not_found, precondition

MAX_INVITATIONS = 16
"""Invitations kept per invited player: a flood of them pushes out the oldest, never more."""


def party_key(party_id: str) -> str:
    return f"mm:party:{{{party_id}}}"


def member_key(player_id: str) -> str:
    return f"mm:in-party:{{{player_id}}}"


def invites_key(player_id: str) -> str:
    return f"mm:invites:{{{player_id}}}"


@dataclass
class PartyRecord:
    """One party: its members (the leader first) and open invitations (player -> expiry)."""

    party_id: str
    members: list[str]
    invited: dict[str, float] = field(default_factory=dict)

    @property
    def leader(self) -> str:
        return self.members[0] if self.members else ""

    def open_invitations(self, now: float) -> dict[str, float]:
        return {p: until for p, until in self.invited.items() if until > now}

    def invite(self, inviter: str, player: str, until: float, now: float, most: int) -> None:
        """``inviter`` (the leader) invites ``player`` until ``until``; renews an invitation."""
        if inviter != self.leader:
            raise denied("only the party's leader invites players")
        if player in self.members:
            return
        self.invited = self.open_invitations(now)
        if player not in self.invited and len(self.members) + len(self.invited) >= most:
            raise precondition(f"the party is full: {most} players and invitations at most")
        self.invited[player] = until

    def accept(self, player: str, now: float, most: int) -> None:
        """``player`` takes up their open invitation."""
        if player in self.members:
            return
        if self.invited.get(player, 0.0) <= now:
            raise not_found(f"no open invitation to party {self.party_id} for you")
        if len(self.members) >= most:
            raise precondition(f"the party is full: {most} players at most")
        del self.invited[player]
        self.members.append(player)

    def leave(self, player: str) -> None:
        """A member leaves (the next one leads), or an invited player declines."""
        if player in self.members:
            self.members.remove(player)
        elif player in self.invited:
            del self.invited[player]
        else:
            raise denied(f"you are neither in party {self.party_id} nor invited to it")

    def to_json(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str | bytes) -> PartyRecord:
        return cls(**json.loads(text))


class Parties:
    """The parties in Redis; every replica uses one of these."""

    def __init__(
        self, client: redis.Redis, ttl_seconds: float, invite_seconds: float, most: int
    ) -> None:
        self.redis = client
        self.ttl = max(1, int(ttl_seconds))
        self.invite_seconds = invite_seconds
        self.most = most

    async def load(self, party_id: str) -> PartyRecord | None:
        text = await self.redis.get(party_key(party_id))
        return None if text is None else PartyRecord.from_json(text)

    async def of(self, player: str) -> PartyRecord | None:
        """The party the player is a member of, if any."""
        pointer = cast(bytes | None, await self.redis.get(member_key(player)))
        if pointer is None:
            return None
        party = await self.load(pointer.decode())
        return party if party is not None and player in party.members else None

    async def latest_invitation(self, player: str, now: float) -> str | None:
        found = cast(
            list[bytes],
            await self.redis.zrevrangebyscore(invites_key(player), "+inf", now, start=0, num=1),
        )
        return found[0].decode() if found else None

    async def invite(self, leader: str, player: str, now: float) -> PartyRecord:
        if player == leader:
            raise ServiceError(grpc.StatusCode.INVALID_ARGUMENT, "you cannot invite yourself")
        party = await self.of(leader)
        until = now + self.invite_seconds
        if party is None:
            party = PartyRecord(tokens.new_id(9), [leader])
            party.invite(leader, player, until, now, self.most)
            await self.redis.set(party_key(party.party_id), party.to_json(), ex=self.ttl)
        else:
            party = await self.update(
                party.party_id, lambda p: p.invite(leader, player, until, now, self.most)
            )
        await self._point(leader, party.party_id)
        key = invites_key(player)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.zadd(key, {party.party_id: until})
            pipe.zremrangebyscore(key, "-inf", now)
            pipe.zremrangebyrank(key, 0, -(MAX_INVITATIONS + 1))
            pipe.expire(key, max(1, int(self.invite_seconds) + 1))
            await pipe.execute()
        return party

    async def accept(self, player: str, party_id: str, now: float) -> PartyRecord:
        party_id = party_id or await self.latest_invitation(player, now) or ""
        if not party_id:
            raise not_found("you have no open invitation to a party")
        current = await self.of(player)
        if current is not None and current.party_id != party_id:
            raise precondition(
                f"you are in party {current.party_id}: leave it before joining another"
            )
        party = await self.update(party_id, lambda p: p.accept(player, now, self.most))
        await self._point(player, party_id)
        await self.redis.zrem(invites_key(player), party_id)
        return party

    async def leave(self, player: str, party_id: str) -> tuple[PartyRecord, bool]:
        """The party after ``player`` left it (or declined it), and whether they were in it."""
        if not party_id:
            current = await self.of(player)
            if current is None:
                raise not_found("you are in no party")
            party_id = current.party_id
        was_member = False

        def leave(party: PartyRecord) -> None:
            nonlocal was_member
            was_member = player in party.members
            party.leave(player)

        party = await self.update(party_id, leave)
        await self.redis.zrem(invites_key(player), party_id)
        pointer = cast(bytes | None, await self.redis.get(member_key(player)))
        if pointer is not None and pointer.decode() == party_id:
            await self.redis.delete(member_key(player))
        return party, was_member

    async def get(self, player: str, party_id: str, now: float) -> PartyRecord:
        if not party_id:
            current = await self.of(player)
            if current is None:
                raise not_found("you are in no party")
            return current
        party = await self.load(party_id)
        if party is None:
            raise not_found(f"no party {party_id!r}: it was never made, or is gone")
        if player not in party.members and player not in party.open_invitations(now):
            raise denied("this party is not yours, and you are not invited to it")
        return party

    async def touch(self, party: PartyRecord) -> None:
        """Keep a party that is in use (queued) from expiring."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.expire(party_key(party.party_id), self.ttl)
            for member in party.members:
                pipe.expire(member_key(member), self.ttl)
            await pipe.execute()

    async def ttl_of(self, party_id: str) -> float:
        left: int = await self.redis.ttl(party_key(party_id))
        return float(max(left, 0))

    async def update(self, party_id: str, change: Callable[[PartyRecord], None]) -> PartyRecord:
        """Apply ``change`` to the stored party, retrying when another replica changed it first;
        a party left with no member is deleted."""
        key = party_key(party_id)
        async with self.redis.pipeline(transaction=True) as pipe:
            while True:
                try:
                    await pipe.watch(key)
                    text = await pipe.get(key)
                    if text is None:
                        raise not_found(f"no party {party_id!r}: it was never made, or is gone")
                    party = PartyRecord.from_json(text)
                    change(party)
                    pipe.multi()  # type: ignore[no-untyped-call]
                    if party.members:
                        pipe.set(key, party.to_json(), ex=self.ttl)
                    else:
                        pipe.delete(key)
                    await pipe.execute()
                    return party
                except WatchError:
                    continue

    async def _point(self, player: str, party_id: str) -> None:
        await self.redis.set(member_key(player), party_id, ex=self.ttl)
