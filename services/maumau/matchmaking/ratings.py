"""Ratings the ranked queue compares: one number per player and preset, higher is stronger.

They are the rating service's ordinals, read from the keys of :mod:`maumau.common.ratings`; a
player without one has :data:`DEFAULT_RATING`. Another source plugs in as any
:data:`RatingLookup`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

import redis.asyncio as redis

from maumau.common.ratings import rating_key

DEFAULT_RATING = 0.0
BOT_PREFIX = "bot:"
"""A bot level's ratings are kept as the pseudo-player ``bot:<level>``'s (``bot:strong``)."""

__all__ = ["BOT_PREFIX", "DEFAULT_RATING", "RatingLookup", "rating_key", "redis_ratings"]

RatingLookup = Callable[[str, Sequence[str]], Awaitable[list[float]]]
"""(preset, player ids) -> their ratings, in the same order."""


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
