"""What the Accounts service keeps in Redis, and the one way it reads and writes it.

Keys (each line one hash slot, the part in braces; docs/operating.md lists them too):

- ``account:{<player id>}``: a hash per account. ``username`` (as shown), ``folded`` (NFKC and
  case folded), ``skeletons`` (JSON list), ``created_at``, ``password`` (argon2id, PHC text),
  ``deleted_at`` (a deleted account keeps only this and its ``username`` until the cooling-off
  ends),
  ``passkey:<credential id>`` (JSON: public key, sign count, name, times) and
  ``link:<provider>`` (JSON: subject, email, when linked).
- ``account:name:{<folded username>}``: the player id owning the name.
- ``account:look:{<sha-256 of a skeleton>}``: the player id owning that look (a name holds the
  skeletons of its shown and its folded form, see ``maumau.accounts.names.skeletons``).
- ``account:passkey:{<credential id>}``: the player id owning a passkey.
- ``account:identity:{<sha-256 of provider and subject>}``: the player id a provider's identity
  is linked to.
- ``account:challenge:{<id>}``, ``account:state:{<state>}``: a passkey challenge, a provider
  sign-in's state, nonce and PKCE verifier (JSON), expiring after ``challenge_seconds``; read
  and deleted in one GETDEL, so each is used once.
- ``player:{<player id>}`` (the player directory, ``maumau.common.players``): ``name`` (the
  username once claimed, "deleted player" once deleted), ``token_generation``, and the
  account's grants ``grant:<id>`` (JSON: ``kind`` session or token, how, device, address,
  name, scope, created_at) with ``until:<id>``.
- ``quota/...``: the sign-in limits' windows (the ``limits`` package, as ``maumau.common.quotas``).

Uniqueness on a Redis Cluster: a username, a look, a passkey and a provider identity each have
one key, set only if absent (``SET NX``, acknowledged once replicas confirm it), whose value is
the owner's player id; an owner's own
key is taken again (a retried Claim). A claim takes the name's key, then the looks'; when a
look is taken it gives back what it took (deleted only while it still holds this player's id), so a
name is never held without its look. A process that dies between the two leaves the name with
this player: the same player's retry completes it, and nobody else can take a name its owner is
still claiming. A deleted account's keys are kept with an expiry of the cooling-off period.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

import redis.asyncio as redis

from maumau.common.players import GRANT, UNTIL, player_key
from maumau.common.redis_client import Durability

DELETED_NAME = "deleted player"

_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  if tonumber(ARGV[2]) > 0 then return redis.call('EXPIRE', KEYS[1], ARGV[2]) end
  return redis.call('DEL', KEYS[1])
end
return 0
"""
"""Give a key back (delete it, or let it expire after ARGV[2] seconds) only while it is still
the given owner's."""


def account_key(player_id: str) -> str:
    return f"account:{{{player_id}}}"


def name_key(folded: str) -> str:
    return f"account:name:{{{folded}}}"


def look_key(skeleton: str) -> str:
    return f"account:look:{{{_digest(skeleton)}}}"


def passkey_key(credential_id: str) -> str:
    return f"account:passkey:{{{credential_id}}}"


def identity_key(provider: str, subject: str) -> str:
    return f"account:identity:{{{_digest(provider + chr(0) + subject)}}}"


def challenge_key(challenge_id: str) -> str:
    return f"account:challenge:{{{challenge_id}}}"


def state_key(state: str) -> str:
    return f"account:state:{{{state}}}"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass
class Account:
    """One account as stored."""

    player_id: str
    username: str
    folded: str
    skeletons: list[str]
    created_at: int
    password: str | None = None
    deleted_at: int | None = None
    passkeys: dict[str, dict[str, Any]] = field(default_factory=dict)
    links: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def ways(self) -> int:
        """How many ways the account has to sign in."""
        return (self.password is not None) + len(self.passkeys) + len(self.links)


@dataclass(frozen=True)
class Grant:
    """A session of a sign-in or a personal access token, as the player directory holds it."""

    grant_id: str
    kind: str
    """``session`` or ``token``."""
    record: dict[str, Any]
    until: int

    @property
    def created_at(self) -> int:
        return int(self.record.get("created_at", 0))


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class AccountStore:
    """``durability``: the unique keys and the claim are acknowledged only once the configured
    replicas confirm them (``WAIT``), so a failover cannot lose a name and hand it out twice."""

    def __init__(self, client: redis.Redis, durability: Durability | None = None) -> None:
        self.redis = client
        self.durability = durability or Durability(client)

    # ------------------------------------------------------------ accounts

    async def account(self, player_id: str) -> Account | None:
        """The account of a player, or None (also for a deleted one)."""
        fields = {
            _text(k): _text(v)
            for k, v in cast(
                dict[bytes, bytes], await self.redis.hgetall(account_key(player_id))
            ).items()
        }
        if "username" not in fields or "deleted_at" in fields or "created_at" not in fields:
            return None
        return Account(
            player_id,
            fields["username"],
            fields.get("folded", ""),
            list(json.loads(fields.get("skeletons", "[]"))),
            int(fields["created_at"]),
            fields.get("password"),
            None,
            {k[8:]: json.loads(v) for k, v in fields.items() if k.startswith("passkey:")},
            {k[5:]: json.loads(v) for k, v in fields.items() if k.startswith("link:")},
        )

    async def claimed(self, player_id: str) -> str | None:
        """The username this player claimed (deleted or not), or None."""
        name = await self.redis.hget(account_key(player_id), "username")
        return None if name is None else _text(name)

    async def owner(self, key: str) -> str | None:
        value = await self.redis.get(key)
        return None if value is None else _text(value)

    async def take(self, key: str, player_id: str) -> bool:
        """Take a unique key for ``player_id`` (SET NX), or find it the player's already."""
        if await self.durability.call("SET", [key], [player_id, "NX"], wait=True):
            return True
        return await self.owner(key) == player_id

    async def give_back(self, key: str, player_id: str, after_seconds: int = 0) -> None:
        """Delete the key (or let it expire after ``after_seconds``) while it is the player's."""
        await self.redis.eval(_RELEASE, 1, key, player_id, str(after_seconds))

    async def claim(
        self, player_id: str, username: str, folded: str, skeletons: list[str], now: int
    ) -> bool:
        """Write the account's name, once: False when the player has claimed one already."""
        key = account_key(player_id)
        if not await self.durability.call("HSETNX", [key], ["username", username], wait=True):
            return False
        mapping = {"folded": folded, "skeletons": json.dumps(skeletons), "created_at": now}
        await self.redis.hset(key, mapping=mapping)  # type: ignore[arg-type]
        await self.redis.hset(player_key(player_id), "name", username)
        return True

    async def set_password(self, player_id: str, hashed: str) -> None:
        await self.redis.hset(account_key(player_id), "password", hashed)

    async def set_field(self, player_id: str, name: str, record: Mapping[str, Any]) -> None:
        """A passkey (``passkey:<id>``) or a link (``link:<provider>``) of the account."""
        await self.redis.hset(account_key(player_id), name, json.dumps(record))

    async def remove_field(self, player_id: str, name: str) -> bool:
        return bool(await self.redis.hdel(account_key(player_id), name))

    # ------------------------------------------------------------ challenges, states

    async def put_once(self, key: str, record: Mapping[str, Any], seconds: int) -> None:
        await self.redis.set(key, json.dumps(record), ex=seconds)

    async def take_once(self, key: str) -> dict[str, Any] | None:
        """The record, deleted as it is read (GETDEL), so a second reader finds nothing."""
        value = await self.redis.getdel(key)
        return None if value is None else cast(dict[str, Any], json.loads(value))

    # ------------------------------------------------------------ grants

    async def grants(self, player_id: str) -> list[Grant]:
        fields = {
            _text(k): _text(v)
            for k, v in cast(
                dict[bytes, bytes], await self.redis.hgetall(player_key(player_id))
            ).items()
        }
        found = []
        for name, value in fields.items():
            if name.startswith(GRANT):
                grant_id = name[len(GRANT) :]
                record = json.loads(value)
                until = int(fields.get(UNTIL + grant_id, 0))
                found.append(Grant(grant_id, str(record.get("kind")), record, until))
        return sorted(found, key=lambda g: (g.created_at, g.record.get("order", 0), g.grant_id))

    async def add_grant(
        self, player_id: str, grant_id: str, record: Mapping[str, Any], until: int
    ) -> None:
        await self.redis.hset(
            player_key(player_id),
            mapping={GRANT + grant_id: json.dumps(record), UNTIL + grant_id: until},
        )

    async def end_grants(self, player_id: str, grant_ids: list[str]) -> int:
        """End grants at once (their tokens are refused by every service from now on)."""
        if not grant_ids:
            return 0
        names = [GRANT + g for g in grant_ids] + [UNTIL + g for g in grant_ids]
        found = await self.redis.hmget(player_key(player_id), [GRANT + g for g in grant_ids])
        await self.redis.hdel(player_key(player_id), *names)
        return sum(value is not None for value in found)

    # ------------------------------------------------------------ deleting

    async def delete(
        self, player_id: str, account: Account, now: int, cooling_off_seconds: int
    ) -> None:
        """Everything of the account goes but its name's and look's keys (kept for the
        cooling-off) and a tombstone with its username and when it went; its grants go, and
        the directory shows "deleted player"."""
        for credential in account.passkeys:
            await self.give_back(passkey_key(credential), player_id)
        for provider, link in account.links.items():
            await self.give_back(identity_key(provider, str(link.get("subject"))), player_id)
        for key in (name_key(account.folded), *map(look_key, account.skeletons)):
            await self.give_back(key, player_id, cooling_off_seconds)
        key = account_key(player_id)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.delete(key)
            pipe.hset(key, mapping={"username": account.username, "deleted_at": now})
            if cooling_off_seconds > 0:
                pipe.expire(key, cooling_off_seconds)
            else:
                pipe.delete(key)
            await pipe.execute()
        directory = player_key(player_id)
        fields = [_text(k) for k in await self.redis.hkeys(directory)]
        gone = [f for f in fields if f.startswith((GRANT, UNTIL))]
        async with self.redis.pipeline(transaction=True) as pipe:
            if gone:
                pipe.hdel(directory, *gone)
            pipe.hset(directory, "name", DELETED_NAME)
            pipe.hincrby(directory, "token_generation", 1)
            await pipe.execute()
