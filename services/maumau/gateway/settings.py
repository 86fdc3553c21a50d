"""The gateway's settings, from ``MAUMAU_GATEWAY_*`` environment variables.

A value that is set but unusable stops the gateway at start with a message naming it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields

from maumau.common.config import SERVICE_PORTS, ConfigError

PREFIX = "MAUMAU_GATEWAY_"


def _local(service: str) -> str:
    return f"127.0.0.1:{SERVICE_PORTS[service].grpc}"


@dataclass(frozen=True)
class GatewaySettings:
    """Where the gateway listens, which services it bridges, and what one caller may use."""

    host: str = "127.0.0.1"
    port: int = 8080
    metrics_port: int = 9106
    grace_seconds: float = 10.0
    """Time in-flight requests get on shutdown, before open WebSockets are told to reconnect."""
    engine_address: str = _local("engine")
    """The engine (``maumau.v1.Engine`` and ``maumau.v1.Players``)."""
    matchmaking_address: str = _local("matchmaking")
    bots_address: str = _local("bots")
    """The Bots service whose ``Hint`` gives the tips."""
    rating_address: str = _local("rating")
    origins: str = ""
    """Extra origins allowed to open WebSockets, comma-separated (``https://play.example``);
    the gateway's own origin (from the Host header) is always allowed."""
    forwarded_hops: int = 0
    """Proxies in front of the gateway that append to X-Forwarded-For (an Ingress: 1). The
    client address for rate limits is the entry that many places from the right; 0: the peer
    address itself, for a gateway reached directly."""
    cookie_secure: bool = False
    """Mark the session cookie Secure (set it behind TLS)."""
    max_body_bytes: int = 8192
    """Larger request bodies and WebSocket messages are refused."""
    rate_per_second: float = 20.0
    """Requests (and WebSocket messages) per second one session may make, on average."""
    rate_burst: float = 60.0
    address_rate_per_second: float = 100.0
    """The same for one client address, over all its sessions."""
    address_rate_burst: float = 300.0
    sockets_per_session: int = 8
    sockets_per_address: int = 64
    max_sockets: int = 5000
    """WebSockets one gateway process holds at most; more are refused (503)."""
    follows_per_socket: int = 4
    """Matches, rooms and tickets one WebSocket may follow at once."""
    upstream_timeout_seconds: float = 10.0

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> GatewaySettings:
        """Each field from ``MAUMAU_GATEWAY_<FIELD NAME IN CAPITALS>``, default when unset."""
        env = os.environ if environ is None else environ
        values: dict[str, object] = {}
        for spec in fields(cls):
            name = PREFIX + spec.name.upper()
            text = env.get(name, "").strip()
            if not text:
                continue
            default = spec.default
            if isinstance(default, bool):
                if text.lower() not in ("true", "false", "1", "0"):
                    raise ConfigError(f"{name}={text!r}: expected true or false")
                values[spec.name] = text.lower() in ("true", "1")
                continue
            if isinstance(default, str):
                values[spec.name] = text
                continue
            kind = type(default)
            try:
                value = kind(text)
            except ValueError:
                raise ConfigError(f"{name}={text!r}: expected a {kind.__name__}") from None
            if spec.name.endswith("port"):
                if not 0 <= value <= 65535:
                    raise ConfigError(f"{name}={text}: a port is between 0 and 65535")
            elif value < 0 or (value == 0 and spec.name != "forwarded_hops"):
                raise ConfigError(f"{name}={text}: must be greater than 0")
            values[spec.name] = value
        return cls(**values)  # type: ignore[arg-type]

    @property
    def allowed_origins(self) -> frozenset[str]:
        return frozenset(o.strip().rstrip("/") for o in self.origins.split(",") if o.strip())
