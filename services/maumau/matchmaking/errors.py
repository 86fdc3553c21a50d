"""The matchmaker's refusals of the bot arena: each a stable ``code`` with ``params`` and a gRPC
status, its text in English and German (:data:`MESSAGES`), as the Accounts service keeps its own
(``maumau.accounts.errors``); the code and params go in the error's details and the deprecated
trailing metadata (``maumau-error-code``). Past the daily bot-vs-bot limit the refusal is the
shared ``daily_limit`` (``maumau.common.daily_limits``).

>>> error = refusal("arena_ruleset", ruleset="classic", allowed="classic target=0")
>>> error.status.name, str(error)
('INVALID_ARGUMENT', "ruleset: the arena plays no pool 'classic'; it plays classic target=0")
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import grpc

from maumau.common.error_codes import register_texts
from maumau.common.errors import ServiceError

S = grpc.StatusCode

STATUS: Final[dict[str, grpc.StatusCode]] = {
    "not_a_bot": S.FAILED_PRECONDITION,
    "bot_in_queue": S.FAILED_PRECONDITION,
    "arena_ruleset": S.INVALID_ARGUMENT,
    "arena_seat_counts": S.INVALID_ARGUMENT,
}
"""The status each code comes with."""

MESSAGES: Final[dict[str, dict[str, str]]] = {
    "en": {
        "not_a_bot": "only a bot account plays in the arena: make one (ArenaService.BecomeBot) "
        "and call with its bot:play token",
        "bot_in_queue": "{player_id} is a bot account: bots play in the arena (JoinArena) or "
        "when a person challenges them, never in the people's queue",
        "arena_ruleset": "ruleset: the arena plays no pool '{ruleset}'; it plays {allowed}",
        "arena_seat_counts": "seat_counts: {ruleset} is played at tables of {allowed} seats; "
        "name one or more of them (none: 2)",
    },
    "de": {
        "not_a_bot": "nur ein Bot-Konto spielt in der Arena: mache eines "
        "(ArenaService.BecomeBot) und rufe mit seinem bot:play-Token auf",
        "bot_in_queue": "{player_id} ist ein Bot-Konto: Bots spielen in der Arena (JoinArena) "
        "oder wenn ein Mensch sie herausfordert, nie in der Warteschlange der Menschen",
        "arena_ruleset": "ruleset: die Arena spielt keinen Pool '{ruleset}'; sie spielt {allowed}",
        "arena_seat_counts": "seat_counts: {ruleset} wird an Tischen mit {allowed} Plätzen "
        "gespielt; nenne einen oder mehrere davon (keiner: 2)",
    },
}
"""The texts of every code, in English and German; parameters in braces."""

register_texts(MESSAGES)  # the caller's language in every refusal's LocalizedMessage


class ArenaError(ServiceError):
    """A refusal with its code, params and English message."""

    def __init__(self, code: str, params: Mapping[str, Any]) -> None:
        self.code = code
        self.params = dict(params)
        self.message = MESSAGES["en"][code].format(**self.params)
        super().__init__(STATUS[code], self.message)


def refusal(code: str, **params: Any) -> ArenaError:
    """The refusal of ``code`` (raise it)."""
    return ArenaError(code, params)
