"""One way to configure a service: a typed settings class read from environment variables.

Each service declares one class (``maumau.<service>.settings.Settings``) on top of
:class:`ServiceSettings`, one field per variable, each with its type, accepted range, default and
help text; pydantic-settings reads and checks them. A service that needs Redis adds
:class:`RedisSettings`, one that signs or checks tokens :class:`TokenSettings`, one that limits
creating calls :class:`QuotaSettings`, one that reads finished matches in a consumer group of its
own :class:`ResultsConsumerSettings`:

    class Settings(RedisSettings, TokenSettings):
        model_config = service_config("tournaments")  # variables MAUMAU_TOURNAMENTS_*
        port: int = grpc_port(50055)
        metrics_port: int = metrics_port(9105)
        block_minutes: int = Field(30, ge=1, le=600, description="length of a block")

A field's variable is the service prefix plus its name in capitals (``block_minutes`` reads
``MAUMAU_TOURNAMENTS_BLOCK_MINUTES``), or its ``validation_alias`` for a variable shared by every
service (``REDIS_URL``). An empty number means its default. :func:`load_settings` (used by
``run_service``) turns every unusable value into one :class:`ConfigError` naming each variable and
what it accepts, so the service stops at start instead of failing mid-match. The table of
variables in docs/configuration.md is :func:`markdown_table` of every service's class (a test
keeps it so).
"""

from __future__ import annotations

import logging
import types
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal, TypeVar, Union, get_args, get_origin

import annotated_types
from pydantic import Field, ValidationError, model_validator
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, SettingsConfigDict

from maumau.common.config import ConfigError, ConsumerSettings, RedisConfig, ServiceConfig
from maumau.common.quotas import Rates
from maumau.common.redis_client import DEFAULT_SHARDS

log = logging.getLogger(__name__)

S = TypeVar("S", bound="ServiceSettings")

DEV_TOKEN_SECRET = "maumau-dev-secret-do-not-use-in-production"
LOCAL = "127.0.0.1"


def service_config(service: str) -> SettingsConfigDict:
    """The settings configuration of ``service``: its variables start ``MAUMAU_<SERVICE>_``."""
    return SettingsConfigDict(
        env_prefix=f"MAUMAU_{service.upper()}_",
        title=service,
        frozen=True,
        extra="ignore",
        populate_by_name=True,
    )


def grpc_port(default: int) -> Any:
    return Field(default, ge=0, le=65535, description="gRPC port (0: any free port)")


def metrics_port(default: int) -> Any:
    return Field(default, ge=0, le=65535, description="Prometheus /metrics port (0: any free)")


RATE_PATTERN = r"^\s*[1-9][0-9]*\s*(/|per)\s*([1-9][0-9]*\s*)?(second|minute|hour|day)s?\s*$"


def rate_field(default: str, alias: str, what: str) -> Any:
    """A setting holding a rate in the ``limits`` notation, e.g. ``30/minute``."""
    return Field(
        default,
        validation_alias=alias,
        pattern=RATE_PATTERN,
        description=what,
        json_schema_extra={"accepted": "a rate such as `30/minute` or `5 per 10 seconds`"},
    )


def grpc_target(default: str, what: str) -> Any:
    """A setting naming a service this one calls, e.g. the engine its tables are created on."""
    return Field(
        default,
        pattern=r"\S",
        description=f"{what}: a gRPC target, e.g. `engine:50051` or "
        "`ipv4:10.0.0.1:50051,10.0.0.2:50051`; calls go round robin over what it names",
        json_schema_extra={"accepted": "a gRPC target, not blank"},
    )


class ServiceSettings(BaseSettings):
    """What every service has: where it listens and how it behaves as a server."""

    model_config = service_config("service")

    host: str = Field(LOCAL, min_length=1, description="listen address (`0.0.0.0` in a container)")
    port: int = grpc_port(0)
    metrics_port: int = metrics_port(0)
    grace_seconds: float = Field(
        10.0, gt=0, le=600, description="time in-flight calls get on shutdown"
    )
    max_receive_bytes: int = Field(
        64 * 1024,
        ge=1024,
        le=64 * 1024 * 1024,
        description="larger requests are refused (RESOURCE_EXHAUSTED)",
    )
    health_interval_seconds: float = Field(
        5.0, gt=0, le=300, description="how often health probes what the service depends on"
    )

    @classmethod
    def service_name(cls) -> str:
        return str(cls.model_config.get("title", "service"))

    @classmethod
    def variable(cls, name: str) -> str:
        """The environment variable of field ``name``."""
        alias = cls.model_fields[name].validation_alias
        if isinstance(alias, str):
            return alias
        return f"{cls.model_config.get('env_prefix', '')}{name}".upper()

    @model_validator(mode="before")
    @classmethod
    def _empty_means_default(cls, data: Any) -> Any:
        """An empty value of a number or choice means its default, as an unset one does."""
        if not isinstance(data, dict):
            return data
        kept = {}
        for key, value in data.items():
            field = cls._field(key)
            blank = isinstance(value, str) and not value.strip()
            if blank and field is not None and not _is_text(field):
                continue
            kept[key] = value
        return kept

    @classmethod
    def _field(cls, key: str) -> FieldInfo | None:
        for name, field in cls.model_fields.items():
            if key in (name, field.validation_alias):
                return field
        return None

    def server(self) -> ServiceConfig:
        """The server part, for ``create_server``."""
        return ServiceConfig(
            host=self.host,
            port=self.port,
            metrics_port=self.metrics_port,
            grace_seconds=self.grace_seconds,
            max_receive_message_bytes=self.max_receive_bytes,
            health_interval_seconds=self.health_interval_seconds,
        )


class RedisSettings(ServiceSettings):
    """The Redis a service keeps its state in (the same variables for every service)."""

    redis_url: str = Field(
        "",
        validation_alias="REDIS_URL",
        pattern=r"^$|^(redis|rediss|unix)://",
        description="the Redis holding every match; unset: an embedded `redis-server` in "
        "`$MAUMAU_DATA_DIR/redis`",
        json_schema_extra={"accepted": "a redis://, rediss:// or unix:// URL"},
    )
    data_dir: Path = Field(
        Path("data"),
        validation_alias="MAUMAU_DATA_DIR",
        description="where the embedded Redis (and `make run`'s token secret) keep their files",
    )
    redis_appendfsync: Literal["always", "everysec", "no"] = Field(
        "everysec",
        validation_alias="MAUMAU_REDIS_APPENDFSYNC",
        description="how often the embedded Redis syncs its append-only file (see Durability)",
    )

    redis_maxmemory: str = Field(
        "1gb",
        validation_alias="MAUMAU_REDIS_MAXMEMORY",
        pattern=r"^[1-9][0-9]*(kb|mb|gb)$",
        description="the embedded Redis's `maxmemory` (with `noeviction`: a full Redis refuses "
        "writes, answered UNAVAILABLE, and loses nothing)",
        json_schema_extra={"accepted": "a size such as `512mb` or `2gb`"},
    )

    redis_cluster: bool = Field(
        False,
        validation_alias="MAUMAU_REDIS_CLUSTER",
        description="`make run` without REDIS_URL starts a local Redis Cluster (3 masters, 3 "
        "replicas on loopback ports) instead of one `redis-server` (`make run CLUSTER=1`)",
    )
    redis_min_replicas: int | None = Field(
        None,
        ge=0,
        le=16,
        validation_alias="MAUMAU_REDIS_MIN_REPLICAS",
        description="replicas that must confirm a move, a seat claim or a rating step "
        "(`WAIT`) before it is acknowledged; unset: 1 on a Redis Cluster with replicas, else 0",
    )
    redis_wait_ms: int = Field(
        1000,
        ge=1,
        le=60_000,
        validation_alias="MAUMAU_REDIS_WAIT_MS",
        description="how long a write waits for its replicas; short of them it is refused "
        "(UNAVAILABLE, retry with the same request id)",
    )

    redis_shards: int = Field(
        DEFAULT_SHARDS,
        ge=1,
        le=1024,
        validation_alias="MAUMAU_REDIS_SHARDS",
        description="shards of each global structure (deadlines, results stream), each its own "
        "Cluster slot; the same for every service (see Key layout; change it only on an empty "
        "store)",
    )

    def redis(self) -> RedisConfig:
        return RedisConfig(
            self.redis_url or None,
            self.data_dir,
            self.redis_appendfsync,
            maxmemory=self.redis_maxmemory,
            cluster=self.redis_cluster,
            min_replicas=self.redis_min_replicas,
            wait_ms=self.redis_wait_ms,
        )


class TokenSettings(ServiceSettings):
    """The platform secret that signs and checks every token."""

    token_secret: str | None = Field(
        None,
        validation_alias="MAUMAU_TOKEN_SECRET",
        pattern=r"\S",
        description="the secret that signs every token; the same for every service and replica "
        "(unset: a public development secret, with a warning)",
        json_schema_extra={"accepted": "text that is not blank"},
    )

    def secret(self) -> bytes:
        if self.token_secret is None:
            log.warning(
                "MAUMAU_TOKEN_SECRET is not set: using the public development secret. "
                "Anyone can forge tokens; set a long random secret in production."
            )
            return DEV_TOKEN_SECRET.encode()
        return self.token_secret.encode()


class QuotaSettings(ServiceSettings):
    """The rate limits on creating calls (the same variables for every service)."""

    rate_per_player: str = rate_field(
        "120/minute",
        "MAUMAU_RATE_PER_PLAYER",
        "creating calls (matches, rooms, tickets, tournaments, registrations) one player may "
        "make, across replicas; more: RESOURCE_EXHAUSTED with `retry-after-ms`",
    )
    rate_per_address: str = rate_field(
        "600/minute",
        "MAUMAU_RATE_PER_ADDRESS",
        "creating calls one client address may make, across replicas",
    )
    registrations_per_address: str = rate_field(
        "60/minute",
        "MAUMAU_REGISTRATIONS_PER_ADDRESS",
        "players one client address may register, across replicas",
    )
    rate_exempt_addresses: str = Field(
        "",
        validation_alias="MAUMAU_RATE_EXEMPT_ADDRESSES",
        pattern=r"^[0-9a-fA-F.:/,\s]*$",
        description="comma-separated networks of trusted proxies (e.g. the gateway's pods) "
        "that relay many clients: no per-address limit for them",
        json_schema_extra={"accepted": "networks such as `10.0.0.0/8,fd00::/8`, or empty"},
    )

    def rates(self) -> Rates:
        exempt = tuple(p.strip() for p in self.rate_exempt_addresses.split(",") if p.strip())
        return Rates(
            self.rate_per_player,
            self.rate_per_address,
            self.registrations_per_address,
            exempt,
        )


class ResultsConsumerSettings(ServiceSettings):
    """How a service's replicas read the results stream (``MatchResult``, one entry per
    finished match) in the service's own consumer group (``matchmaking``, ``tournaments``): the
    same variables under each service's prefix. Reads wait at most four of the service's ticks,
    so a stop is never held up longer."""

    tick_seconds: float
    """How often a replica looks at its work: each service declares it with its own default."""
    results_consumer: str = Field(
        "",
        description="this replica's name in its service's consumer group (`matchmaking`, "
        "`tournaments`) reading finished matches (unset: host-pid)",
    )
    results_claim_idle_seconds: float = Field(
        30.0,
        gt=0,
        le=86400,
        description="after this, finished matches pending with a silent replica are taken over",
    )

    def results(self) -> ConsumerSettings:
        """How a replica reads the results stream."""
        return ConsumerSettings(
            consumer=self.results_consumer,
            claim_idle_seconds=self.results_claim_idle_seconds,
            block_seconds=self.tick_seconds * 4,
        )


def load_settings(cls: type[S]) -> S:
    """``cls`` from the environment; ConfigError names every unusable variable and what it
    accepts."""
    try:
        return cls()
    except ValidationError as error:
        raise ConfigError(_explain(cls, error)) from None


def _explain(cls: type[ServiceSettings], error: ValidationError) -> str:
    lines = []
    for problem in error.errors():
        key = str(problem["loc"][0]) if problem["loc"] else ""
        field = cls._field(key)
        name = next((n for n, f in cls.model_fields.items() if f is field), key)
        variable = cls.variable(name) if field is not None else key
        accepted = accepted_values(field) if field is not None else ""
        lines.append(f"{variable}={problem.get('input')!r} is not usable: use {accepted}")
    return "; ".join(lines)


def _is_text(field: FieldInfo) -> bool:
    return field.annotation is str or str in get_args(field.annotation)


def accepted_values(field: FieldInfo) -> str:
    """What a field accepts, in words: its type and range, or its choices."""
    extra = field.json_schema_extra
    if isinstance(extra, dict) and isinstance(extra.get("accepted"), str):
        return str(extra["accepted"])
    annotation = field.annotation
    if get_origin(annotation) in (Union, types.UnionType):
        annotation = next(a for a in get_args(annotation) if a is not type(None))
    if get_origin(annotation) is Literal:
        return "one of " + ", ".join(str(choice) for choice in get_args(annotation))
    if annotation is bool:
        return "true or false"
    kind = {int: "a whole number", float: "a number", Path: "a directory path"}.get(
        annotation,  # type: ignore[arg-type]
        "text",
    )
    bounds = []
    for rule in field.metadata:
        if isinstance(rule, annotated_types.Ge):
            bounds.append(f"at least {rule.ge}")
        elif isinstance(rule, annotated_types.Gt):
            bounds.append(f"greater than {rule.gt}")
        elif isinstance(rule, annotated_types.Le):
            bounds.append(f"at most {rule.le}")
        elif isinstance(rule, annotated_types.Lt):
            bounds.append(f"less than {rule.lt}")
        elif isinstance(rule, annotated_types.MinLen) and rule.min_length == 1:
            bounds.append("not empty")
    return " ".join([kind, " and ".join(bounds)]).strip()


def markdown_table(classes: Sequence[type[ServiceSettings]]) -> str:
    """Every variable of ``classes`` as a Markdown table; a field of :class:`ServiceSettings`
    itself is one row ``MAUMAU_<SERVICE>_...`` for all of them."""
    rows: dict[str, list[str]] = {}
    services: dict[str, list[str]] = {}
    for cls in classes:
        for name, field in cls.model_fields.items():
            shared = name in ServiceSettings.model_fields and field.validation_alias is None
            variable = f"MAUMAU_<SERVICE>_{name.upper()}" if shared else cls.variable(name)
            services.setdefault(variable, []).append(cls.service_name())
            if shared and name in ("port", "metrics_port"):
                default = "see the table of services"
            else:
                default = _default_text(field.default)
            rows.setdefault(
                variable,
                [f"`{variable}`", default, accepted_values(field), field.description or ""],
            )
    every = len(classes)
    lines = [
        "| variable | services | default | accepted | meaning |",
        "|---|---|---|---|---|",
    ]
    for variable, (name, default, accepted, meaning) in rows.items():
        used = services[variable]
        who = "all" if len(used) == every else ", ".join(used)
        lines.append(f"| {name} | {who} | {default} | {accepted} | {meaning} |")
    return "\n".join(lines)


def _default_text(value: object) -> str:
    if value is None or value == "":
        return "unset"
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"`{value}`"
