"""Readable errors: every failed call becomes one :class:`MauMauError`.

Every refusal of the platform carries the standard rich error model (``google.rpc.Status`` in
the ``grpc-status-details-bin`` trailer): an ``ErrorInfo`` whose ``reason`` is the error code in
UPPER_SNAKE_CASE (``CARD_NOT_IN_HAND``) with its parameters, a ``RetryInfo`` when a retry is
meant, a ``BadRequest`` naming an invalid field, and a ``LocalizedMessage``. :class:`MauMauError`
reads them (falling back to the deprecated trailers ``maumau-error-code``,
``maumau-error-params`` and ``retry-after-ms`` of older servers), and :meth:`MauMauError.message`
renders the code in English or German with the rules core's own texts, so a client never parses
English prose:

>>> import grpc
>>> error = MauMauError(grpc.StatusCode.FAILED_PRECONDITION, "7H is not in your hand",
...                     code="card_not_in_hand", params={"card": "7H"})
>>> error.message("de"), error.reason
('7H ist nicht auf deiner Hand', 'CARD_NOT_IN_HAND')
>>> error.message("en")
'7H is not in your hand'
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf.message import DecodeError
from google.rpc import error_details_pb2, status_pb2

from maumau.rules.errors import MESSAGES, translate

ERROR_CODE_KEY = "maumau-error-code"
"""Deprecated (older servers): the error code; ``ErrorInfo.reason`` says it now."""
ERROR_PARAMS_KEY = "maumau-error-params"
"""Deprecated (older servers): the code's parameters in JSON; ``ErrorInfo.metadata`` now."""
RETRY_AFTER_KEY = "retry-after-ms"
"""Deprecated (older servers): milliseconds to wait; ``RetryInfo.retry_delay`` now."""
DETAILS_KEY = "grpc-status-details-bin"
"""The trailer of the rich status, a serialized ``google.rpc.Status``."""
DOMAIN = "maumau.v1"
"""``ErrorInfo.domain`` of the platform's refusals."""

SERVICE_MESSAGES: dict[str, dict[str, str]] = {
    "en": {
        "store_error": "the platform's store refused this call because of a fault of the "
        "platform; the error was reported to its operators; retrying will not help",
        "store_unavailable": "the match store is unreachable for a moment: retry with the "
        "same request id",
        "store_unconfirmed": "the match store cannot confirm this for a moment: retry with "
        "the same request id",
        "store_full": "the platform's store is full (Redis reached its maxmemory) and refused "
        "this write, so nothing was saved: try again later; operators: raise maxmemory or free "
        "memory",
        "token_invalid": "the token is missing, malformed, expired or revoked: sign in again, "
        "or renew it",
        "token_not_accepted": "this token is good, but not for this call: send the kind of "
        "token it takes, with the scope it needs",
        "limit_reached": "a limit is reached: try again in {seconds} s",
        "undecodable_request": "{method}: the request bytes are not a valid {message} message "
        "(cut short, corrupt, or a string field that is not UTF-8): serialize it as the "
        "method's .proto defines it",
        "daily_limit": "{limit}: the limit of {most} a day is reached; it resets at "
        "{resets_at} (midnight UTC)",
    },
    "de": {
        "store_error": "der Speicher der Plattform hat diesen Aufruf wegen eines Fehlers der "
        "Plattform abgelehnt; der Fehler wurde ihren Betreibern gemeldet; ein neuer Versuch "
        "hilft nicht",
        "store_unavailable": "der Speicher der Partien ist gerade nicht erreichbar: versuche "
        "es mit derselben Anfrage-ID noch einmal",
        "store_unconfirmed": "der Speicher der Partien kann das gerade nicht bestätigen: "
        "versuche es mit derselben Anfrage-ID noch einmal",
        "store_full": "der Speicher der Plattform ist voll und hat diesen Schreibvorgang "
        "abgelehnt, es wurde nichts gespeichert: versuche es später wieder",
        "token_invalid": "das Token fehlt, ist fehlerhaft, abgelaufen oder widerrufen: melde "
        "dich wieder an oder erneuere es",
        "token_not_accepted": "dieses Token ist gültig, aber nicht für diesen Aufruf: schicke "
        "die Art Token, die er nimmt, mit der Berechtigung, die er braucht",
        "limit_reached": "ein Limit ist erreicht: versuche es in {seconds} s wieder",
        "undecodable_request": "{method}: die Bytes der Anfrage sind keine gültige Nachricht "
        "{message} (abgeschnitten, beschädigt oder ein Text, der kein UTF-8 ist): "
        "serialisiere sie, wie die .proto-Datei der Methode sie festlegt",
        "daily_limit": "{limit}: die Grenze von {most} am Tag ist erreicht; sie beginnt neu um "
        "{resets_at} (Mitternacht UTC)",
    },
}
"""The texts of the services' own error codes (as ``maumau.common.error_codes.MESSAGES``): a
``store_error`` comes with INTERNAL, a fault of the platform it reported, not to be retried."""

RETRYABLE = frozenset(
    {
        grpc.StatusCode.UNAVAILABLE,  # unreachable, or the connection broke
        grpc.StatusCode.DEADLINE_EXCEEDED,  # too slow to answer in time
        grpc.StatusCode.CANCELLED,  # cancelled by the server, e.g. a replica shutting down
        grpc.StatusCode.ABORTED,  # the engine lost too many races for a busy match
    }
)
"""Statuses after which a call that is safe to repeat (a read, a join, an action with its
request id) may succeed when repeated."""


@dataclass(frozen=True)
class FieldViolation:
    """A field of the request a refusal names (``BadRequest``): its path and what is wrong."""

    field: str
    description: str


class MauMauError(Exception):
    """A call the platform refused or could not answer.

    ``status`` is the gRPC status code; ``reason`` the refusal's ``ErrorInfo.reason``
    (``"NOT_YOUR_TURN"``; for a refusal without a code of its own, its status's name, and None
    when the platform sent none, as for a call that never reached it); ``code`` the same error
    code in lower case as the rules core and the services write it (``"not_your_turn"``; None
    for a refusal without a code of its own, such as an unknown match); ``params`` its
    parameters, ``metadata`` the same as ``ErrorInfo`` sends them (text); ``details`` the
    server's English text; ``retry_after`` the seconds to wait before a retry when the platform
    said so (``RetryInfo``); ``localized`` the server's ``LocalizedMessage`` as (locale, text);
    ``field_violations`` the request fields it names.
    """

    def __init__(
        self,
        status: grpc.StatusCode,
        details: str,
        *,
        code: str | None = None,
        params: Mapping[str, Any] | None = None,
        reason: str | None = None,
        metadata: Mapping[str, str] | None = None,
        retry_after: float | None = None,
        localized: tuple[str, str] | None = None,
        field_violations: Sequence[FieldViolation] = (),
    ) -> None:
        self.status = status
        self.details = details
        self.code = code
        self.params: dict[str, Any] = dict(params or {})
        self.reason = reason if reason is not None or code is None else code.upper()
        self.metadata: dict[str, str] = dict(metadata or {})
        self.retry_after = retry_after
        self.localized = localized
        self.field_violations = tuple(field_violations)
        super().__init__(self.message("en"))

    def message(self, lang: str = "en") -> str:
        """The error in ``lang`` ('en' or 'de'): the rules core's text for its code, else the
        server's localized message when it is in ``lang``, else the services' text for the code
        in ``lang``, else the server's details (which are English)."""
        if self.code is not None and self.code in MESSAGES["en"]:
            return translate(self.code, self.params, lang)
        if self.localized is not None and self.localized[0] == lang and self.localized[1]:
            return self.localized[1]
        if lang != "en" and self.code is not None and self.code in SERVICE_MESSAGES["en"]:
            template = SERVICE_MESSAGES.get(lang, SERVICE_MESSAGES["en"])[self.code]
            try:
                return template.format(**self.params)
            except (KeyError, IndexError, ValueError):
                pass
        return self.details or self.status.name.lower().replace("_", " ")

    @property
    def retryable(self) -> bool:
        """Whether repeating the call may succeed (the platform was unreachable, slow or
        restarting). Only calls that are safe to repeat should be."""
        return self.status in RETRYABLE

    def __repr__(self) -> str:
        return (
            f"MauMauError({self.status.name}, {self.details!r}, code={self.code!r}, "
            f"params={self.params!r})"
        )

    def __str__(self) -> str:
        return f"{self.status.name}: {self.message('en')}"

    @classmethod
    def from_rpc(cls, error: grpc.aio.AioRpcError) -> MauMauError:
        """The SDK error for a failed gRPC call, read from its rich status (the deprecated
        trailers of an older server where it has none)."""
        status = error.code()
        code: str | None = None
        params: dict[str, Any] | None = None
        reason: str | None = None
        metadata: dict[str, str] = {}
        retry_after: float | None = None
        localized: tuple[str, str] | None = None
        violations: list[FieldViolation] = []
        for key, value in error.trailing_metadata() or ():
            if key == DETAILS_KEY and isinstance(value, bytes):
                for detail in _details(value):
                    if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                        info = error_details_pb2.ErrorInfo()
                        detail.Unpack(info)
                        reason, metadata = info.reason, dict(info.metadata)
                    elif detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
                        retry = error_details_pb2.RetryInfo()
                        detail.Unpack(retry)
                        retry_after = retry.retry_delay.ToMilliseconds() / 1000
                    elif detail.Is(error_details_pb2.LocalizedMessage.DESCRIPTOR):
                        text = error_details_pb2.LocalizedMessage()
                        detail.Unpack(text)
                        localized = (text.locale, text.message)
                    elif detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
                        bad = error_details_pb2.BadRequest()
                        detail.Unpack(bad)
                        violations += (
                            FieldViolation(v.field, v.description) for v in bad.field_violations
                        )
            elif key == ERROR_CODE_KEY:
                code = value if isinstance(value, str) else value.decode()
            elif key == ERROR_PARAMS_KEY:
                try:
                    decoded = json.loads(value)
                except ValueError:
                    decoded = {}
                if isinstance(decoded, dict):
                    params = decoded
            elif key == RETRY_AFTER_KEY and retry_after is None:
                text_ms = value if isinstance(value, str) else value.decode(errors="replace")
                if text_ms.isdigit() and len(text_ms) <= 9:
                    retry_after = int(text_ms) / 1000
        if code is None and reason and reason != status.name:
            code = reason.lower()
        return cls(
            status,
            error.details() or "",
            code=code,
            params=metadata if params is None else params,
            reason=reason,
            metadata=metadata,
            retry_after=retry_after,
            localized=localized,
            field_violations=violations,
        )


def _details(value: bytes) -> list[Any]:
    """The details of a serialized ``google.rpc.Status`` (none when it does not decode)."""
    try:
        return list(status_pb2.Status.FromString(value).details)
    except DecodeError:
        return []
