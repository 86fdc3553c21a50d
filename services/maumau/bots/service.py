"""The Bots gRPC service: Decide and Hint over the policies, from the view alone.

Callers show a token: ``Decide`` (a search that may take seconds of CPU) takes a platform
service's bots token only (the engine's, audience ``maumau:bots``: the engine shows it to
third-party bot servers too, so it is good for nothing else), ``Hint`` also a player's or a
seat's token (tips while learning; the Bots service holds no Redis, so a revoked player token
still gets tips until it expires). At most
``max_searches`` decisions run at once; beyond that a call is RESOURCE_EXHAUSTED at once, with a
retry hint, rather than queueing behind the others. A budget above the service's ceiling is
clamped to it. ``Hint`` names the search's move first when a search slot is free (the
heuristic's tips at once when none is).
"""

from __future__ import annotations

import asyncio
import logging
import random
from typing import Any

import grpc
import prometheus_client

from maumau.bots.views import checked_view
from maumau.common import tokens
from maumau.common.errors import RETRY_AFTER_KEY, ServiceError, invalid
from maumau.policies import LEVELS, decide, rank
from maumau.policies.tips import tips
from maumau.rules import View
from maumau.rules.reasons import REASONS, Reason, render_all
from maumau.v1 import bots_pb2, bots_pb2_grpc
from maumau.wire import action_to_pb, bot_level_from_pb, reasons_to_pb

Context = grpc.aio.ServicerContext[Any, Any]
log = logging.getLogger(__name__)

DECISION_SECONDS = prometheus_client.Histogram(
    "bots_decision_seconds", "Time to decide, by level.", ["level"]
)
SEARCHES_REFUSED = prometheus_client.Counter(
    "bots_searches_refused_total", "Decide calls refused: every search slot was busy."
)
DEFAULT_BUDGET_MS = 200
MAX_BUDGET_MS = 2000
"""The protocol's limit (bots.proto); a service may have a lower ceiling of its own."""

HINT_BUDGET_MS = 100
HINT_ITERATIONS = 400
"""A tip's search: shorter than a bot's decision, a player waits for it."""

HINT_CALLERS = (tokens.TokenKind.PLAYER, tokens.TokenKind.SEAT, tokens.TokenKind.BOTS)


class BotsService(bots_pb2_grpc.BotsServiceServicer):
    """Stateless: every answer depends on the request alone (and a fresh random generator)."""

    def __init__(
        self, secret: bytes, max_searches: int = 4, max_budget_ms: int = MAX_BUDGET_MS
    ) -> None:
        self.secret = secret
        self.max_searches = max_searches
        self.max_budget_ms = max_budget_ms
        self._searching = 0

    async def Decide(
        self, request: bots_pb2.DecideRequest, context: Context
    ) -> bots_pb2.DecideResponse:
        tokens.verify_bots_token(self.secret, tokens.bearer(context))
        try:
            level = bot_level_from_pb(request.level)
        except ValueError as error:
            raise invalid(f"level: {error}") from None
        if level not in LEVELS:
            raise invalid(f"level: name a bot level: one of {', '.join(LEVELS)}")
        try:
            budget_ms = budget_for(request.budget_ms, self.max_budget_ms)
        except ValueError as error:
            raise invalid(str(error)) from None
        view = checked_view(request.view)
        if not view.legal:
            raise ServiceError(
                grpc.StatusCode.FAILED_PRECONDITION, "the view has no legal action to choose"
            )
        if self._searching >= self.max_searches:
            SEARCHES_REFUSED.inc()
            retry_ms = budget_ms
            context.set_trailing_metadata(((RETRY_AFTER_KEY, str(retry_ms)),))
            raise ServiceError(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"all {self.max_searches} search slots are busy: retry in {retry_ms} ms",
            )
        self._searching += 1
        try:
            with DECISION_SECONDS.labels(level).time():
                # Search is CPU-bound: off the event loop, so health checks stay answered.
                action = await asyncio.to_thread(
                    _policy, decide, view, level, random.Random(), budget_ms / 1000
                )
        finally:
            self._searching -= 1
        ranked = next((r for r in _policy(rank, view) if r.action == action), None)
        reasons: tuple[Reason, ...] = ranked.reasons if ranked else ()
        return bots_pb2.DecideResponse(
            action=action_to_pb(action),
            reason=render_all(reasons),
            reasons=reasons_to_pb(reasons),
        )

    async def Hint(self, request: bots_pb2.HintRequest, context: Context) -> bots_pb2.HintResponse:
        tokens.verify_token(self.secret, tokens.bearer(context), *HINT_CALLERS)
        lang = request.lang or "en"
        if lang not in REASONS:
            raise invalid(f"lang: no language {request.lang!r}: choose one of {', '.join(REASONS)}")
        view = checked_view(request.view)
        if view.seat is None or not view.legal or self._searching >= self.max_searches:
            ranked = _policy(rank, view)  # no search slot free: the heuristic's tips at once
        else:
            self._searching += 1
            try:
                ranked = await asyncio.to_thread(
                    _policy, tips, view, random.Random(), HINT_BUDGET_MS / 1000, HINT_ITERATIONS
                )
            finally:
                self._searching -= 1
        return bots_pb2.HintResponse(
            actions=[
                bots_pb2.RankedAction(
                    action=action_to_pb(r.action),
                    score=r.score,
                    reason=render_all(r.reasons, lang),
                    reasons=reasons_to_pb(r.reasons),
                )
                for r in ranked
            ]
        )


def budget_for(requested_ms: int, ceiling_ms: int) -> int:
    """The thinking time a Decide gets: the default when none is asked, at most the service's
    ceiling (a caller cannot know an operator's ceiling, so more is clamped, not refused);
    ValueError outside what the protocol allows."""
    if not 0 <= requested_ms <= MAX_BUDGET_MS:
        raise ValueError(f"budget_ms must be from 1 to {MAX_BUDGET_MS} (0: the default)")
    return min(requested_ms or DEFAULT_BUDGET_MS, ceiling_ms)


def _policy(function: Any, view: View, *args: Any) -> Any:
    """A policy's answer for a caller's view. The view passed every field check, yet its
    fields may still contradict one another (legal actions that its hand cannot play, ...):
    a policy that fails on it says the view is invalid rather than the service failing."""
    try:
        return function(view, *args)
    except Exception as error:
        log.info("a policy failed on a caller's view: %r", error)
        raise invalid(
            f"view: its fields contradict one another, so no rules position has it ({error})"
        ) from None
