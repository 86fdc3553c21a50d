"""The matchmaker's settings: ``MAUMAU_MATCHMAKING_*``, Redis and the platform secret.

Times are in seconds. A value that is set but unusable stops the service at start with a
message naming it and what it accepts.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from maumau.common.config import SERVICE_PORTS
from maumau.common.settings import (
    QuotaSettings,
    RedisSettings,
    ResultsConsumerSettings,
    TokenSettings,
    grpc_port,
    grpc_target,
    metrics_port,
    service_config,
)
from maumau.rules import Ruleset

PORTS = SERVICE_PORTS["matchmaking"]
ENGINE = SERVICE_PORTS["engine"]


class Settings(RedisSettings, TokenSettings, QuotaSettings, ResultsConsumerSettings):
    """How tables form and how long things wait."""

    model_config = service_config("matchmaking")

    port: int = grpc_port(PORTS.grpc)
    metrics_port: int = metrics_port(PORTS.metrics)
    engine_address: str = grpc_target(
        f"127.0.0.1:{ENGINE.grpc}", "the engine tables are created on"
    )
    tick_seconds: float = Field(
        0.05, gt=0, le=60, description="how often a replica looks at the queues"
    )
    lease_seconds: float = Field(
        10.0,
        gt=0,
        le=3600,
        description="after this, tickets claimed by a replica that died are claimed again",
    )
    ticket_ttl_seconds: float = Field(
        300.0, gt=0, le=86400, description="the longest a ticket searches before it expires"
    )
    smaller_after_seconds: float = Field(
        20.0,
        gt=0,
        le=3600,
        description="after this wait a ticket takes any of its table sizes",
    )
    rating_window: float = Field(
        5.0,
        gt=0,
        le=1000,
        description="ranked: the largest rating spread at a table of tickets that just queued",
    )
    rating_widen_per_second: float = Field(
        0.5, gt=0, le=1000, description="ranked: how much the window grows per second of wait"
    )
    rating_max_window: float = Field(
        50.0, gt=0, le=10000, description="ranked: the widest the window grows"
    )
    bot_level: Literal["random", "heuristic", "strong"] = Field(
        "heuristic", description="the bots that fill empty seats of queued tables"
    )
    turn_seconds: int = Field(
        60,
        ge=0,
        le=3600,
        description="turn timer of queued tables (0: none): a player who walks away is timed "
        "out and, after the engine's limit, played by a bot",
    )
    batch: int = Field(
        2000,
        ge=1,
        le=100_000,
        description="the most waiting tickets of one queue looked at per tick, oldest first",
    )
    create_concurrency: int = Field(
        64, ge=1, le=10_000, description="tables created on the engine at once by one replica"
    )
    redis_connections: int = Field(
        200,
        ge=2,
        le=10_000,
        description="connections to Redis per replica; calls beyond wait for one",
    )
    follow_poll_seconds: float = Field(
        1.0,
        gt=0,
        le=60,
        description="how often a follow stream rereads its ticket or room without a notice",
    )
    retention_seconds: float = Field(
        600.0, gt=0, le=30 * 86400, description="how long an ended ticket stays readable"
    )
    room_ttl_seconds: float = Field(
        24 * 3600.0, gt=0, le=366 * 86400, description="a room nobody touched this long is gone"
    )
    party_ttl_seconds: float = Field(
        3600.0,
        gt=0,
        le=7 * 86400,
        description="a party nobody invited to, joined, left or queued this long is gone",
    )
    invite_ttl_seconds: float = Field(
        300.0, gt=0, le=86400, description="how long an invitation to a party stays open"
    )
    party_max: int = Field(
        4, ge=2, le=8, description="players and open invitations a party holds at most"
    )
    arena_presets: str = Field(
        "classic target=0,online,ostfriesland rounds=1,colour target=0",
        description="the bot arena's pools: comma-separated rulesets as the engine writes them",
        json_schema_extra={"accepted": "rulesets such as `classic target=0,online`"},
    )
    arena_bot_matches_per_day: int = Field(
        100,
        ge=1,
        le=1_000_000,
        description="bot-vs-bot matches one bot plays per UTC day (the arena and challenges "
        "together; the accounts service's limit of the same name counts the same)",
    )
    arena_entry_seconds: int = Field(
        60,
        ge=5,
        le=86400,
        description="a bot's arena entry not renewed (JoinArena) this long is gone",
    )
    arena_tick_seconds: float = Field(
        1.0, gt=0, le=60, description="how often a replica seats the arena's waiting bots"
    )

    @field_validator("arena_presets")
    @classmethod
    def _known_rulesets(cls, text: str) -> str:
        presets = [Ruleset.parse(part.strip()).text for part in text.split(",") if part.strip()]
        if not presets:
            raise ValueError("name at least one ruleset")
        return ",".join(dict.fromkeys(presets))

    def arena_pools(self) -> tuple[str, ...]:
        """The rulesets of :attr:`arena_presets`, each as the engine writes it."""
        return tuple(self.arena_presets.split(","))
