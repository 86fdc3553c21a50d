"""Readable errors: every failed call becomes one :class:`MauMauError`.

The engine refuses a move with FAILED_PRECONDITION (or INVALID_ARGUMENT for input that is no
action at all) and puts the rules core's stable error code and its parameters in the trailing
metadata. :meth:`MauMauError.message` renders them in English or German with the rules core's own
texts, so a client never parses English prose:

>>> import grpc
>>> error = MauMauError(grpc.StatusCode.FAILED_PRECONDITION, "7H is not in your hand",
...                     code="card_not_in_hand", params={"card": "7H"})
>>> error.message("de")
'7H ist nicht auf deiner Hand'
>>> error.message("en")
'7H is not in your hand'
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import grpc

from maumau.rules.errors import MESSAGES, translate

ERROR_CODE_KEY = "maumau-error-code"
ERROR_PARAMS_KEY = "maumau-error-params"

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
    },
}
"""The texts of the services' own error codes (as ``maumau.common.errors.MESSAGES``): a
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


class MauMauError(Exception):
    """A call the platform refused or could not answer.

    ``status`` is the gRPC status code, ``code`` the rules core's error code (e.g.
    ``"not_your_turn"``; None for refusals of the services themselves, such as an unknown match),
    ``params`` its parameters and ``details`` the server's English text.
    """

    def __init__(
        self,
        status: grpc.StatusCode,
        details: str,
        *,
        code: str | None = None,
        params: Mapping[str, Any] | None = None,
    ) -> None:
        self.status = status
        self.details = details
        self.code = code
        self.params: dict[str, Any] = dict(params or {})
        super().__init__(self.message("en"))

    def message(self, lang: str = "en") -> str:
        """The error in ``lang`` ('en' or 'de'): the rules core's or the services' text for the
        code when there is one, else the server's details (which are English)."""
        if self.code is not None and self.code in MESSAGES["en"]:
            return translate(self.code, self.params, lang)
        if self.code is not None and self.code in SERVICE_MESSAGES["en"]:
            return SERVICE_MESSAGES.get(lang, SERVICE_MESSAGES["en"])[self.code]
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
        """The SDK error for a failed gRPC call, reading the error code from its metadata."""
        code: str | None = None
        params: dict[str, Any] = {}
        for key, value in error.trailing_metadata() or ():
            if key == ERROR_CODE_KEY:
                code = value if isinstance(value, str) else value.decode()
            elif key == ERROR_PARAMS_KEY:
                try:
                    decoded = json.loads(value)
                except ValueError:
                    decoded = {}
                if isinstance(decoded, dict):
                    params = decoded
        return cls(error.code(), error.details() or "", code=code, params=params)
