"""A store error reaches the page as what it is (issue 25): the engine's INTERNAL with the
error code ``store_error`` becomes HTTP 500 "INTERNAL", told in the page's language, not a 502
read as the platform being unreachable (which a page retries)."""

from __future__ import annotations

import grpc

from maumau.common.error_codes import MESSAGES, STORE_ERROR
from maumau.common.errors import ERROR_CODE_KEY
from maumau.gateway.upstream import from_rpc


def store_error() -> grpc.aio.AioRpcError:
    return grpc.aio.AioRpcError(
        grpc.StatusCode.INTERNAL,
        grpc.aio.Metadata(),
        grpc.aio.Metadata((ERROR_CODE_KEY, STORE_ERROR), ("maumau-error-params", "{}")),
        details=MESSAGES["en"][STORE_ERROR],
    )


def test_a_store_error_is_a_500_in_the_pages_language() -> None:
    for lang, word in (("en", "reported"), ("de", "gemeldet")):
        refusal = from_rpc(store_error(), lang)
        assert refusal.http_status == 500 and refusal.status == "INTERNAL"
        assert refusal.code == STORE_ERROR and word in refusal.message
