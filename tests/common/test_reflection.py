"""Reflection is served as grpc.reflection.v1 (what current grpcurl asks for first) and as
v1alpha (older tools), listing and describing the platform's services either way."""

from __future__ import annotations

import grpc
import pytest
from google.protobuf import descriptor_pb2
from grpc_reflection.v1alpha import reflection_pb2

from maumau.bots.app import BotsApp
from maumau.common.config import ServiceConfig


@pytest.mark.parametrize("version", ["v1", "v1alpha"])
async def test_reflection_lists_and_describes_services_as_v1_and_v1alpha(version):
    server = BotsApp(ServiceConfig(host="127.0.0.1", port=0, metrics_port=0), b"reflection")
    await server.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
            call = channel.stream_stream(
                f"/grpc.reflection.{version}.ServerReflection/ServerReflectionInfo",
                request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
                response_deserializer=reflection_pb2.ServerReflectionResponse.FromString,
            )
            answers = [
                answer
                async for answer in call(
                    iter(
                        [
                            reflection_pb2.ServerReflectionRequest(list_services=""),
                            reflection_pb2.ServerReflectionRequest(
                                file_containing_symbol="maumau.v1.BotsService"
                            ),
                            reflection_pb2.ServerReflectionRequest(
                                file_containing_symbol="grpc.reflection.v1.ServerReflection"
                            ),
                        ]
                    )
                )
            ]
    finally:
        await server.stop(0)
    names = {s.name for s in answers[0].list_services_response.service}
    assert {"maumau.v1.BotsService", "grpc.reflection.v1.ServerReflection"} <= names
    assert "grpc.reflection.v1alpha.ServerReflection" in names
    files = [
        descriptor_pb2.FileDescriptorProto.FromString(blob)
        for blob in answers[1].file_descriptor_response.file_descriptor_proto
    ]
    assert any(f.package == "maumau.v1" and f.service for f in files)
    v1 = descriptor_pb2.FileDescriptorProto.FromString(
        answers[2].file_descriptor_response.file_descriptor_proto[0]
    )
    assert v1.package == "grpc.reflection.v1" and v1.service[0].name == "ServerReflection"
