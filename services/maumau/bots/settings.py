"""The Bots service's settings: ``MAUMAU_BOTS_*``. It keeps no state and needs no Redis."""

from __future__ import annotations

from maumau.common.config import SERVICE_PORTS
from maumau.common.settings import ServiceSettings, grpc_port, metrics_port, service_config

PORTS = SERVICE_PORTS["bots"]


class Settings(ServiceSettings):
    model_config = service_config("bots")

    port: int = grpc_port(PORTS.grpc)
    metrics_port: int = metrics_port(PORTS.metrics)
