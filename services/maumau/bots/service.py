"""The Bots gRPC service: Decide and Hint over the policies, from the view alone."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import grpc
import prometheus_client

from maumau.common.errors import ServiceError
from maumau.policies import LEVELS, decide, rank
from maumau.rules.reasons import REASONS, render_all
from maumau.v1 import bots_pb2, bots_pb2_grpc
from maumau.wire import action_to_pb, bot_level_from_pb, reasons_to_pb, view_from_pb

Context = grpc.aio.ServicerContext[Any, Any]

DECISION_SECONDS = prometheus_client.Histogram(
    "bots_decision_seconds", "Time to decide, by level.", ["level"]
)
DEFAULT_BUDGET_MS = 200
MAX_BUDGET_MS = 2000


class BotsService(bots_pb2_grpc.BotsServicer):
    """Stateless: every answer depends on the request alone (and a fresh random generator)."""

    async def Decide(
        self, request: bots_pb2.DecideRequest, context: Context
    ) -> bots_pb2.DecideResponse:
        try:
            level = bot_level_from_pb(request.level)
        except ValueError as error:
            raise ServiceError(grpc.StatusCode.INVALID_ARGUMENT, str(error)) from None
        if level not in LEVELS:
            raise ServiceError(
                grpc.StatusCode.INVALID_ARGUMENT,
                f"name a bot level: one of {', '.join(LEVELS)}",
            )
        budget_ms = request.budget_ms or DEFAULT_BUDGET_MS
        if not 1 <= budget_ms <= MAX_BUDGET_MS:
            raise ServiceError(
                grpc.StatusCode.INVALID_ARGUMENT, f"budget_ms must be from 1 to {MAX_BUDGET_MS}"
            )
        view = view_from_pb(request.view)
        if not view.legal:
            raise ServiceError(
                grpc.StatusCode.FAILED_PRECONDITION, "the view has no legal action to choose"
            )
        with DECISION_SECONDS.labels(level).time():
            # Search is CPU-bound: run it off the event loop so health checks stay answered.
            action = await asyncio.to_thread(decide, view, level, random.Random(), budget_ms / 1000)
        ranked = next((r for r in rank(view) if r.action == action), None)
        reasons = ranked.reasons if ranked else ()
        return bots_pb2.DecideResponse(
            action=action_to_pb(action),
            reason=render_all(reasons),
            reasons=reasons_to_pb(reasons),
        )

    async def Hint(self, request: bots_pb2.HintRequest, context: Context) -> bots_pb2.HintResponse:
        lang = request.lang or "en"
        if lang not in REASONS:
            raise ServiceError(
                grpc.StatusCode.INVALID_ARGUMENT,
                f"no language {request.lang!r}: choose one of {', '.join(REASONS)}",
            )
        view = view_from_pb(request.view)
        return bots_pb2.HintResponse(
            actions=[
                bots_pb2.RankedAction(
                    action=action_to_pb(r.action),
                    score=r.score,
                    reason=render_all(r.reasons, lang),
                    reasons=reasons_to_pb(r.reasons),
                )
                for r in rank(view)
            ]
        )
