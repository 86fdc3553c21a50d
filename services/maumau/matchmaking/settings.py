"""The matchmaker's settings, from ``MAUMAU_MATCHMAKING_*`` environment variables.

A value that is set but unusable stops the service at start with a message naming it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from maumau.common.config import SERVICE_PORTS, ConfigError
from maumau.engine.lobby import BOT_LEVELS

PREFIX = "MAUMAU_MATCHMAKING_"


@dataclass(frozen=True)
class Settings:
    """How tables form and how long things wait. Times are in seconds."""

    engine_address: str = f"127.0.0.1:{SERVICE_PORTS['engine'].grpc}"
    """Where the engine answers (``ENGINE_ADDRESS``): a gRPC target, e.g. ``engine:50051``, or
    ``ipv4:10.0.0.1:50051,10.0.0.2:50051``; calls go round robin over the addresses it names or
    resolves to. Every table is created there."""
    tick_seconds: float = 0.05
    """How often a replica looks at the queues (``TICK_SECONDS``)."""
    lease_seconds: float = 10.0
    """How long claimed tickets belong to the replica forming their table; if it dies, another
    replica takes them over after this (``LEASE_SECONDS``)."""
    ticket_ttl_seconds: float = 300.0
    """The longest a ticket searches before it expires (``TICKET_TTL_SECONDS``)."""
    smaller_after_seconds: float = 20.0
    """After this wait a ticket takes any of its table sizes, not only the preferred one."""
    rating_window: float = 5.0
    """Ranked: the largest rating spread at a table of tickets that have just queued."""
    rating_widen_per_second: float = 0.5
    """Ranked: how much the window grows per second a ticket waits."""
    rating_max_window: float = 50.0
    bot_level: str = "heuristic"
    """The level of the bots that fill empty seats of queued tables (``BOT_LEVEL``)."""
    turn_seconds: int = 60
    """The turn timer of queued tables (``TURN_SECONDS``; 0: none): a player who walks away
    is timed out and, after the engine's limit, played by a bot."""
    batch: int = 2000
    """The most waiting tickets of one queue looked at per tick, oldest first (``BATCH``)."""
    create_concurrency: int = 64
    """Tables created on the engine at once by one replica (``CREATE_CONCURRENCY``)."""
    redis_connections: int = 200
    """Connections to Redis per replica (``REDIS_CONNECTIONS``); calls beyond wait for one."""
    follow_poll_seconds: float = 1.0
    """How often a follow stream rereads its ticket or room without being notified."""
    retention_seconds: float = 600.0
    """How long a ticket stays readable after it ended (``RETENTION_SECONDS``)."""
    room_ttl_seconds: float = 24 * 3600.0
    """A room nobody touched for this long is gone (``ROOM_TTL_SECONDS``)."""

    def __post_init__(self) -> None:
        if self.bot_level not in BOT_LEVELS:
            raise ConfigError(
                f"{PREFIX}BOT_LEVEL={self.bot_level!r}: choose one of {', '.join(BOT_LEVELS)}"
            )
        if not self.engine_address.strip():
            raise ConfigError(f"{PREFIX}ENGINE_ADDRESS is empty: set host:port of the engine")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """Each field from ``MAUMAU_MATCHMAKING_<FIELD NAME IN CAPITALS>``, default when unset;
        numbers must be greater than 0 (``TURN_SECONDS`` may be 0)."""
        env = os.environ if environ is None else environ
        values: dict[str, object] = {}
        for spec in fields(cls):
            name = PREFIX + spec.name.upper()
            text = env.get(name, "").strip()
            if not text:
                continue
            default = spec.default
            if isinstance(default, str):
                values[spec.name] = text
                continue
            kind: type[Any] = type(default)
            try:
                value = kind(text)
            except ValueError:
                raise ConfigError(f"{name}={text!r}: expected a {kind.__name__}") from None
            if value < 0 or (value == 0 and spec.name != "turn_seconds"):
                raise ConfigError(f"{name}={text}: must be greater than 0")
            values[spec.name] = value
        return cls(**values)  # type: ignore[arg-type]
