"""gRPC as a test client speaks it: bearer tokens and health checks."""

from __future__ import annotations

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from maumau.common.tokens import bearer_metadata

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


auth = bearer_metadata
"""Call metadata carrying a token."""


async def health(address: str, service: str = "") -> int:
    """The gRPC health status a server reports (UNKNOWN when it does not answer)."""
    async with grpc.aio.insecure_channel(address) as channel:
        try:
            reply = await health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=service), timeout=1
            )
        except grpc.aio.AioRpcError:
            return int(health_pb2.HealthCheckResponse.UNKNOWN)
        return int(reply.status)


async def reports(address: str, status: int, service: str = "") -> bool:
    """Whether the server's health is ``status`` now."""
    return await health(address, service) == status


async def serving(address: str, service: str = "") -> bool:
    return await reports(address, SERVING, service)
