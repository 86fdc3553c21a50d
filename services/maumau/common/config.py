"""The values a service runs with, once its settings are read (see ``maumau.common.settings``):
where a server listens, which Redis holds the state, how a consumer reads a stream, and the
ports each service uses by default.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple


class ConfigError(ValueError):
    """A setting is set to a value the service cannot use; the message names the variable."""


class Ports(NamedTuple):
    grpc: int
    metrics: int


SERVICE_PORTS: Mapping[str, Ports] = {
    "engine": Ports(50051, 9101),
    "bots": Ports(50052, 9102),
    "matchmaking": Ports(50053, 9103),
    "rating": Ports(50054, 9104),
    "tournaments": Ports(50055, 9105),
    "accounts": Ports(50056, 9107),
}
"""The default ports; a new service takes the next pair."""


@dataclass(frozen=True)
class ServiceConfig:
    """Where a gRPC service listens and how it behaves as a server."""

    host: str
    port: int
    metrics_port: int
    grace_seconds: float = 10.0
    max_receive_message_bytes: int = 64 * 1024
    health_interval_seconds: float = 5.0


@dataclass(frozen=True)
class RedisConfig:
    """Which Redis holds the state; no URL means: start an embedded one in `data_dir`."""

    url: str | None
    data_dir: Path
    appendfsync: str = "everysec"
    maxmemory: str = "1gb"
    """The embedded server's ``maxmemory`` (Redis's own units: ``512mb``, ``2gb``)."""
    cluster: bool = False
    """Start a local Redis Cluster rather than one server (``make run`` without a URL)."""
    min_replicas: int | None = None
    """Replicas that confirm an acknowledged write; None: 1 on a cluster with replicas."""
    wait_ms: int = 1000


@dataclass(frozen=True)
class ConsumerSettings:
    """How one consumer reads its stream (``maumau.common.streams``); a service's settings class
    has a field per value (with its range) and builds this from them."""

    consumer: str = ""
    """This replica's name in the group; "": host-pid."""
    batch: int = 100
    """Entries read and handled per step."""
    claim_idle_seconds: float = 30.0
    """How long an entry may stay pending with a replica before another one takes it over."""
    block_seconds: float = 0.5
    """The longest one read waits for new entries (and a stop for that read)."""
    gone_after_seconds: float = 3600.0
    """A consumer of the group silent this long with no pending entry is removed."""
