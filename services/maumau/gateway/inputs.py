"""Reading a command: the session it needs, its JSON body, typed fields and query numbers.

Anything malformed is a refusal (INVALID_ARGUMENT) in the page's language, before any service
is called.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from maumau.gateway.context import SETTINGS, lang_of, session_of
from maumau.gateway.sessions import Session
from maumau.gateway.upstream import refusal
from maumau.v1 import game_pb2, rating_pb2
from maumau.wire import bot_level_to_pb


def require_session(request: web.Request) -> Session:
    session = session_of(request)
    if session is None:
        raise refusal("UNAUTHENTICATED", lang_of(request), code="no_session")
    return session


async def body_of(request: web.Request) -> dict[str, Any]:
    """The JSON object of a command; anything else is INVALID_ARGUMENT."""
    if not request.can_read_body:
        return {}
    try:
        data = await request.json()
    except ValueError:
        raise refusal(
            "INVALID_ARGUMENT", lang_of(request), "the body is not JSON", "bad_json"
        ) from None
    if not isinstance(data, dict):
        raise refusal("INVALID_ARGUMENT", lang_of(request), "expected a JSON object", "bad_json")
    return data


def field(
    request: web.Request,
    data: dict[str, Any],
    name: str,
    kind: type | tuple[type, ...],
    default: Any = None,
) -> Any:
    """``data[name]`` if it has the type ``kind``; missing gives ``default`` when there is one."""
    value = data.get(name, default)
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if value is None or isinstance(value, bool) != (bool in kinds) or not isinstance(value, kind):
        what = "a number" if int in kinds or float in kinds else kinds[0].__name__
        raise refusal("INVALID_ARGUMENT", lang_of(request), f"'{name}' must be {what}", "bad_field")
    return value


def ruleset_of(request: web.Request, data: dict[str, Any]) -> game_pb2.Ruleset:
    raw = field(request, data, "ruleset", dict)
    preset = field(request, raw, "preset", str)
    options = field(request, raw, "options", dict, {})
    if not all(isinstance(k, str) and isinstance(v, str | int | bool) for k, v in options.items()):
        raise refusal("INVALID_ARGUMENT", lang_of(request), "options are name: value", "bad_field")
    text = {k: (str(v).lower() if isinstance(v, bool) else str(v)) for k, v in options.items()}
    return game_pb2.Ruleset(preset=preset, options=text)


def level_of(request: web.Request, name: str) -> int:
    """A bot level's enum value from its name ("" for none)."""
    try:
        return int(bot_level_to_pb(name))
    except ValueError as error:
        raise refusal("INVALID_ARGUMENT", lang_of(request), str(error), "level") from None


def number(request: web.Request, name: str, default: int) -> int:
    text = request.query.get(name, "")
    if not text:
        return default
    if not text.isdigit() or len(text) > 9:
        raise refusal(
            "INVALID_ARGUMENT", lang_of(request), f"'{name}' must be a number (0-999999999)", name
        )
    return int(text)


LADDERS = {"": rating_pb2.LADDER_UNSPECIFIED, "people": rating_pb2.LADDER_PEOPLE,
           "bots": rating_pb2.LADDER_BOTS}  # fmt: skip
"""The ``ladder`` query's words: bots and people never share a ladder (unset: the people's)."""


def ladder_of(request: web.Request) -> rating_pb2.Ladder:
    """The ladder the query's ``ladder`` names."""
    text = request.query.get("ladder", "")
    if text not in LADDERS:
        raise refusal(
            "INVALID_ARGUMENT", lang_of(request), "'ladder' must be 'people' or 'bots'", "ladder"
        )
    return LADDERS[text]


def timeout_of(request: web.Request) -> float:
    return request.app[SETTINGS].upstream_timeout_seconds
