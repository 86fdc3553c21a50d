"""The error codes of the services' own and what they say: their texts in English and German,
the status each comes with, what a client should do on it, and docs/clients.md's table of
every reason generated from them.

Kept apart from ``maumau.common.errors``, which maps an error to its gRPC status and rich
details: these are tables a translator or a docs writer changes without touching that mapping.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

import grpc

from maumau.rules import errors as rules_errors

LANGUAGES: Final = ("en", "de")
"""The languages of ``LocalizedMessage``; the first is the default."""

REASON = re.compile(r"[A-Z][A-Z0-9_]{0,61}[A-Z0-9]")
"""What ``ErrorInfo.reason`` must match (AIP-193: UPPER_SNAKE_CASE, at most 63 characters)."""

OUT_OF_MEMORY_MESSAGE = (
    "the platform's store is full (Redis reached its maxmemory) and refused this write, so "
    "nothing was saved: try again later; operators: raise maxmemory or free memory"
)


STORE_ERROR = "store_error"
"""The error code of a store error (a bug of the platform), in ``maumau-error-code``."""

MESSAGES: dict[str, dict[str, str]] = {
    "en": {
        STORE_ERROR: "the platform's store refused this call because of a fault of the "
        "platform; the error was reported to its operators; retrying will not help",
        "store_unavailable": "the match store is unreachable for a moment: retry with the "
        "same request id",
        "store_unconfirmed": "the match store cannot confirm this for a moment: retry with "
        "the same request id",
        "store_full": OUT_OF_MEMORY_MESSAGE,
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
        STORE_ERROR: "der Speicher der Plattform hat diesen Aufruf wegen eines Fehlers der "
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
"""The texts of the error codes of the services' own (the rules core's are in
``maumau.rules.errors``), in English and German, with their parameters in braces; the SDK
keeps the same. Only ``store_error`` and ``daily_limit`` of them are sent in the deprecated
``maumau-error-code``."""

STATUS_TEXTS: Final[dict[str, dict[grpc.StatusCode, str]]] = {
    "en": {
        grpc.StatusCode.INVALID_ARGUMENT: "the request is not valid",
        grpc.StatusCode.OUT_OF_RANGE: "the request is not valid",
        grpc.StatusCode.UNAUTHENTICATED: "the call needs a valid token",
        grpc.StatusCode.PERMISSION_DENIED: "this is not yours to do",
        grpc.StatusCode.NOT_FOUND: "not found",
        grpc.StatusCode.ALREADY_EXISTS: "this exists already",
        grpc.StatusCode.FAILED_PRECONDITION: "not possible right now",
        grpc.StatusCode.ABORTED: "not possible right now: try again",
        grpc.StatusCode.RESOURCE_EXHAUSTED: "too many requests: slow down a little",
        grpc.StatusCode.UNAVAILABLE: "the platform is not reachable for a moment: try again",
        grpc.StatusCode.DEADLINE_EXCEEDED: "the platform took too long: try again",
        grpc.StatusCode.INTERNAL: "something went wrong on the platform",
    },
    "de": {
        grpc.StatusCode.INVALID_ARGUMENT: "diese Anfrage ist ungültig",
        grpc.StatusCode.OUT_OF_RANGE: "diese Anfrage ist ungültig",
        grpc.StatusCode.UNAUTHENTICATED: "der Aufruf braucht ein gültiges Token",
        grpc.StatusCode.PERMISSION_DENIED: "das darfst du nicht",
        grpc.StatusCode.NOT_FOUND: "nicht gefunden",
        grpc.StatusCode.ALREADY_EXISTS: "das gibt es schon",
        grpc.StatusCode.FAILED_PRECONDITION: "gerade nicht möglich",
        grpc.StatusCode.ABORTED: "gerade nicht möglich: versuche es noch einmal",
        grpc.StatusCode.RESOURCE_EXHAUSTED: "zu viele Anfragen: bitte etwas langsamer",
        grpc.StatusCode.UNAVAILABLE: "die Plattform ist gerade nicht erreichbar: versuche es "
        "noch einmal",
        grpc.StatusCode.DEADLINE_EXCEEDED: "die Plattform hat zu lange gebraucht: versuche es "
        "noch einmal",
        grpc.StatusCode.INTERNAL: "auf der Plattform ist etwas schiefgegangen",
    },
}
"""What kind of refusal each status is, in English and German: the localized message of a
refusal without a text of its own in the caller's language (the English details follow it)."""

_TEXTS: list[Mapping[str, Mapping[str, str]]] = [MESSAGES]
"""The services' tables of texts by language and code (:func:`register_texts`)."""


def register_texts(messages: Mapping[str, Mapping[str, str]]) -> None:
    """Tell the codes of a service's own table (texts by language, then code, parameters in
    braces, as :data:`MESSAGES`) in the caller's language in ``LocalizedMessage`` too."""
    if messages not in _TEXTS:
        _TEXTS.append(messages)


def reason_of(code: str) -> str:
    """The ``ErrorInfo.reason`` of an error code.

    >>> reason_of("card_does_not_match"), reason_of("store_error")
    ('CARD_DOES_NOT_MATCH', 'STORE_ERROR')
    """
    return code.upper()


def preferred_language(header: str) -> str:
    """The language of :data:`LANGUAGES` an ``accept-language`` value ranks first (by its
    q-values, then by order), or English.

    >>> preferred_language("de-DE,de;q=0.9,en;q=0.8"), preferred_language("fr, de;q=0.5")
    ('de', 'de')
    >>> preferred_language("en;q=0.2, de"), preferred_language("*"), preferred_language("de;q=0")
    ('de', 'en', 'en')
    """
    ranked: list[tuple[float, int, str]] = []
    for place, part in enumerate(header.split(",")[:32]):
        tag, *parameters = part.split(";")
        language = tag.strip().lower().split("-")[0]
        weight = 1.0
        for parameter in parameters:
            name, _, value = parameter.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    weight = float(value)
                except ValueError:
                    weight = 0.0
        if language in LANGUAGES and weight > 0:
            ranked.append((-weight, place, language))
    return min(ranked)[2] if ranked else LANGUAGES[0]


def localized(
    code: str | None,
    params: Mapping[str, Any],
    status: grpc.StatusCode,
    message: str,
    lang: str,
) -> str:
    """A refusal's message in ``lang``: its English ``message`` as it is, else the text of its
    code (the rules core's, :data:`MESSAGES` or a registered table) filled from ``params``,
    else what kind of refusal it is followed by the English message.

    >>> from grpc import StatusCode
    >>> localized("card_not_in_hand", {"card": "7H"}, StatusCode.FAILED_PRECONDITION, "", "de")
    '7H ist nicht auf deiner Hand'
    >>> localized(None, {}, StatusCode.NOT_FOUND, "no match 'm1'", "de")
    "nicht gefunden (no match 'm1')"
    """
    if lang == LANGUAGES[0] or lang not in LANGUAGES:
        return message
    if code is not None and code in rules_errors.MESSAGES["en"]:
        return rules_errors.translate(code, params, lang)
    for table in _TEXTS:
        template = table.get(lang, {}).get(code or "")
        if template is not None:
            try:
                return template.format(**params)
            except (KeyError, IndexError, ValueError):
                break
    kind = STATUS_TEXTS[lang].get(status, STATUS_TEXTS[lang][grpc.StatusCode.INTERNAL])
    return f"{kind} ({message})" if message else kind


RULES_INPUT_CODES: Final = frozenset(
    {
        "bad_card_text",
        "bad_suit",
        "bad_action_text",
        "action_text_differs",
        "bad_option",
        "unknown_preset",
        "bad_setup",
        "bad_seat",
    }
)
"""The rules core's codes of input that is no card, suit, action or rule (``BadInput``:
INVALID_ARGUMENT); its other codes are moves the rules forbid now (FAILED_PRECONDITION)."""

CODE_STATUS: Final[Mapping[str, grpc.StatusCode]] = {
    STORE_ERROR: grpc.StatusCode.INTERNAL,
    "store_unavailable": grpc.StatusCode.UNAVAILABLE,
    "store_unconfirmed": grpc.StatusCode.UNAVAILABLE,
    "store_full": grpc.StatusCode.UNAVAILABLE,
    "token_invalid": grpc.StatusCode.UNAUTHENTICATED,
    "token_not_accepted": grpc.StatusCode.PERMISSION_DENIED,
    "limit_reached": grpc.StatusCode.RESOURCE_EXHAUSTED,
    "undecodable_request": grpc.StatusCode.INVALID_ARGUMENT,
    "daily_limit": grpc.StatusCode.RESOURCE_EXHAUSTED,
}
"""The status each of the services' own codes (:data:`MESSAGES`) comes with."""

PICK_LEGAL = "read the view again and send one of its `legal` actions"

ADVICE: Final[Mapping[str, str]] = {
    "bad_card_text": "write the card as the view does (`10H`, `JD`, `Gskip`), or send one of "
    "the view's `legal` actions",
    "bad_suit": "name one of the suits in `allowed`",
    "bad_action_text": "send one of the view's `legal` actions, or write one as the message shows",
    "action_text_differs": "send the kind or the text alone, or both naming the same action",
    "bad_option": "fix the option as `reason` says ([Rule systems](rules.md) lists each one)",
    "unknown_preset": "choose one of the presets in `allowed`",
    "bad_setup": "fix the setup as `reason` says",
    "bad_seat": "name a seat of the table, 0 to `seats` - 1",
    "round_over": "wait for the next round to start, then read the view",
    "match_over": "stop acting: the view's `outcome` says how the match ended",
    "not_your_turn": "wait until the view's `to_act` is your seat (follow the match)",
    "draw_pending": "play a card of that rank or `accept` the cards, as `legal` lists",
    "skip_pending": "play a card of that rank or `accept` sitting out, as `legal` lists",
    "sit_out_pending": "`accept` sitting out (catching a missed call is still open)",
    "wish_needed": "add a suit of `allowed` to the card (`JD:S`), as its `legal` actions do",
    "starter_suit_needed": "wait until seat `seat` (the view's `to_act`) has named the suit",
    "draw4_bluff_pending": "`challenge` the W+4 or `accept` the cards",
    STORE_ERROR: "do not retry: it fails until the fault is mended (it was reported)",
    "store_unavailable": "retry after `RetryInfo`'s delay, with the same request id",
    "store_unconfirmed": "retry after `RetryInfo`'s delay, with the same request id",
    "store_full": "retry later (`RetryInfo`: half a minute); nothing of the call was saved",
    "token_invalid": "register or sign in again, or renew the token before it expires",
    "token_not_accepted": "send the token the call takes (the message names its kind), or a "
    "personal access token with the scope it needs; do not sign in again",
    "limit_reached": "wait `RetryInfo`'s delay (`seconds`), then retry",
    "undecodable_request": "serialize the request as the method's message; the same bytes "
    "fail again",
    "daily_limit": "wait until `resets_at` (`RetryInfo` holds the wait): `limit` names the "
    "limit (`challenges_per_day`, `bot_matches_per_day`)",
}
"""What a client should do on each code; the rules core's other codes: :data:`PICK_LEGAL`."""

STATUS_ADVICE: Final[Mapping[grpc.StatusCode, str]] = {
    grpc.StatusCode.INVALID_ARGUMENT: "fix the request: `BadRequest` names the field when the "
    "message does",
    grpc.StatusCode.NOT_FOUND: "check the id (a match, room, ticket, party, player or "
    "tournament); the same call fails again",
    grpc.StatusCode.ALREADY_EXISTS: "use what exists, or choose another id",
    grpc.StatusCode.PERMISSION_DENIED: "leave it: another seat's, room's or party's, or a "
    "service's alone (a field only a service token may set is named)",
    grpc.StatusCode.FAILED_PRECONDITION: "read the state again (a room full, a match not "
    "started, a ticket seated) and act on it",
    grpc.StatusCode.RESOURCE_EXHAUSTED: "wait `RetryInfo`'s delay when there is one (a few "
    "seconds when not), then retry",
    grpc.StatusCode.ABORTED: "retry at once (an `Act` with the same request id; a `Follow` from "
    "the last event you saw)",
    grpc.StatusCode.UNAVAILABLE: "retry after `RetryInfo`'s delay, with the same request id",
}
"""What a client should do on a refusal without a code of its own (its reason is its status's
name)."""


def reason_table(
    services: Sequence[tuple[Mapping[str, Mapping[str, str]], Mapping[str, grpc.StatusCode]]] = (),
) -> str:
    """docs/clients.md's table of every reason (``ErrorInfo.reason``), generated from the rules
    core's codes, :data:`MESSAGES`, the tables of ``services`` (texts by language and code, and
    each code's status; their messages say what to do) and the statuses of refusals without a
    code of their own."""
    rows = ["| reason | status | message (English) | what to do |", "|---|---|---|---|"]

    def row(reason: str, status: grpc.StatusCode, text: str, advice: str) -> None:
        shown = text.replace("|", "\\|")
        rows.append(f"| `{reason}` | {status.name} | {shown} | {advice} |")

    for code, text in rules_errors.MESSAGES["en"].items():
        status = (
            grpc.StatusCode.INVALID_ARGUMENT
            if code in RULES_INPUT_CODES
            else grpc.StatusCode.FAILED_PRECONDITION
        )
        row(reason_of(code), status, text, ADVICE.get(code, PICK_LEGAL))
    for code, text in MESSAGES["en"].items():
        row(reason_of(code), CODE_STATUS[code], text, ADVICE[code])
    for messages, statuses in services:
        for code, text in messages["en"].items():
            row(reason_of(code), statuses[code], text, "as the message says")
    for status, advice in STATUS_ADVICE.items():
        text = f"the service's own words ({STATUS_TEXTS['en'][status]}: no code of its own yet)"
        row(status.name, status, text, advice)
    return "\n".join(rows)
