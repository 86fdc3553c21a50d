"""One way to end a gRPC call with an error a person can read and a client can translate.

A refused move is not a server fault: the rules core raises an error carrying a stable `code`
(e.g. "not_your_turn"), its `params` and an English `message`. It becomes FAILED_PRECONDITION
with the message as details, and the code and params in trailing metadata, so a client can show
the message in its own language. A bad token becomes UNAUTHENTICATED; a valid token of the wrong
kind (a player token where a seat token is needed, ...) PERMISSION_DENIED: it is good, only not
for this call. A write Redis refused because its memory is full (``maxmemory`` with
``noeviction``) becomes UNAVAILABLE saying so: the write was not made, and a retry later may
succeed.

The store's errors come in two kinds (``maumau.common.redis_client``). A store that cannot
answer for a moment (a connection refused or broken, a timeout, a master loading its data, a
Redis Cluster failing over: CLUSTERDOWN, MOVED, ASK, TRYAGAIN, READONLY, a blocked read
UNBLOCKED; fewer replicas than required confirming a write, WAIT's or NOREPLICAS; another
call's script running too long, BUSY) is UNAVAILABLE: retry with the same request id. Any
other error Redis answers (a Lua script's error, a WRONGTYPE reply) is a bug of the platform
that no retry mends: it is logged at ERROR with the script (or command) and its keys, counted
in ``maumau_store_errors_total{script}`` (alert ``MaumauStoreErrors``), and answered INTERNAL
saying it was reported, with the error code ``store_error`` (:data:`MESSAGES` in English and
German). That is the one INTERNAL the platform sends on purpose: the standard that no UNKNOWN
or INTERNAL reaches a caller holds for whatever a caller sends; this one says the server is at
fault, and a client should not retry it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, NoReturn, Protocol, runtime_checkable

import grpc
import redis

from maumau.common.redis_client import (
    TRANSIENT,
    ReplicationShortfall,
    StoreError,
    is_out_of_memory,
    is_store_bug,
    is_transient,
    reported,
)
from maumau.common.tokens import NotInScope, TokenError, WrongKind
from maumau.rules.errors import BadInput

ERROR_CODE_KEY = "maumau-error-code"
ERROR_PARAMS_KEY = "maumau-error-params"
RETRY_AFTER_KEY = "retry-after-ms"
"""Trailing metadata of a RESOURCE_EXHAUSTED refusal: whole milliseconds to wait before trying
again (the gRPC counterpart of HTTP's Retry-After)."""


OUT_OF_MEMORY_MESSAGE = (
    "the platform's store is full (Redis reached its maxmemory) and refused this write, so "
    "nothing was saved: try again later; operators: raise maxmemory or free memory"
)


@runtime_checkable
class RuleViolation(Protocol):
    """What the bootstrap needs from a rules-core error; any exception of this shape will do."""

    code: str
    params: Mapping[str, Any]
    message: str


async def abort(
    context: grpc.aio.ServicerContext[Any, Any],
    status: grpc.StatusCode,
    message: str,
    *,
    error_code: str | None = None,
    params: Mapping[str, Any] | None = None,
    retry_after_seconds: float | None = None,
) -> NoReturn:
    """End the call with `status` and `message`; `error_code` and `params` go in trailing
    metadata as `maumau-error-code` and `maumau-error-params` (JSON), a retry hint as
    `retry-after-ms`."""
    metadata: list[tuple[str, str]] = []
    if error_code is not None:
        metadata.append((ERROR_CODE_KEY, error_code))
        metadata.append((ERROR_PARAMS_KEY, json.dumps(dict(params or {}), default=str)))
    if retry_after_seconds is not None:
        metadata.append((RETRY_AFTER_KEY, str(max(1, round(retry_after_seconds * 1000)))))
    await context.abort(status, message, trailing_metadata=tuple(metadata))


class ServiceError(Exception):
    """A refusal of a service's own (unknown match, wrong seat, ...) with its status code."""

    def __init__(self, status: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.status = status


STORE_UNAVAILABLE = TRANSIENT
"""Errors of a store that cannot answer for a moment: the caller retries (same request id)."""

STORE_ERROR = "store_error"
"""The error code of a store error (a bug of the platform), in ``maumau-error-code``."""

MESSAGES: dict[str, dict[str, str]] = {
    "en": {
        STORE_ERROR: "the platform's store refused this call because of a fault of the "
        "platform; the error was reported to its operators; retrying will not help",
    },
    "de": {
        STORE_ERROR: "der Speicher der Plattform hat diesen Aufruf wegen eines Fehlers der "
        "Plattform abgelehnt; der Fehler wurde ihren Betreibern gemeldet; ein neuer Versuch "
        "hilft nicht",
    },
}
"""The texts of the error codes of the services' own (the rules core's are in
``maumau.rules.errors``), in English and German; the SDK keeps the same."""


class Exhausted(ServiceError):
    """A caller went past a limit (open streams, a rate): RESOURCE_EXHAUSTED, with how long to
    wait before trying again in the `retry-after-ms` trailer."""

    def __init__(self, message: str, retry_after_seconds: float) -> None:
        super().__init__(grpc.StatusCode.RESOURCE_EXHAUSTED, message)
        self.retry_after_seconds = retry_after_seconds


def invalid(message: str) -> ServiceError:
    """INVALID_ARGUMENT: the request is wrong in itself, whatever is stored."""
    return ServiceError(grpc.StatusCode.INVALID_ARGUMENT, message)


def not_found(message: str) -> ServiceError:
    """NOT_FOUND: no such match, room, ticket, party or player."""
    return ServiceError(grpc.StatusCode.NOT_FOUND, message)


def denied(message: str) -> ServiceError:
    """PERMISSION_DENIED: the caller may not do this (not its seat, not its room)."""
    return ServiceError(grpc.StatusCode.PERMISSION_DENIED, message)


def precondition(message: str) -> ServiceError:
    """FAILED_PRECONDITION: a good request the thing refuses as it stands (a full room, a match
    not started)."""
    return ServiceError(grpc.StatusCode.FAILED_PRECONDITION, message)


def status_for(error: BaseException) -> grpc.StatusCode | None:
    """The status an error maps to, or None when it is a fault the server did not expect."""
    if isinstance(error, ServiceError):
        return error.status
    if is_transient(error) or is_out_of_memory(error):
        return grpc.StatusCode.UNAVAILABLE
    if is_store_bug(error):
        return grpc.StatusCode.INTERNAL
    if raised_in_redis_client(error):
        return grpc.StatusCode.UNAVAILABLE
    if isinstance(error, NotInScope):  # a valid token whose scope does not reach the call
        return grpc.StatusCode.PERMISSION_DENIED
    if isinstance(error, WrongKind):  # a valid token, of a kind this call does not take
        return grpc.StatusCode.PERMISSION_DENIED
    if isinstance(error, TokenError):
        return grpc.StatusCode.UNAUTHENTICATED
    if isinstance(error, BadInput):
        return grpc.StatusCode.INVALID_ARGUMENT
    if isinstance(error, RuleViolation) and isinstance(error.code, str):
        return grpc.StatusCode.FAILED_PRECONDITION
    return None


def raised_in_redis_client(error: BaseException) -> bool:
    """Whether the error comes from inside redis-py itself and is none of its Redis errors: a
    connection torn down under a call (as when a cluster master fails) can surface there as a
    plain AttributeError or the like. It is a fault of the store's connection, not of the
    request: the caller retries. (What Redis answers is a Redis error: transient or a bug.)"""
    if isinstance(error, redis.RedisError):
        return False
    last = error.__traceback__
    while last is not None and last.tb_next is not None:
        last = last.tb_next
    module = "" if last is None else str(last.tb_frame.f_globals.get("__name__", ""))
    return module == "redis" or module.startswith("redis.")


async def abort_for(context: grpc.aio.ServicerContext[Any, Any], error: BaseException) -> NoReturn:
    """End the call as `status_for(error)` says; re-raise an error that maps to nothing."""
    status = status_for(error)
    if status is None:
        raise error
    if isinstance(error, RuleViolation):
        wait = error.retry_after_seconds if isinstance(error, Exhausted) else None
        await abort(
            context,
            status,
            error.message,
            error_code=error.code,
            params=error.params,
            retry_after_seconds=wait,
        )
    if is_out_of_memory(error):
        await abort(context, status, OUT_OF_MEMORY_MESSAGE)
    if status == grpc.StatusCode.INTERNAL and not isinstance(error, ServiceError):
        if not isinstance(error, StoreError):  # a plain command's, not yet reported
            reported(f"a command ({type(error).__name__})", (), error)
        await abort(context, status, MESSAGES["en"][STORE_ERROR], error_code=STORE_ERROR)
    if status == grpc.StatusCode.UNAVAILABLE:
        message = (
            "the match store cannot confirm this for a moment: retry with the same request id"
            if isinstance(error, ReplicationShortfall)
            else "the match store is unreachable for a moment: retry with the same request id"
        )
        await abort(context, status, message)
    if isinstance(error, Exhausted):
        await abort(context, status, str(error), retry_after_seconds=error.retry_after_seconds)
    await abort(context, status, str(error))
