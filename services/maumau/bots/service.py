"""The Bots gRPC service: Decide and Hint over the policies, from the view alone."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import grpc
import prometheus_client

from maumau.common.errors import ServiceError
from maumau.policies import LEVELS, decide, rank
from maumau.v1 import bots_pb2, bots_pb2_grpc
from maumau.wire import action_to_pb, view_from_pb

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
        if request.level not in LEVELS:
            raise ServiceError(
                grpc.StatusCode.INVALID_ARGUMENT,
                f"no bot level {request.level!r}: choose one of {', '.join(LEVELS)}",
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
        with DECISION_SECONDS.labels(request.level).time():
            # Search is CPU-bound: run it off the event loop so health checks stay answered.
            action = await asyncio.to_thread(
                decide, view, request.level, random.Random(), budget_ms / 1000
            )
        reason = next((r.reason for r in rank(view) if r.action == action), "")
        return bots_pb2.DecideResponse(action=action_to_pb(action), reason=reason)

    async def Hint(self, request: bots_pb2.HintRequest, context: Context) -> bots_pb2.HintResponse:
        view = view_from_pb(request.view)
        return bots_pb2.HintResponse(
            actions=[
                bots_pb2.RankedAction(action=action_to_pb(r.action), score=r.score, reason=r.reason)
                for r in rank(view)
            ]
        )
