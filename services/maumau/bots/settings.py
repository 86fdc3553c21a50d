"""The Bots service's settings: ``MAUMAU_BOTS_*`` and the secret that checks callers' tokens.
It keeps no state and needs no Redis."""

from __future__ import annotations

from pydantic import Field

from maumau.common.config import SERVICE_PORTS
from maumau.common.settings import TokenSettings, grpc_port, metrics_port, service_config

PORTS = SERVICE_PORTS["bots"]


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
        description="the longest a `strong` decision may think; a larger `budget_ms` is "
        "clamped to it",
    )
