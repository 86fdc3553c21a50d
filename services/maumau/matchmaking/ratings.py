"""Ratings the ranked queue compares: one number per player and preset, higher is stronger.

Until the rating service fills them in, every player has :data:`DEFAULT_RATING`. The rating
service writes a player's rating ordinal (e.g. OpenSkill's mu - 3 sigma, 0 for a new player) as
text under ``rating:<preset>:{<player_id>}``, for example ``rating:classic:{a1b2}`` = ``"17.5"``;
the player id is the key's hash tag, as in the engine's ``player:{id}`` keys. Another source
plugs in as any :data:`RatingLookup`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

import redis.asyncio as redis

DEFAULT_RATING = 0.0

RatingLookup = Callable[[str, Sequence[str]], Awaitable[list[float]]]
"""(preset, player ids) -> their ratings, in the same order."""


def rating_key(preset: str, player_id: str) -> str:
    return f"rating:{preset}:{{{player_id}}}"


def redis_ratings(client: redis.Redis) -> RatingLookup:
    """Read ratings from the keys above; a missing or unreadable one is the default."""

    async def lookup(preset: str, player_ids: Sequence[str]) -> list[float]:
        if not player_ids:
            return []
        async with client.pipeline(transaction=False) as pipe:
            for player_id in player_ids:
                pipe.get(rating_key(preset, player_id))
            values = await pipe.execute()
        return [_number(value) for value in values]

    return lookup


def _number(value: bytes | None) -> float:
    try:
        return float(value) if value is not None else DEFAULT_RATING
    except ValueError:
        return DEFAULT_RATING
