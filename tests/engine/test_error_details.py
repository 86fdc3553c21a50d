"""Real refusals over gRPC carry the standard error details (issue 30, AIP-193), read as any gRPC
client reads them (``grpc_status.rpc_status.from_call``): ErrorInfo with the reason and its
parameters, RetryInfo where a retry is meant, BadRequest naming the invalid field, and
LocalizedMessage in the language ``accept-language`` asks for; beside them, for this release,
the deprecated ``maumau-error-code``, ``maumau-error-params`` and ``retry-after-ms``.

docs/clients.md, Error details: 'Every refusal of every service also carries the standard rich
error model'."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from google.protobuf.message import Message
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

from maumau.common.error_codes import REASON
from maumau.common.errors import DOMAIN, RETRY_AFTER_KEY
from maumau.common.quotas import Rates
from maumau.common.redis_server import EmbeddedRedis
from maumau.engine.matches import EngineSettings
from maumau.rules.errors import translate
from maumau.v1 import engine_pb2, game_pb2, players_pb2, players_pb2_grpc
from maumau_sdk.errors import FieldViolation, MauMauError
from tests.engine.test_bad_input import (
    CASES,
    RULE_CASES,
    Call,
    Table,
    act,
    play,
    refused,
    table,
    text,
)
from tests.support.engine import start_engine, stop_engine
from tests.support.rpc import auth

__all__ = ["table"]  # the fixture of the engine's refusals

Code = grpc.StatusCode
GERMAN = (("accept-language", "de-DE,de;q=0.9,en;q=0.5"),)
GRPC_ITSELF = {"a request larger than 64 KiB"}
"""Refusals gRPC makes before a service sees the call: no details."""


def rich(error: grpc.aio.AioRpcError) -> dict[str, Message]:
    """The details of a refusal's rich status by their type's name, as a client reads them."""
    status = rpc_status.from_call(error)
    assert isinstance(status, status_pb2.Status), f"no rich status: {error}"
    found: dict[str, Message] = {}
    for kind in (
        error_details_pb2.ErrorInfo,
        error_details_pb2.RetryInfo,
        error_details_pb2.BadRequest,
        error_details_pb2.LocalizedMessage,
    ):
        for packed in status.details:
            if packed.Is(kind.DESCRIPTOR):
                message = kind()
                packed.Unpack(message)
                found[kind.DESCRIPTOR.name] = message
    assert len(found) == len(status.details)
    return found


def info(found: dict[str, Message]) -> error_details_pb2.ErrorInfo:
    message = found["ErrorInfo"]
    assert isinstance(message, error_details_pb2.ErrorInfo)
    assert message.domain == DOMAIN and REASON.fullmatch(message.reason)
    return message


def localized(found: dict[str, Message]) -> tuple[str, str]:
    message = found["LocalizedMessage"]
    assert isinstance(message, error_details_pb2.LocalizedMessage)
    return message.locale, message.message


def retry_seconds(found: dict[str, Message]) -> float:
    message = found["RetryInfo"]
    assert isinstance(message, error_details_pb2.RetryInfo)
    return message.retry_delay.ToMilliseconds() / 1000


def fields(found: dict[str, Message]) -> list[str]:
    message = found.get("BadRequest")
    if message is None:
        return []
    assert isinstance(message, error_details_pb2.BadRequest)
    return [violation.field for violation in message.field_violations]


async def refused_in_german(call: object) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call  # type: ignore[misc]
    return caught.value


@pytest.mark.parametrize("name", [name for name in CASES if name not in GRPC_ITSELF])
async def test_every_refusal_of_the_engine_carries_its_details(table, name):
    """Each of the engine's refusals (tests/engine/test_bad_input.py): a rich status of the same
    code and message, an ErrorInfo in the domain, a LocalizedMessage (English by default)."""
    build, code, says = CASES[name]
    error = await refused(table, build, code, says)
    found = rich(error)
    assert info(found).reason
    assert localized(found) == ("en", error.details())
    if code == Code.UNAVAILABLE:
        assert retry_seconds(found) > 0


async def test_an_illegal_move_says_its_reason_and_parameters_in_german(table: Table) -> None:
    """FAILED_PRECONDITION: a card not in the hand, asked for in German."""
    card = table.hand(table.other)[0]
    error = await refused_in_german(
        table.mover.engine.Act(
            engine_pb2.ActRequest(request_id="r1", action=play(card)),
            metadata=(*auth(table.mover.seat_tokens[table.match_id]), *GERMAN),
        )
    )
    assert error.code() == Code.FAILED_PRECONDITION
    found = rich(error)
    assert (info(found).reason, dict(info(found).metadata)) == ("CARD_NOT_IN_HAND", {"card": card})
    assert localized(found) == ("de", f"{card} ist nicht auf deiner Hand")
    assert "RetryInfo" not in found and "BadRequest" not in found
    # Deprecated, still sent in this release:
    trailing = dict(error.trailing_metadata() or ())
    assert trailing["maumau-error-code"] == "card_not_in_hand"
    assert json.loads(trailing["maumau-error-params"]) == {"card": card}


@pytest.mark.parametrize("name", list(RULE_CASES))
async def test_every_move_the_rules_forbid_has_its_reason(table, name):
    build, error_code, params, says = RULE_CASES[name]
    found = rich(await refused(table, build, Code.FAILED_PRECONDITION, says))
    assert info(found).reason == error_code.upper()
    assert dict(info(found).metadata) == {k: str(v) for k, v in params(table).items()}


async def test_a_bad_field_is_named_in_bad_request_in_german(table: Table) -> None:
    """INVALID_ARGUMENT: an action text that is no action names ``action.text``."""
    error = await refused_in_german(
        table.mover.engine.Act(
            engine_pb2.ActRequest(request_id="r2", action=text("ZZ")),
            metadata=(*auth(table.mover.seat_tokens[table.match_id]), *GERMAN),
        )
    )
    assert error.code() == Code.INVALID_ARGUMENT
    found = rich(error)
    assert info(found).reason == "BAD_ACTION_TEXT"
    assert fields(found) == ["action.text"]
    assert localized(found) == ("de", translate("bad_action_text", {"text": "ZZ"}, "de"))
    bad = found["BadRequest"]
    assert isinstance(bad, error_details_pb2.BadRequest)
    assert bad.field_violations[0].description == error.details()
    assert bad.field_violations[0].localized_message.locale == "de"


async def test_a_field_the_message_names_is_named_in_bad_request(table: Table) -> None:
    """A check of the service's own, without a code: its reason is its status, its field the
    one the message starts with."""

    async def too_long(t: Table) -> Call:
        return act(t.mover, t.mover.seat_tokens[t.match_id], text("draw"), "x" * 200)

    error = await refused(table, too_long, Code.INVALID_ARGUMENT, "request_id is required")
    found = rich(error)
    assert (info(found).reason, fields(found)) == ("INVALID_ARGUMENT", ["request_id"])


async def test_an_unknown_match_says_so_in_german(table: Table) -> None:
    error = await refused_in_german(
        table.stranger.engine.GetMatch(
            engine_pb2.GetMatchRequest(match_id="no-such-match"),
            metadata=(*auth(table.stranger.token), *GERMAN),
        )
    )
    found = rich(error)
    assert info(found).reason == "NOT_FOUND"
    assert localized(found) == ("de", f"nicht gefunden ({error.details()})")


async def test_a_token_refusal_says_whether_to_sign_in_again(table: Table) -> None:
    """No token: TOKEN_INVALID (sign in); a player token where a seat token acts:
    TOKEN_NOT_ACCEPTED (send the other token)."""
    action = engine_pb2.ActRequest(request_id="r3", action=text("draw"))
    missing = await refused_in_german(table.mover.engine.Act(action, metadata=GERMAN))
    assert missing.code() == Code.UNAUTHENTICATED
    assert info(rich(missing)).reason == "TOKEN_INVALID"
    wrong = await refused_in_german(
        table.mover.engine.Act(action, metadata=(*auth(table.mover.token), *GERMAN))
    )
    assert wrong.code() == Code.PERMISSION_DENIED
    found = rich(wrong)
    assert info(found).reason == "TOKEN_NOT_ACCEPTED"
    assert localized(found)[0] == "de"


async def test_undecodable_bytes_have_their_reason(address: str) -> None:
    async with grpc.aio.insecure_channel(address) as channel:
        method = channel.unary_unary("/maumau.v1.EngineService/GetMatch")
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await method(b"\x0a\x05\xff\xfe", metadata=GERMAN)  # match_id: no UTF-8
    found = rich(caught.value)
    assert caught.value.code() == Code.INVALID_ARGUMENT
    assert info(found).reason == "UNDECODABLE_REQUEST"
    assert dict(info(found).metadata) == {
        "method": "maumau.v1.EngineService/GetMatch",
        "message": "maumau.v1.GetMatchRequest",
    }
    assert localized(found)[1].startswith("maumau.v1.EngineService/GetMatch: die Bytes der Anfrage")


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[EmbeddedRedis]:
    with EmbeddedRedis(tmp_path / "redis") as server:
        yield server


async def test_a_rate_limit_says_when_to_retry_in_german(own_redis: EmbeddedRedis) -> None:
    """RESOURCE_EXHAUSTED: registrations per address past their limit, with RetryInfo, the
    same wait as the deprecated retry-after-ms; the SDK reads them."""
    strict = Rates("100/minute", "100/minute", registrations_per_address="2/minute")
    app, redis_client = await start_engine(own_redis.url, EngineSettings(rates=strict))
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{app.port}") as channel:
            players = players_pb2_grpc.PlayersServiceStub(channel)
            for i in range(2):
                await players.Register(players_pb2.RegisterRequest(name=f"player {i}"))
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await players.Register(
                    players_pb2.RegisterRequest(name="one too many"), metadata=GERMAN
                )
    finally:
        await stop_engine(app, redis_client)
    error = caught.value
    assert error.code() == Code.RESOURCE_EXHAUSTED
    found = rich(error)
    wait = retry_seconds(found)
    assert 0 < wait <= 60
    seconds = info(found).metadata["seconds"]
    assert info(found).reason == "LIMIT_REACHED" and 0 <= int(seconds) - wait < 1.01
    assert localized(found) == ("de", f"ein Limit ist erreicht: versuche es in {seconds} s wieder")
    trailing = dict(error.trailing_metadata() or ())
    assert int(trailing[RETRY_AFTER_KEY]) == round(wait * 1000)

    sdk = MauMauError.from_rpc(error)
    assert (sdk.reason, sdk.code, sdk.retry_after) == ("LIMIT_REACHED", "limit_reached", wait)
    assert sdk.localized == localized(found) and sdk.message("de") == localized(found)[1]
    assert sdk.metadata == {"seconds": seconds}


async def test_the_sdk_reads_a_bad_field_and_a_refusal_without_a_code(table: Table) -> None:
    error = await refused_in_german(
        table.mover.engine.Act(
            engine_pb2.ActRequest(request_id="r4", action=game_pb2.Action(text="ZZ")),
            metadata=auth(table.mover.seat_tokens[table.match_id]),
        )
    )
    sdk = MauMauError.from_rpc(error)
    assert (sdk.reason, sdk.code, sdk.params) == (
        "BAD_ACTION_TEXT",
        "bad_action_text",
        {"text": "ZZ"},
    )
    assert sdk.field_violations == (FieldViolation("action.text", error.details() or ""),)
    assert sdk.message("de") == translate("bad_action_text", {"text": "ZZ"}, "de")
    unknown = await refused_in_german(
        table.stranger.engine.GetMatch(
            engine_pb2.GetMatchRequest(match_id="no-such-match"),
            metadata=auth(table.stranger.token),
        )
    )
    sdk = MauMauError.from_rpc(unknown)
    assert (sdk.reason, sdk.code, sdk.retry_after) == ("NOT_FOUND", None, None)
