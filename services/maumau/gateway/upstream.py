"""The gRPC services behind the gateway, and their refusals as JSON in the page's language.

Every rule, refusal and hint comes from the services: a refused move carries the rules core's
error code and parameters (``maumau-error-code``, ``maumau-error-params``), which
:func:`maumau.rules.errors.translate` renders in English or German, as the services' own error
codes (``maumau.common.error_codes.MESSAGES``: a ``store_error``, a fault of the platform it
reported, comes as 500); other refusals keep the service's own words behind a sentence in the
page's language that says what kind of refusal it is.
"""

from __future__ import annotations

import asyncio
import functools
import json
import math
from collections.abc import Callable, Mapping
from typing import Any

import grpc
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status

from maumau.common.error_codes import MESSAGES
from maumau.common.errors import RETRY_AFTER_KEY
from maumau.gateway.settings import GatewaySettings
from maumau.rules.errors import translate
from maumau.v1 import (
    accounts_pb2_grpc,
    arena_pb2_grpc,
    bots_pb2_grpc,
    engine_pb2_grpc,
    matchmaking_pb2_grpc,
    players_pb2_grpc,
    rating_pb2_grpc,
    tournaments_pb2_grpc,
)
from maumau.v1.game_pb2 import BotLevel
from maumau.wire import bot_level_from_pb

LANGUAGES = ("en", "de")

HTTP_STATUS: Mapping[grpc.StatusCode, int] = {
    grpc.StatusCode.INVALID_ARGUMENT: 400,
    grpc.StatusCode.OUT_OF_RANGE: 400,
    grpc.StatusCode.UNAUTHENTICATED: 401,
    grpc.StatusCode.PERMISSION_DENIED: 403,
    grpc.StatusCode.NOT_FOUND: 404,
    grpc.StatusCode.ALREADY_EXISTS: 409,
    grpc.StatusCode.FAILED_PRECONDITION: 409,
    grpc.StatusCode.ABORTED: 409,
    grpc.StatusCode.RESOURCE_EXHAUSTED: 429,
    grpc.StatusCode.UNAVAILABLE: 503,
    grpc.StatusCode.DEADLINE_EXCEEDED: 504,
    grpc.StatusCode.INTERNAL: 500,  # a fault of the platform (a store error it reported)
}

KIND: Mapping[str, Mapping[str, str]] = {
    "en": {
        "INVALID_ARGUMENT": "That request is not valid",
        "OUT_OF_RANGE": "That request is not valid",
        "UNAUTHENTICATED": "Please enter a name to play first",
        "PERMISSION_DENIED": "That is not yours to do",
        "NOT_FOUND": "Not found",
        "FAILED_PRECONDITION": "Not possible right now",
        "ALREADY_EXISTS": "Not possible right now",
        "ABORTED": "Not possible right now",
        "RESOURCE_EXHAUSTED": "Too many requests: slow down a little",
        "UNAVAILABLE": "The platform is not reachable for a moment: try again",
        "DEADLINE_EXCEEDED": "The platform took too long: try again",
        "INTERNAL": "Something went wrong on the platform",
    },
    "de": {
        "INVALID_ARGUMENT": "Diese Anfrage ist ungültig",
        "OUT_OF_RANGE": "Diese Anfrage ist ungültig",
        "UNAUTHENTICATED": "Gib zuerst einen Namen ein, um zu spielen",
        "PERMISSION_DENIED": "Das darfst du nicht",
        "NOT_FOUND": "Nicht gefunden",
        "FAILED_PRECONDITION": "Gerade nicht möglich",
        "ALREADY_EXISTS": "Gerade nicht möglich",
        "ABORTED": "Gerade nicht möglich",
        "RESOURCE_EXHAUSTED": "Zu viele Anfragen: bitte etwas langsamer",
        "UNAVAILABLE": "Die Plattform ist gerade nicht erreichbar: versuche es noch einmal",
        "DEADLINE_EXCEEDED": "Die Plattform hat zu lange gebraucht: versuche es noch einmal",
        "INTERNAL": "Auf der Plattform ist etwas schiefgegangen",
    },
}


class Refusal(Exception):
    """A request the gateway or a service refused: an HTTP status and a JSON body for the page,
    and for a caller over a limit how long to wait before trying again."""

    def __init__(
        self,
        http_status: int,
        status: str,
        message: str,
        code: str = "",
        retry_after_ms: int | None = None,
    ) -> None:
        super().__init__(message)
        self.http_status = http_status
        self.status = status
        self.message = message
        self.code = code
        self.retry_after_ms = retry_after_ms

    def body(self) -> dict[str, Any]:
        error: dict[str, Any] = {"status": self.status, "code": self.code, "message": self.message}
        if self.retry_after_ms is not None:
            error["retry_after_ms"] = self.retry_after_ms
        return {"error": error}

    @property
    def retry_after_header(self) -> dict[str, str]:
        """HTTP's ``Retry-After`` (whole seconds, rounded up) when there is a wait to tell."""
        if self.retry_after_ms is None:
            return {}
        return {"Retry-After": str(max(1, math.ceil(self.retry_after_ms / 1000)))}


def language(text: str | None) -> str:
    """'de' or 'en' from a language tag or an Accept-Language header (first match wins)."""
    for part in (text or "").split(","):
        tag = part.split(";")[0].strip().lower()[:2]
        if tag in LANGUAGES:
            return tag
    return "en"


def refusal(
    status: str,
    lang: str,
    detail: str = "",
    code: str = "",
    retry_after_seconds: float | None = None,
) -> Refusal:
    """A refusal of the gateway's own, in ``lang``; ``detail`` says what exactly was wrong."""
    kind = KIND[lang].get(status, KIND[lang]["INTERNAL"])
    message = f"{kind}: {detail}" if detail else kind
    http = {"INTERNAL": 500}.get(status) or HTTP_STATUS.get(grpc.StatusCode[status], 400)
    wait = None if retry_after_seconds is None else max(1, math.ceil(retry_after_seconds * 1000))
    return Refusal(http, status, message, code, wait)


def retry_after_ms(trailing: Mapping[str, Any]) -> int | None:
    """The wait a service asked for in its ``retry-after-ms`` trailer (None: none, or not a
    whole number of milliseconds)."""
    text = str(trailing.get(RETRY_AFTER_KEY, ""))
    return int(text) if text.isdigit() and len(text) <= 9 else None


def from_rpc(error: grpc.aio.AioRpcError, lang: str) -> Refusal:
    """A service's refusal for the page: the rules core's message translated when it has an
    error code, else the service's own words after a sentence in ``lang``."""
    status = error.code()
    trailing = dict(error.trailing_metadata() or ())
    code = str(trailing.get("maumau-error-code", ""))
    details = error.details() or ""
    if code in MESSAGES["en"]:
        message = f"{KIND[lang]['INTERNAL']}: {MESSAGES[lang][code]}"
    elif code:
        try:
            params = json.loads(str(trailing.get("maumau-error-params", "{}")))
        except ValueError:
            params = {}
        message = translate(code, params if isinstance(params, dict) else {}, lang)
        if message.startswith(code + " "):  # a code the rules core does not know: not a rule
            message = f"{KIND[lang].get(status.name, '')}: {details}"
    else:
        kind = KIND[lang].get(status.name, KIND[lang]["INTERNAL"])
        message = f"{kind}: {details}" if details and lang == "en" else kind
        if lang != "en" and details:
            message = f"{kind} ({details})"
    http = HTTP_STATUS.get(status, 502)
    name = status.name if status in HTTP_STATUS else "UNAVAILABLE"
    wait = retry_after_ms(trailing) if status == grpc.StatusCode.RESOURCE_EXHAUSTED else None
    return Refusal(http, name, message, code, wait)


def localized_text(error: grpc.aio.AioRpcError, lang: str) -> str | None:
    """The ``LocalizedMessage`` a service sent with its refusal, when it is in ``lang`` (the
    services write it in the language the call's ``accept-language`` asked for)."""
    try:
        status = rpc_status.from_call(error)  # type: ignore[arg-type]
    except ValueError:  # a status trailer that disagrees with the call's
        return None
    for detail in status.details if status is not None else ():
        message = error_details_pb2.LocalizedMessage()
        if detail.Unpack(message) and message.locale == lang:
            return message.message
    return None


def to_json(message: Message) -> dict[str, Any]:
    """A message as the page reads it: what protobuf's JSON printer gives with proto field names
    and every field present, bot levels by their names ("strong", "" for none) as everywhere
    else in the platform's texts. Each message type's printer is built once from its descriptor
    (the proto stays the one mapping) and is several times faster than ``json_format``'s walk,
    which each view and event of a match went through."""
    return _printer(message.DESCRIPTOR)(message)


Convert = Callable[[Any], Any]


@functools.cache
def _printer(descriptor: Descriptor) -> Callable[[Message], dict[str, Any]]:
    """The printer of one message type: a field with presence (a message, a oneof's member) is
    printed once set, every other field always, as ``always_print_fields_with_no_presence``."""
    plan: list[tuple[str, bool, Convert]] = []

    def printed(message: Message) -> dict[str, Any]:
        return {
            name: convert(getattr(message, name))
            for name, present, convert in plan
            if not present or message.HasField(name)
        }

    # filled after ``printed`` exists, so a message that contains itself finds its printer
    plan += [(f.name, f.has_presence, _field_converter(f)) for f in descriptor.fields]
    return printed


def _field_converter(field: FieldDescriptor) -> Convert:
    if field.message_type is not None and field.message_type.GetOptions().map_entry:
        key_field, value_field = field.message_type.fields
        value = _value_converter(value_field)
        if key_field.type == FieldDescriptor.TYPE_BOOL:
            raise TypeError(f"{field.full_name}: a map with bool keys is not printed here")
        return lambda entries: {str(key): value(item) for key, item in entries.items()}
    single = _value_converter(field)
    if field.is_repeated:
        return lambda items: [single(item) for item in items]
    return single


def _value_converter(field: FieldDescriptor) -> Convert:
    """A field's value as protobuf's JSON has it. Bytes and 32-bit floats, which no message of
    the platform carries, have forms of their own there: refused, so a proto that adds one
    fails the first test that prints it instead of printing it wrong."""
    kind = field.cpp_type
    if kind == FieldDescriptor.CPPTYPE_MESSAGE:
        return lambda message: _printer(field.message_type)(message)
    if field.enum_type is not None:
        bot_levels = field.enum_type.full_name == BotLevel.DESCRIPTOR.full_name
        names = {
            v.number: bot_level_from_pb(v.number) if bot_levels else v.name
            for v in field.enum_type.values
        }
        return lambda number: names.get(number, number)  # a number of no name stays a number
    if kind in (FieldDescriptor.CPPTYPE_INT64, FieldDescriptor.CPPTYPE_UINT64):
        return str  # 64-bit numbers are strings in protobuf's JSON
    if kind == FieldDescriptor.CPPTYPE_DOUBLE:
        return _double
    if field.type == FieldDescriptor.TYPE_BYTES or kind == FieldDescriptor.CPPTYPE_FLOAT:
        raise TypeError(f"{field.full_name}: bytes and floats are not printed here")
    return _same


def _same(value: Any) -> Any:
    return value


def _double(number: float) -> float | str:
    if math.isnan(number):
        return "NaN"
    if math.isinf(number):
        return "Infinity" if number > 0 else "-Infinity"
    return number


class Upstreams:
    """One channel per service, opened once and shared by every request."""

    SERVICES = ("engine", "matchmaking", "bots", "rating", "tournaments", "accounts")

    def __init__(self, settings: GatewaySettings) -> None:
        self.timeout = settings.upstream_timeout_seconds
        self.channels = {
            name: grpc.aio.insecure_channel(
                getattr(settings, f"{name}_address"),
                options=[("grpc.lb_policy_name", "round_robin")],
            )
            for name in self.SERVICES
        }
        self.engine = engine_pb2_grpc.EngineServiceStub(self.channels["engine"])
        self.players = players_pb2_grpc.PlayersServiceStub(self.channels["engine"])
        self.matchmaking = matchmaking_pb2_grpc.MatchmakingServiceStub(self.channels["matchmaking"])
        self.bots = bots_pb2_grpc.BotsServiceStub(self.channels["bots"])
        self.rating = rating_pb2_grpc.RatingServiceStub(self.channels["rating"])
        self.tournaments = tournaments_pb2_grpc.TournamentsServiceStub(self.channels["tournaments"])
        self.accounts = accounts_pb2_grpc.AccountsServiceStub(self.channels["accounts"])
        self.arena = arena_pb2_grpc.ArenaServiceStub(self.channels["accounts"])

    async def health(self) -> dict[str, bool]:
        """Whether each service says SERVING now."""

        async def check(name: str) -> bool:
            stub: Any = health_pb2_grpc.HealthStub(self.channels[name])
            try:
                reply = await stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=1.0)
            except grpc.aio.AioRpcError:
                return False
            return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)

        results = await asyncio.gather(*(check(name) for name in self.SERVICES))
        return dict(zip(self.SERVICES, results, strict=True))

    async def close(self) -> None:
        for channel in self.channels.values():
            await channel.close()


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)
