"""The hostile-input sweep: every RPC of every service, sent random and extreme requests (huge
strings, negative and huge numbers, random bytes, missing fields, unknown enum values), with and
without valid tokens, over real gRPC against real services on a redis-server of their own.
Whatever the request, the answer is a clear status: never UNKNOWN or INTERNAL (the standard:
"No status UNKNOWN or INTERNAL ever reaches a caller").

Requests are drawn from the request messages' descriptors, so an RPC added to a proto is swept
without a change here. A few examples per RPC under `make test`; many more with
MAUMAU_TEST_REQUIRE_ALL=1 or CI (or MAUMAU_HOSTILE_EXAMPLES=N).

Below them, bytes that are no request at all, sent raw to every method each server lists through
reflection: a valid request cut short, corrupt bytes, a string field that is not UTF-8. Each is
INVALID_ARGUMENT naming the method and its message type.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import descriptor as d
from google.protobuf import descriptor_pool, message_factory
from google.protobuf.message import DecodeError, Message
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maumau.common import tokens
from maumau.common.redis_server import EmbeddedRedis
from maumau.tournaments.app import TournamentsApp
from maumau.v1 import (
    accounts_pb2,
    accounts_pb2_grpc,
    arena_pb2,
    arena_pb2_grpc,
    bots_pb2,
    engine_pb2,
    game_pb2,
    matchmaking_pb2,
    players_pb2,
    rating_pb2,
    tournaments_pb2,
)
from tests.gateway.support import Platform, platform
from tests.support.engine import SECRET
from tests.tournaments.support import start_tournaments

PROTOS = {
    "engine": engine_pb2,
    "players": players_pb2,
    "bots": bots_pb2,
    "matchmaking": matchmaking_pb2,
    "rating": rating_pb2,
    "tournaments": tournaments_pb2,
    "accounts": accounts_pb2,
    "arena": arena_pb2,
}
METHODS = [
    (name, method)
    for name, module in PROTOS.items()
    for service in module.DESCRIPTOR.services_by_name.values()
    for method in service.methods
]
NEVER = {grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL}

_THOROUGH = bool(os.environ.get("CI")) or os.environ.get("MAUMAU_TEST_REQUIRE_ALL") == "1"
EXAMPLES = int(os.environ.get("MAUMAU_HOSTILE_EXAMPLES") or (30 if _THOROUGH else 12))
CALL_SECONDS = 5.0
"""A call that takes longer ends DEADLINE_EXCEEDED on the client: a clear status too (a Follow
stream waits for events that may never come)."""


@dataclass(repr=False)
class Target:
    platform: Platform
    tournaments: TournamentsApp
    ids: list[str]
    """Ids that exist (a player, a match), so requests also reach past the lookups."""
    tokens: list[str]

    def __repr__(self) -> str:
        return "Target(the platform)"


@contextlib.asynccontextmanager
async def _redis(folder: Path) -> AsyncIterator[EmbeddedRedis]:
    server = EmbeddedRedis(folder)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
async def target(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Target]:
    """The services on a redis-server of their own: the matches and tickets made here are
    nobody else's to play out."""
    async with (
        _redis(tmp_path_factory.mktemp("hostile-redis")) as server,
        platform(server.url) as services,
    ):
        engine = f"127.0.0.1:{services.engine.port}"
        tournaments = await start_tournaments(server.url, engine)
        try:
            async with grpc.aio.insecure_channel(engine) as channel:
                ids, issued = await _credentials(channel)
                accounts = f"127.0.0.1:{services.accounts.port}"
                more_ids, more = await _account_tokens(channel, accounts)
                yield Target(services, tournaments, ids + more_ids, issued + more)
        finally:
            await tournaments.stop(0)
            await tournaments.redis.aclose()


async def _credentials(channel: grpc.aio.Channel) -> tuple[list[str], list[str]]:
    """A registered player, a match of theirs, and every kind of token the platform issues
    (valid, expired, foreign)."""
    register = channel.unary_unary(
        "/maumau.v1.PlayersService/Register",
        request_serializer=players_pb2.RegisterRequest.SerializeToString,
        response_deserializer=players_pb2.RegisterResponse.FromString,
    )
    registered = await register(players_pb2.RegisterRequest(name="Hostile"))
    create = channel.unary_unary(
        "/maumau.v1.EngineService/CreateMatch",
        request_serializer=engine_pb2.CreateMatchRequest.SerializeToString,
        response_deserializer=engine_pb2.CreateMatchResponse.FromString,
    )
    created = await create(
        engine_pb2.CreateMatchRequest(
            ruleset=game_pb2.Ruleset(preset="classic"),
            seats=2,
            bots={1: game_pb2.BOT_LEVEL_RANDOM},
            auto_start=True,
        ),
        metadata=tokens.bearer_metadata(registered.player_token),
    )
    player_id, match_id = registered.player_id, created.match.match_id
    long_ago = time.time() - 10 * 86400
    issued = [
        registered.player_token,
        created.seat_tokens[0],
        tokens.issue_service_token(SECRET, "hostile"),
        tokens.issue_service_token(SECRET, "matchmaking"),  # past CreateMatches' door too
        tokens.issue_bots_token(SECRET, "hostile"),
        tokens.issue_player_token(SECRET, player_id, generation=7),  # revoked
        tokens.issue_player_token(SECRET, player_id, ttl_seconds=60, now=long_ago),  # expired
        tokens.issue_seat_token(SECRET, match_id, 5, player_id),  # a seat the match lacks
        tokens.issue_seat_token(SECRET, "no-such-match", 0, player_id),
        tokens.issue_player_token(b"another secret", player_id),
    ]
    return [player_id, match_id, registered.player_token[:20]], issued


async def _account_tokens(engine: grpc.aio.Channel, accounts: str) -> tuple[list[str], list[str]]:
    """An account's username and its tokens: a session's, and access tokens of each scope; a
    bot account's bot:play token, which the arena's calls take."""
    register = engine.unary_unary(
        "/maumau.v1.PlayersService/Register",
        request_serializer=players_pb2.RegisterRequest.SerializeToString,
        response_deserializer=players_pb2.RegisterResponse.FromString,
    )
    registered = await register(players_pb2.RegisterRequest(name="Hostile account"))
    async with grpc.aio.insecure_channel(accounts) as channel:
        stub = accounts_pb2_grpc.AccountsServiceStub(channel)
        claimed = await stub.Claim(
            accounts_pb2.ClaimRequest(username="hostile", password="hostile passphrase"),
            metadata=tokens.bearer_metadata(registered.player_token),
        )
        session = claimed.signed_in.player_token
        made = [
            await stub.CreateAccessToken(
                accounts_pb2.CreateAccessTokenRequest(name="hostile", scope=scope),
                metadata=tokens.bearer_metadata(session),
            )
            for scope in (accounts_pb2.TOKEN_SCOPE_READ, accounts_pb2.TOKEN_SCOPE_PLAY)
        ]
        robot = await register(players_pb2.RegisterRequest(name="Hostile bot"))
        robot_claimed = await stub.Claim(
            accounts_pb2.ClaimRequest(username="hostilebot", password="hostile passphrase"),
            metadata=tokens.bearer_metadata(robot.player_token),
        )
        robot_session = tokens.bearer_metadata(robot_claimed.signed_in.player_token)
        await arena_pb2_grpc.ArenaServiceStub(channel).BecomeBot(
            arena_pb2.BecomeBotRequest(), metadata=robot_session
        )
        bot_play = await stub.CreateAccessToken(
            accounts_pb2.CreateAccessTokenRequest(
                name="hostile", scope=accounts_pb2.TOKEN_SCOPE_BOT_PLAY
            ),
            metadata=robot_session,
        )
    player_id = registered.player_id
    return ["hostile", made[0].token.token_id, claimed.signed_in.session_id, robot.player_id], [
        session,
        *(answer.access_token for answer in made),
        tokens.issue_player_token(SECRET, player_id, scope=tokens.Scope.BOT_PLAY, session="x"),
        bot_play.access_token,  # a bot account's: past the arena's door
    ]


# ---------------------------------------------------------------- requests from descriptors

_INT_RANGES = {
    d.FieldDescriptor.TYPE_INT32: (-(2**31), 2**31 - 1),
    d.FieldDescriptor.TYPE_SINT32: (-(2**31), 2**31 - 1),
    d.FieldDescriptor.TYPE_SFIXED32: (-(2**31), 2**31 - 1),
    d.FieldDescriptor.TYPE_INT64: (-(2**63), 2**63 - 1),
    d.FieldDescriptor.TYPE_SINT64: (-(2**63), 2**63 - 1),
    d.FieldDescriptor.TYPE_SFIXED64: (-(2**63), 2**63 - 1),
    d.FieldDescriptor.TYPE_UINT32: (0, 2**32 - 1),
    d.FieldDescriptor.TYPE_FIXED32: (0, 2**32 - 1),
    d.FieldDescriptor.TYPE_UINT64: (0, 2**64 - 1),
    d.FieldDescriptor.TYPE_FIXED64: (0, 2**64 - 1),
}


def _integers(low: int, high: int) -> st.SearchStrategy[int]:
    edges = [v for v in (low, high, -1, 0, 1, 2, 3, 7, 8, 9, 100, 2**31 - 1) if low <= v <= high]
    return st.one_of(
        st.sampled_from(edges),
        st.integers(low, high),
        st.integers(-3, 10).filter(lambda v: low <= v <= high),
    )


def _strings(ids: list[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.text(max_size=40),
        st.sampled_from(["", " ", "classic", "online", "colour", "ostfriesland", "7H", "JD:S",
                         "draw", "de", "en", "0", "-1", "1-", "0-0", "9" * 23, "\x00", "é" * 3]),
        st.sampled_from(ids),
        st.integers(1, 70_000).map(lambda n: "x" * n),  # beyond the receive limit too
        st.binary(max_size=30).map(lambda b: b.decode("latin-1")),
    )  # fmt: skip


def _value(field: d.FieldDescriptor, ids: list[str], depth: int) -> st.SearchStrategy[Any]:
    kind = field.type
    if kind == d.FieldDescriptor.TYPE_MESSAGE:
        return _message(field.message_type, ids, depth + 1)
    if kind == d.FieldDescriptor.TYPE_STRING:
        return _strings(ids)
    if kind == d.FieldDescriptor.TYPE_BYTES:
        return st.binary(max_size=200)
    if kind == d.FieldDescriptor.TYPE_BOOL:
        return st.booleans()
    if kind in (d.FieldDescriptor.TYPE_DOUBLE, d.FieldDescriptor.TYPE_FLOAT):
        return st.floats(allow_nan=True, allow_infinity=True, width=32)
    if kind == d.FieldDescriptor.TYPE_ENUM:  # proto3 enums are open: unknown numbers arrive
        return _integers(-(2**31), 2**31 - 1)
    return _integers(*_INT_RANGES[kind])


def _message(
    descriptor: d.Descriptor, ids: list[str], depth: int = 0
) -> st.SearchStrategy[dict[str, Any]]:
    """Values for some of the message's fields (missing ones keep their defaults)."""
    if depth > 3:
        return st.just({})
    fields: dict[str, st.SearchStrategy[Any]] = {}
    for field in descriptor.fields:
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            key, value = (
                field.message_type.fields_by_name["key"],
                field.message_type.fields_by_name["value"],
            )
            fields[field.name] = st.dictionaries(
                _value(key, ids, depth), _value(value, ids, depth), max_size=10
            )
        elif field.is_repeated:
            single = _value(field, ids, depth)
            fields[field.name] = st.one_of(
                st.lists(single, max_size=6), st.lists(single, min_size=50, max_size=300)
            )
        else:
            fields[field.name] = _value(field, ids, depth)
    return st.fixed_dictionaries({}, optional=fields)


def _build(cls: type[Message], values: dict[str, Any]) -> Message:
    message = cls()
    _fill(message, values)
    return message


def _fill(message: Message, values: dict[str, Any]) -> None:
    for name, value in values.items():
        field = message.DESCRIPTOR.fields_by_name[name]
        target = getattr(message, name)
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            entry = field.message_type.fields_by_name["value"]
            for key, item in value.items():
                if entry.message_type is not None:
                    _fill(target[key], item)
                else:
                    target[key] = item
        elif field.is_repeated:
            for item in value:
                if field.message_type is not None:
                    _fill(target.add(), item)
                else:
                    target.append(item)
        elif field.message_type is not None:
            _fill(target, value)
            if not value:
                target.SetInParent()
        else:
            setattr(message, name, value)


# ---------------------------------------------------------------- the sweep


def _address(target: Target, service: str) -> str:
    services = target.platform
    port = {
        "engine": services.engine.port,
        "players": services.engine.port,
        "bots": services.bots.port,
        "matchmaking": services.matchmaking.port,
        "rating": services.rating.port,
        "tournaments": target.tournaments.port,
        "accounts": services.accounts.port,
        "arena": services.accounts.port,
    }[service]
    return f"127.0.0.1:{port}"


async def _call(
    channel: grpc.aio.Channel, method: d.MethodDescriptor, request: Message, token: str | None
) -> grpc.StatusCode:
    path = f"/{method.containing_service.full_name}/{method.name}"
    output = PROTOS_BY_NAME[method.output_type.full_name]
    metadata = () if token is None else tokens.bearer_metadata(token)
    options: dict[str, Any] = {
        "request_serializer": type(request).SerializeToString,
        "response_deserializer": output.FromString,
    }
    try:
        if method.server_streaming:
            stream = channel.unary_stream(path, **options)(
                request, metadata=metadata, timeout=CALL_SECONDS
            )
            for _ in range(3):
                if await stream.read() is grpc.aio.EOF:
                    break
            stream.cancel()
        else:
            await channel.unary_unary(path, **options)(
                request, metadata=metadata, timeout=CALL_SECONDS
            )
    except grpc.aio.AioRpcError as error:
        assert error.code() not in NEVER, f"{path} answered {error.code()}: {error.details()}"
        return error.code()
    return grpc.StatusCode.OK


def _classes() -> dict[str, type[Message]]:
    found: dict[str, type[Message]] = {}
    for module in PROTOS.values():
        for message in module.DESCRIPTOR.message_types_by_name.values():
            found[message.full_name] = getattr(module, message.name)
    for module in (game_pb2,):
        for message in module.DESCRIPTOR.message_types_by_name.values():
            found[message.full_name] = getattr(module, message.name)
    return found


PROTOS_BY_NAME = _classes()


TOKENS = ["", "garbage", "a.b.c", "Bearer", "x" * 5000]


@pytest.mark.parametrize(("service", "method"), METHODS, ids=[f"{s}.{m.name}" for s, m in METHODS])
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.function_scoped_fixture,
    ],
)
@given(data=st.data())
async def test_no_request_gets_unknown_or_internal(
    target: Target, service: str, method: d.MethodDescriptor, data: st.DataObject
) -> None:
    request_class = PROTOS_BY_NAME[method.input_type.full_name]
    values = data.draw(_message(method.input_type, target.ids), label="request")
    token = data.draw(
        st.one_of(st.none(), st.sampled_from(target.tokens), st.sampled_from(TOKENS)),
        label="token",
    )
    async with grpc.aio.insecure_channel(_address(target, service)) as channel:
        await _call(channel, method, _build(request_class, values), token)


# ---------------------------------------------------------------- bytes that do not decode

SERVERS = ("engine", "bots", "matchmaking", "rating", "tournaments", "accounts")
UNKNOWN_FIELD = 2**29 - 1
"""The highest field number a message may have: unused in every request, so a field of it is
an unknown field, which a valid message may carry."""


def _varint(value: int) -> bytes:
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _length_delimited(number: int, payload: bytes) -> bytes:
    """One field of wire type 2 (string, bytes, message): tag, length, payload."""
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _decodes(descriptor: d.Descriptor, data: bytes) -> bool:
    try:
        message_factory.GetMessageClass(descriptor).FromString(data)
    except DecodeError:
        return False
    return True


def _truncated(descriptor: d.Descriptor) -> bytes:
    """A valid request (its string fields set; one unknown field if it has none) short of its
    last byte, as a connection cut mid-message or a wrong length would leave it."""
    message = message_factory.GetMessageClass(descriptor)()
    for field in descriptor.fields:
        if field.type == d.FieldDescriptor.TYPE_STRING and not field.is_repeated:
            setattr(message, field.name, "hostile")
    valid = message.SerializeToString() or _length_delimited(UNKNOWN_FIELD, b"hostile")
    assert _decodes(descriptor, valid), descriptor.full_name
    return valid[:-1]


def _not_utf8(descriptor: d.Descriptor, depth: int = 0) -> bytes | None:
    """A request whose first string field (in the message or one it holds) is the bytes
    ff fe, which are not UTF-8; None for a request without a string anywhere."""
    for field in descriptor.fields:
        if field.type == d.FieldDescriptor.TYPE_STRING:
            return _length_delimited(field.number, b"\xff\xfe")
    for field in descriptor.fields:
        if field.type == d.FieldDescriptor.TYPE_MESSAGE and depth < 3:
            inner = _not_utf8(field.message_type, depth + 1)
            if inner is not None:
                return _length_delimited(field.number, inner)
    return None


BAD_BYTES: dict[str, Any] = {
    "truncated": _truncated,
    "corrupt": lambda descriptor: b"\xff\xff\xff",  # a tag whose varint never ends
    "not-utf8": _not_utf8,
}


async def _served_methods(channel: grpc.aio.Channel) -> list[d.MethodDescriptor]:
    """Every method of every service the server lists through reflection (its own, health,
    reflection), so an RPC or a service added anywhere is swept without a change here."""
    call = reflection_pb2_grpc.ServerReflectionStub(channel).ServerReflectionInfo()
    await call.write(reflection_pb2.ServerReflectionRequest(list_services=""))
    listed = await call.read()
    await call.done_writing()
    pool = descriptor_pool.Default()
    return [
        method
        for service in listed.list_services_response.service
        for method in pool.FindServiceByName(service.name).methods
    ]


async def _raw_call(
    channel: grpc.aio.Channel, method: d.MethodDescriptor, data: bytes
) -> grpc.aio.AioRpcError | None:
    """Send ``data`` as the request, as it is (no serializer); the error it ended with."""
    path = f"/{method.containing_service.full_name}/{method.name}"
    raw: dict[str, Any] = {"request_serializer": None, "response_deserializer": None}
    try:
        if method.client_streaming:
            stream = channel.stream_stream(path, **raw)(iter([data]), timeout=CALL_SECONDS)
            async for _ in stream:
                pass
        elif method.server_streaming:
            async for _ in channel.unary_stream(path, **raw)(data, timeout=CALL_SECONDS):
                pass
        else:
            await channel.unary_unary(path, **raw)(data, timeout=CALL_SECONDS)
    except grpc.aio.AioRpcError as error:
        return error
    return None


@pytest.mark.parametrize("kind", BAD_BYTES)
@pytest.mark.parametrize("server", SERVERS)
async def test_bytes_that_do_not_decode_are_invalid_argument(
    target: Target, server: str, kind: str
) -> None:
    """Bytes that are no request of the method's type (cut short, corrupt, a string that is not
    UTF-8) are INVALID_ARGUMENT saying which method and which message, on every RPC of every
    server, with or without a token: never UNKNOWN with a Python class in the details."""
    async with grpc.aio.insecure_channel(_address(target, server)) as channel:
        methods = await _served_methods(channel)
        assert len({m.containing_service.full_name for m in methods}) >= 4, methods  # + health
        wrong, swept = [], 0
        for method in methods:
            data = BAD_BYTES[kind](method.input_type)
            if data is None:
                continue  # no string field to hold bytes that are not UTF-8
            assert not _decodes(method.input_type, data), (method.full_name, data)
            swept += 1
            error = await _raw_call(channel, method, data)
            code = None if error is None else error.code()
            details = "" if error is None else error.details() or ""
            if (
                code != grpc.StatusCode.INVALID_ARGUMENT
                or method.name not in details
                or method.input_type.name not in details
                or "class" in details
            ):
                wrong.append(f"{method.full_name} answered {code}: {details!r}")
        assert swept > 0
        assert not wrong, "\n".join(wrong)


# ---------------------------------------------------------------- tokens of the wrong kind

TOKEN_SERVICES = ("engine", "players", "bots", "matchmaking", "tournaments")
"""The services whose calls take a token (rating's calls are public)."""


async def _answer(
    channel: grpc.aio.Channel, method: d.MethodDescriptor, token: str
) -> tuple[grpc.StatusCode, str]:
    """The status and details an empty request with ``token`` gets (a stream: its first
    message)."""
    path = f"/{method.containing_service.full_name}/{method.name}"
    request = PROTOS_BY_NAME[method.input_type.full_name]()
    options: dict[str, Any] = {
        "request_serializer": type(request).SerializeToString,
        "response_deserializer": PROTOS_BY_NAME[method.output_type.full_name].FromString,
    }
    metadata = tokens.bearer_metadata(token)
    try:
        if method.server_streaming:
            stream = channel.unary_stream(path, **options)(
                request, metadata=metadata, timeout=CALL_SECONDS
            )
            await stream.read()
            stream.cancel()
        else:
            await channel.unary_unary(path, **options)(
                request, metadata=metadata, timeout=CALL_SECONDS
            )
    except grpc.aio.AioRpcError as error:
        return error.code(), error.details() or ""
    return grpc.StatusCode.OK, ""


async def test_a_valid_token_of_the_wrong_kind_is_permission_denied_on_every_service(
    target: Target,
) -> None:
    """engine.proto, matchmaking.proto, tournaments.proto, players.proto, bots.proto: a missing
    or bad token is UNAUTHENTICATED, a valid token of another kind PERMISSION_DENIED (it is a
    good token, only not one this call takes; it used to be UNAUTHENTICATED, which tells a
    client to sign in again). Every method of every service that takes a token, sent a valid
    player, seat, service and bots token each: none is UNAUTHENTICATED, and each refusal of a
    token's kind ("a seat token is needed") is PERMISSION_DENIED."""
    engine = _address(target, "engine")
    async with grpc.aio.insecure_channel(engine) as channel:
        _, issued = await _credentials(channel)  # a new player, and a match of theirs
    player, seat = issued[0], issued[1]
    valid = {
        "player": player,
        "seat": seat,
        "service": tokens.issue_service_token(SECRET, "hostile"),
        "bots": tokens.issue_bots_token(SECRET, "hostile"),
    }
    kinds_refused: dict[str, set[str]] = {service: set() for service in TOKEN_SERVICES}
    for service, method in METHODS:
        if service not in TOKEN_SERVICES or (service, method.name) == ("players", "Register"):
            continue
        async with grpc.aio.insecure_channel(_address(target, service)) as channel:
            for kind, token in valid.items():
                if method.name == "RevokeTokens" and kind == "player":
                    continue  # it would end the player token the other calls are sent
                code, details = await _answer(channel, method, token)
                where = f"{service}.{method.name} with a {kind} token: {code} {details}"
                assert code != grpc.StatusCode.UNAUTHENTICATED, where
                if "token is needed" in details:
                    assert code == grpc.StatusCode.PERMISSION_DENIED, where
                    kinds_refused[service].add(kind)
    assert all(kinds_refused.values()), kinds_refused
