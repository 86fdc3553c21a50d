"""Helpers of the rating tests: results written by hand, streams, consumers, snapshots."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Sequence
from typing import Any

import redis.asyncio

from maumau.rating.consumer import ResultsConsumer
from maumau.rating.ladder import Result
from maumau.rating.store import RatingStore
from maumau.rules.ruleset import PRESETS

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
) -> dict[str, Any]:
    """One seat as the engine's result_json writes it (a bot seat has no player id)."""
    return {
        "seat": n,
        "player_id": "" if bot else player_id,
        "bot_level": bot,
        "left": left,
        "team": n if team is None else team,
        "total": total,
        "rounds_won": rounds_won,
        "specials": specials,
        "winner": winner,
    }


def result(
    seats: Sequence[dict[str, Any]],
    *,
    preset: str = "classic",
    ranked: bool = True,
    teams: bool = False,
    finished_at: float = JANUARY_2025,
    match_id: str | None = None,
) -> str:
    """A finished match as the engine publishes it (keys in result_json's order)."""
    return json.dumps(
        {
            "match_id": match_id or uuid.uuid4().hex,
            "ruleset": f"{preset} teams=true" if teams else preset,
            "preset": preset,
            "ranked": ranked,
            "teams": teams,
            "seats": list(seats),
            "winners": [s["seat"] for s in seats if s["winner"]],
            "reason": "target",
            "rounds": max(1, sum(s["rounds_won"] for s in seats)),
            "finished_at": finished_at,
        },
        separators=(",", ":"),
    )


def parse(texts: Iterable[str]) -> list[Result]:
    return [Result.from_json(text) for text in texts]


async def publish(client: redis.asyncio.Redis, stream: str, texts: Iterable[str]) -> None:
    """XADD each result as the engine does: fields match_id and result."""
    async with client.pipeline(transaction=False) as pipe:
        for text in texts:
            pipe.xadd(stream, {"match_id": json.loads(text)["match_id"], "result": text})
        await pipe.execute()


def consumer(
    client: redis.asyncio.Redis, store: RatingStore, stream: str, name: str, **options: object
) -> ResultsConsumer:
    """A consumer of ``stream`` that polls briskly, as a test wants."""
    options = {"batch": 50, "block_seconds": 0.05, **options}
    return ResultsConsumer(client, store, consumer=name, stream=stream, **options)  # type: ignore[arg-type]


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
