"""The one gRPC bootstrap every service uses: health, reflection, metrics, errors, shutdown.

`create_server()` builds and binds the server (port 0 in tests) without starting it;
``maumau.common.lifecycle`` runs it with the service's workers until SIGTERM or SIGINT. Health
says SERVING only while Redis answers, because a replica that cannot reach Redis cannot serve any
match.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from typing import Any, cast
from wsgiref.simple_server import WSGIServer

import grpc
import prometheus_client
from google.protobuf import descriptor_pb2, descriptor_pool
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection, reflection_pb2, reflection_pb2_grpc

from maumau.common import errors
from maumau.common.config import ServiceConfig

log = logging.getLogger(__name__)

Register = Callable[[grpc.aio.Server], None]
"""Adds one servicer to a server, e.g. `partial(add_EngineServiceServicer_to_server, servicer)`."""

HealthProbe = Callable[[], Awaitable[object]]
"""Succeeds while the service's dependencies answer, e.g. `redis_client.ping`."""

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING

# Defined once per process in the default registry, so several servers in one test process
# share them; the grpc_service label tells the services apart.
STARTED = prometheus_client.Counter(
    "grpc_server_started_total",
    "RPCs started on the server.",
    ["grpc_service", "grpc_method"],
)
HANDLED = prometheus_client.Counter(
    "grpc_server_handled_total",
    "RPCs completed on the server, by status code.",
    ["grpc_service", "grpc_method", "grpc_code"],
)
HANDLING_SECONDS = prometheus_client.Histogram(
    "grpc_server_handling_seconds",
    "Time from the start of an RPC to its end on the server.",
    ["grpc_service", "grpc_method"],
)


class ServiceServer:
    """A bound grpc.aio server whose health follows a probe (of Redis). Built by create_server()."""

    def __init__(
        self,
        server: grpc.aio.Server,
        port: int,
        config: ServiceConfig,
        service_names: tuple[str, ...],
        probe: HealthProbe,
    ) -> None:
        self.server = server
        self.port = port
        self.config = config
        self.service_names = service_names
        self.health = health.aio.HealthServicer()
        self._probe = probe
        self._serving: bool | None = None
        self._watcher: asyncio.Task[None] | None = None
        self._stopping = asyncio.Event()

    async def start(self) -> None:
        """Probe Redis once, so the first health answer is true, then start serving calls."""
        await self._check()
        await self.server.start()
        self._watcher = asyncio.create_task(self._watch())

    async def stop(self, grace: float | None = None) -> None:
        """Say NOT_SERVING for good, then let in-flight calls finish within `grace` seconds
        (default: the configured grace period) and cancel what is left."""
        self._stopping.set()
        await self.health.enter_graceful_shutdown()
        if self._watcher is not None:
            # The watcher ends at its next look at _stopping, rather than being cancelled
            # between a probe and setting the health it found.
            await self._watcher
        await self.server.stop(self.config.grace_seconds if grace is None else grace)

    async def _watch(self) -> None:
        while not self._stopping.is_set():
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.config.health_interval_seconds):
                    await self._stopping.wait()
            if not self._stopping.is_set():
                await self._check()

    async def _check(self) -> None:
        try:
            async with asyncio.timeout(self.config.health_interval_seconds):
                await self._probe()
        except Exception as error:
            if self._serving is not False:
                log.warning("health probe failed (%r): NOT_SERVING", error)
            serving = False
        else:
            if self._serving is False:
                log.info("health probe succeeds again: SERVING")
            serving = True
        self._serving = serving
        for name in (health.OVERALL_HEALTH, *self.service_names):
            await self.health.set(name, SERVING if serving else NOT_SERVING)


def create_server(
    services: Mapping[str, Register], config: ServiceConfig, probe: HealthProbe
) -> ServiceServer:
    """Build a server for `services` (full gRPC service name -> registration), bound to the
    configured address, with health, reflection and metrics. Start it with `start()` or serve()."""
    server = grpc.aio.server(
        options=[
            ("grpc.max_receive_message_length", config.max_receive_message_bytes),
            # Fail at start when the port is taken, instead of sharing it with another process.
            ("grpc.so_reuseport", 0),
        ],
    )
    observed = cast(grpc.aio.Server, _ObservedServer(server))
    for register in services.values():
        register(observed)
    host = f"[{config.host}]" if ":" in config.host else config.host
    port = server.add_insecure_port(f"{host}:{config.port}")
    built = ServiceServer(server, port, config, tuple(services), probe)
    health_pb2_grpc.add_HealthServicer_to_server(built.health, observed)
    enable_reflection((*services, health.SERVICE_NAME), observed)
    return built


REFLECTION_V1 = "grpc.reflection.v1.ServerReflection"
"""The reflection service's current name; grpcio-reflection serves only ``v1alpha``, whose
messages are the same on the wire, so one servicer answers both (current grpcurl asks for v1
first, older tools for v1alpha)."""


def enable_reflection(service_names: tuple[str, ...], server: grpc.aio.Server) -> None:
    """Serve reflection as ``grpc.reflection.v1`` and ``v1alpha`` for ``service_names``."""
    names = (*service_names, reflection.SERVICE_NAME, REFLECTION_V1)
    _register_reflection_v1_descriptor()
    servicer = reflection.aio.ReflectionServicer(names)
    reflection_pb2_grpc.add_ServerReflectionServicer_to_server(servicer, server)  # type: ignore[no-untyped-call]
    handler = grpc.method_handlers_generic_handler(
        REFLECTION_V1,
        {
            "ServerReflectionInfo": grpc.stream_stream_rpc_method_handler(
                servicer.ServerReflectionInfo,
                request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
                response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString,
            )
        },
    )
    server.add_generic_rpc_handlers((handler,))


def _register_reflection_v1_descriptor() -> None:
    """Add ``grpc/reflection/v1/reflection.proto`` to the default descriptor pool (the v1alpha
    file with its package renamed), so reflection can describe the v1 service too."""
    pool = descriptor_pool.Default()
    with contextlib.suppress(KeyError):
        pool.FindFileByName("grpc/reflection/v1/reflection.proto")
        return
    file = descriptor_pb2.FileDescriptorProto()
    reflection_pb2.DESCRIPTOR.CopyToProto(file)
    old, new = f".{file.package}.", ".grpc.reflection.v1."
    file.name, file.package = "grpc/reflection/v1/reflection.proto", "grpc.reflection.v1"
    file.ClearField("options")
    for message in file.message_type:
        for field in message.field:
            if field.HasField("type_name"):
                field.type_name = field.type_name.replace(old, new)
    for service in file.service:
        for method in service.method:
            method.input_type = method.input_type.replace(old, new)
            method.output_type = method.output_type.replace(old, new)
    pool.AddSerializedFile(file.SerializeToString())


def start_metrics_server(port: int, host: str) -> WSGIServer:
    """Serve the default Prometheus registry over HTTP in a daemon thread; port 0 picks one
    (read it from `.server_port`); `.shutdown()` stops it."""
    http_server, _thread = prometheus_client.start_http_server(port, addr=host)
    return http_server


class _ObservedServer:
    """The server as a service's registration sees it: every method handler added comes
    wrapped, so each call is counted and timed, the errors that `errors.status_for` knows
    become statuses (servicers may simply raise them), and request bytes that are no message
    of the method's type are INVALID_ARGUMENT before its servicer sees them. Wrapped once, at
    registration, rather than by a server interceptor, which costs grpc.aio a further step on
    every call."""

    def __init__(self, server: grpc.aio.Server) -> None:
        self._server = server

    def add_registered_method_handlers(
        self, service: str, handlers: Mapping[str, grpc.RpcMethodHandler[Any, Any]]
    ) -> None:
        self._server.add_registered_method_handlers(
            service, {method: _wrapped(service, method, h) for method, h in handlers.items()}
        )

    def add_generic_rpc_handlers(self, handlers: Sequence[grpc.GenericRpcHandler]) -> None:
        self._server.add_generic_rpc_handlers([_ObservedHandler(h) for h in handlers])


class _ObservedHandler(grpc.GenericRpcHandler):
    """A generic handler whose method handlers come wrapped (each made once, at its first
    call; only methods the server has: a call of an unknown one finds none to keep)."""

    def __init__(self, handler: grpc.GenericRpcHandler) -> None:
        self._handler = handler
        self._wrapped: dict[str, grpc.RpcMethodHandler[Any, Any]] = {}

    def service(
        self, handler_call_details: grpc.HandlerCallDetails
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        name = handler_call_details.method
        wrapped = self._wrapped.get(name)
        if wrapped is None:
            handler = self._handler.service(handler_call_details)
            if handler is None:
                return None
            service, _, method = name.lstrip("/").rpartition("/")
            wrapped = self._wrapped[name] = _wrapped(service, method, handler)
        return wrapped


def _wrapped(
    service: str, method: str, handler: grpc.RpcMethodHandler[Any, Any]
) -> grpc.RpcMethodHandler[Any, Any]:
    """``handler`` counted, timed and with its errors mapped, its metrics' label values bound,
    its requests decoded by `_decoding`."""
    if handler.unary_unary is not None:
        factory, behavior = grpc.unary_unary_rpc_method_handler, handler.unary_unary
    elif handler.unary_stream is not None:
        factory, behavior = grpc.unary_stream_rpc_method_handler, handler.unary_stream
    elif handler.stream_stream is not None:  # server reflection
        factory, behavior = grpc.stream_stream_rpc_method_handler, _reading(handler.stream_stream)
    else:
        return handler  # the platform has no client-streaming calls
    wrap = _streaming if inspect.isasyncgenfunction(behavior) else _unary
    return factory(
        wrap(behavior, _Observed(service, method)),
        request_deserializer=_decoding(service, method, handler.request_deserializer),
        response_serializer=handler.response_serializer,
    )


class _Undecodable:
    """What `_decoding` gives for request bytes that are no message of the method's type
    (cut short, corrupt, a string field that is not UTF-8). The method's wrapper refuses it
    with INVALID_ARGUMENT before the servicer is called, so such a call changes nothing."""

    __slots__ = ("message_type", "method")

    def __init__(self, method: str, message_type: str) -> None:
        self.method = method
        self.message_type = message_type

    def refusal(self) -> errors.Refusal:
        return errors.Refusal(
            grpc.StatusCode.INVALID_ARGUMENT,
            "undecodable_request",
            method=self.method,
            message=self.message_type,
        )


def _decoding(
    service: str, method: str, deserializer: Callable[[bytes], Any] | None
) -> Callable[[bytes], Any] | None:
    """The one request deserializer of every method: ``deserializer``'s message, or an
    `_Undecodable` saying which method and which message type the bytes are not. (grpc.aio
    itself would end such a call UNKNOWN, showing the decoder's Python exception.)"""
    if deserializer is None:
        return None  # the method takes the bytes as they are
    descriptor = getattr(getattr(deserializer, "__self__", None), "DESCRIPTOR", None)
    expected = "request" if descriptor is None else descriptor.full_name
    undecodable = _Undecodable(f"{service}/{method}", expected)

    def decode(data: bytes) -> Any:
        try:
            return deserializer(data)
        except Exception:  # the bytes alone decide, so whatever failed, they are not a request
            return undecodable

    return decode


def _reading(behavior: Callable[..., Any]) -> Callable[..., Any]:
    """A stream-stream ``behavior`` whose requests stop at the first `_Undecodable`, with its
    refusal raised where the servicer reads it."""

    async def decoded(requests: AsyncIterator[Any]) -> AsyncIterator[Any]:
        async for request in requests:
            if type(request) is _Undecodable:
                raise request.refusal()
            yield request

    if inspect.isasyncgenfunction(behavior):

        async def stream(requests: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
            async for response in behavior(decoded(requests), context):
                yield response

        return stream

    async def call(requests: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        return await behavior(decoded(requests), context)

    return call


class _Observed:
    """One method's metrics: its start and end counters and its timing, label values bound."""

    def __init__(self, service: str, method: str) -> None:
        self.labels = (service, method)
        self.started = STARTED.labels(service, method)
        self.seconds = HANDLING_SECONDS.labels(service, method)
        self.handled: dict[grpc.StatusCode, prometheus_client.Counter] = {}

    def ended(self, code: grpc.StatusCode, started: float) -> None:
        counter = self.handled.get(code)
        if counter is None:
            counter = self.handled[code] = HANDLED.labels(*self.labels, code.name)
        counter.inc()
        self.seconds.observe(time.perf_counter() - started)


def _ended_code(
    context: grpc.aio.ServicerContext[Any, Any], error: BaseException
) -> grpc.StatusCode:
    """The status a call that raised ``error`` ends with: the one it was aborted with, UNKNOWN
    for an error no status maps to, CANCELLED when the client, a deadline or shutdown ended it."""
    if isinstance(error, grpc.aio.AbortError):
        return context.code() or grpc.StatusCode.UNKNOWN
    if isinstance(error, Exception):
        return grpc.StatusCode.UNKNOWN
    return grpc.StatusCode.CANCELLED


def _unary(behavior: Callable[..., Any], observed: _Observed) -> Callable[..., Any]:
    async def call(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        observed.started.inc()
        started = time.perf_counter()
        try:
            try:
                if type(request) is _Undecodable:
                    raise request.refusal()
                response = await behavior(request, context)
            except Exception as error:
                await errors.abort_for(context, error, request)
        except BaseException as error:
            observed.ended(_ended_code(context, error), started)
            raise
        observed.ended(context.code() or grpc.StatusCode.OK, started)
        return response

    return call


def _streaming(behavior: Callable[..., Any], observed: _Observed) -> Callable[..., Any]:
    async def stream(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        observed.started.inc()
        started = time.perf_counter()
        try:
            try:
                if type(request) is _Undecodable:
                    raise request.refusal()
                async for response in behavior(request, context):
                    yield response
            except Exception as error:
                await errors.abort_for(context, error, request)
        except BaseException as error:
            observed.ended(_ended_code(context, error), started)
            raise
        observed.ended(context.code() or grpc.StatusCode.OK, started)

    return stream
