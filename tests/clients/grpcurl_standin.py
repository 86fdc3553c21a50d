"""A stand-in for grpcurl where it is not installed (it is a Go program, not in Debian): the
subset the docs use (docs/clients.md), driven by server reflection exactly as grpcurl is.

    python grpcurl_standin.py [-plaintext] [-emit-defaults] [-max-time S] [-H "k: v"]...
                              [-d JSON] ADDRESS (list | SERVICE/METHOD)

It asks the server's reflection (grpc.reflection.v1) for the method's file descriptors, builds the
request from the JSON, and prints each answer as grpcurl does (protobuf's JSON mapping, indented
by two, camelCase names; with -emit-defaults also fields left at their default). A failure is
printed as grpcurl prints it ("ERROR:", the code and message) with exit status 1.
"""

from __future__ import annotations

import sys

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, json_format, message_factory
from grpc_reflection.v1alpha import reflection_pb2

REFLECTION = "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo"


def parse(argv: list[str]) -> tuple[dict[str, object], list[str]]:
    flags: dict[str, object] = {"headers": [], "data": "", "defaults": False, "max_time": None}
    rest: list[str] = []
    args = iter(argv)
    for arg in args:
        if arg == "-plaintext":
            continue
        if arg == "-emit-defaults":
            flags["defaults"] = True
        elif arg == "-H":
            flags["headers"].append(next(args))  # type: ignore[union-attr]
        elif arg == "-d":
            flags["data"] = next(args)
        elif arg == "-max-time":
            flags["max_time"] = float(next(args))
        elif arg.startswith("-"):
            raise SystemExit(f"grpcurl stand-in: flag {arg} is not supported")
        else:
            rest.append(arg)
    return flags, rest


def reflect(channel: grpc.Channel, request: reflection_pb2.ServerReflectionRequest) -> object:
    call = channel.stream_stream(
        REFLECTION,
        request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
        response_deserializer=reflection_pb2.ServerReflectionResponse.FromString,
    )
    return next(iter(call(iter([request]))))


def method_types(channel: grpc.Channel, service: str, method: str) -> tuple[type, type, bool]:
    answer = reflect(
        channel, reflection_pb2.ServerReflectionRequest(file_containing_symbol=service)
    )
    pool = descriptor_pool.DescriptorPool()
    files = [
        descriptor_pb2.FileDescriptorProto.FromString(blob)
        for blob in answer.file_descriptor_response.file_descriptor_proto  # type: ignore[attr-defined]
    ]
    added: set[str] = set()
    while len(added) < len(files):  # dependencies first
        for file in files:
            if file.name not in added and all(d in added for d in file.dependency):
                pool.Add(file)
                added.add(file.name)
    found = pool.FindServiceByName(service).FindMethodByName(method)
    request = message_factory.GetMessageClass(found.input_type)
    response = message_factory.GetMessageClass(found.output_type)
    return request, response, found.server_streaming


def main(argv: list[str]) -> int:
    flags, rest = parse(argv)
    address, target = rest[0], rest[1]
    with grpc.insecure_channel(address) as channel:
        try:
            if target == "list":
                answer = reflect(channel, reflection_pb2.ServerReflectionRequest(list_services=""))
                for service in answer.list_services_response.service:  # type: ignore[attr-defined]
                    print(service.name)
                return 0
            service, _, method = target.rpartition("/")
            request_type, response_type, streaming = method_types(channel, service, method)
            request = json_format.Parse(str(flags["data"] or "{}"), request_type())
            metadata = [
                tuple(part.strip() for part in header.split(":", 1))
                for header in flags["headers"]  # type: ignore[union-attr]
            ]
            path = f"/{service}/{method}"
            kind = channel.unary_stream if streaming else channel.unary_unary
            call = kind(
                path,
                request_serializer=request_type.SerializeToString,
                response_deserializer=response_type.FromString,
            )
            answers = call(request, metadata=metadata, timeout=flags["max_time"])
            for answer in answers if streaming else [answers]:
                print(
                    json_format.MessageToJson(
                        answer,
                        indent=2,
                        always_print_fields_with_no_presence=bool(flags["defaults"]),
                    ),
                    flush=True,
                )
            return 0
        except grpc.RpcError as error:
            print(f"ERROR:\n  Code: {error.code().name}\n  Message: {error.details()}")
            return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
