"""The Bots service's settings: ``MAUMAU_BOTS_*`` and the secret that checks callers' tokens.
It keeps no state and needs no Redis, unless the house plays in the arena
(``MAUMAU_BOTS_HOUSE_LEVELS``, :mod:`maumau.bots.house`): then it reaches the platform's Redis,
engine and matchmaker."""

from __future__ import annotations

from pydantic import Field, ValidationInfo, field_validator

from maumau.common.config import SERVICE_PORTS
from maumau.common.settings import (
    TokenSettings,
    grpc_port,
    grpc_target,
    metrics_port,
    service_config,
)
from maumau.wire import BOT_LEVELS

PORTS = SERVICE_PORTS["bots"]
ENGINE, MATCHMAKING = SERVICE_PORTS["engine"], SERVICE_PORTS["matchmaking"]


class Settings(TokenSettings):
    model_config = service_config("bots")

    port: int = grpc_port(PORTS.grpc)
    metrics_port: int = metrics_port(PORTS.metrics)
    max_searches: int = Field(
        4,
        ge=1,
        le=1024,
        description="decisions computed at once by one replica; more are RESOURCE_EXHAUSTED "
        "with a retry hint (about one per core is plenty)",
    )
    max_budget_ms: int = Field(
        2000,
        ge=1,
        le=2000,
        description="the longest a `strong` decision may think, the house's in the arena too; "
        "a larger `budget_ms` is clamped to it",
    )
    house_levels: str = Field(
        "",
        description="the levels that play in the bot arena as bot accounts of the house, "
        "comma-separated (random, heuristic, strong); empty: none",
        json_schema_extra={"accepted": "levels such as `random,heuristic,strong`, or empty"},
    )
    house_redis_url: str = Field(
        "",
        validate_default=True,
        pattern=r"^$|^(redis|rediss|unix)://",
        description="the platform's Redis, where the house's accounts and their events are "
        "(needed with `MAUMAU_BOTS_HOUSE_LEVELS`)",
        json_schema_extra={"accepted": "a redis://, rediss:// or unix:// URL (empty: no house)"},
    )
    house_engine_address: str = grpc_target(
        f"127.0.0.1:{ENGINE.grpc}", "the engine the house's seats are played on"
    )
    house_matchmaking_address: str = grpc_target(
        f"127.0.0.1:{MATCHMAKING.grpc}", "the matchmaker whose arena the house joins"
    )

    @field_validator("house_levels")
    @classmethod
    def _known_levels(cls, text: str) -> str:
        levels = [part.strip() for part in text.split(",") if part.strip()]
        for level in levels:
            if level not in BOT_LEVELS:
                raise ValueError(f"no bot level {level!r}: choose from {', '.join(BOT_LEVELS)}")
        return ",".join(dict.fromkeys(levels))

    @field_validator("house_redis_url")
    @classmethod
    def _house_needs_redis(cls, url: str, info: ValidationInfo) -> str:
        if info.data.get("house_levels") and not url:
            raise ValueError("the house (MAUMAU_BOTS_HOUSE_LEVELS) needs the platform's Redis")
        return url

    def house(self) -> tuple[str, ...]:
        """The levels of :attr:`house_levels` (none: no house)."""
        return tuple(level for level in self.house_levels.split(",") if level)
