"""The Accounts service's settings: ``MAUMAU_ACCOUNTS_*``, Redis, the platform secret and the
trusted relays of the rate limits (``MAUMAU_RATE_EXEMPT_ADDRESSES``).

The identity providers are one variable, ``MAUMAU_ACCOUNTS_OIDC_PROVIDERS``: a JSON list of
``{"name", "issuer", "client_id", "client_secret"}`` objects (optionally ``"display_name"`` and
``"scopes"``), read at start; docs/identity-providers.md shows how to register the platform with
a provider.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

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
    rate_field,
    service_config,
)
from maumau.common.tokens import PLAYER_TOKEN_TTL_SECONDS

PORTS = SERVICE_PORTS["accounts"]
ENGINE, RATING, TOURNAMENTS = (SERVICE_PORTS[s] for s in ("engine", "rating", "tournaments"))

PROVIDER_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}")


@dataclass(frozen=True)
class ProviderConfig:
    """One OpenID Connect provider as the operator registered the platform with it."""

    name: str
    """The platform's name for it (lower case, digits, '_' and '-'): how links name it."""
    issuer: str
    client_id: str
    client_secret: str
    display_name: str
    scopes: tuple[str, ...] = ("openid", "email")

    def __repr__(self) -> str:  # never the secret, wherever settings are printed
        return f"ProviderConfig(name={self.name!r}, issuer={self.issuer!r})"


def parse_providers(text: str) -> tuple[ProviderConfig, ...]:
    """The providers of ``MAUMAU_ACCOUNTS_OIDC_PROVIDERS``; ValueError says what is wrong.

    >>> parse_providers('[{"name": "corp", "issuer": "https://id.example", '
    ...                 '"client_id": "maumau", "client_secret": "s3cret"}]')
    (ProviderConfig(name='corp', issuer='https://id.example'),)
    """
    if not text.strip():
        return ()
    try:
        items = json.loads(text)
    except ValueError:
        raise ValueError("not JSON: a list of provider objects") from None
    if not isinstance(items, list):
        raise ValueError("a JSON list of provider objects")
    found: list[ProviderConfig] = []
    for item in items:
        if not isinstance(item, dict) or not all(
            isinstance(item.get(key), str) and item[key].strip()
            for key in ("name", "issuer", "client_id", "client_secret")
        ):
            raise ValueError("each provider has the texts name, issuer, client_id, client_secret")
        if not PROVIDER_NAME.fullmatch(item["name"]):
            raise ValueError(f"provider name {item['name']!r}: lower case, digits, '_', '-'")
        if not re.match(r"^https?://[^\s/]+", item["issuer"]):
            raise ValueError(f"provider {item['name']}: the issuer is an http(s) URL")
        scopes = item.get("scopes", ["openid", "email"])
        if not isinstance(scopes, list) or "openid" not in scopes:
            raise ValueError(f"provider {item['name']}: scopes is a list holding 'openid'")
        found.append(
            ProviderConfig(
                item["name"],
                item["issuer"].rstrip("/"),
                item["client_id"],
                item["client_secret"],
                str(item.get("display_name") or item["name"]),
                tuple(str(scope) for scope in scopes),
            )
        )
    if len({p.name for p in found}) != len(found):
        raise ValueError("two providers have the same name")
    return tuple(found)


class Settings(RedisSettings, TokenSettings, ResultsConsumerSettings):
    """Usernames, sign-in ways, their limits and their costs."""

    model_config = service_config("accounts")

    port: int = grpc_port(PORTS.grpc)
    metrics_port: int = metrics_port(PORTS.metrics)
    engine_address: str = grpc_target(
        f"127.0.0.1:{ENGINE.grpc}", "the engine an account's matches are read from (export)"
    )
    rating_address: str = grpc_target(
        f"127.0.0.1:{RATING.grpc}", "the rating service an account's ratings and XP are read from"
    )
    tournaments_address: str = grpc_target(
        f"127.0.0.1:{TOURNAMENTS.grpc}",
        "the tournaments service an account's entries are read from",
    )
    token_ttl_seconds: int = Field(
        PLAYER_TOKEN_TTL_SECONDS,
        ge=60,
        le=366 * 86400,
        description="how long a sign-in's player token works (PlayersService.RenewToken renews it)",
    )
    rp_id: str = Field(
        "localhost",
        pattern=r"^[a-z0-9.-]+$",
        description="the WebAuthn relying party id: the domain the gateway is served under "
        "(passkeys are bound to it)",
        json_schema_extra={"accepted": "a domain name such as `maumau.example`"},
    )
    rp_name: str = Field("Mau-Mau", min_length=1, description="the name passkey prompts show")
    origins: str = Field(
        "http://localhost:8080",
        pattern=r"^\s*https?://[^\s,]+(\s*,\s*https?://[^\s,]+)*\s*$",
        description="comma-separated origins passkeys may be used from (the gateway's URL)",
        json_schema_extra={"accepted": "URLs such as `https://maumau.example`"},
    )
    challenge_seconds: int = Field(
        300,
        ge=10,
        le=3600,
        description="how long a passkey challenge or a provider sign-in lasts (each is used once)",
    )
    sign_ins_per_username: str = rate_field(
        "10 per 15 minutes",
        "MAUMAU_ACCOUNTS_SIGN_INS_PER_USERNAME",
        "password sign-in attempts per username (known or not), across replicas; more: "
        "RESOURCE_EXHAUSTED with `retry-after-ms`",
    )
    sign_ins_per_address: str = rate_field(
        "60 per 15 minutes",
        "MAUMAU_ACCOUNTS_SIGN_INS_PER_ADDRESS",
        "sign-in attempts per client address, across replicas",
    )
    password_time_cost: int = Field(
        3, ge=1, le=20, description="argon2id iterations (with the memory: 50-150 ms per hash)"
    )
    password_memory_kib: int = Field(
        32 * 1024, ge=8 * 1024, le=1024 * 1024, description="argon2id memory per hash, in KiB"
    )
    password_parallelism: int = Field(1, ge=1, le=16, description="argon2id lanes")
    hash_concurrency: int = Field(
        2,
        ge=1,
        le=64,
        description="password hashes one replica computes at once (more wait their turn)",
    )
    name_cooling_off_days: int = Field(
        30,
        ge=0,
        le=3650,
        description="how long a deleted account's username stays taken",
    )
    max_sessions: int = Field(
        32, ge=1, le=1000, description="sessions per account; a sign-in beyond ends the oldest"
    )
    max_access_tokens: int = Field(20, ge=1, le=1000, description="access tokens per account")
    max_passkeys: int = Field(10, ge=1, le=100, description="passkeys per account")
    arena_keepalive_seconds: float = Field(
        10, gt=0, le=300, description="an idle event stream's keep-alive interval (Events)"
    )
    arena_poll_seconds: float = Field(
        0.1, gt=0, le=5, description="how often a replica reads its open event streams' news"
    )
    arena_challenge_seconds: float = Field(
        20, gt=0, le=3600, description="a challenge's life unless its creator's stream is open"
    )
    arena_challenge_max_seconds: float = Field(
        600, gt=0, le=86400, description="a challenge's longest life, its creator's stream open"
    )
    arena_sweep_seconds: float = Field(
        1, gt=0, le=60, description="how often a replica expires the challenges due"
    )
    arena_challenges_per_day: int = Field(
        500, ge=1, le=1_000_000, description="challenges one account creates per UTC day"
    )
    arena_bot_matches_per_day: int = Field(
        100, ge=1, le=1_000_000, description="bot-vs-bot matches one bot plays per UTC day"
    )
    tick_seconds: float = Field(
        0.1, gt=0, le=60, description="how often a replica looks for finished challenge matches"
    )
    arena_max_replica_streams: int = Field(
        20_000, ge=1, le=1_000_000, description="event streams one replica holds open in all"
    )
    arena_max_streams: int = Field(
        500, ge=1, le=100_000, description="event streams one account holds open on a replica"
    )
    access_token_max_days: int = Field(
        365, ge=1, le=3650, description="the longest an access token may be made to last"
    )
    oidc_providers: str = Field(
        "",
        description="the OpenID Connect providers: a JSON list of objects with name, issuer, "
        "client_id, client_secret (docs/identity-providers.md); unset: none",
        json_schema_extra={"accepted": "a JSON list, or empty"},
    )
    oidc_redirect_uri: str = Field(
        "http://localhost:8080/auth/callback",
        pattern=r"^https?://\S+$",
        description="where providers send the browser back (registered with each provider)",
        json_schema_extra={"accepted": "a URL"},
    )

    rate_exempt_addresses: str = Field(
        "",
        validation_alias="MAUMAU_RATE_EXEMPT_ADDRESSES",
        pattern=QuotaSettings.model_fields["rate_exempt_addresses"].metadata[0].pattern,
        description=QuotaSettings.model_fields["rate_exempt_addresses"].description,
        json_schema_extra={"accepted": "networks such as `10.0.0.0/8,fd00::/8`, or empty"},
    )

    def relays(self) -> tuple[str, ...]:
        """The trusted relays' networks: their calls name the client in ``x-forwarded-for``."""
        return tuple(p.strip() for p in self.rate_exempt_addresses.split(",") if p.strip())

    @field_validator("oidc_providers")
    @classmethod
    def _providers(cls, value: str) -> str:
        parse_providers(value)
        return value

    def providers(self) -> tuple[ProviderConfig, ...]:
        return parse_providers(self.oidc_providers)

    def origin_list(self) -> tuple[str, ...]:
        return tuple(origin.strip() for origin in self.origins.split(",") if origin.strip())
