"""The gateway's settings: ``MAUMAU_GATEWAY_*`` and the platform secret (to know a session's
player from its cookie). A value that is set but unusable stops the gateway at start with a
message naming it and what it accepts."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from maumau.common.config import SERVICE_PORTS
from maumau.common.settings import TokenSettings, metrics_port, service_config

GATEWAY_PORT, GATEWAY_METRICS_PORT = 8080, 9106
SOURCE_TREE = Path(__file__).resolve().parents[3]
PYODIDE_DIR = Path("clients", "pyodide", "node_modules", "pyodide")
"""Where `npm ci` in clients/pyodide puts Pyodide, from the source tree's root."""


def _address(service: str) -> str:
    return f"127.0.0.1:{SERVICE_PORTS[service].grpc}"


def _upstream(service: str, what: str) -> str:
    return Field(
        _address(service),
        pattern=r"\S",
        description=f"{what} (a gRPC target; several addresses go round robin)",
        json_schema_extra={"accepted": "a gRPC target, not blank"},
    )


class GatewaySettings(TokenSettings):
    """Where the gateway listens, which services it bridges, and what one caller may use."""

    model_config = service_config("gateway")

    port: int = Field(GATEWAY_PORT, ge=0, le=65535, description="HTTP and WebSocket port")
    metrics_port: int = metrics_port(GATEWAY_METRICS_PORT)
    engine_address: str = _upstream("engine", "the engine (Engine and Players)")
    matchmaking_address: str = _upstream("matchmaking", "the matchmaker (rooms and the queue)")
    bots_address: str = _upstream("bots", "the Bots service whose Hint gives the tips")
    rating_address: str = _upstream("rating", "the rating service (profiles, leaderboards)")
    tournaments_address: str = _upstream(
        "tournaments", "the tournaments service (tournaments, standings, the championship)"
    )
    accounts_address: str = _upstream(
        "accounts", "the Accounts service (sign-up, sign-in, the account page)"
    )
    origins: str = Field(
        "",
        description="further origins allowed to open WebSockets, comma-separated "
        "(`https://play.example`); the gateway's own origin always is",
    )
    forwarded_hops: int = Field(
        0,
        ge=0,
        le=10,
        description="proxies in front that append to `X-Forwarded-For` (an Ingress: 1); the "
        "client address for limits is that many entries from the right (0: the peer)",
    )
    cookie_secure: bool = Field(False, description="mark the session cookie Secure (behind TLS)")
    max_body_bytes: int = Field(
        8192,
        ge=1024,
        le=1024 * 1024,
        description="larger request bodies and WebSocket messages are refused",
    )
    rate_per_second: float = Field(
        20.0, gt=0, le=1e6, description="requests (and socket messages) per second per session"
    )
    rate_burst: float = Field(60.0, gt=0, le=1e6, description="what a session may save up")
    address_rate_per_second: float = Field(
        100.0, gt=0, le=1e6, description="requests per second per client address"
    )
    address_rate_burst: float = Field(
        300.0, gt=0, le=1e6, description="what an address may save up"
    )
    sockets_per_session: int = Field(8, ge=1, le=1000, description="open WebSockets per session")
    sockets_per_address: int = Field(
        64, ge=1, le=1_000_000, description="open WebSockets per client address"
    )
    max_sockets: int = Field(
        5000, ge=1, le=1_000_000, description="open WebSockets per gateway process (more: 503)"
    )
    follows_per_socket: int = Field(
        4, ge=1, le=64, description="matches, rooms and tickets one WebSocket follows at once"
    )
    pyodide_dir: str = Field(
        PYODIDE_DIR.as_posix(),
        description="the `pyodide` npm package's folder (a relative one from the source tree's "
        "root), whose files let the page play solo matches on the device; without them (or "
        "empty) solo matches are played on the server",
    )
    upstream_timeout_seconds: float = Field(
        10.0, gt=0, le=120, description="the longest one call to a service may take"
    )

    @property
    def pyodide_folder(self) -> Path | None:
        return SOURCE_TREE / self.pyodide_dir if self.pyodide_dir else None

    @property
    def allowed_origins(self) -> frozenset[str]:
        return frozenset(o.strip().rstrip("/") for o in self.origins.split(",") if o.strip())
