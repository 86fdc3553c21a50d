"""The tournaments service's settings: ``MAUMAU_TOURNAMENTS_*``, Redis and the platform secret.

Times are in seconds. A value that is set but unusable stops the service at start with a message
naming it and what it accepts.
"""

from __future__ import annotations

import zoneinfo

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

PORTS = SERVICE_PORTS["tournaments"]
ENGINE = SERVICE_PORTS["engine"]


class Settings(RedisSettings, TokenSettings, QuotaSettings, ResultsConsumerSettings):
    """Limits, leases and times of the tournaments service."""

    model_config = service_config("tournaments")

    port: int = grpc_port(PORTS.grpc)
    metrics_port: int = metrics_port(PORTS.metrics)
    engine_address: str = grpc_target(f"127.0.0.1:{ENGINE.grpc}", "the engine the tables play on")
    time_zone: str = Field(
        "Europe/Berlin",
        description="the championship year is the calendar year in this time zone (IANA name)",
        json_schema_extra={"accepted": "an IANA time zone name, e.g. Europe/Berlin"},
    )
    lease_seconds: float = Field(
        10.0,
        gt=0,
        le=3600,
        description="after this, a tournament driven by a replica that died is taken over",
    )
    tick_seconds: float = Field(
        0.1, gt=0, le=60, description="how often a replica looks at the tournaments it drives"
    )
    max_entrants: int = Field(
        256, ge=2, le=1024, description="the most entrants a tournament may allow"
    )
    max_per_organizer: int = Field(
        5, ge=1, le=1000, description="tournaments an organizer may have that are not over yet"
    )
    max_follow_streams: int = Field(
        1000, ge=1, le=100_000, description="follow streams open at once on one replica"
    )
    retention_seconds: int = Field(
        30 * 86400,
        ge=60,
        le=366 * 86400,
        description="how long a finished or cancelled tournament stays readable",
    )
    championship_retention_seconds: int = Field(
        3 * 366 * 86400,
        ge=86400,
        le=20 * 366 * 86400,
        description="how long a championship year and the players' histories stay after their "
        "last change",
    )
    championship_decider_start_seconds: int = Field(
        14 * 86400,
        ge=0,
        le=366 * 86400,
        description="a championship tie for a podium place is played out in a deciding "
        "tournament that starts this long after the year ends",
    )
    stuck_after_seconds: float = Field(
        300.0,
        gt=0,
        le=86400,
        description="a tournament overdue for a replica this long counts in `tournaments_stuck`",
    )

    @field_validator("time_zone")
    @classmethod
    def _known_zone(cls, zone: str) -> str:
        try:
            zoneinfo.ZoneInfo(zone)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            raise ValueError(f"{zone!r} is not a time zone name") from None
        return zone
