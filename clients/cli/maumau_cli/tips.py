"""Tips from the bot service's ``Hint`` call: the legal actions ranked, each with a reason.

Kept apart so the client depends on the ``maumau.v1.Bots`` protocol in one place only. When that
protocol is not generated into ``maumau.v1`` or no bot service answers, :func:`fetch_tips`
returns None and the client says that tips are not available.
"""

from __future__ import annotations

import importlib
from typing import Any

import grpc

from maumau.rules import BadInput
from maumau.v1 import game_pb2
from maumau_sdk import action_from_pb

Tip = tuple[str, str]
"""An action's text form and the reason the bot service gives for it."""


async def fetch_tips(
    address: str, view: game_pb2.View, lang: str = "en", timeout: float = 1.5
) -> list[Tip] | None:
    """The ranked legal actions for ``view``, best first, or None when tips are not available.

    Calls ``rpc Hint(HintRequest) returns (HintResponse)`` of service ``maumau.v1.Bots`` with the
    seat's view; the answer's ``actions`` are ranked, each an ``action`` with a one-line
    ``reason``. A ``lang`` field of the request is filled when the protocol has one.
    """
    try:
        bots_pb2: Any = importlib.import_module("maumau.v1.bots_pb2")
        bots_pb2_grpc: Any = importlib.import_module("maumau.v1.bots_pb2_grpc")
    except ImportError:
        return None
    try:
        request = bots_pb2.HintRequest(view=view)
        if "lang" in bots_pb2.HintRequest.DESCRIPTOR.fields_by_name:
            request.lang = lang
        async with grpc.aio.insecure_channel(address) as channel:
            reply = await bots_pb2_grpc.BotsStub(channel).Hint(request, timeout=timeout)
        return [(action_from_pb(ranked.action).text, ranked.reason) for ranked in reply.actions]
    except (grpc.aio.AioRpcError, BadInput, AttributeError, ValueError):
        return None
