"""The player directory in Redis, the contract every service reads display names from: a
``player:{id}`` hash per player, its field ``name`` the display name (written by the engine's
Players service)."""

from __future__ import annotations

from typing import cast

import redis.asyncio as redis

from maumau.common.tokens import new_id

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

    async def name(self, player_id: str) -> str:
        """The player's display name, or '' for an id the directory does not know."""
        name = cast(bytes | None, await self.redis.hget(f"player:{{{player_id}}}", "name"))
        return name.decode() if name else ""
