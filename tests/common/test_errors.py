"""Which errors become which status: a fault inside the Redis client (a connection torn down
under a call during a failover) is UNAVAILABLE, so the caller retries; the same error raised by
the platform's own code stays a fault (UNKNOWN), so tests see the bug."""

from __future__ import annotations

from collections.abc import Callable

import grpc
import pytest

from maumau.common.errors import status_for


def raiser(module: str) -> Callable[[], None]:
    """A function whose frames belong to ``module``, raising what redis-py raised once when a
    master died mid-call: ``'NoneType' object has no attribute 'writelines'``."""
    namespace: dict[str, object] = {"__name__": module}
    code = "def send():\n    writer = None\n    writer.writelines([b'*1'])\n"
    exec(compile(code, f"{module.replace('.', '/')}.py", "exec"), namespace)
    send = namespace["send"]
    assert callable(send)
    return send


def caught(call: Callable[[], None]) -> BaseException:
    with pytest.raises(AttributeError) as error:
        call()
    return error.value


def test_an_error_inside_the_redis_client_is_unavailable() -> None:
    assert status_for(caught(raiser("redis.asyncio.connection"))) == grpc.StatusCode.UNAVAILABLE


def test_the_same_error_in_the_platforms_code_stays_a_fault() -> None:
    assert status_for(caught(raiser("maumau.engine.store"))) is None
    assert status_for(caught(raiser("redisfake"))) is None
