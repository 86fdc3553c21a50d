"""The gRPC bootstrap, on a real server at 127.0.0.1:0 with a real channel and a real Redis."""

import asyncio
import contextlib
import gc
import json
import os
import signal
import time
import urllib.request
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import grpc
import prometheus_client
import pytest
import redis.asyncio
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from maumau.common.config import ServiceConfig
from maumau.common.errors import ERROR_CODE_KEY, ERROR_PARAMS_KEY
from maumau.common.lifecycle import serve
from maumau.common.redis_server import EmbeddedRedis
from maumau.common.server import (
    HealthProbe,
    ServiceServer,
    create_server,
    start_metrics_server,
)
from maumau.common.tokens import TokenError

# Async fixtures run in the session's loop (asyncio_default_fixture_loop_scope), so must the tests.
pytestmark = pytest.mark.asyncio(loop_scope="session")

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING
DEMO = "maumau.test.Demo"


class NotYourTurn(Exception):
    """Shaped like a rules-core error: a stable code, its params and an English message."""

    code = "not_your_turn"
    params = {"turn": 2}  # noqa: RUF012
    message = "it is seat 2's turn, not yours"


class Demo:
    """A servicer without a .proto: raw bytes in and out, through generic handlers."""

    def __init__(self) -> None:
        self.sleeping = asyncio.Event()
        self.go_on = asyncio.Event()
        self.asked: list[str] = []

    async def ask(
        self, request: health_pb2.HealthCheckRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> bytes:
        self.asked.append(request.service)
        return b"asked"

    async def ask_each(
        self, request: health_pb2.HealthCheckRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> AsyncIterator[bytes]:
        self.asked.append(request.service)
        yield b"asked"

    async def sleep(self, request: bytes, context: grpc.aio.ServicerContext[Any, Any]) -> bytes:
        self.sleeping.set()
        await asyncio.sleep(float(request))
        return b"woke up"

    async def refuse(self, request: bytes, context: grpc.aio.ServicerContext[Any, Any]) -> bytes:
        if request == b"rule":
            raise NotYourTurn()
        if request == b"token":
            raise TokenError("token expired: ask for a new one")
        raise RuntimeError("a bug")

    async def count(
        self, request: bytes, context: grpc.aio.ServicerContext[Any, Any]
    ) -> AsyncIterator[bytes]:
        yield b"1"
        await self.go_on.wait()
        yield b"2"

    def register(self, server: grpc.aio.Server) -> None:
        handlers = {
            "Sleep": grpc.unary_unary_rpc_method_handler(self.sleep),
            "Refuse": grpc.unary_unary_rpc_method_handler(self.refuse),
            "Count": grpc.unary_stream_rpc_method_handler(self.count),
            # Typed requests: a message of the proto's, decoded by the bootstrap.
            "Ask": grpc.unary_unary_rpc_method_handler(
                self.ask, request_deserializer=health_pb2.HealthCheckRequest.FromString
            ),
            "AskEach": grpc.unary_stream_rpc_method_handler(
                self.ask_each, request_deserializer=health_pb2.HealthCheckRequest.FromString
            ),
        }
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(DEMO, handlers),))


def config(**overrides: Any) -> ServiceConfig:
    settings: dict[str, Any] = {
        "host": "127.0.0.1",
        "port": 0,
        "metrics_port": 0,
        "grace_seconds": 5.0,
        "health_interval_seconds": 0.05,
    }
    return ServiceConfig(**(settings | overrides))


@contextlib.asynccontextmanager
async def redis_probe(url: str) -> AsyncIterator[HealthProbe]:
    client = redis.asyncio.Redis.from_url(url)
    try:
        yield client.ping
    finally:
        await client.aclose()


@contextlib.asynccontextmanager
async def running(
    demo: Demo, probe: HealthProbe, **overrides: Any
) -> AsyncIterator[tuple[ServiceServer, grpc.aio.Channel]]:
    server = create_server({DEMO: demo.register}, config(**overrides), probe)
    await server.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
            yield server, channel
    finally:
        await server.stop(0)


@pytest.fixture
async def demo_server(
    redis_server: EmbeddedRedis,
) -> AsyncIterator[tuple[Demo, ServiceServer, grpc.aio.Channel]]:
    demo = Demo()
    async with redis_probe(redis_server.url) as probe, running(demo, probe) as (server, channel):
        yield demo, server, channel


class Growth:
    """How much metric samples grew since `watch()`: the registry is shared by the process."""

    def __init__(self) -> None:
        self._before: dict[str, float] = {}

    def watch(self, name: str, **labels: str) -> None:
        self._before[self._key(name, labels)] = self._value(name, labels)

    def __call__(self, name: str, **labels: str) -> float:
        return self._value(name, labels) - self._before[self._key(name, labels)]

    async def settled(self, name: str, expected: float, **labels: str) -> float:
        """The growth once it is ``expected``, or as it is after 5 s: a call ends for its
        client a moment before the server's wrapper counts it."""
        deadline = time.monotonic() + 5
        while self(name, **labels) != expected and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        return self(name, **labels)

    def _key(self, name: str, labels: dict[str, str]) -> str:
        return f"{name}{sorted(labels.items())}"

    def _value(self, name: str, labels: dict[str, str]) -> float:
        return prometheus_client.REGISTRY.get_sample_value(name, labels) or 0.0


@pytest.fixture
def metrics() -> Growth:
    return Growth()


async def check(channel: grpc.aio.Channel, service: str = "") -> int:
    stub = health_pb2_grpc.HealthStub(channel)
    response = await stub.Check(health_pb2.HealthCheckRequest(service=service))
    status: int = response.status
    return status


async def test_health_is_serving_for_the_server_and_each_service(demo_server: Any) -> None:
    _, _, channel = demo_server
    assert await check(channel) == SERVING
    assert await check(channel, DEMO) == SERVING
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await check(channel, "maumau.v1.Nothing")
    assert refused.value.code() == grpc.StatusCode.NOT_FOUND


async def test_health_follows_redis_down_and_back_up(tmp_path: Path) -> None:
    """A replica that cannot reach Redis can serve no match, so it says NOT_SERVING."""
    with EmbeddedRedis(tmp_path) as redis_server:
        async with redis_probe(redis_server.url) as probe, running(Demo(), probe) as (_, channel):
            watch = health_pb2_grpc.HealthStub(channel).Watch(health_pb2.HealthCheckRequest())
            async with asyncio.timeout(3):
                assert (await watch.read()).status == SERVING
                redis_server.stop()
                assert (await watch.read()).status == NOT_SERVING
                redis_server.start()
                assert (await watch.read()).status == SERVING
            watch.cancel()


async def test_reflection_lists_the_services(demo_server: Any) -> None:
    _, _, channel = demo_server
    call = reflection_pb2_grpc.ServerReflectionStub(channel).ServerReflectionInfo()
    await call.write(reflection_pb2.ServerReflectionRequest(list_services=""))
    response = await call.read()
    await call.done_writing()
    assert {s.name for s in response.list_services_response.service} == {
        DEMO,
        "grpc.health.v1.Health",
        "grpc.reflection.v1alpha.ServerReflection",
        "grpc.reflection.v1.ServerReflection",
    }


async def test_metrics_count_each_call_by_status(demo_server: Any, metrics: Growth) -> None:
    _, _, channel = demo_server
    check_labels = {"grpc_service": "grpc.health.v1.Health", "grpc_method": "Check"}
    metrics.watch("grpc_server_started_total", **check_labels)
    metrics.watch("grpc_server_handled_total", **check_labels, grpc_code="OK")
    metrics.watch("grpc_server_handled_total", **check_labels, grpc_code="NOT_FOUND")
    metrics.watch("grpc_server_handling_seconds_count", **check_labels)

    await check(channel)
    with pytest.raises(grpc.aio.AioRpcError):
        await check(channel, "maumau.v1.Nothing")

    assert metrics("grpc_server_started_total", **check_labels) == 2
    assert await metrics.settled("grpc_server_handling_seconds_count", 2, **check_labels) == 2
    assert metrics("grpc_server_handled_total", **check_labels, grpc_code="OK") == 1
    assert metrics("grpc_server_handled_total", **check_labels, grpc_code="NOT_FOUND") == 1


async def test_a_stream_counts_as_handled_when_it_ends(demo_server: Any, metrics: Growth) -> None:
    demo, _, channel = demo_server
    labels = {"grpc_service": DEMO, "grpc_method": "Count"}
    metrics.watch("grpc_server_started_total", **labels)
    metrics.watch("grpc_server_handled_total", **labels, grpc_code="OK")
    call = channel.unary_stream(f"/{DEMO}/Count")(b"")
    assert await call.read() == b"1"
    assert metrics("grpc_server_started_total", **labels) == 1
    assert metrics("grpc_server_handled_total", **labels, grpc_code="OK") == 0
    demo.go_on.set()
    assert await call.read() == b"2"
    assert await call.read() is grpc.aio.EOF
    assert await metrics.settled("grpc_server_handled_total", 1, **labels, grpc_code="OK") == 1


async def test_metrics_are_served_over_http() -> None:
    http_server = start_metrics_server(0, "127.0.0.1")
    try:
        url = f"http://127.0.0.1:{http_server.server_port}/metrics"
        text = await asyncio.to_thread(lambda: urllib.request.urlopen(url, timeout=5).read())
        assert b"grpc_server_handled_total" in text
    finally:
        await asyncio.to_thread(http_server.shutdown)
        http_server.server_close()


async def test_a_rule_violation_becomes_failed_precondition_with_its_code(
    demo_server: Any,
) -> None:
    _, _, channel = demo_server
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await channel.unary_unary(f"/{DEMO}/Refuse")(b"rule")
    error = refused.value
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert error.details() == "it is seat 2's turn, not yours"
    trailers = dict(error.trailing_metadata() or ())
    assert trailers[ERROR_CODE_KEY] == "not_your_turn"
    assert json.loads(trailers[ERROR_PARAMS_KEY]) == {"turn": 2}


@pytest.mark.parametrize(
    ("request_bytes", "status"),
    [(b"token", grpc.StatusCode.UNAUTHENTICATED), (b"crash", grpc.StatusCode.UNKNOWN)],
)
async def test_other_errors_map_to_their_status(
    demo_server: Any, metrics: Growth, request_bytes: bytes, status: grpc.StatusCode
) -> None:
    _, _, channel = demo_server
    labels = {"grpc_service": DEMO, "grpc_method": "Refuse", "grpc_code": status.name}
    metrics.watch("grpc_server_handled_total", **labels)
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await channel.unary_unary(f"/{DEMO}/Refuse")(request_bytes)
    assert refused.value.code() == status
    assert await metrics.settled("grpc_server_handled_total", 1, **labels) == 1


async def ask(channel: grpc.aio.Channel, method: str, request: bytes) -> list[bytes]:
    """Send ``request`` as it is to Demo's Ask (unary) or AskEach (a stream): the answers."""
    path = f"/{DEMO}/{method}"
    if method == "AskEach":
        return [answer async for answer in channel.unary_stream(path)(request)]
    return [await channel.unary_unary(path)(request)]


@pytest.mark.parametrize("method", ["Ask", "AskEach"])
@pytest.mark.parametrize(
    "request_bytes",
    [b"\x0a\x05dem", b"\xff\xff\xff", b"\x0a\x02\xff\xfe"],
    ids=["cut-short", "corrupt", "not-utf8"],
)
async def test_bytes_that_are_no_request_are_invalid_argument_and_reach_no_servicer(
    demo_server: Any, metrics: Growth, method: str, request_bytes: bytes
) -> None:
    """Bytes that do not decode as the method's message: INVALID_ARGUMENT naming the method and
    the message, counted as handled with that code; the servicer never runs, so nothing it
    would store changes."""
    demo, _, channel = demo_server
    labels = {"grpc_service": DEMO, "grpc_method": method}
    metrics.watch("grpc_server_started_total", **labels)
    metrics.watch("grpc_server_handled_total", **labels, grpc_code="INVALID_ARGUMENT")
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await ask(channel, method, request_bytes)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert refused.value.details() == (
        f"{DEMO}/{method}: the request bytes are not a valid grpc.health.v1.HealthCheckRequest"
        " message (cut short, corrupt, or a string field that is not UTF-8): serialize it as"
        " the method's .proto defines it"
    )
    assert demo.asked == []
    assert metrics("grpc_server_started_total", **labels) == 1
    invalid = {**labels, "grpc_code": "INVALID_ARGUMENT"}
    assert await metrics.settled("grpc_server_handled_total", 1, **invalid) == 1

    request = health_pb2.HealthCheckRequest(service="demo").SerializeToString()
    assert await ask(channel, method, request) == [b"asked"]
    assert demo.asked == ["demo"]


async def test_a_huge_message_is_refused_by_grpc(demo_server: Any) -> None:
    _, _, channel = demo_server
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await channel.unary_unary(f"/{DEMO}/Sleep")(b"0" * (65 * 1024))
    assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED


async def test_a_taken_port_fails_at_start(demo_server: Any, redis_server: EmbeddedRedis) -> None:
    _, server, _ = demo_server
    async with redis_probe(redis_server.url) as probe:
        with pytest.raises(RuntimeError):
            create_server({}, config(port=server.port), probe)


async def test_stop_lets_an_in_flight_call_finish(redis_server: EmbeddedRedis) -> None:
    demo = Demo()
    async with redis_probe(redis_server.url) as probe, running(demo, probe) as (server, channel):
        call = asyncio.ensure_future(channel.unary_unary(f"/{DEMO}/Sleep")(b"0.2"))
        await demo.sleeping.wait()
        await server.stop()
        assert await call == b"woke up"


@pytest.fixture
def unfrozen() -> Iterator[None]:
    """serve() freezes every object alive (see the test below): thawed again for the rest."""
    gc.unfreeze()
    yield
    gc.unfreeze()


@pytest.mark.usefixtures("unfrozen")
async def test_a_serving_service_keeps_its_startup_objects_out_of_collections(
    redis_server: EmbeddedRedis,
) -> None:
    """Once serving, what start-up made is frozen: the collector's full passes, which walked it
    all and stalled every call in flight for 30-50 ms, skip it."""
    demo = Demo()
    async with redis_probe(redis_server.url) as probe:
        server = create_server({DEMO: demo.register}, config(), probe)
        assert gc.get_freeze_count() == 0
        serving = asyncio.create_task(serve(server))
        try:
            async with asyncio.timeout(10):
                while gc.get_freeze_count() == 0:
                    await asyncio.sleep(0.01)
            assert gc.get_freeze_count() > 1000  # modules, classes, the server: not a few
        finally:
            assert signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL  # or it would kill pytest
            os.kill(os.getpid(), signal.SIGTERM)
            await serving


@pytest.mark.usefixtures("unfrozen")
async def test_sigterm_drains_the_server(redis_server: EmbeddedRedis) -> None:
    """SIGTERM: health says NOT_SERVING first, then in-flight calls finish, then serve returns."""
    demo = Demo()
    async with redis_probe(redis_server.url) as probe:
        server = create_server({DEMO: demo.register}, config(), probe)
        serving = asyncio.create_task(serve(server))
        async with grpc.aio.insecure_channel(
            f"127.0.0.1:{server.port}", options=[("grpc.initial_reconnect_backoff_ms", 20)]
        ) as channel:
            watch = health_pb2_grpc.HealthStub(channel).Watch(
                health_pb2.HealthCheckRequest(), wait_for_ready=True
            )
            assert (await watch.read()).status == SERVING
            call = asyncio.ensure_future(channel.unary_unary(f"/{DEMO}/Sleep")(b"0.2"))
            await demo.sleeping.wait()

            assert signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL  # or it would kill pytest
            os.kill(os.getpid(), signal.SIGTERM)

            async with asyncio.timeout(3):
                assert (await watch.read()).status == NOT_SERVING
                watch.cancel()
                assert await call == b"woke up"
                await serving
