"""Configuration: defaults for a laptop, overrides from the environment, fail fast on nonsense."""

import logging
from pathlib import Path

import pytest

from maumau.common.config import (
    DEV_TOKEN_SECRET,
    SERVICE_PORTS,
    ConfigError,
    RedisConfig,
    ServiceConfig,
    TokenConfig,
)


def test_each_service_has_its_own_default_ports() -> None:
    engine = ServiceConfig.for_service("engine", environ={})
    assert (engine.host, engine.port, engine.metrics_port) == ("127.0.0.1", 50051, 9101)
    assert engine.max_receive_message_bytes == 64 * 1024
    ports = [ServiceConfig.for_service(name, environ={}).port for name in SERVICE_PORTS]
    assert ports == [50051, 50052, 50053, 50054]


def test_environment_overrides_defaults() -> None:
    env = {
        "MAUMAU_BOTS_HOST": "0.0.0.0",
        "MAUMAU_BOTS_PORT": "6000",
        "MAUMAU_BOTS_METRICS_PORT": "0",
        "MAUMAU_BOTS_GRACE_SECONDS": "2.5",
        "MAUMAU_BOTS_MAX_RECEIVE_BYTES": "1024",
        "MAUMAU_BOTS_HEALTH_INTERVAL_SECONDS": "0.5",
    }
    assert ServiceConfig.for_service("bots", environ=env) == ServiceConfig(
        host="0.0.0.0",
        port=6000,
        metrics_port=0,
        grace_seconds=2.5,
        max_receive_message_bytes=1024,
        health_interval_seconds=0.5,
    )


@pytest.mark.parametrize(
    ("name", "value", "complaint"),
    [
        ("MAUMAU_ENGINE_PORT", "http", "MAUMAU_ENGINE_PORT='http': expected a int"),
        ("MAUMAU_ENGINE_PORT", "70000", "a port is between 0 and 65535"),
        ("MAUMAU_ENGINE_GRACE_SECONDS", "0", "must be greater than 0"),
    ],
)
def test_unusable_values_stop_the_service_at_start(name: str, value: str, complaint: str) -> None:
    with pytest.raises(ConfigError, match=complaint):
        ServiceConfig.for_service("engine", environ={name: value})


def test_unknown_service_name_lists_the_known_ones() -> None:
    with pytest.raises(ConfigError, match="known: engine, bots, matchmaking, rating"):
        ServiceConfig.for_service("gateway", environ={})


def test_redis_url_unset_means_embedded_redis() -> None:
    assert RedisConfig.from_env(environ={}) == RedisConfig(url=None, data_dir=Path("data"))
    config = RedisConfig.from_env(
        environ={"REDIS_URL": "redis://redis:6379/0", "MAUMAU_DATA_DIR": "/var/lib/maumau"}
    )
    assert config.url == "redis://redis:6379/0"
    assert config.data_dir == Path("/var/lib/maumau")
    with pytest.raises(ConfigError, match="use always, everysec or no"):
        RedisConfig.from_env(environ={"MAUMAU_REDIS_APPENDFSYNC": "sometimes"})


def test_unset_token_secret_falls_back_to_dev_secret_with_a_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING):
        config = TokenConfig.from_env(environ={})
    assert config.secret == DEV_TOKEN_SECRET.encode()
    assert "MAUMAU_TOKEN_SECRET is not set" in caplog.text


def test_empty_token_secret_is_refused() -> None:
    assert TokenConfig.from_env(environ={"MAUMAU_TOKEN_SECRET": "s3cret"}).secret == b"s3cret"
    with pytest.raises(ConfigError, match="MAUMAU_TOKEN_SECRET is empty"):
        TokenConfig.from_env(environ={"MAUMAU_TOKEN_SECRET": " "})
