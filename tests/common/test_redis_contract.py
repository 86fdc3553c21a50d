"""What the one script runner (``maumau.common.redis_client.Durability``) takes from redis-py
beyond its documented commands, each checked against the installed redis-py and a real Redis,
so an upgrade that changes one of them fails here, naming it, rather than in a failover.

pyproject.toml pins redis-py's major version; a new major is taken only once these pass.

- A single Redis: the pool's ``get_connection()`` and ``release()`` and its
  ``max_connections``; a connection's ``send_packed_command()`` (connecting afresh when closed),
  ``read_response()`` (raising an error reply as its exception, with the next reply still to
  read), ``disconnect()`` and ``retry.call_with_retry(do, fail)``; commands packed by hiredis
  exactly as redis-py packs them.
- A Redis Cluster: ``get_node_from_key``, ``get_replicas``, and a pipeline's
  ``execute_command(..., target_nodes=node)`` (WAIT on the node of a key) and
  ``execute(raise_on_error=False)`` (an error in place of its reply).
- The error classes redis-py makes of Redis's error replies (``redis._parsers``), and their
  hierarchy, which decide what is a store that cannot answer for a moment and what is a bug.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import hiredis
import pytest
import redis.asyncio
from redis import exceptions
from redis._parsers.base import BaseParser
from redis.asyncio.cluster import ClusterPipeline, RedisCluster
from redis.asyncio.connection import AbstractConnection, Connection, ConnectionPool
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from maumau.common.redis_client import (
    TRANSIENT,
    Durability,
    connect,
    is_out_of_memory,
    is_store_bug,
    is_transient,
)
from maumau.common.redis_cluster import LocalCluster
from maumau.common.redis_server import EmbeddedRedis
from tests.support.polling import eventually


def accepts(function: Any, *args: Any, **kwargs: Any) -> bool:
    """Whether ``function`` (unbound: its ``self`` given as None) takes these arguments."""
    try:
        inspect.signature(function).bind(None, *args, **kwargs)
    except TypeError:
        return False
    return True


def test_the_connection_methods_the_runner_calls_take_its_arguments() -> None:
    assert accepts(ConnectionPool.get_connection)
    assert accepts(ConnectionPool.release, object())
    assert accepts(AbstractConnection.send_packed_command, b"*1\r\n$4\r\nPING\r\n")
    assert accepts(AbstractConnection.read_response)
    assert accepts(AbstractConnection.disconnect)
    assert accepts(Retry.call_with_retry, lambda: None, lambda error: None)
    assert isinstance(redis.asyncio.Redis().connection_pool.max_connections, int)


def test_the_cluster_methods_the_runner_calls_take_its_arguments() -> None:
    assert accepts(ClusterPipeline.execute_command, "WAIT", 1, 1000, target_nodes=object())
    assert accepts(ClusterPipeline.execute, raise_on_error=False)
    assert accepts(RedisCluster.get_node_from_key, "key")
    assert accepts(RedisCluster.get_replicas)


@pytest.mark.parametrize(
    "command",
    [
        ("EVALSHA", "0" * 40, 2, "match:{m1}", "match:{m1}:events", b"\x00state", "", "7"),
        ("ZADD", "engine:deadlines:{3}", "LT", 1700000000.123456, "m1"),
        ("WAIT", 1, 1000),
        ("SET", "k", "Grün", 0.1 + 0.2, -5, 10**15),
    ],
)
def test_hiredis_packs_a_command_as_redis_py_does(command: tuple[Any, ...]) -> None:
    assert hiredis.pack_command(command) == b"".join(Connection().pack_command(*command))


@pytest.fixture
async def connection(redis_server: EmbeddedRedis) -> AsyncIterator[Any]:
    client = redis.asyncio.Redis.from_url(redis_server.url)
    pool = client.connection_pool
    taken = await pool.get_connection()
    yield taken
    await pool.release(taken)
    await client.aclose()


async def test_an_error_reply_is_raised_and_the_next_reply_follows_it(connection: Any) -> None:
    """Several commands written at once: the runner reads one reply per command, an error reply
    coming as the exception ``read_response`` raises, after which the next reply is read."""
    commands: list[tuple[Any, ...]] = [
        ("SET", "contract:{1}:text", "x"),
        ("HGET", "contract:{1}:text", "field"),
        ("GET", "contract:{1}:text"),
    ]
    await connection.send_packed_command(b"".join(hiredis.pack_command(c) for c in commands))
    assert await connection.read_response() == b"OK"
    with pytest.raises(exceptions.ResponseError) as refused:
        await connection.read_response()
    assert type(refused.value) is exceptions.ResponseError
    assert str(refused.value).startswith("WRONGTYPE")
    assert await connection.read_response() == b"x"


async def test_a_closed_connection_connects_afresh_when_written_to(connection: Any) -> None:
    await connection.disconnect()
    await connection.send_packed_command(hiredis.pack_command(("PING",)))
    assert await connection.read_response() == b"PONG"


async def test_a_broken_connection_fails_into_the_retry_the_runner_hands_its_round_trip(
    connection: Any, client: redis.asyncio.Redis
) -> None:
    """The runner hands its whole round trip to ``connection.retry``: a connection Redis closed
    fails with ConnectionError, ``fail`` disconnects it, and the round trip goes again as often
    as the client's retry allows (none for a client made from a URL: the error is raised, and
    the connection connects afresh when next written to)."""
    failures: list[Exception] = []

    async def fail(error: Exception) -> None:
        failures.append(error)
        await connection.disconnect()

    async def ping() -> Any:
        await connection.send_packed_command(hiredis.pack_command(("PING",)))
        return await connection.read_response()

    async def kill() -> None:
        await connection.send_packed_command(hiredis.pack_command(("CLIENT", "ID")))
        await client.execute_command("CLIENT", "KILL", "ID", await connection.read_response())

    await kill()
    with pytest.raises(exceptions.ConnectionError):
        await connection.retry.call_with_retry(ping, fail)
    assert len(failures) == 1 and isinstance(failures[0], exceptions.ConnectionError)
    assert await ping() == b"PONG"

    await kill()
    connection.retry = Retry(NoBackoff(), 1)
    assert await connection.retry.call_with_retry(ping, fail) == b"PONG"
    assert len(failures) == 2


async def test_redis_error_replies_become_these_classes(client: redis.asyncio.Redis) -> None:
    """What Redis answers and which kind the runner takes it for: a missing script is loaded
    again; a WRONGTYPE or a script's own error is a bug (``is_store_bug``)."""
    await client.set("contract:{2}:text", "x")
    with pytest.raises(exceptions.NoScriptError):
        await client.evalsha("0" * 40, 0)
    with pytest.raises(exceptions.ResponseError) as wrong_type:
        await client.hget("contract:{2}:text", "field")
    with pytest.raises(exceptions.ResponseError) as in_script:
        await client.eval("return redis.call('HGET', KEYS[1], 'f')", 1, "contract:{2}:text")
    with pytest.raises(exceptions.ResponseError) as lua_error:
        await client.eval("return nil .. 1", 0)
    for bug in (wrong_type.value, in_script.value, lua_error.value):
        assert type(bug) is exceptions.ResponseError
        assert is_store_bug(bug) and not is_transient(bug)
    assert "WRONGTYPE" in str(in_script.value)


@pytest.mark.parametrize(
    ("reply", "kind"),
    [
        ("NOSCRIPT No matching script. Please use EVAL.", exceptions.NoScriptError),
        ("READONLY You can't write against a read only replica.", exceptions.ReadOnlyError),
        ("LOADING Redis is loading the dataset in memory", exceptions.BusyLoadingError),
        ("MOVED 3999 127.0.0.1:6381", exceptions.MovedError),
        ("ASK 3999 127.0.0.1:6381", exceptions.AskError),
        ("TRYAGAIN Multiple keys request during rehashing of slot", exceptions.TryAgainError),
        ("CLUSTERDOWN The cluster is down", exceptions.ClusterDownError),
        ("MASTERDOWN Link with MASTER is down", exceptions.MasterDownError),
        ("OOM command not allowed when used memory > 'maxmemory'.", exceptions.OutOfMemoryError),
    ],
)
def test_the_parser_makes_these_classes_of_transient_refusals(
    reply: str, kind: type[Exception]
) -> None:
    error = BaseParser.parse_error(reply)
    assert type(error) is kind
    assert (is_transient(error) or is_out_of_memory(error)) and not is_store_bug(error)


def test_the_transient_classes_hold_what_the_runner_counts_on() -> None:
    assert issubclass(exceptions.BusyLoadingError, exceptions.ConnectionError)
    assert issubclass(exceptions.MaxConnectionsError, exceptions.ConnectionError)
    assert issubclass(exceptions.MovedError, exceptions.AskError)
    assert issubclass(exceptions.MasterDownError, exceptions.ClusterDownError)
    assert issubclass(exceptions.ClusterDownError, exceptions.ClusterError)
    assert issubclass(exceptions.SlotNotCoveredError, exceptions.RedisClusterException)
    for refusal in (exceptions.NoScriptError, exceptions.ReadOnlyError, exceptions.TryAgainError):
        assert issubclass(refusal, exceptions.ResponseError)
    # None of the transient ones is the plain ResponseError a WRONGTYPE or a Lua error is.
    assert not issubclass(exceptions.ResponseError, TRANSIENT)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    with LocalCluster(Path(tmp_path_factory.mktemp("contract-cluster"))) as started:
        yield started


async def test_a_cluster_pipeline_sends_to_a_keys_node_and_answers_errors_in_place(
    cluster: LocalCluster,
) -> None:
    """WAIT goes to the node of the key written before it (``target_nodes``), so it counts that
    write; an error reply comes in place of its command's reply, the others answered."""

    async def with_replicas() -> redis.asyncio.Redis | None:
        """A client once the cluster's replicas have joined (they come after their masters)."""
        client = await connect(cluster.url)
        if isinstance(client, RedisCluster) and client.get_replicas():
            return client
        await client.aclose()
        return None

    client = await eventually(with_replicas, 30, "the cluster's replicas")
    try:
        assert Durability(client).min_replicas == 1
        node = client.get_node_from_key("contract:{3}")
        assert node is not None
        async with client.pipeline(transaction=False) as pipe:
            pipe.execute_command("SET", "contract:{3}", "x")
            pipe.execute_command("WAIT", 1, 1000, target_nodes=node)
            pipe.execute_command("CONFIG", "GET", "port", target_nodes=node)
            pipe.execute_command("HGET", "contract:{3}", "field")
            pipe.execute_command("GET", "contract:{3}")
            replies = await pipe.execute(raise_on_error=False)
        assert replies[0] is True and isinstance(replies[1], int)
        assert replies[2] in (
            [b"port", str(node.port).encode()],
            {b"port": str(node.port).encode()},
        )
        assert isinstance(replies[3], exceptions.ResponseError) and "WRONGTYPE" in str(replies[3])
        assert replies[4] == b"x"
    finally:
        await client.aclose()
