"""Which errors become which status. A store that cannot answer for a moment (a connection
refused or torn down, a timeout, a cluster failing over, replicas short of a write) is
UNAVAILABLE, so the caller retries; so is a fault inside the Redis client while a connection is
torn down under a call. Anything else Redis answers (a WRONGTYPE reply, a Lua script's error) is
a bug of the platform: INTERNAL, never a retry (issue 25). The same fault raised by the
platform's own code stays a fault (UNKNOWN), so tests see the bug."""

from __future__ import annotations

from collections.abc import Callable

import grpc
import pytest
from redis import exceptions
from redis._parsers.base import BaseParser

from maumau.common.error_codes import MESSAGES, STORE_ERROR
from maumau.common.errors import status_for
from maumau.common.redis_client import ReplicationShortfall, StoreError
from maumau_sdk.errors import SERVICE_MESSAGES, MauMauError


def raiser(
    module: str, body: str = "writer = None\n    writer.writelines([b'*1'])"
) -> Callable[[], None]:
    """A function whose frames belong to ``module``, raising by default what redis-py raised
    once when a master died mid-call: ``'NoneType' object has no attribute 'writelines'``."""
    namespace: dict[str, object] = {"__name__": module, "ResponseError": exceptions.ResponseError}
    code = f"def send():\n    {body}\n"
    exec(compile(code, f"{module.replace('.', '/')}.py", "exec"), namespace)
    send = namespace["send"]
    assert callable(send)
    return send


def caught(call: Callable[[], None]) -> BaseException:
    with pytest.raises(Exception) as error:
        call()
    return error.value


def test_an_error_inside_the_redis_client_is_unavailable() -> None:
    assert status_for(caught(raiser("redis.asyncio.connection"))) == grpc.StatusCode.UNAVAILABLE


def test_the_same_error_in_the_platforms_code_stays_a_fault() -> None:
    assert status_for(caught(raiser("maumau.engine.store"))) is None
    assert status_for(caught(raiser("redisfake"))) is None


def test_a_reply_redis_py_raises_that_no_retry_mends_is_internal() -> None:
    """What the old mapping took for a torn connection because redis-py raised it."""
    wrong_type = raiser(
        "redis._parsers.hiredis",
        "raise ResponseError('WRONGTYPE Operation against a key holding the wrong kind of value')",
    )
    assert status_for(caught(wrong_type)) == grpc.StatusCode.INTERNAL


@pytest.mark.parametrize(
    "reply",
    [
        "WRONGTYPE Operation against a key holding the wrong kind of value",
        "ERR Error running script (call to f_0afd): @user_script:1: WRONGTYPE Operation against "
        "a key holding the wrong kind of value",
        "ERR Error running script (call to f_dead): @user_script:1: user_script:1: attempt to "
        "concatenate a nil value",
        "ERR wrong number of arguments for 'zadd' command",
        "CROSSSLOT Keys in request don't hash to the same slot",
        "BUSYKEY Target key name already exists.",
    ],
)
def test_anything_else_redis_answers_is_a_bug(reply: str) -> None:
    assert status_for(BaseParser.parse_error(reply)) == grpc.StatusCode.INTERNAL


@pytest.mark.parametrize(
    "reply",
    [
        "LOADING Redis is loading the dataset in memory",
        "READONLY You can't write against a read only replica.",
        "MOVED 3999 127.0.0.1:6381",
        "ASK 3999 127.0.0.1:6381",
        "TRYAGAIN Multiple keys request during rehashing of slot",
        "CLUSTERDOWN The cluster is down",
        "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.",
        "NOSCRIPT No matching script. Please use EVAL.",
        "NOREPLICAS Not enough good replicas to write.",
        "UNBLOCKED force unblock from blocking operation, instance state changed (master -> "
        "replica?)",
        "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.",
        "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist "
        "to disk.",
        "OOM command not allowed when used memory > 'maxmemory'.",
        # Redis 6 quotes a refusal met inside a script in the script's error:
        "ERR Error running script (call to f_bd6f): @user_script:1: @user_script: 1: -READONLY "
        "You can't write against a read only replica.",
        "ERR Error running script (call to f_bd6f): @user_script:1: @user_script: 1: -OOM "
        "command not allowed when used memory > 'maxmemory'.",
    ],
)
def test_a_store_that_cannot_answer_for_a_moment_is_unavailable(reply: str) -> None:
    assert status_for(BaseParser.parse_error(reply)) == grpc.StatusCode.UNAVAILABLE


@pytest.mark.parametrize(
    "error",
    [
        exceptions.ConnectionError("Connection closed by server."),
        exceptions.TimeoutError("Timeout reading from socket"),
        exceptions.MaxConnectionsError("Too many connections"),
        exceptions.SlotNotCoveredError("Command # 1 (EVALSHA) has no node"),
        exceptions.RedisClusterException("Redis Cluster cannot be connected."),
        ReplicationShortfall("0 of 1 replicas confirmed the write within 1000 ms"),
    ],
)
def test_a_connection_timeout_or_cluster_condition_is_unavailable(error: Exception) -> None:
    assert status_for(error) == grpc.StatusCode.UNAVAILABLE


def test_a_store_error_of_the_runner_is_internal() -> None:
    bug = StoreError("script engine.commit", ["match:{m1}"], exceptions.ResponseError("WRONGTYPE"))
    assert status_for(bug) == grpc.StatusCode.INTERNAL


def test_the_sdk_tells_a_store_error_in_both_languages_as_the_services_do() -> None:
    assert SERVICE_MESSAGES == MESSAGES
    error = MauMauError(grpc.StatusCode.INTERNAL, MESSAGES["en"][STORE_ERROR], code=STORE_ERROR)
    assert "reported" in error.message("en") and "gemeldet" in error.message("de")
    assert not error.retryable
