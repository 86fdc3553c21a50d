"""Tips from the bot service's ``Hint`` call: the legal actions ranked, each with its reasons.

The reasons arrive as codes with parameters (``maumau.v1.Reason``) and are rendered here in the
player's language; a bot service that sends only text (a third party's) is shown as it is. When no
bot service answers, :func:`fetch_tips` returns None and the client says that tips are not
available.
"""

from __future__ import annotations

from typing import Any

import grpc

from maumau.rules import BadInput
from maumau.rules.reasons import render_all
from maumau.v1 import bots_pb2, bots_pb2_grpc, game_pb2
from maumau.wire import reasons_from_pb
from maumau_sdk import action_from_pb

Tip = tuple[str, str]
"""An action's text form and the reasons for it, in the player's language."""


async def fetch_tips(
    address: str, view: game_pb2.View, token: str, lang: str = "en", timeout: float = 1.5
) -> list[Tip] | None:
    """The ranked legal actions for ``view`` (asked with the seat's ``token``), best first, or
    None when tips are not available."""
    try:
        async with grpc.aio.insecure_channel(address) as channel:
            stub: Any = bots_pb2_grpc.BotsServiceStub(channel)
            reply = await stub.Hint(
                bots_pb2.HintRequest(view=view, lang=lang),
                timeout=timeout,
                metadata=(("authorization", f"Bearer {token}"),),
            )
        return [
            (
                action_from_pb(ranked.action).text,
                render_all(reasons_from_pb(ranked.reasons), lang) or ranked.reason,
            )
            for ranked in reply.actions
        ]
    except (grpc.aio.AioRpcError, BadInput, ValueError):
        return None
