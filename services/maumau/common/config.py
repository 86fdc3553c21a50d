"""Configuration from environment variables, one frozen dataclass per concern.

Every value has a default that works on a laptop; a value that is set but unusable stops the
service at start with a message naming the variable, rather than failing later mid-match.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple, TypeVar

log = logging.getLogger(__name__)
N = TypeVar("N", int, float)


class ConfigError(ValueError):
    """An environment variable is set to a value the service cannot use."""


class Ports(NamedTuple):
    grpc: int
    metrics: int


SERVICE_PORTS: Mapping[str, Ports] = {
    "engine": Ports(50051, 9101),
    "bots": Ports(50052, 9102),
    "matchmaking": Ports(50053, 9103),
    "rating": Ports(50054, 9104),
    "tournaments": Ports(50055, 9105),
}

DEV_TOKEN_SECRET = "maumau-dev-secret-do-not-use-in-production"


@dataclass(frozen=True)
class ServiceConfig:
    """Where a gRPC service listens and how it behaves as a server."""

    host: str
    port: int
    metrics_port: int
    grace_seconds: float = 10.0
    max_receive_message_bytes: int = 64 * 1024
    health_interval_seconds: float = 5.0

    @classmethod
    def from_env(
        cls,
        prefix: str,
        default_port: int,
        default_metrics_port: int,
        environ: Mapping[str, str] | None = None,
    ) -> ServiceConfig:
        """Read `{prefix}_HOST`, `_PORT`, `_METRICS_PORT`, `_GRACE_SECONDS`,
        `_MAX_RECEIVE_BYTES` and `_HEALTH_INTERVAL_SECONDS`."""
        env = os.environ if environ is None else environ
        return cls(
            host=env.get(f"{prefix}_HOST", "127.0.0.1"),
            port=_port(env, f"{prefix}_PORT", default_port),
            metrics_port=_port(env, f"{prefix}_METRICS_PORT", default_metrics_port),
            grace_seconds=_positive(env, f"{prefix}_GRACE_SECONDS", cls.grace_seconds),
            max_receive_message_bytes=_positive(
                env, f"{prefix}_MAX_RECEIVE_BYTES", cls.max_receive_message_bytes
            ),
            health_interval_seconds=_positive(
                env, f"{prefix}_HEALTH_INTERVAL_SECONDS", cls.health_interval_seconds
            ),
        )

    @classmethod
    def for_service(cls, name: str, environ: Mapping[str, str] | None = None) -> ServiceConfig:
        """Config for a named service (`engine` reads `MAUMAU_ENGINE_PORT`, ...), with its
        default ports from SERVICE_PORTS."""
        if name not in SERVICE_PORTS:
            raise ConfigError(f"unknown service {name!r}; known: {', '.join(SERVICE_PORTS)}")
        ports = SERVICE_PORTS[name]
        return cls.from_env(f"MAUMAU_{name.upper()}", ports.grpc, ports.metrics, environ)


@dataclass(frozen=True)
class RedisConfig:
    """Which Redis holds the matches; no URL means: start an embedded one in `data_dir`."""

    url: str | None
    data_dir: Path
    appendfsync: str = "everysec"

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> RedisConfig:
        """Read `REDIS_URL`, `MAUMAU_DATA_DIR` and `MAUMAU_REDIS_APPENDFSYNC`."""
        env = os.environ if environ is None else environ
        appendfsync = env.get("MAUMAU_REDIS_APPENDFSYNC", cls.appendfsync)
        if appendfsync not in ("always", "everysec", "no"):
            raise ConfigError(
                f"MAUMAU_REDIS_APPENDFSYNC={appendfsync!r}: use always, everysec or no"
            )
        return cls(
            url=env.get("REDIS_URL") or None,
            data_dir=Path(env.get("MAUMAU_DATA_DIR") or "data"),
            appendfsync=appendfsync,
        )


@dataclass(frozen=True)
class TokenConfig:
    """The platform secret that signs and verifies every token."""

    secret: bytes

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> TokenConfig:
        """Read `MAUMAU_TOKEN_SECRET`; unset falls back to a dev secret, loudly."""
        env = os.environ if environ is None else environ
        secret = env.get("MAUMAU_TOKEN_SECRET")
        if secret is None:
            log.warning(
                "MAUMAU_TOKEN_SECRET is not set: using the public development secret. "
                "Anyone can forge tokens; set a long random secret in production."
            )
            secret = DEV_TOKEN_SECRET
        elif not secret.strip():
            raise ConfigError("MAUMAU_TOKEN_SECRET is empty: set a long random secret")
        return cls(secret=secret.encode())


def _port(env: Mapping[str, str], name: str, default: int) -> int:
    port = _parse(env, name, default, int)
    if not 0 <= port <= 65535:
        raise ConfigError(f"{name}={port}: a port is between 0 and 65535")
    return port


def _positive(env: Mapping[str, str], name: str, default: N) -> N:
    value = _parse(env, name, default, type(default))
    if value <= 0:
        raise ConfigError(f"{name}={value}: must be greater than 0")
    return value


def _parse(env: Mapping[str, str], name: str, default: N, kind: type[N]) -> N:
    text = env.get(name, "").strip()
    if not text:
        return default
    try:
        return kind(text)
    except ValueError:
        raise ConfigError(f"{name}={text!r}: expected a {kind.__name__}") from None
