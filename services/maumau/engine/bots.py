"""Where bot seats get their moves: the Bots service, with the engine's own fallback.

The engine sends a bot seat's view (exactly what a human client of that seat would get) to the
Bots service configured for the seat's level. A third party plugs in its own bot by serving
``maumau.v1.BotsService`` and naming its address (MAUMAU_BOTS_ADDRESS, or
MAUMAU_BOTS_ADDRESS_<LEVEL> for one level). Each call shows the engine's bots token (audience
``maumau:bots``: the platform's Bots service checks it; a third-party server may ignore it and
can use it for nothing else).
When the service is slow, down, or answers an action that is not legal, the engine plays the
heuristic's choice itself, so a match never stalls.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Mapping

import grpc
import prometheus_client

from maumau.common import tokens
from maumau.policies import decide
from maumau.rules import Action, BadInput, View
from maumau.v1 import bots_pb2, bots_pb2_grpc
from maumau.wire import action_from_pb, bot_level_to_pb, view_to_pb

log = logging.getLogger(__name__)

FALLBACKS = prometheus_client.Counter(
    "engine_bot_fallbacks_total", "Bot moves the engine chose itself: the bot service failed."
)


class BotPlayers:
    """Bot decisions by level; ``addresses`` maps a level (or '' for all) to a Bots service."""

    def __init__(
        self,
        addresses: Mapping[str, str],
        secret: bytes,
        budget_ms: int = 200,
        slack_seconds: float = 1.0,
    ) -> None:
        self.secret = secret
        self._token = ("", 0.0)
        self.addresses = dict(addresses)
        self.budget_ms = budget_ms
        self.timeout = budget_ms / 1000 + slack_seconds
        self._channels: dict[str, grpc.aio.Channel] = {}

    def address_for(self, level: str) -> str:
        return self.addresses.get(level) or self.addresses.get("", "")

    async def decide(self, view: View, level: str, match_id: str, version: int) -> Action:
        address = self.address_for(level)
        if address:
            try:
                return await self._ask(address, view, level, match_id, version)
            except (grpc.RpcError, BadInput, ValueError) as error:
                FALLBACKS.inc()
                log.warning("bots at %s failed (%s): the engine moves itself", address, error)
            level = "heuristic"
        # Search is CPU-bound: off the event loop, so the replica keeps answering calls.
        return await asyncio.to_thread(decide, view, level, random.Random(), self.budget_ms / 1000)

    async def _ask(
        self, address: str, view: View, level: str, match_id: str, version: int
    ) -> Action:
        channel = self._channels.get(address)
        if channel is None:
            # round_robin: a dns:/// target of a headless Service spreads calls over every pod.
            channel = self._channels[address] = grpc.aio.insecure_channel(
                address, options=[("grpc.lb_policy_name", "round_robin")]
            )
        reply = await bots_pb2_grpc.BotsServiceStub(channel).Decide(
            bots_pb2.DecideRequest(
                view=view_to_pb(view, match_id, version),
                level=bot_level_to_pb(level),
                budget_ms=self.budget_ms,
            ),
            timeout=self.timeout,
            metadata=tokens.bearer_metadata(self._bots_token()),
        )
        action = action_from_pb(reply.action)
        if action not in view.legal:
            raise ValueError(f"it answered {action.text!r}, which is not legal now")
        return action

    def _bots_token(self) -> str:
        """The engine's bots token, issued again once half its lifetime has passed."""
        token, renew_at = self._token
        now = time.time()
        if now >= renew_at:
            ttl = tokens.BOTS_TOKEN_TTL_SECONDS
            token = tokens.issue_bots_token(self.secret, "engine", ttl_seconds=ttl, now=now)
            self._token = (token, now + ttl / 2)
        return token

    async def close(self) -> None:
        for channel in self._channels.values():
            await channel.close()
        self._channels.clear()
