"""The player directory in Redis, the contract every service reads display names from: a
``player:{id}`` hash per player, its field ``name`` the display name (written by the engine's
Players service, and by the Accounts service when the player claims a username or deletes the
account), its field ``token_generation`` the generation a player token must carry to be taken
(absent: 0; the Players service's RevokeTokens raises it, ending every older token).

An account's grants are fields of the same hash (written by the Accounts service): for each
sign-in's session and each personal access token, ``grant:<id>`` (what it is, JSON, see
``maumau.accounts.store``) and ``until:<id>`` (Unix seconds when its latest token ends). A
player token naming a grant (claim ``sid``) is taken only while ``grant:<id>`` is there, so
signing one device out, or revoking one token, ends it at once on every service: the check reads
the generation and the grant in one HMGET of one key.

A bot account is marked by the field ``bot`` = "1" of the same hash, written only by the Arena
service's BecomeBot (``maumau.accounts.arena``) and, for the house's own bot accounts, by the
Bots service (``maumau.bots.house``), and never removed: the rating service rates it
on the bots' ladder, the arena pool seats it, and everywhere its name appears it is shown as
BOT. Read it with :func:`is_bot`. The house's bot accounts also carry ``house`` = "1" (written
by the Bots service only): the arena seats them beside other bots, never alone together, and
holds them to no daily limit."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import redis.asyncio as redis

from maumau.common.tokens import PlayerClaims, TokenError, new_id

MAX_NAME_LENGTH = 32
GRANT = "grant:"
"""The prefix of a grant's field in ``player:{id}``; ``until:`` that of when its token ends."""
UNTIL = "until:"
BOT = "bot"
"""The field of ``player:{id}`` that marks a bot account: "1" once it became one."""
HOUSE = "house"
"""The field of ``player:{id}`` that marks one of the house's bot accounts: "1"."""


def player_key(player_id: str) -> str:
    """The player's directory hash (see the module's docstring)."""
    return f"player:{{{player_id}}}"


def check_name(name: str) -> str:
    """A display name, trimmed; raises ValueError with a reason a person can act on."""
    name = name.strip()
    if not 1 <= len(name) <= MAX_NAME_LENGTH:
        raise ValueError(f"a name has 1 to {MAX_NAME_LENGTH} characters")
    if not name.isprintable():
        raise ValueError("a name may hold printable characters only")
    return name


class PlayerDirectory:
    def __init__(self, client: redis.Redis) -> None:
        self.redis = client

    async def register(self, name: str) -> str:
        player_id = new_id()
        await self.redis.hset(player_key(player_id), mapping={"name": check_name(name)})
        return player_id

    async def generation(self, player_id: str) -> int:
        """The token generation a player token of ``player_id`` must carry."""
        value = await self.redis.hget(player_key(player_id), "token_generation")
        return int(value or 0)

    async def revoke_tokens(self, player_id: str) -> int:
        """End every player token of ``player_id`` issued so far; the new generation."""
        return int(await self.redis.hincrby(player_key(player_id), "token_generation", 1))

    async def check_token(self, claims: PlayerClaims) -> PlayerClaims:
        """``claims`` if their generation is the player's current one and the grant they name
        (if any) is still there; TokenError if revoked or signed out."""
        if claims.session is not None:
            generation, grant = await self.redis.hmget(
                player_key(claims.player_id), ["token_generation", GRANT + claims.session]
            )
            if grant is None:
                raise TokenError(
                    "player token ended: its session was signed out or its access token "
                    "revoked; sign in again"
                )
            current = int(generation or 0)
        elif claims.generation is None:
            return claims
        else:
            current = await self.generation(claims.player_id)
        if claims.generation is not None and claims.generation != current:
            raise TokenError("player token revoked: its player ended it; sign in with a newer one")
        return claims

    async def renew_grant(self, player_id: str, grant: str, until: int) -> None:
        """Note that the grant's latest token ends at ``until`` (RenewToken of a session)."""
        await self.redis.hset(player_key(player_id), UNTIL + grant, until)

    async def name(self, player_id: str) -> str:
        """The player's display name, or '' for an id the directory does not know."""
        name = cast(bytes | None, await self.redis.hget(player_key(player_id), "name"))
        return name.decode() if name else ""

    async def names(self, player_ids: list[str]) -> list[str]:
        """:meth:`name` of each of ``player_ids``, in one round trip."""
        if not player_ids:
            return []
        async with self.redis.pipeline(transaction=False) as pipe:
            for player_id in player_ids:
                pipe.hget(player_key(player_id), "name")
            found = cast(list[bytes | None], await pipe.execute())
        return [name.decode() if name else "" for name in found]


async def is_bot(client: redis.Redis, player_id: str) -> bool:
    """Whether ``player_id`` is a bot account (the field ``bot`` = "1" of its directory hash)."""
    return await client.hget(player_key(player_id), BOT) in (b"1", "1")


async def bot_flags(client: redis.Redis, player_id: str) -> tuple[bool, bool]:
    """Whether ``player_id`` is a bot account, and whether it is one of the house's."""
    bot, house = await client.hmget(player_key(player_id), [BOT, HOUSE])
    return bot in (b"1", "1"), house in (b"1", "1")


async def house_bots(client: redis.Redis, player_ids: Sequence[str]) -> set[str]:
    """Those of ``player_ids`` that are the house's bot accounts (one key each)."""
    if not player_ids:
        return set()
    async with client.pipeline(transaction=False) as pipe:
        for player_id in player_ids:
            pipe.hget(player_key(player_id), HOUSE)
        found = await pipe.execute()
    return {p for p, flag in zip(player_ids, found, strict=True) if flag in (b"1", "1")}
