"""The rating service's settings: ``MAUMAU_RATING_*`` and Redis."""

from __future__ import annotations

from pydantic import Field

from maumau.common.config import SERVICE_PORTS, ConsumerSettings
from maumau.common.settings import RedisSettings, grpc_port, metrics_port, service_config
from maumau.rating.farming import WINDOW_SECONDS

PORTS = SERVICE_PORTS["rating"]


class Settings(RedisSettings):
    model_config = service_config("rating")

    port: int = grpc_port(PORTS.grpc)
    metrics_port: int = metrics_port(PORTS.metrics)
    consumer: str = Field(
        "",
        description="this replica's name in the `rating` consumer group (unset: host-pid; give "
        "each replica its own, stable across restarts, e.g. the pod name)",
    )
    batch: int = Field(
        100,
        ge=1,
        le=200,
        description="results applied per atomic step (the script unpacks a batch onto its stack)",
    )
    claim_idle_seconds: float = Field(
        30.0,
        gt=0,
        le=86400,
        description="after this, results pending with a silent replica are taken over by another",
    )
    block_seconds: float = Field(
        0.5, gt=0, le=10, description="the longest one read waits for new results"
    )

    match_retention_seconds: int = Field(
        180 * 86400,
        ge=60,
        le=10 * 366 * 86400,
        description="how long an applied match's record is kept (players' histories show it, and "
        "it marks the match applied: keep it at least `MAUMAU_ENGINE_RETENTION_SECONDS`, the "
        "longest an engine may hand on a finished match's result again)",
    )
    farming_window_seconds: float = Field(
        WINDOW_SECONDS,
        ge=60,
        le=30 * 86400,
        description="how far back earlier ranked meetings with the same accounts count against "
        "a match (the ladder's rule against familiar opponents; each player keeps at most 64 "
        "meetings per preset within it): shorter weakens the rule and keeps less",
    )
    gone_after_seconds: float = Field(
        3600.0,
        gt=0,
        le=30 * 86400,
        description="a replica's name silent this long in the `rating` group, owning no "
        "result, is removed from the group (a crashed replica's)",
    )

    def consuming(self) -> ConsumerSettings:
        return ConsumerSettings(
            self.consumer,
            self.batch,
            self.claim_idle_seconds,
            self.block_seconds,
            self.gone_after_seconds,
        )
