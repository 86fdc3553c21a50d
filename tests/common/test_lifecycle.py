"""The one service lifecycle (issue 9, section 2): a server with supervised background workers,
started and stopped in order; and a pause that never swallows a cancellation."""

import asyncio
import logging

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from maumau.common.config import ServiceConfig
from maumau.common.lifecycle import Service, backoff, pause
from maumau.common.server import create_server

CONFIG = ServiceConfig(host="127.0.0.1", port=0, metrics_port=0, health_interval_seconds=0.1)


async def healthy() -> None:
    """Nothing to depend on."""


class Recorded(Service):
    """A service whose steps say what happened, in order."""

    def __init__(self, **workers: object) -> None:
        self.steps: list[str] = []
        super().__init__(create_server({}, CONFIG, healthy), workers)  # type: ignore[arg-type]

    async def open(self) -> None:
        self.steps.append("open")

    async def close(self) -> None:
        self.steps.append("close")


async def test_stop_lets_workers_finish_their_step_then_drains_then_closes() -> None:
    service: Recorded

    async def worker(stopping: asyncio.Event) -> None:
        service.steps.append("worker started")
        await stopping.wait()
        await asyncio.sleep(0.05)  # the step in hand
        service.steps.append(f"worker done, serving: {await serving(service)}")

    service = Recorded(ticking=worker)
    await service.start()
    await asyncio.sleep(0.05)
    assert await serving(service)
    await service.stop(0)
    assert service.steps == ["open", "worker started", "worker done, serving: True", "close"]


async def serving(service: Service) -> bool:
    """Whether the service's port answers gRPC health (the server is still up)."""
    async with grpc.aio.insecure_channel(f"127.0.0.1:{service.port}") as channel:
        try:
            await health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(), timeout=1
            )
        except grpc.aio.AioRpcError:
            return False
    return True


async def test_a_worker_that_fails_or_ends_early_is_logged_and_restarted_with_backoff(
    caplog: pytest.LogCaptureFixture,
) -> None:
    runs: list[float] = []

    async def flaky(stopping: asyncio.Event) -> None:
        runs.append(asyncio.get_running_loop().time())
        if len(runs) == 1:
            raise RuntimeError("lost its connection")
        if len(runs) == 2:
            return  # ended although nobody stopped it
        await stopping.wait()

    service = Recorded(flaky=flaky)
    with caplog.at_level(logging.INFO):
        await service.start()
        async with asyncio.timeout(5):
            while len(runs) < 3:
                await asyncio.sleep(0.01)
        await service.stop(0)
    assert "worker flaky failed; restarting it" in caplog.text
    assert "worker flaky ended on its own; restarting it" in caplog.text
    assert runs[1] - runs[0] >= 0.1 and runs[2] - runs[1] >= 0.2, "backoff doubles"


async def test_kill_cancels_the_workers_mid_step() -> None:
    finished: list[bool] = []

    async def stubborn(stopping: asyncio.Event) -> None:
        await asyncio.sleep(60)
        finished.append(True)

    service = Recorded(stubborn=stubborn)
    await service.start()
    async with asyncio.timeout(2):
        await service.kill()
    assert finished == [] and service.steps == ["open", "close"]


async def test_pause_ends_early_when_the_event_is_set_and_never_swallows_a_cancel() -> None:
    """Python 3.11's ``asyncio.wait_for`` can lose a cancellation that meets its timeout; a
    loop around ``pause`` must end when its task is cancelled, whatever the timing."""
    stopping = asyncio.Event()
    asyncio.get_running_loop().call_later(0.05, stopping.set)
    async with asyncio.timeout(1):
        await pause(stopping, 30)

    loops = 0

    async def loop() -> None:
        nonlocal loops
        while True:
            loops += 1
            await pause(asyncio.Event(), 0.001)

    for delay in (0.0, 0.001, 0.002, 0.005):
        task = asyncio.create_task(loop())
        await asyncio.sleep(delay)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            async with asyncio.timeout(1):
                await task
    assert loops > 0


def test_backoff_doubles_to_its_limit() -> None:
    assert [backoff(n) for n in (1, 2, 3)] == [0.1, 0.2, 0.4]
    assert backoff(50) == backoff(8) == 5.0
    assert backoff(3, most=0.3) == 0.3
