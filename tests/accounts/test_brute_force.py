"""Guessing passwords (issue 26, "Hostile callers"): sign-in attempts are limited per username
and per address, across replicas, and hold even for the right password; an unknown username and
a wrong password get the same answer, byte for byte, and take comparable time (a dummy hash of
the same cost), so the answers tell nobody which names exist."""

from __future__ import annotations

import secrets
import statistics
import time
from collections.abc import AsyncIterator

import grpc
import pytest

from maumau.accounts.app import AccountsApp
from maumau.common.quotas import RELAY
from maumau.common.redis_server import EmbeddedRedis
from maumau.common.tokens import issue_service_token
from maumau.engine.app import EngineApp
from maumau.v1 import accounts_pb2 as pb
from maumau.v1 import accounts_pb2_grpc
from tests.accounts.support import Player, start_accounts, stop_accounts, trailer
from tests.support.engine import SECRET

PASSWORD = "the right passphrase"
PER_USERNAME = 5
PER_ADDRESS = 12


@pytest.fixture
async def limited(
    redis_server: EmbeddedRedis, engine: EngineApp
) -> AsyncIterator[list[AccountsApp]]:
    """Two replicas with tight limits; loopback is a trusted relay, so each test names a client
    address of its own (x-forwarded-for) and counts in windows nobody else uses."""
    apps = [
        await start_accounts(
            redis_server.url,
            f"127.0.0.1:{engine.port}",
            sign_ins_per_username=f"{PER_USERNAME} per minute",
            sign_ins_per_address=f"{PER_ADDRESS} per minute",
            rate_exempt_addresses="127.0.0.1/32",
        )
        for _ in range(2)
    ]
    yield apps
    for app in apps:
        await stop_accounts(app)


def client_address() -> tuple[tuple[str, str], ...]:
    return (("x-forwarded-for", f"2001:db8::{secrets.randbelow(2**16):x}"),)


async def attempt(
    stub: accounts_pb2_grpc.AccountsServiceStub, username: str, password: str, metadata: object
) -> grpc.aio.AioRpcError | None:
    try:
        await stub.SignIn(pb.SignInRequest(username=username, password=password), metadata=metadata)
    except grpc.aio.AioRpcError as error:
        return error
    return None


def answer(error: grpc.aio.AioRpcError | None) -> tuple[object, ...]:
    """Everything a caller sees of a refusal but the time it took."""
    assert error is not None
    shown = trailer(error)
    return error.code(), error.details(), shown["code"], repr(shown["params"])


async def test_the_limits_hold_across_replicas_and_for_the_right_password(
    address: str, limited: list[AccountsApp]
) -> None:
    player = await Player.register(address, f"127.0.0.1:{limited[0].port}")
    username = "brute" + secrets.token_hex(4)
    await player.claim(username, PASSWORD)
    channels = [grpc.aio.insecure_channel(f"127.0.0.1:{app.port}") for app in limited]
    stubs = [accounts_pb2_grpc.AccountsServiceStub(channel) for channel in channels]
    from_one = client_address()
    for n in range(PER_USERNAME):
        error = await attempt(stubs[n % 2], username, f"guess number {n}", from_one)
        assert answer(error)[0] == grpc.StatusCode.UNAUTHENTICATED
    for password in ("one guess more", PASSWORD):  # the right one is refused too
        error = await attempt(stubs[1], username, password, client_address())
        assert error is not None and error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        shown = trailer(error)
        assert shown["code"] == "sign_in_limited" and shown["params"]["who"] == "this username"
        assert 0 < int(shown["retry-after-ms"]) <= 60_000
        assert f"try again in {shown['params']['seconds']} s" in error.details()
    # Per address: fresh names from one address run out at the address's limit.
    spread = client_address()
    codes = [
        answer(await attempt(stubs[n % 2], f"nobody{secrets.token_hex(4)}", "a guess", spread))[0]
        for n in range(PER_ADDRESS + 2)
    ]
    assert codes.count(grpc.StatusCode.UNAUTHENTICATED) == PER_ADDRESS
    assert codes[PER_ADDRESS:] == [grpc.StatusCode.RESOURCE_EXHAUSTED] * 2
    for channel in channels:
        await channel.close()
    await player.close()


async def test_an_unknown_name_and_a_wrong_password_cannot_be_told_apart(
    redis_server: EmbeddedRedis, address: str, engine: EngineApp
) -> None:
    app = await start_accounts(
        redis_server.url,
        f"127.0.0.1:{engine.port}",
        password_time_cost=3,
        password_memory_kib=32 * 1024,  # the service's own cost, so timing is what it will be
        rate_exempt_addresses="127.0.0.1/32",
    )
    player = await Player.register(address, f"127.0.0.1:{app.port}")
    known = "known" + secrets.token_hex(4)
    await player.claim(known, PASSWORD)
    stub = player.stub
    unknown = "unknown" + secrets.token_hex(4)
    times: dict[str, list[float]] = {known: [], unknown: []}
    answers: dict[str, set[tuple[object, ...]]] = {known: set(), unknown: set()}
    for _ in range(6):
        for username in (known, unknown):
            started = time.perf_counter()
            error = await attempt(stub, username, "not the passphrase", client_address())
            times[username].append(time.perf_counter() - started)
            answers[username].add(answer(error))
    assert answers[known] == answers[unknown]
    assert len(answers[known]) == 1  # the same answer every time
    ratio = statistics.median(times[unknown]) / statistics.median(times[known])
    assert 0.5 < ratio < 2.0, times
    await player.close()
    await stop_accounts(app)


async def test_only_a_platform_service_may_name_the_address_it_relays_for(
    redis_server: EmbeddedRedis, address: str, engine: EngineApp
) -> None:
    """A stranger's ``x-forwarded-for`` counts nothing: made-up addresses, bare or with a
    service token signed by another secret, all spend the caller's own address; the gateway's
    service token in ``x-maumau-relay`` makes its word on the browser's address count."""
    app = await start_accounts(
        redis_server.url,
        f"127.0.0.1:{engine.port}",
        sign_ins_per_address=f"{PER_ADDRESS} per minute",
    )
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{app.port}")
    stub = accounts_pb2_grpc.AccountsServiceStub(channel)
    forged = issue_service_token(b"not the platform secret", "gateway")
    codes = []
    for n in range(PER_ADDRESS + 1):
        metadata = client_address() + (((RELAY, forged),) if n % 2 else ())
        error = await attempt(stub, f"nobody{secrets.token_hex(4)}", "a guess", metadata)
        codes.append(answer(error)[0])
    assert codes[:PER_ADDRESS] == [grpc.StatusCode.UNAUTHENTICATED] * PER_ADDRESS
    assert codes[PER_ADDRESS] == grpc.StatusCode.RESOURCE_EXHAUSTED  # loopback's own limit
    relayed = ((RELAY, issue_service_token(SECRET, "gateway")),)
    for _ in range(2):  # each browser its own window, though loopback's is spent
        error = await attempt(
            stub, "nobody" + secrets.token_hex(4), "a guess", client_address() + relayed
        )
        assert answer(error)[0] == grpc.StatusCode.UNAUTHENTICATED
    await channel.close()
    await stop_accounts(app)
