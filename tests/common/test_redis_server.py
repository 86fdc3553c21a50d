"""The embedded redis-server: it starts, answers, keeps its data across restarts, and stops."""

import socket
from pathlib import Path

import pytest
import redis

from maumau.common.config import RedisConfig
from maumau.common.redis_server import EmbeddedRedis, free_port, open_redis


def refuses_connections(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) != 0


def test_free_ports_come_from_the_range_named_and_never_twice_in_a_row(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Several ports picked before any is bound are all different (a platform's services get
    theirs at once), and all lie in MAUMAU_FREE_PORTS, a test worker's share of the range."""
    monkeypatch.setenv("MAUMAU_FREE_PORTS", "23000-23049")
    ports = [free_port() for _ in range(40)]
    assert len(set(ports)) == 40
    assert all(23000 <= port <= 23049 for port in ports)


@pytest.mark.parametrize("text", ["23000", "23050-23000", "0-10", "a-b", "20000-70000"])
def test_a_bad_free_ports_range_is_refused_with_its_form(
    monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    monkeypatch.setenv("MAUMAU_FREE_PORTS", text)
    with pytest.raises(ValueError, match="expected first-last"):
        free_port()


def test_shared_fixture_answers(redis_server: EmbeddedRedis) -> None:
    with redis.Redis.from_url(redis_server.url) as client:
        assert client.ping()


def test_restart_keeps_what_was_written_before(tmp_path: Path) -> None:
    """A restart mid-match loses nothing: the append-only file holds every write."""
    with EmbeddedRedis(tmp_path) as server:
        with redis.Redis.from_url(server.url) as client:
            client.set("{m1}:state", b"v1")
            client.xadd("{m1}:events", {"type": "played", "card": "7H"})
        port = server.port
        server.restart()
        assert server.port == port
        with redis.Redis.from_url(server.url) as client:
            assert client.get("{m1}:state") == b"v1"
            assert client.xlen("{m1}:events") == 1
        assert (tmp_path / "appendonly.aof").exists()
    assert not server.running
    assert refuses_connections(port)


def test_a_crash_keeps_what_the_append_only_file_synced(tmp_path: Path) -> None:
    """SIGKILL writes no snapshot, so what survives was read back from the append-only file."""
    server = EmbeddedRedis(tmp_path, appendfsync="always")
    server.start()
    with redis.Redis.from_url(server.url) as client:
        client.set("{m1}:state", b"v2")
    server.kill()
    assert not (tmp_path / "dump.rdb").exists()
    server.start()
    try:
        with redis.Redis.from_url(server.url) as client:
            assert client.get("{m1}:state") == b"v2"
    finally:
        server.stop()


def test_a_taken_port_is_reported(redis_server: EmbeddedRedis, tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match=f"port {redis_server.port} exited at start"):
        EmbeddedRedis(tmp_path, port=redis_server.port).start()


async def test_open_redis_uses_redis_url(redis_server: EmbeddedRedis, tmp_path: Path) -> None:
    async with open_redis(RedisConfig(redis_server.url, tmp_path)) as client:
        assert await client.ping()
    assert not (tmp_path / "redis").exists()


async def test_open_redis_without_url_runs_an_embedded_server(tmp_path: Path) -> None:
    async with open_redis(RedisConfig(url=None, data_dir=tmp_path)) as client:
        await client.set("k", "v")
        port = client.connection_pool.connection_kwargs["port"]
    assert (tmp_path / "redis" / "appendonly.aof").exists()
    assert refuses_connections(port)
