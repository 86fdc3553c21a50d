"""Helpers of the rating tests: results written by hand, streams, consumers, snapshots."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from typing import Any, TypeVar

import redis.asyncio

from maumau.common.config import ConsumerSettings
from maumau.common.results import result_entry
from maumau.rating.consumer import ResultsConsumer
from maumau.rating.ladder import Result
from maumau.rating.store import RatingStore
from maumau.rules.ruleset import PRESETS
from maumau.v1 import game_pb2
from maumau.wire import bot_level_to_pb

T = TypeVar("T")

JANUARY_2025 = 1736899200.0  # 2025-01-15 00:00 UTC


def seat(
    n: int,
    player_id: str = "",
    *,
    bot: str = "",
    left: bool = False,
    team: int | None = None,
    total: int = 0,
    rounds_won: int = 0,
    specials: int = 0,
    winner: bool = False,
) -> game_pb2.MatchResult.Seat:
    """One seat as the engine writes it (a bot seat has no player id)."""
    return game_pb2.MatchResult.Seat(
        seat=n,
        player_id="" if bot else player_id,
        bot_level=bot_level_to_pb(bot),
        left=left,
        team=n if team is None else team,
        total=total,
        rounds_won=rounds_won,
        specials=specials,
        winner=winner,
    )


def result(
    seats: Sequence[game_pb2.MatchResult.Seat],
    *,
    preset: str = "classic",
    ranked: bool = True,
    teams: bool = False,
    finished_at: float = JANUARY_2025,
    match_id: str | None = None,
) -> game_pb2.MatchResult:
    """A finished match as the engine publishes it."""
    return game_pb2.MatchResult(
        match_id=match_id or uuid.uuid4().hex,
        ruleset=f"{preset} teams=true" if teams else preset,
        preset=preset,
        ranked=ranked,
        teams=teams,
        seats=seats,
        winners=[s.seat for s in seats if s.winner],
        reason="target",
        rounds=max(1, sum(s.rounds_won for s in seats)),
        finished_at=finished_at,
    )


def parse(messages: Iterable[game_pb2.MatchResult]) -> list[Result]:
    return [Result.from_pb(message) for message in messages]


async def publish(
    client: redis.asyncio.Redis, stream: str, messages: Iterable[game_pb2.MatchResult]
) -> None:
    """XADD each result as the engine does (``maumau.common.results.result_entry``)."""
    async with client.pipeline(transaction=False) as pipe:
        for message in messages:
            pipe.xadd(stream, result_entry(message))  # type: ignore[arg-type]
        await pipe.execute()


def consumer(
    client: redis.asyncio.Redis, store: RatingStore, stream: str, name: str, **options: object
) -> ResultsConsumer:
    """A consumer of ``stream`` that polls briskly, as a test wants."""
    settings = ConsumerSettings(**{"batch": 50, "block_seconds": 0.05, **options, "consumer": name})  # type: ignore[arg-type]
    return ResultsConsumer(client, store, settings, stream=stream)


async def drained(consumer: ResultsConsumer) -> bool:
    """Every entry of the consumer's stream was delivered to its group and acknowledged."""
    client, stream, group = consumer.redis, consumer.stream, consumer.group
    info = await client.xinfo_stream(stream)
    groups = {g["name"].decode(): g for g in await client.xinfo_groups(stream)}
    if group not in groups:
        return False
    last = info["last-generated-id"]
    return groups[group]["last-delivered-id"] == last and groups[group]["pending"] == 0


async def snapshot(store: RatingStore, rated: Iterable[str]) -> dict[str, Any]:
    """Everything the store keeps about ``rated``, and every ladder, as plain values."""
    players = {}
    for rated_id in sorted(rated):
        state = await store.player(rated_id)
        players[rated_id] = None if state is None else {p: s.data for p, s in state.presets.items()}
    ladders = {}
    for preset in PRESETS:
        for season in ("2024", "2025"):
            key = store.ladder_key(preset, season)
            ladders[(preset, season)] = await store.redis.zrevrange(key, 0, -1, withscores=True)
    return {"players": players, "ladders": ladders}
