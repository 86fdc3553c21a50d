"""The player directory in Redis, the contract every service reads display names from: a
``player:{id}`` hash per player, its field ``name`` the display name (written by the engine's
Players service), its field ``token_generation`` the generation a player token must carry to be
taken (absent: 0; the Players service's RevokeTokens raises it, ending every older token)."""

from __future__ import annotations

from typing import cast

import redis.asyncio as redis

from maumau.common.tokens import PlayerClaims, TokenError, new_id

MAX_NAME_LENGTH = 32


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
        await self.redis.hset(f"player:{{{player_id}}}", mapping={"name": check_name(name)})
        return player_id

    async def generation(self, player_id: str) -> int:
        """The token generation a player token of ``player_id`` must carry."""
        value = await self.redis.hget(f"player:{{{player_id}}}", "token_generation")
        return int(value or 0)

    async def revoke_tokens(self, player_id: str) -> int:
        """End every player token of ``player_id`` issued so far; the new generation."""
        return int(await self.redis.hincrby(f"player:{{{player_id}}}", "token_generation", 1))

    async def check_token(self, claims: PlayerClaims) -> PlayerClaims:
        """``claims`` if their generation is the player's current one; TokenError if revoked."""
        if claims.generation is not None and claims.generation != await self.generation(
            claims.player_id
        ):
            raise TokenError("player token revoked: its player ended it; sign in with a newer one")
        return claims

    async def name(self, player_id: str) -> str:
        """The player's display name, or '' for an id the directory does not know."""
        name = cast(bytes | None, await self.redis.hget(f"player:{{{player_id}}}", "name"))
        return name.decode() if name else ""

    async def names(self, player_ids: list[str]) -> list[str]:
        """:meth:`name` of each of ``player_ids``, in one round trip."""
        if not player_ids:
            return []
        async with self.redis.pipeline(transaction=False) as pipe:
            for player_id in player_ids:
                pipe.hget(f"player:{{{player_id}}}", "name")
            found = cast(list[bytes | None], await pipe.execute())
        return [name.decode() if name else "" for name in found]
