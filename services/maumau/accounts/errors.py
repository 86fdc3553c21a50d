"""The Accounts service's refusals: each a stable ``code`` with ``params`` and a gRPC status, its
text in English and German (:data:`MESSAGES`), as the rules core keeps its own
(``maumau.rules.errors``). The code and params go in the standard error details
(``ErrorInfo``; ``LocalizedMessage`` in the caller's language: ``maumau.common.errors``) and the
deprecated trailing metadata (``maumau-error-code``, ``maumau-error-params``), so a client shows
the text in its own language; the English text is the status's details.

>>> error = refusal("username_taken", name="Ada")
>>> error.status.name, error.code
('ALREADY_EXISTS', 'username_taken')
>>> str(error)
"the username 'Ada' is taken, or looks too much like one that is: choose another"
>>> translate("sign_in_failed", {}, "de")
'falscher Benutzername oder falsches Passwort'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import grpc

from maumau.common.error_codes import register_texts
from maumau.common.errors import Exhausted, ServiceError

S = grpc.StatusCode

STATUS: Final[dict[str, grpc.StatusCode]] = {
    "username_length": S.INVALID_ARGUMENT,
    "username_characters": S.INVALID_ARGUMENT,
    "username_reserved": S.INVALID_ARGUMENT,
    "username_taken": S.ALREADY_EXISTS,
    "already_claimed": S.FAILED_PRECONDITION,
    "not_a_player": S.PERMISSION_DENIED,
    "no_account": S.FAILED_PRECONDITION,
    "password_length": S.INVALID_ARGUMENT,
    "password_common": S.INVALID_ARGUMENT,
    "password_wrong": S.PERMISSION_DENIED,
    "sign_in_failed": S.UNAUTHENTICATED,
    "sign_in_limited": S.RESOURCE_EXHAUSTED,
    "device_text": S.INVALID_ARGUMENT,
    "challenge_unknown": S.FAILED_PRECONDITION,
    "passkey_invalid": S.INVALID_ARGUMENT,
    "passkey_failed": S.UNAUTHENTICATED,
    "passkey_taken": S.ALREADY_EXISTS,
    "passkey_limit": S.FAILED_PRECONDITION,
    "passkey_unknown": S.NOT_FOUND,
    "passkey_name": S.INVALID_ARGUMENT,
    "last_way": S.FAILED_PRECONDITION,
    "provider_unknown": S.INVALID_ARGUMENT,
    "provider_state": S.FAILED_PRECONDITION,
    "provider_refused": S.UNAUTHENTICATED,
    "provider_unreachable": S.UNAVAILABLE,
    "provider_not_linked": S.FAILED_PRECONDITION,
    "provider_linked_elsewhere": S.ALREADY_EXISTS,
    "provider_not_your_link": S.PERMISSION_DENIED,
    "provider_code": S.INVALID_ARGUMENT,
    "session_unknown": S.NOT_FOUND,
    "token_name": S.INVALID_ARGUMENT,
    "token_scope": S.INVALID_ARGUMENT,
    "token_days": S.INVALID_ARGUMENT,
    "token_limit": S.FAILED_PRECONDITION,
    "token_unknown": S.NOT_FOUND,
    "delete_confirm": S.INVALID_ARGUMENT,
    "service_unavailable": S.UNAVAILABLE,
    "bot_token_not_bot": S.FAILED_PRECONDITION,
    "bot_has_played": S.FAILED_PRECONDITION,
    "event_streams": S.RESOURCE_EXHAUSTED,
    "event_streams_replica": S.RESOURCE_EXHAUSTED,
    "event_id": S.INVALID_ARGUMENT,
    "events_behind": S.ABORTED,
    "page_size": S.INVALID_ARGUMENT,
    "page_token": S.INVALID_ARGUMENT,
    "challenge_players": S.INVALID_ARGUMENT,
    "challenge_turn": S.INVALID_ARGUMENT,
    "challenge_no_account": S.NOT_FOUND,
    "challenge_refused": S.PERMISSION_DENIED,
    "arena_challenge_unknown": S.NOT_FOUND,
    "challenge_own": S.FAILED_PRECONDITION,
    "decline_reason": S.INVALID_ARGUMENT,
    "block_player": S.INVALID_ARGUMENT,
    "blocks_full": S.FAILED_PRECONDITION,
}
"""The status each code is answered with."""

MESSAGES: Final[dict[str, dict[str, str]]] = {
    "en": {
        "username_length": "a username has {least} to {most} characters; this one has {length}",
        "username_characters": "a username holds letters, digits and {separators} only, and "
        "starts with a letter or a digit",
        "username_reserved": "'{name}' is kept for the platform (the computer players' names, "
        "Computer and a number, admin, moderator, names starting with 'bot'): choose another",
        "username_taken": "the username '{name}' is taken, or looks too much like one that is: "
        "choose another",
        "already_claimed": "this player already has the account '{name}'",
        "not_a_player": "only a registered player's own token (from PlayersService.Register or a "
        "sign-in) can do this",
        "no_account": "this player has no account yet: claim a username first",
        "password_length": "a password has {least} to {most} characters",
        "password_common": "this password is one of the most common ones, which attackers try "
        "first: choose another (a few words of your own make a good one)",
        "password_wrong": "the current password is wrong",
        "sign_in_failed": "wrong username or password",
        "sign_in_limited": "too many sign-in attempts for {who}: try again in {seconds} s",
        "device_text": "device: at most {most} printable characters",
        "challenge_unknown": "this challenge is unknown, used or expired (each lasts {seconds} s "
        "and is used once): begin again",
        "passkey_invalid": "the passkey's answer cannot be used: {reason}",
        "passkey_failed": "this passkey did not sign in: {reason}",
        "passkey_taken": "this passkey is registered already",
        "passkey_limit": "an account holds at most {most} passkeys: remove one first",
        "passkey_unknown": "the account has no passkey '{credential}'",
        "passkey_name": "a passkey's name has at most {most} printable characters",
        "last_way": "this is the account's last way to sign in: add another one first",
        "provider_unknown": "no identity provider '{name}': choose one of {allowed}",
        "provider_state": "this sign-in with a provider is unknown, used or expired (each lasts "
        "{seconds} s and is used once): begin again",
        "provider_refused": "the identity provider {provider} did not sign you in: {reason}",
        "provider_unreachable": "the identity provider {provider} cannot be reached for a "
        "moment: try again later",
        "provider_not_linked": "no account is linked to this {provider} identity: sign in "
        "another way and link it on your account's page",
        "provider_linked_elsewhere": "this {provider} identity is linked to another account",
        "provider_not_your_link": "this link with {provider} was begun by another account",
        "provider_code": "code: the provider's code (1 to {most} characters), or its error",
        "session_unknown": "the account has no session '{session}'",
        "token_name": "a token's name has 1 to {most} printable characters",
        "token_scope": "scope: choose play, read or bot:play (a bot account's)",
        "token_days": "ttl_days: 1 to {most} days (0: {default})",
        "token_limit": "an account holds at most {most} access tokens: revoke one first",
        "token_unknown": "the account has no access token '{token}'",
        "delete_confirm": "username: type the account's username to delete it",
        "service_unavailable": "the {service} service cannot be reached for a moment: try "
        "again later",
        "bot_token_not_bot": "only a bot account's access tokens carry bot:play: turn this "
        "account into a bot first (ArenaService.BecomeBot)",
        "bot_has_played": "this account has played {played} games: only an account that has "
        "played none can become a bot, so make a new account for the bot",
        "event_streams": "this account already holds {held} event streams on this replica, "
        "the most allowed: close one and try again",
        "event_streams_replica": "this replica serves {open} event streams, the most it "
        "takes: try again shortly (another replica may have room)",
        "event_id": "after_event_id: an event id as an event carries it (like "
        "'1700000000000-0'), or empty for new events only",
        "events_behind": "this stream fell more than {most} events behind (they are read too "
        "slowly): open it again with after_event_id, the last event received",
        "page_size": "page_size: 1 to {most} (0: {default})",
        "page_token": "page_token: the next_page_token of the previous answer, or empty",
        "challenge_players": "player_ids: 1 to {most} other accounts, each named once",
        "challenge_turn": "turn_seconds: 0 (the engine's default) to {most}",
        "challenge_no_account": "there is no account '{player}' to challenge",
        "challenge_refused": "this challenge is not taken: choose other accounts",
        "arena_challenge_unknown": "there is no open challenge '{challenge}' for you (it may have "
        "started, expired, been declined or cancelled)",
        "challenge_own": "this is your own challenge: cancel it instead (CancelChallenge)",
        "decline_reason": "reason: one of the DeclineReason values (generic, later, ruleset, "
        "rated, casual, too many seats, no bots, only bots)",
        "block_player": "player_id: another account's id (1 to {most} characters)",
        "blocks_full": "an account blocks at most {most} accounts: unblock one first",
    },
    "de": {
        "username_length": "ein Benutzername hat {least} bis {most} Zeichen; dieser hat {length}",
        "username_characters": "ein Benutzername besteht nur aus Buchstaben, Ziffern und "
        "{separators} und beginnt mit einem Buchstaben oder einer Ziffer",
        "username_reserved": "'{name}' ist der Plattform vorbehalten (die Namen der "
        "Computerspieler, Computer mit einer Zahl, admin, moderator, Namen, die mit 'bot' "
        "beginnen): wähle einen anderen",
        "username_taken": "der Benutzername '{name}' ist vergeben oder sieht einem vergebenen "
        "zu ähnlich: wähle einen anderen",
        "already_claimed": "dieser Spieler hat schon das Konto '{name}'",
        "not_a_player": "das geht nur mit dem eigenen Token eines registrierten Spielers (von "
        "PlayersService.Register oder einer Anmeldung)",
        "no_account": "dieser Spieler hat noch kein Konto: wähle zuerst einen Benutzernamen",
        "password_length": "ein Passwort hat {least} bis {most} Zeichen",
        "password_common": "dieses Passwort gehört zu den häufigsten, die Angreifer zuerst "
        "probieren: wähle ein anderes (ein paar eigene Wörter ergeben ein gutes)",
        "password_wrong": "das bisherige Passwort ist falsch",
        "sign_in_failed": "falscher Benutzername oder falsches Passwort",
        "sign_in_limited": "zu viele Anmeldeversuche für {who}: versuche es in {seconds} s wieder",
        "device_text": "device: höchstens {most} druckbare Zeichen",
        "challenge_unknown": "diese Anfrage ist unbekannt, verbraucht oder abgelaufen (jede "
        "gilt {seconds} s und einmal): beginne neu",
        "passkey_invalid": "die Antwort des Passkeys ist nicht verwendbar: {reason}",
        "passkey_failed": "dieser Passkey hat nicht angemeldet: {reason}",
        "passkey_taken": "dieser Passkey ist schon registriert",
        "passkey_limit": "ein Konto hat höchstens {most} Passkeys: entferne zuerst einen",
        "passkey_unknown": "das Konto hat keinen Passkey '{credential}'",
        "passkey_name": "der Name eines Passkeys hat höchstens {most} druckbare Zeichen",
        "last_way": "das ist die letzte Art, dich bei diesem Konto anzumelden: füge zuerst "
        "eine weitere hinzu",
        "provider_unknown": "kein Identitätsanbieter '{name}': wähle einen von {allowed}",
        "provider_state": "diese Anmeldung über einen Anbieter ist unbekannt, verbraucht oder "
        "abgelaufen (jede gilt {seconds} s und einmal): beginne neu",
        "provider_refused": "der Identitätsanbieter {provider} hat dich nicht angemeldet: {reason}",
        "provider_unreachable": "der Identitätsanbieter {provider} ist gerade nicht erreichbar: "
        "versuche es später wieder",
        "provider_not_linked": "mit dieser Identität bei {provider} ist kein Konto verknüpft: "
        "melde dich anders an und verknüpfe sie auf der Seite deines Kontos",
        "provider_linked_elsewhere": "diese Identität bei {provider} ist mit einem anderen "
        "Konto verknüpft",
        "provider_not_your_link": "diese Verknüpfung mit {provider} hat ein anderes Konto begonnen",
        "provider_code": "code: der Code des Anbieters (1 bis {most} Zeichen) oder sein Fehler",
        "session_unknown": "das Konto hat keine Sitzung '{session}'",
        "token_name": "der Name eines Tokens hat 1 bis {most} druckbare Zeichen",
        "token_scope": "scope: wähle play, read oder bot:play (das eines Bot-Kontos)",
        "token_days": "ttl_days: 1 bis {most} Tage (0: {default})",
        "token_limit": "ein Konto hat höchstens {most} Zugriffstokens: widerrufe zuerst eines",
        "token_unknown": "das Konto hat kein Zugriffstoken '{token}'",
        "delete_confirm": "username: gib den Benutzernamen des Kontos ein, um es zu löschen",
        "service_unavailable": "der Dienst {service} ist gerade nicht erreichbar: versuche es "
        "später wieder",
        "bot_token_not_bot": "nur die Zugriffstokens eines Bot-Kontos tragen bot:play: mache "
        "dieses Konto zuerst zum Bot (ArenaService.BecomeBot)",
        "bot_has_played": "dieses Konto hat {played} Spiele gespielt: nur ein Konto ohne Spiele "
        "kann ein Bot werden, lege also ein neues Konto für den Bot an",
        "event_streams": "dieses Konto hält auf diesem Replikat schon {held} Ereignisströme, "
        "die meisten erlaubten: schließe einen und versuche es wieder",
        "event_streams_replica": "dieses Replikat bedient {open} Ereignisströme, die meisten, "
        "die es annimmt: versuche es gleich wieder (ein anderes Replikat hat vielleicht Platz)",
        "event_id": "after_event_id: eine Ereignis-ID, wie ein Ereignis sie trägt (etwa "
        "'1700000000000-0'), oder leer für nur neue Ereignisse",
        "events_behind": "dieser Strom liegt mehr als {most} Ereignisse zurück (sie werden zu "
        "langsam gelesen): öffne ihn wieder mit after_event_id, dem letzten erhaltenen Ereignis",
        "page_size": "page_size: 1 bis {most} (0: {default})",
        "page_token": "page_token: das next_page_token der vorigen Antwort, oder leer",
        "challenge_players": "player_ids: 1 bis {most} andere Konten, jedes einmal genannt",
        "challenge_turn": "turn_seconds: 0 (die Vorgabe der Engine) bis {most}",
        "challenge_no_account": "es gibt kein Konto '{player}' zum Herausfordern",
        "challenge_refused": "diese Herausforderung wird nicht angenommen: wähle andere Konten",
        "arena_challenge_unknown": "es gibt keine offene Herausforderung '{challenge}' für "
        "dich (sie kann begonnen haben, abgelaufen, abgelehnt oder zurückgezogen sein)",
        "challenge_own": "das ist deine eigene Herausforderung: ziehe sie zurück (CancelChallenge)",
        "decline_reason": "reason: einer der Werte von DeclineReason (generic, later, ruleset, "
        "rated, casual, too many seats, no bots, only bots)",
        "block_player": "player_id: die ID eines anderen Kontos (1 bis {most} Zeichen)",
        "blocks_full": "ein Konto sperrt höchstens {most} Konten: entsperre zuerst eines",
    },
}
"""The texts of every code, in English and German; parameters in braces."""


register_texts(MESSAGES)  # the caller's language in every refusal's LocalizedMessage


def translate(code: str, params: Mapping[str, Any], lang: str = "en") -> str:
    """The text of ``code`` in ``lang`` ('en' or 'de'), its parameters filled in."""
    return MESSAGES.get(lang, MESSAGES["en"])[code].format(**params)


class AccountError(ServiceError):
    """A refusal with its code, params and English message (the shape the server's error
    mapping sends as trailing metadata)."""

    def __init__(self, code: str, params: Mapping[str, Any]) -> None:
        self.code = code
        self.params = dict(params)
        self.message = translate(code, self.params)
        super().__init__(STATUS[code], self.message)


class AccountExhausted(Exhausted):
    """A limit reached (sign-in attempts): RESOURCE_EXHAUSTED with ``retry-after-ms``."""

    def __init__(self, code: str, params: Mapping[str, Any], retry_after_seconds: float) -> None:
        self.code = code
        self.params = dict(params)
        self.message = translate(code, self.params)
        super().__init__(self.message, retry_after_seconds)


def refusal(code: str, **params: Any) -> AccountError:
    """The refusal of ``code`` (raise it)."""
    return AccountError(code, params)
