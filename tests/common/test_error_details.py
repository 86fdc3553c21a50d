"""The standard error details of every refusal (AIP-193, issue 30): a reason in UPPER_SNAKE_CASE
for every error code, RetryInfo where a retry is meant, the caller's language from
``accept-language``, and docs/clients.md's table of reasons kept to the code tables. The same
read from real refusals over gRPC: tests/engine/test_error_details.py."""

from __future__ import annotations

import doctest
from pathlib import Path

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2
from redis import exceptions

from maumau.accounts import errors as accounts_errors
from maumau.common import daily_limits, error_codes, errors
from maumau.common.error_codes import MESSAGES, REASON, preferred_language, reason_of, reason_table
from maumau.common.errors import DOMAIN, Exhausted, Refused, refused, rich_status, status_for
from maumau.common.redis_client import ReplicationShortfall, StoreError
from maumau.common.tokens import TokenError, WrongKind
from maumau.matchmaking import errors as matchmaking_errors
from maumau.matchmaking.tickets import LiveTicket
from maumau.rules import errors as rules_errors
from maumau.v1 import engine_pb2, game_pb2
from maumau_sdk import errors as sdk_errors

ROOT = Path(__file__).resolve().parents[2]
TABLES = {
    "rules": rules_errors.MESSAGES,
    "services": MESSAGES,
    "accounts": accounts_errors.MESSAGES,
    "matchmaking": matchmaking_errors.MESSAGES,
}
LIVE_TICKET = LiveTicket("{player_id}", "{ticket_id}")
SERVICES = [
    (accounts_errors.MESSAGES, accounts_errors.STATUS),
    (matchmaking_errors.MESSAGES, matchmaking_errors.STATUS),
    (
        {"en": {LIVE_TICKET.code: LIVE_TICKET.message}},
        {LIVE_TICKET.code: grpc.StatusCode.FAILED_PRECONDITION},
    ),
]
"""The services' codes beside the rules core's and common.error_codes': the Accounts service's, the
matchmaker's arena refusals, and its one more (a second live ticket, in English only)."""


def details(status: status_pb2.Status) -> dict[str, object]:
    """The details of a rich status by their message type's name."""
    kinds = {
        "ErrorInfo": error_details_pb2.ErrorInfo,
        "RetryInfo": error_details_pb2.RetryInfo,
        "BadRequest": error_details_pb2.BadRequest,
        "LocalizedMessage": error_details_pb2.LocalizedMessage,
    }
    found: dict[str, object] = {}
    for packed in status.details:
        for name, kind in kinds.items():
            if packed.Is(kind.DESCRIPTOR):
                message = kind()
                packed.Unpack(message)
                found[name] = message
    assert len(found) == len(status.details), "a detail of an unexpected type"
    return found


def of(error: BaseException, lang: str = "en", request: object = None) -> dict[str, object]:
    status = status_for(error)
    assert status is not None
    return details(rich_status(refused(error, status), lang, request))


@pytest.mark.parametrize("table", list(TABLES))
def test_every_error_code_is_a_reason_in_upper_snake_case(table: str) -> None:
    """AIP-193: 'at most 63 characters and match [A-Z][A-Z0-9_]+[A-Z0-9]'."""
    for code in TABLES[table]["en"]:
        assert REASON.fullmatch(reason_of(code)), code
        assert reason_of(code).lower() == code
        assert set(TABLES[table]["de"]) == set(TABLES[table]["en"]), "a code without German"


def test_every_reason_is_unique_in_the_domain_and_no_status_name() -> None:
    """A reason names one cause in maumau.v1; a status's name is the reason of a refusal without
    a code of its own, so no code may take one."""
    codes = [code for table in TABLES.values() for code in table["en"]] + [LIVE_TICKET.code]
    assert len(codes) == len(set(codes))
    assert not {reason_of(code) for code in codes} & {status.name for status in grpc.StatusCode}


def test_every_code_of_the_services_has_a_status_and_advice() -> None:
    assert set(error_codes.CODE_STATUS) == set(MESSAGES["en"]) <= set(error_codes.ADVICE)
    assert set(rules_errors.MESSAGES["en"]) >= error_codes.RULES_INPUT_CODES


@pytest.mark.parametrize(
    ("header", "language"),
    [
        ("de", "de"),
        ("de-AT", "de"),
        ("de-DE,de;q=0.9,en;q=0.8", "de"),
        ("en-GB,en;q=0.9,de;q=0.8", "en"),
        ("fr-CH, fr;q=0.9, de;q=0.7", "de"),
        ("en;q=0.3, de;q=0.7", "de"),
        ("fr", "en"),
        ("", "en"),
        ("de;q=0", "en"),
        ("de;q=nonsense", "en"),
    ],
)
def test_the_callers_language_comes_from_accept_language(header: str, language: str) -> None:
    assert preferred_language(header) == language


def test_a_move_the_rules_forbid_has_its_reason_parameters_and_german_text() -> None:
    found = of(
        rules_errors.RulesError("card_does_not_match", card="7H", top="9S", suit="S", rank="9"),
        "de",
    )
    info = found["ErrorInfo"]
    assert isinstance(info, error_details_pb2.ErrorInfo)
    assert (info.reason, info.domain) == ("CARD_DOES_NOT_MATCH", DOMAIN)
    assert dict(info.metadata) == {"card": "7H", "top": "9S", "suit": "S", "rank": "9"}
    text = found["LocalizedMessage"]
    assert isinstance(text, error_details_pb2.LocalizedMessage)
    assert (text.locale, text.message) == ("de", "7H passt nicht auf 9S: spiele Pik oder eine 9")
    assert "RetryInfo" not in found and "BadRequest" not in found


def test_a_list_parameter_is_text_as_the_messages_show_it() -> None:
    info = of(rules_errors.BadSuit("X", ("S", "H", "D", "C")))["ErrorInfo"]
    assert isinstance(info, error_details_pb2.ErrorInfo)
    assert dict(info.metadata) == {"text": "X", "allowed": "S, H, D, C"}


def retry_seconds(found: dict[str, object]) -> float:
    retry = found["RetryInfo"]
    assert isinstance(retry, error_details_pb2.RetryInfo)
    return retry.retry_delay.ToMilliseconds() / 1000


def reason(found: dict[str, object]) -> str:
    info = found["ErrorInfo"]
    assert isinstance(info, error_details_pb2.ErrorInfo)
    return info.reason


def test_a_store_that_cannot_answer_for_a_moment_says_when_to_retry() -> None:
    """Replicas short of a write and a connection refused: UNAVAILABLE, retry in a second; a
    full store in half a minute; a store error (a bug) not at all."""
    short = of(ReplicationShortfall("0 of 1 replicas confirmed the write within 1000 ms"))
    assert (reason(short), retry_seconds(short)) == ("STORE_UNCONFIRMED", 1.0)
    down = of(exceptions.ConnectionError("Connection refused"), "de")
    assert (reason(down), retry_seconds(down)) == ("STORE_UNAVAILABLE", 1.0)
    text = down["LocalizedMessage"]
    assert isinstance(text, error_details_pb2.LocalizedMessage)
    assert text.message == MESSAGES["de"]["store_unavailable"]
    full = of(exceptions.OutOfMemoryError("OOM command not allowed"))
    assert (reason(full), retry_seconds(full)) == ("STORE_FULL", 30.0)
    bug = of(StoreError("script engine.commit", ["match:{m1}"], exceptions.ResponseError("ERR")))
    assert reason(bug) == "STORE_ERROR" and "RetryInfo" not in bug


def test_a_limit_says_its_wait() -> None:
    found = of(Exhausted("Follow: player p1 has 8 streams open; retry in 2.5 s", 2.5), "de")
    assert (reason(found), retry_seconds(found)) == ("LIMIT_REACHED", 2.5)
    text = found["LocalizedMessage"]
    assert isinstance(text, error_details_pb2.LocalizedMessage)
    assert text.message == "ein Limit ist erreicht: versuche es in 3 s wieder"


def test_a_token_refusal_says_whether_to_sign_in_again() -> None:
    assert reason(of(TokenError("player token expired"))) == "TOKEN_INVALID"
    assert reason(of(WrongKind("a seat token is needed"))) == "TOKEN_NOT_ACCEPTED"


def test_a_refusal_without_a_code_of_its_own_has_its_status_as_reason() -> None:
    found = of(errors.not_found("no match 'm1'"), "de")
    assert reason(found) == "NOT_FOUND"
    text = found["LocalizedMessage"]
    assert isinstance(text, error_details_pb2.LocalizedMessage)
    assert (text.locale, text.message) == ("de", "nicht gefunden (no match 'm1')")
    english = of(errors.not_found("no match 'm1'"))["LocalizedMessage"]
    assert isinstance(english, error_details_pb2.LocalizedMessage)
    assert (english.locale, english.message) == ("en", "no match 'm1'")


def violations(found: dict[str, object]) -> list[tuple[str, str]]:
    bad = found.get("BadRequest")
    if bad is None:
        return []
    assert isinstance(bad, error_details_pb2.BadRequest)
    return [(v.field, v.reason) for v in bad.field_violations]


def test_an_invalid_field_is_named_by_its_path_in_the_request() -> None:
    """BadRequest's field: the rules core's input errors by the field that held the input, every
    other INVALID_ARGUMENT by the field its message starts with, when the request has it."""
    act = engine_pb2.ActRequest(request_id="r", action=game_pb2.Action(text="ZZ"))
    found = of(rules_errors.BadInput("bad_action_text", text="ZZ"), "en", act)
    assert violations(found) == [("action.text", "BAD_ACTION_TEXT")]
    played = engine_pb2.ActRequest(action=game_pb2.Action(play=game_pb2.Play(card="ZZ")))
    found = of(rules_errors.BadCardText("ZZ"), "en", played)
    assert violations(found) == [("action.play.card", "BAD_CARD_TEXT")]
    found = of(errors.invalid("request_id has at most 128 characters"), "en", act)
    assert violations(found) == [("request_id", "INVALID_ARGUMENT")]
    create = engine_pb2.CreateMatchRequest()
    found = of(errors.invalid("turn_seconds must be from 0 (the default) to 600"), "en", create)
    assert violations(found) == [("turn_seconds", "INVALID_ARGUMENT")]


def test_a_message_naming_no_field_of_the_request_names_none() -> None:
    join = engine_pb2.JoinMatchRequest(match_id="m")
    assert violations(of(errors.invalid("there is no seat 5 at this table of 4"), "en", join)) == []
    assert violations(of(errors.invalid("request_id is required"), "en", None)) == []
    assert violations(of(errors.not_found("match_id 'x' is unknown"), "en", join)) == []


def test_the_rich_status_repeats_the_status_and_its_details() -> None:
    refusal = Refused(grpc.StatusCode.NOT_FOUND, "no match 'm1'")
    status = rich_status(refusal, "en")
    assert (status.code, status.message) == (grpc.StatusCode.NOT_FOUND.value[0], "no match 'm1'")


def test_the_docs_list_every_reason_with_what_to_do() -> None:
    """docs/clients.md's table of reasons is generated: paste this table there when it fails."""
    table = reason_table(SERVICES)
    page = (ROOT / "docs" / "clients.md").read_text()
    assert table in page, f"docs/clients.md must hold this table of reasons:\n\n{table}\n"


def test_the_examples_in_the_docstrings_hold() -> None:
    for module in (error_codes, errors, sdk_errors, matchmaking_errors, daily_limits):
        assert doctest.testmod(module).failed == 0, module.__name__
