"""One way to end a gRPC call with an error a person can read and a client can translate.

A refused move is not a server fault: the rules core raises an error carrying a stable `code`
(e.g. "not_your_turn"), its `params` and an English `message`. It becomes FAILED_PRECONDITION
with the message as details. A bad token becomes UNAUTHENTICATED; a valid token of the wrong
kind (a player token where a seat token is needed, ...) PERMISSION_DENIED: it is good, only not
for this call. A write Redis refused because its memory is full (``maxmemory`` with
``noeviction``) becomes UNAVAILABLE saying so: the write was not made, and a retry later may
succeed.

Every refusal carries the standard rich error model (AIP-193): a ``google.rpc.Status`` in the
``grpc-status-details-bin`` trailer, which gRPC libraries of every language read, holding

- ``google.rpc.ErrorInfo``: the reason, the error code in UPPER_SNAKE_CASE
  (``card_does_not_match``: ``CARD_DOES_NOT_MATCH``), the domain
  ``maumau.v1`` and the code's parameters as strings. A refusal without a code of its own (most
  of the services' checks of a request) has its status's name as its reason
  (``NOT_FOUND``);
- ``google.rpc.RetryInfo`` when a retry is meant: a limit's wait (RESOURCE_EXHAUSTED), and
  every UNAVAILABLE (a second; a full store half a minute);
- ``google.rpc.BadRequest`` for INVALID_ARGUMENT naming a field of the request: the field's
  path (``action.text``, ``view.hand_sizes``) and the message;
- ``google.rpc.LocalizedMessage`` in the caller's language, English or German, as the call's
  ``accept-language`` metadata asks (English by default): the rules core's and the services'
  texts; for a refusal without a text of its
  own in German, what kind of refusal it is in German with the English details after it.

Deprecated, kept for this release: the trailing metadata ``maumau-error-code`` (the code),
``maumau-error-params`` (its parameters in JSON) and ``retry-after-ms``, as before.

The store's errors come in two kinds (``maumau.common.redis_client``). A store that cannot
answer for a moment (a connection refused or broken, a timeout, a master loading its data, a
Redis Cluster failing over: CLUSTERDOWN, MOVED, ASK, TRYAGAIN, READONLY, a blocked read
UNBLOCKED; fewer replicas than required confirming a write, WAIT's or NOREPLICAS; another call's
script running too long, BUSY) is UNAVAILABLE: retry with the same request id. Any other error
Redis answers (a Lua script's error, a WRONGTYPE reply) is a bug of the platform that no retry
mends: it is logged at ERROR with the script (or command) and its keys, counted in
``maumau_store_errors_total{script}`` (alert ``MaumauStoreErrors``), and answered INTERNAL
saying it was reported, with the error code ``store_error`` (in English and German). That is the
one INTERNAL the platform sends on purpose: the standard that no UNKNOWN or INTERNAL reaches a
caller holds for whatever a caller sends; this one says the server is at fault, and a client
should not retry it.

The codes, their texts in both languages and what a client should do on each are tables of
their own: ``maumau.common.error_codes``.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, NoReturn, Protocol, runtime_checkable

import grpc
import redis
from google.protobuf import duration_pb2
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

from maumau.common.error_codes import (
    LANGUAGES,
    MESSAGES,
    OUT_OF_MEMORY_MESSAGE,
    STORE_ERROR,
    localized,
    preferred_language,
    reason_of,
)
from maumau.common.redis_client import (
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
"""Deprecated trailing metadata: the error code (``ErrorInfo.reason`` says it now)."""
ERROR_PARAMS_KEY = "maumau-error-params"
"""Deprecated trailing metadata: the code's parameters in JSON (``ErrorInfo.metadata``)."""
RETRY_AFTER_KEY = "retry-after-ms"
"""Deprecated trailing metadata of a RESOURCE_EXHAUSTED refusal: whole milliseconds to wait
before trying again (``RetryInfo.retry_delay`` says it now)."""

DETAILS_KEY: Final = "grpc-status-details-bin"
"""The trailer of the rich status, a serialized ``google.rpc.Status``."""
DOMAIN: Final = "maumau.v1"
"""``ErrorInfo.domain`` of every refusal of the platform."""
ACCEPT_LANGUAGE_KEY: Final = "accept-language"
"""Call metadata naming the languages a caller reads (as HTTP's Accept-Language)."""

UNAVAILABLE_RETRY_SECONDS: Final = 1.0
"""``RetryInfo`` of an UNAVAILABLE: a store or service that cannot answer for a moment."""
STORE_FULL_RETRY_SECONDS: Final = 30.0
"""``RetryInfo`` of a write refused by a full store: its operators have to free memory."""


@runtime_checkable
class RuleViolation(Protocol):
    """What the bootstrap needs from a rules-core error; any exception of this shape will do."""

    code: str
    params: Mapping[str, Any]
    message: str


class ServiceError(Exception):
    """A refusal of a service's own (unknown match, wrong seat, ...) with its status code."""

    def __init__(self, status: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.status = status


def caller_language(context: grpc.aio.ServicerContext[Any, Any]) -> str:
    """The language the call's ``accept-language`` metadata asks for (English without it)."""
    for key, value in context.invocation_metadata() or ():
        if key == ACCEPT_LANGUAGE_KEY and isinstance(value, str):
            return preferred_language(value)
    return LANGUAGES[0]


def metadata_text(value: Any) -> str:
    """A parameter as an ``ErrorInfo.metadata`` value: text as it is, a list or tuple as its
    items joined by ", " (as the texts show them), a truth value as true or false.

    >>> metadata_text("7H"), metadata_text(("S", "H")), metadata_text(3), metadata_text(True)
    ('7H', 'S, H', '3', 'true')
    """
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple | list):
        return ", ".join(str(item) for item in value)
    return str(value)


class Refusal(ServiceError):
    """A refusal of the services' own with an error code of :data:`MESSAGES`, its parameters
    and its English text (``message``, the status's details).

    >>> refusal = Refusal(grpc.StatusCode.INVALID_ARGUMENT, "undecodable_request",
    ...                   method="maumau.v1.EngineService/Act", message="maumau.v1.ActRequest")
    >>> refusal.code, refusal.params["method"]
    ('undecodable_request', 'maumau.v1.EngineService/Act')
    >>> str(refusal).split(" (")[0]
    'maumau.v1.EngineService/Act: the request bytes are not a valid maumau.v1.ActRequest message'
    """

    def __init__(self, status: grpc.StatusCode, code: str, **params: Any) -> None:
        self.code = code
        self.params = params
        self.message = MESSAGES["en"][code].format(**params)
        super().__init__(status, self.message)


class Exhausted(ServiceError):
    """A caller went past a limit (open streams, a rate): RESOURCE_EXHAUSTED, with how long to
    wait before trying again (``RetryInfo``, and the deprecated `retry-after-ms` trailer)."""

    def __init__(self, message: str, retry_after_seconds: float) -> None:
        super().__init__(grpc.StatusCode.RESOURCE_EXHAUSTED, message)
        self.retry_after_seconds = retry_after_seconds


def invalid(message: str) -> ServiceError:
    """INVALID_ARGUMENT: the request is wrong in itself, whatever is stored. A message that
    starts with the field's path (``limit must be ...``, ``view.top: ...``) names it in
    ``BadRequest``."""
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


@dataclass(frozen=True)
class Refused:
    """How one call is refused: what the rich status and the deprecated trailers are made of."""

    status: grpc.StatusCode
    message: str
    """The English details."""
    code: str | None = None
    """The error code (None: the status's name is the reason)."""
    params: Mapping[str, Any] = field(default_factory=dict)
    retry_after_seconds: float | None = None
    legacy_code: bool = False
    """Whether ``maumau-error-code`` carries the code (as it did before the rich status)."""

    @property
    def reason(self) -> str:
        return reason_of(self.code) if self.code is not None else self.status.name


def refused(error: BaseException, status: grpc.StatusCode) -> Refused:
    """What ``error``, mapped to ``status`` by :func:`status_for`, is answered with."""
    wait = error.retry_after_seconds if isinstance(error, Exhausted) else None
    if isinstance(error, RuleViolation) and isinstance(error.code, str):
        legacy = not isinstance(error, Refusal)
        return Refused(status, error.message, error.code, error.params, wait, legacy)
    if is_out_of_memory(error):
        return Refused(
            status,
            OUT_OF_MEMORY_MESSAGE,
            "store_full",
            retry_after_seconds=STORE_FULL_RETRY_SECONDS,
        )
    if status == grpc.StatusCode.INTERNAL and not isinstance(error, ServiceError):
        if not isinstance(error, StoreError):  # a plain command's, not yet reported
            reported(f"a command ({type(error).__name__})", (), error)
        return Refused(status, MESSAGES["en"][STORE_ERROR], STORE_ERROR, legacy_code=True)
    if status == grpc.StatusCode.UNAVAILABLE and not isinstance(error, ServiceError):
        code = (
            "store_unconfirmed" if isinstance(error, ReplicationShortfall) else "store_unavailable"
        )
        return Refused(status, MESSAGES["en"][code], code)
    if isinstance(error, Exhausted):
        seconds = max(1, math.ceil(error.retry_after_seconds))
        return Refused(status, str(error), "limit_reached", {"seconds": seconds}, wait)
    if isinstance(error, TokenError):
        code = (
            "token_invalid" if status == grpc.StatusCode.UNAUTHENTICATED else "token_not_accepted"
        )
        return Refused(status, str(error), code)
    return Refused(status, str(error))


CODE_FIELDS: Final[Mapping[str, tuple[str, ...]]] = {
    "bad_action_text": ("action.text",),
    "action_text_differs": ("action.text",),
    "bad_card_text": ("action.play.card", "action.text"),
    "bad_suit": ("action.play.suit", "action.name_suit", "action.text"),
    "unknown_preset": ("ruleset.preset", "ruleset_text"),
    "bad_option": ("ruleset.options", "ruleset_text"),
}
"""The request fields a rules-core input error may be about, the first one set in the request
taking it; every other INVALID_ARGUMENT names its field first in its message."""

_LEADING_PATH = re.compile(
    r"([a-z][a-z0-9_]*(?:\[\d+\])?(?:\.[a-z][a-z0-9_]*(?:\[\d+\])?)*)(?=[:= ]|$)"
)


def field_of(refusal: Refused, request: object) -> str | None:
    """The path of the request field an INVALID_ARGUMENT is about (``action.text``,
    ``matches[2]``), or None: a rules-core input error's (:data:`CODE_FIELDS`), or the path its
    message starts with when the request's message type has such a field."""
    if refusal.status != grpc.StatusCode.INVALID_ARGUMENT or not isinstance(request, Message):
        return None
    for path in CODE_FIELDS.get(refusal.code or "", ()):
        if _holds(request, path.split(".")):
            return path
    start = _LEADING_PATH.match(refusal.message)
    if start is not None and _names_field(request, start.group(1)):
        return start.group(1)
    return None


def _names_field(request: Message, path: str) -> bool:
    """Whether ``path`` (names and indexes, ``matches[2].request_id``) leads through fields of
    ``request``'s message type."""
    message: Any = request.DESCRIPTOR  # a Descriptor, or None past a scalar field
    for name in path.split("."):
        if message is None:
            return False
        found = message.fields_by_name.get(name.partition("[")[0])
        if found is None:
            return False
        message = found.message_type
    return True


def _holds(message: Message, names: Sequence[str]) -> bool:
    """Whether the field at ``names`` is set in ``message`` (not at its default)."""
    found = message.DESCRIPTOR.fields_by_name.get(names[0])
    if found is None:
        return False
    value = getattr(message, names[0])
    if len(names) > 1:
        if found.message_type is None or found.is_repeated:
            return False
        return message.HasField(names[0]) and _holds(value, names[1:])
    if found.is_repeated:
        return len(value) > 0
    if found.type == FieldDescriptor.TYPE_MESSAGE:
        return message.HasField(names[0])
    return bool(value)


def rich_status(refusal: Refused, lang: str, request: object = None) -> status_pb2.Status:
    """The ``google.rpc.Status`` of a refusal: ErrorInfo, RetryInfo when a retry is meant,
    BadRequest when it names a field of ``request``, and LocalizedMessage in ``lang``."""
    status = status_pb2.Status(code=refusal.status.value[0], message=refusal.message)
    status.details.add().Pack(
        error_details_pb2.ErrorInfo(
            reason=refusal.reason,
            domain=DOMAIN,
            metadata={key: metadata_text(value) for key, value in refusal.params.items()},
        )
    )
    wait = refusal.retry_after_seconds
    if wait is None and refusal.status == grpc.StatusCode.UNAVAILABLE:
        wait = UNAVAILABLE_RETRY_SECONDS
    if wait is not None:
        delay = duration_pb2.Duration()
        delay.FromMilliseconds(max(1, round(wait * 1000)))
        status.details.add().Pack(error_details_pb2.RetryInfo(retry_delay=delay))
    text = localized(refusal.code, refusal.params, refusal.status, refusal.message, lang)
    message = error_details_pb2.LocalizedMessage(locale=lang, message=text)
    path = field_of(refusal, request)
    if path is not None:
        violation = error_details_pb2.BadRequest.FieldViolation(
            field=path,
            description=refusal.message,
            reason=refusal.reason,
            localized_message=message,
        )
        status.details.add().Pack(error_details_pb2.BadRequest(field_violations=[violation]))
    status.details.add().Pack(message)
    return status


def _retry_after_set(context: grpc.aio.ServicerContext[Any, Any]) -> float | None:
    """The wait a servicer put in the ``retry-after-ms`` trailer itself, in seconds."""
    for key, value in context.trailing_metadata() or ():
        if key == RETRY_AFTER_KEY and isinstance(value, str) and value.isdigit():
            return int(value) / 1000
    return None


async def abort(
    context: grpc.aio.ServicerContext[Any, Any], refusal: Refused, request: object = None
) -> NoReturn:
    """End the call as ``refusal`` says: the rich status in ``grpc-status-details-bin`` (in the
    language of the call's ``accept-language``), beside the deprecated ``maumau-error-code``,
    ``maumau-error-params`` (JSON) and ``retry-after-ms`` and what trailers the servicer set."""
    if refusal.retry_after_seconds is None and refusal.status == grpc.StatusCode.RESOURCE_EXHAUSTED:
        set_wait = _retry_after_set(context)
        if set_wait is not None:
            refusal = dataclasses.replace(refusal, retry_after_seconds=set_wait)
    metadata = [
        (key, value) for key, value in context.trailing_metadata() or () if key != DETAILS_KEY
    ]
    if refusal.legacy_code and refusal.code is not None:
        metadata.append((ERROR_CODE_KEY, refusal.code))
        metadata.append((ERROR_PARAMS_KEY, json.dumps(dict(refusal.params), default=str)))
    if refusal.retry_after_seconds is not None and not any(
        k == RETRY_AFTER_KEY for k, _ in metadata
    ):
        metadata.append((RETRY_AFTER_KEY, str(max(1, round(refusal.retry_after_seconds * 1000)))))
    status = rpc_status.to_status(rich_status(refusal, caller_language(context), request))
    await context.abort(
        refusal.status, status.details, trailing_metadata=(*metadata, *status.trailing_metadata)
    )


async def abort_for(
    context: grpc.aio.ServicerContext[Any, Any], error: BaseException, request: object = None
) -> NoReturn:
    """End the call as `status_for(error)` says, its rich status naming a field of ``request``
    where it is about one; re-raise an error that maps to nothing."""
    status = status_for(error)
    if status is None:
        raise error
    await abort(context, refused(error, status), request)
