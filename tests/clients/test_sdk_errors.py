"""The SDK's errors read the standard error details, and the deprecated trailing metadata of an
older server without them (issue 30). Over real gRPC: tests/engine/test_error_details.py."""

from __future__ import annotations

import grpc
from google.protobuf import duration_pb2
from google.rpc import error_details_pb2, status_pb2

from maumau_sdk.errors import FieldViolation, MauMauError


def rpc_error(
    code: grpc.StatusCode, details: str, *trailers: tuple[str, str | bytes]
) -> grpc.aio.AioRpcError:
    return grpc.aio.AioRpcError(
        code, grpc.aio.Metadata(), grpc.aio.Metadata(*trailers), details=details
    )


def rich(code: grpc.StatusCode, message: str, *details: object) -> tuple[str, bytes]:
    status = status_pb2.Status(code=code.value[0], message=message)
    for detail in details:
        status.details.add().Pack(detail)
    return ("grpc-status-details-bin", status.SerializeToString())


def test_an_older_servers_trailers_still_give_code_params_and_wait() -> None:
    error = MauMauError.from_rpc(
        rpc_error(
            grpc.StatusCode.FAILED_PRECONDITION,
            "7H is not in your hand",
            ("maumau-error-code", "card_not_in_hand"),
            ("maumau-error-params", '{"card": "7H"}'),
            ("retry-after-ms", "1500"),
        )
    )
    assert (error.code, error.reason, error.params) == (
        "card_not_in_hand",
        "CARD_NOT_IN_HAND",
        {"card": "7H"},
    )
    assert error.retry_after == 1.5 and error.localized is None
    assert error.message("de") == "7H ist nicht auf deiner Hand"


def test_the_rich_status_alone_gives_everything() -> None:
    delay = duration_pb2.Duration()
    delay.FromMilliseconds(2500)
    error = MauMauError.from_rpc(
        rpc_error(
            grpc.StatusCode.INVALID_ARGUMENT,
            "'X' is not a suit here: choose one of S, H, D, C",
            rich(
                grpc.StatusCode.INVALID_ARGUMENT,
                "'X' is not a suit here: choose one of S, H, D, C",
                error_details_pb2.ErrorInfo(
                    reason="BAD_SUIT",
                    domain="maumau.v1",
                    metadata={"text": "X", "allowed": "S, H, D, C"},
                ),
                error_details_pb2.RetryInfo(retry_delay=delay),
                error_details_pb2.BadRequest(
                    field_violations=[
                        error_details_pb2.BadRequest.FieldViolation(
                            field="action.play.suit", description="no suit"
                        )
                    ]
                ),
                error_details_pb2.LocalizedMessage(locale="de", message="keine Farbe"),
            ),
        )
    )
    assert (error.code, error.reason, error.retry_after) == ("bad_suit", "BAD_SUIT", 2.5)
    assert error.metadata == error.params == {"text": "X", "allowed": "S, H, D, C"}
    assert error.field_violations == (FieldViolation("action.play.suit", "no suit"),)
    # The rules core's own text first; the server's German where the SDK has none.
    assert error.message("de") == "'X' ist hier keine Farbe: wähle eine von S, H, D, C"
    assert error.localized == ("de", "keine Farbe")


def test_a_code_the_sdk_does_not_know_is_told_in_the_servers_words() -> None:
    error = MauMauError.from_rpc(
        rpc_error(
            grpc.StatusCode.ALREADY_EXISTS,
            "the username 'Ada' is taken",
            rich(
                grpc.StatusCode.ALREADY_EXISTS,
                "the username 'Ada' is taken",
                error_details_pb2.ErrorInfo(reason="USERNAME_TAKEN", domain="maumau.v1"),
                error_details_pb2.LocalizedMessage(locale="de", message="vergeben"),
            ),
        )
    )
    assert error.code == "username_taken"
    assert (error.message("de"), error.message("en")) == ("vergeben", "the username 'Ada' is taken")


def test_a_refusal_without_a_code_of_its_own_has_none() -> None:
    """Its reason is its status's name: the SDK's ``code`` stays None, as before."""
    error = MauMauError.from_rpc(
        rpc_error(
            grpc.StatusCode.FAILED_PRECONDITION,
            "the match has not started",
            rich(
                grpc.StatusCode.FAILED_PRECONDITION,
                "the match has not started",
                error_details_pb2.ErrorInfo(reason="FAILED_PRECONDITION", domain="maumau.v1"),
            ),
        )
    )
    assert (error.code, error.reason) == (None, "FAILED_PRECONDITION")


def test_a_status_that_does_not_decode_is_left_out() -> None:
    error = MauMauError.from_rpc(
        rpc_error(grpc.StatusCode.INTERNAL, "odd", ("grpc-status-details-bin", b"\xff\xff"))
    )
    assert (error.code, error.reason, error.details) == (None, None, "odd")
