"""Settings: defaults for a laptop, overrides from the environment, and every unusable value stops
the service at start with a message naming the variable and what it accepts (issue 9, section 2).
"""

import logging
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from maumau.accounts.settings import Settings as AccountsSettings
from maumau.bots.settings import Settings as BotsSettings
from maumau.common.config import SERVICE_PORTS, ConfigError, RedisConfig, ServiceConfig
from maumau.common.settings import (
    DEV_TOKEN_SECRET,
    ServiceSettings,
    load_settings,
    markdown_table,
)
from maumau.engine.settings import Settings as EngineSettings
from maumau.gateway.settings import GatewaySettings
from maumau.matchmaking.settings import Settings as MatchmakingSettings
from maumau.rating.settings import Settings as RatingSettings
from maumau.tournaments.settings import Settings as TournamentsSettings

ROOT = Path(__file__).resolve().parents[2]
SERVICES: dict[str, type[ServiceSettings]] = {
    "engine": EngineSettings,
    "bots": BotsSettings,
    "matchmaking": MatchmakingSettings,
    "rating": RatingSettings,
    "tournaments": TournamentsSettings,
    "accounts": AccountsSettings,
}


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts from an environment without any of the platform's variables."""
    for name in list(os.environ):
        if name.startswith("MAUMAU_") or name == "REDIS_URL":
            monkeypatch.delenv(name)


@pytest.mark.parametrize("service", SERVICES)
def test_each_service_has_its_own_default_ports(service: str) -> None:
    server = load_settings(SERVICES[service]).server()
    assert (server.host, server.port, server.metrics_port) == (
        "127.0.0.1",
        *SERVICE_PORTS[service],
    )
    assert server.max_receive_message_bytes == 64 * 1024


def test_environment_overrides_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {
        "MAUMAU_BOTS_HOST": "0.0.0.0",
        "MAUMAU_BOTS_PORT": "6000",
        "MAUMAU_BOTS_METRICS_PORT": "0",
        "MAUMAU_BOTS_GRACE_SECONDS": "2.5",
        "MAUMAU_BOTS_MAX_RECEIVE_BYTES": "1024",
        "MAUMAU_BOTS_HEALTH_INTERVAL_SECONDS": "0.5",
        "MAUMAU_ENGINE_PORT": "7000",  # another service's: not the bots'
    }.items():
        monkeypatch.setenv(name, value)
    assert load_settings(BotsSettings).server() == ServiceConfig(
        host="0.0.0.0",
        port=6000,
        metrics_port=0,
        grace_seconds=2.5,
        max_receive_message_bytes=1024,
        health_interval_seconds=0.5,
    )


def test_the_engines_variables_keep_their_names(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {
        "MAUMAU_ENGINE_BOT_DELAY_MS": "0",
        "MAUMAU_ENGINE_RETENTION_SECONDS": "3600",
        "MAUMAU_ENGINE_DEADLINE_LEASE_SECONDS": "2.5",
        "MAUMAU_ENGINE_BOT_BUDGET_MS": "50",
        "MAUMAU_BOTS_ADDRESS": "",
        "MAUMAU_BOTS_ADDRESS_STRONG": "my-bot:7000",
    }.items():
        monkeypatch.setenv(name, value)
    engine = load_settings(EngineSettings).engine()
    assert (engine.bot_delay_seconds, engine.retention_seconds) == (0, 3600)
    assert (engine.deadline_lease_seconds, engine.bot_budget_ms) == (2.5, 50)
    assert engine.bot_addresses == {"": "", "strong": "my-bot:7000"}


def test_the_matchmakers_and_ratings_variables_keep_their_names(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name, value in {
        "MAUMAU_MATCHMAKING_ENGINE_ADDRESS": "engine:50051",
        "MAUMAU_MATCHMAKING_LEASE_SECONDS": "3.5",
        "MAUMAU_MATCHMAKING_BATCH": "500",
        "MAUMAU_MATCHMAKING_TURN_SECONDS": "0",
        "MAUMAU_MATCHMAKING_BOT_LEVEL": "strong",
        "MAUMAU_RATING_CONSUMER": "pod-7",
        "MAUMAU_RATING_BATCH": "50",
        "MAUMAU_RATING_CLAIM_IDLE_SECONDS": "12",
    }.items():
        monkeypatch.setenv(name, value)
    matchmaking = load_settings(MatchmakingSettings)
    assert (matchmaking.engine_address, matchmaking.lease_seconds) == ("engine:50051", 3.5)
    assert (matchmaking.batch, matchmaking.turn_seconds, matchmaking.bot_level) == (
        500,
        0,
        "strong",
    )
    consuming = load_settings(RatingSettings).consuming()
    assert (consuming.consumer, consuming.batch, consuming.claim_idle_seconds) == (
        "pod-7",
        50,
        12,
    )


def test_an_empty_number_means_its_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAUMAU_ENGINE_RETENTION_SECONDS", " ")
    monkeypatch.setenv("MAUMAU_ENGINE_PORT", "")
    settings = load_settings(EngineSettings)
    assert (settings.retention_seconds, settings.port) == (7 * 86400, 50051)


WITH_GATEWAY: dict[str, type[ServiceSettings] | type[GatewaySettings]] = {
    **SERVICES,
    "gateway": GatewaySettings,
}

UNUSABLE = [
    # (service, variable, value, what the message says is accepted)
    ("engine", "MAUMAU_ENGINE_RETENTION_SECONDS", "-5", "a whole number at least 60"),
    ("engine", "MAUMAU_ENGINE_DEADLINE_LEASE_SECONDS", "0", "a number greater than 0"),
    ("engine", "MAUMAU_ENGINE_BOT_DELAY_MS", "soon", "a whole number at least 0 and at most"),
    ("engine", "MAUMAU_ENGINE_BOT_BUDGET_MS", "5000", "at least 1 and at most 2000"),
    ("engine", "MAUMAU_ENGINE_PORT", "70000", "at least 0 and at most 65535"),
    ("engine", "MAUMAU_TOKEN_SECRET", "  ", "text that is not blank"),
    ("engine", "REDIS_URL", "localhost:6379", "a redis://, rediss:// or unix:// URL"),
    ("engine", "MAUMAU_REDIS_APPENDFSYNC", "sometimes", "one of always, everysec, no"),
    ("bots", "MAUMAU_BOTS_PORT", "http", "a whole number at least 0"),
    ("bots", "MAUMAU_BOTS_GRACE_SECONDS", "0", "a number greater than 0"),
    ("bots", "MAUMAU_BOTS_MAX_RECEIVE_BYTES", "12", "at least 1024"),
    ("matchmaking", "MAUMAU_MATCHMAKING_LEASE_SECONDS", "soon", "a number greater than 0"),
    ("matchmaking", "MAUMAU_MATCHMAKING_BATCH", "0", "a whole number at least 1"),
    ("matchmaking", "MAUMAU_MATCHMAKING_TICK_SECONDS", "-1", "a number greater than 0"),
    ("matchmaking", "MAUMAU_MATCHMAKING_TURN_SECONDS", "-1", "a whole number at least 0"),
    ("matchmaking", "MAUMAU_MATCHMAKING_BOT_LEVEL", "genius", "one of random, heuristic, strong"),
    ("matchmaking", "MAUMAU_MATCHMAKING_ENGINE_ADDRESS", " ", "a gRPC target, not blank"),
    ("matchmaking", "MAUMAU_MATCHMAKING_RESULTS_CLAIM_IDLE_SECONDS", "0", "greater than 0"),
    ("rating", "MAUMAU_RATING_BATCH", "many", "a whole number at least 1 and at most 200"),
    ("rating", "MAUMAU_RATING_BATCH", "5000", "at most 200"),
    ("rating", "MAUMAU_RATING_CLAIM_IDLE_SECONDS", "-1", "a number greater than 0"),
    ("tournaments", "MAUMAU_TOURNAMENTS_LEASE_SECONDS", "0", "a number greater than 0"),
    ("tournaments", "MAUMAU_TOURNAMENTS_MAX_ENTRANTS", "1", "a whole number at least 2"),
    ("accounts", "MAUMAU_ACCOUNTS_OIDC_PROVIDERS", "[{}]", "a JSON list, or empty"),
    ("accounts", "MAUMAU_ACCOUNTS_SIGN_INS_PER_USERNAME", "often", "a rate such as"),
    ("accounts", "MAUMAU_ACCOUNTS_PASSWORD_MEMORY_KIB", "64", "at least 8192"),
    ("accounts", "MAUMAU_ACCOUNTS_ORIGINS", "localhost", "URLs such as"),
    ("gateway", "MAUMAU_GATEWAY_RATE_BURST", "0", "a number greater than 0"),
    ("gateway", "MAUMAU_GATEWAY_SOCKETS_PER_SESSION", "5000", "at most 1000"),
]


@pytest.mark.parametrize(("service", "variable", "value", "accepted"), UNUSABLE)
def test_an_unusable_value_is_refused_naming_the_variable_and_the_range(
    monkeypatch: pytest.MonkeyPatch, service: str, variable: str, value: str, accepted: str
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(ConfigError) as refused:
        load_settings(WITH_GATEWAY[service])
    message = str(refused.value)
    assert message.startswith(f"{variable}={value!r} is not usable: use ")
    assert accepted in message


def test_every_unusable_value_is_named_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAUMAU_RATING_BATCH", "0")
    monkeypatch.setenv("MAUMAU_RATING_PORT", "-1")
    with pytest.raises(ConfigError, match=r"MAUMAU_RATING_PORT=.*; MAUMAU_RATING_BATCH="):
        load_settings(RatingSettings)


@pytest.mark.parametrize(
    ("service", "variable", "value", "accepted"),
    [
        ("engine", "MAUMAU_ENGINE_DEADLINE_LEASE_SECONDS", "0", "greater than 0"),
        ("bots", "MAUMAU_BOTS_PORT", "http", "a whole number"),
        ("matchmaking", "MAUMAU_MATCHMAKING_LEASE_SECONDS", "-3", "greater than 0"),
        ("rating", "MAUMAU_RATING_BATCH", "5000", "at most 200"),
        ("tournaments", "MAUMAU_TOURNAMENTS_MAX_ENTRANTS", "0", "at least 2"),
        ("gateway", "MAUMAU_GATEWAY_SOCKETS_PER_SESSION", "0", "at least 1"),
    ],
)
def test_the_service_process_stops_at_start_naming_the_variable(
    service: str, variable: str, value: str, accepted: str
) -> None:
    """``python -m maumau.<service>`` with an unusable value exits at once with status 2 and
    one line on stderr, before it opens any port or Redis."""
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("MAUMAU_")},
        "REDIS_URL": "redis://127.0.0.1:1",  # never reached
        variable: value,
    }
    done = subprocess.run(
        [sys.executable, "-m", f"maumau.{service}"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert done.returncode == 2, done.stderr
    assert re.search(f"^{service}: {variable}='{re.escape(value)}' is not usable", done.stderr)
    assert accepted in done.stderr


def test_redis_url_unset_means_embedded_redis(monkeypatch: pytest.MonkeyPatch) -> None:
    assert load_settings(RatingSettings).redis() == RedisConfig(url=None, data_dir=Path("data"))
    monkeypatch.setenv("REDIS_URL", "redis://redis:6379/0")
    monkeypatch.setenv("MAUMAU_DATA_DIR", "/var/lib/maumau")
    redis = load_settings(RatingSettings).redis()
    assert (redis.url, redis.data_dir) == ("redis://redis:6379/0", Path("/var/lib/maumau"))


def test_unset_token_secret_falls_back_to_the_dev_secret_with_a_warning(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    with caplog.at_level(logging.WARNING):
        secret = load_settings(EngineSettings).secret()
    assert secret == DEV_TOKEN_SECRET.encode()
    assert "MAUMAU_TOKEN_SECRET is not set" in caplog.text
    monkeypatch.setenv("MAUMAU_TOKEN_SECRET", "s3cret")
    assert load_settings(MatchmakingSettings).secret() == b"s3cret"


def test_the_docs_list_every_variable_as_the_settings_classes_declare_them() -> None:
    """docs/configuration.md's table of variables is generated: paste this table there when it
    fails."""
    table = markdown_table([*SERVICES.values(), GatewaySettings])
    page = (ROOT / "docs" / "configuration.md").read_text()
    assert table in page, f"docs/configuration.md must hold this table of variables:\n\n{table}\n"
