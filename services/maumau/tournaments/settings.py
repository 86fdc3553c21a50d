"""The tournaments service's settings, from ``MAUMAU_TOURNAMENTS_*`` environment variables.

A value that is set but unusable stops the service at start with a message naming it.
"""

from __future__ import annotations

import os
import zoneinfo
from collections.abc import Mapping
from dataclasses import dataclass, fields

from maumau.common.config import SERVICE_PORTS, ConfigError

PREFIX = "MAUMAU_TOURNAMENTS_"
BOT_LEVELS = ("random", "heuristic", "strong")


@dataclass(frozen=True)
class Settings:
    """Limits, leases and times (in seconds) of the tournaments service."""

    engine_address: str = f"127.0.0.1:{SERVICE_PORTS['engine'].grpc}"
    """Where the engine answers (``ENGINE_ADDRESS``), a gRPC target; round robin over several."""
    time_zone: str = "Europe/Berlin"
    """The championship year is the calendar year here (``TIME_ZONE``, an IANA name)."""
    lease_seconds: float = 10.0
    """How long a tournament is its driving replica's without a renewal; a replica that dies
    leaves it to another after this (``LEASE_SECONDS``)."""
    tick_seconds: float = 0.1
    """How often a replica looks for tournaments to drive and at those it drives."""
    max_entrants: int = 256
    """The most entrants a tournament may allow (``MAX_ENTRANTS``)."""
    max_per_organizer: int = 5
    """Tournaments an organizer may have that are not over yet (``MAX_PER_ORGANIZER``)."""
    max_follow_streams: int = 1000
    """Follow streams open at once on one replica (``MAX_FOLLOW_STREAMS``)."""
    retention_seconds: int = 30 * 24 * 3600
    """How long a finished or cancelled tournament stays readable (``RETENTION_SECONDS``)."""
    championship_retention_seconds: int = 3 * 366 * 24 * 3600
    """How long a championship year and the players' histories stay after their last write."""
    consumer: str = ""
    """This replica's name in the ``tournaments`` consumer group of the results stream
    (``CONSUMER``; empty: host-pid)."""
    claim_idle_seconds: float = 30.0
    """After this, results pending with a silent replica are taken over by another."""
    stuck_after_seconds: float = 300.0
    """A block whose tables are all done for longer than this without the next one starting
    counts as stuck in ``tournaments_stuck`` (``STUCK_AFTER_SECONDS``)."""

    def __post_init__(self) -> None:
        if not self.engine_address.strip():
            raise ConfigError(f"{PREFIX}ENGINE_ADDRESS is empty: set host:port of the engine")
        try:
            zoneinfo.ZoneInfo(self.time_zone)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            raise ConfigError(
                f"{PREFIX}TIME_ZONE={self.time_zone!r}: not a time zone name (e.g. Europe/Berlin)"
            ) from None
        if self.max_entrants > 1024:
            raise ConfigError(f"{PREFIX}MAX_ENTRANTS={self.max_entrants}: at most 1024")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """Each field from ``MAUMAU_TOURNAMENTS_<FIELD NAME IN CAPITALS>``, default when unset;
        numbers must be greater than 0."""
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
            kind = type(default)
            try:
                value = kind(text)
            except ValueError:
                raise ConfigError(f"{name}={text!r}: expected a {kind.__name__}") from None
            if value <= 0:
                raise ConfigError(f"{name}={text}: must be greater than 0")
            values[spec.name] = value
        return cls(**values)  # type: ignore[arg-type]
