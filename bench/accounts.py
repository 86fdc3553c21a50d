"""The Accounts service: what one password hash costs, and password sign-ins per second of one
process.

The hash: argon2id with the service's parameters (``maumau.accounts.passwords.Cost``, the
settings' defaults), in this process, each hash timed in CPU time of its thread (what it costs a
core, whatever else the machine runs) and in wall time; the goal is 50-150 ms of a core.

Sign-ins: one real ``python -m maumau.accounts`` over a real ``redis-server``, its hashing
concurrency as configured (2), the limits off; ``CLIENTS`` clients sign in again and again with
the right password for the measured time, each its own account. Sign-ins per second per process
follow from the hash cost and the hashing slots: about ``concurrency / hash time`` on as many
free cores.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import grpc
import redis.asyncio

from bench.engine import process, until_ready
from maumau.accounts.passwords import Cost, Hasher
from maumau.accounts.settings import Settings
from maumau.common import tokens
from maumau.common.redis_server import EmbeddedRedis, free_port
from maumau.v1 import accounts_pb2 as pb
from maumau.v1 import accounts_pb2_grpc
from maumau.v1.accounts_pb2_grpc import AccountsServiceStub

SECRET = "bench-accounts-" + "x" * 32
CLIENTS = 8
HASHES = 12
PASSWORD = "a bench passphrase of its own"


def hash_cost() -> dict[str, float]:
    """CPU and wall milliseconds of one argon2id hash with the service's default parameters."""
    defaults = Settings.model_fields
    cost = Cost(
        defaults["password_time_cost"].default,
        defaults["password_memory_kib"].default,
        defaults["password_parallelism"].default,
    )
    hasher = Hasher(cost, concurrency=1)
    cpu, wall = [], []
    for n in range(HASHES):
        started_cpu, started = time.thread_time(), time.perf_counter()
        hasher._hasher.hash(f"{PASSWORD} {n}")
        cpu.append(time.thread_time() - started_cpu)
        wall.append(time.perf_counter() - started)
    return {
        "accounts.argon2.time_cost": cost.time_cost,
        "accounts.argon2.memory_kib": cost.memory_kib,
        "accounts.argon2.parallelism": cost.parallelism,
        "accounts.argon2.hash_cpu_ms": statistics.median(cpu) * 1000,
        "accounts.argon2.hash_wall_ms": statistics.median(wall) * 1000,
    }


async def _sign_ins(address: str, redis_url: str, seconds: float) -> dict[str, float]:
    client = redis.asyncio.Redis.from_url(redis_url)
    async with grpc.aio.insecure_channel(address) as channel:
        stub = AccountsServiceStub(channel)
        names = []
        for n in range(CLIENTS):
            player_id = tokens.new_id()
            await client.hset(f"player:{{{player_id}}}", "name", f"bench {n}")
            token = tokens.issue_player_token(SECRET.encode(), player_id, generation=0)
            name = f"bench{n}x{player_id[:6].replace('-', 'a').replace('_', 'b')}"
            await stub.Claim(
                pb.ClaimRequest(username=name, password=PASSWORD),
                metadata=tokens.bearer_metadata(token),
            )
            names.append(name)
        latencies: list[float] = []
        deadline = time.monotonic() + seconds

        async def signing_in(name: str) -> None:
            request = pb.SignInRequest(username=name, password=PASSWORD, device="bench")
            while time.monotonic() < deadline:
                started = time.perf_counter()
                await stub.SignIn(request)
                latencies.append(time.perf_counter() - started)

        started = time.monotonic()
        await asyncio.gather(*(signing_in(name) for name in names))
        elapsed = time.monotonic() - started
    await client.aclose()
    latencies.sort()
    return {
        "accounts.sign_ins_per_s": len(latencies) / elapsed,
        "accounts.sign_in_p50_ms": latencies[len(latencies) // 2] * 1000,
        "accounts.sign_in_p99_ms": latencies[int(len(latencies) * 0.99)] * 1000,
    }


def bench_accounts(seconds: float) -> dict[str, float]:
    print("accounts: argon2id per hash, password sign-ins of one process:")
    figures = hash_cost()
    print(
        f"  argon2id t={figures['accounts.argon2.time_cost']:.0f} "
        f"m={figures['accounts.argon2.memory_kib'] / 1024:.0f} MiB "
        f"p={figures['accounts.argon2.parallelism']:.0f}: "
        f"{figures['accounts.argon2.hash_cpu_ms']:.0f} ms of a core "
        f"({figures['accounts.argon2.hash_wall_ms']:.0f} ms wall) per hash"
    )
    with tempfile.TemporaryDirectory() as folder, EmbeddedRedis(Path(folder) / "redis") as store:
        port, log = free_port(), Path(folder) / "accounts.log"
        env = {
            **os.environ,
            "REDIS_URL": store.url,
            "MAUMAU_TOKEN_SECRET": SECRET,
            "MAUMAU_ACCOUNTS_PORT": str(port),
            "MAUMAU_ACCOUNTS_METRICS_PORT": str(free_port()),
            "MAUMAU_ACCOUNTS_SIGN_INS_PER_USERNAME": "1000000/minute",
            "MAUMAU_ACCOUNTS_SIGN_INS_PER_ADDRESS": "1000000/minute",
        }
        address = f"127.0.0.1:{port}"
        with process([sys.executable, "-m", "maumau.accounts"], log, env):

            async def run() -> dict[str, float]:
                async def up() -> bool:
                    async with grpc.aio.insecure_channel(address) as channel:
                        stub = accounts_pb2_grpc.AccountsServiceStub(channel)
                        await stub.ListProviders(pb.ListProvidersRequest(), timeout=1)
                    return True

                await until_ready(up, "the accounts service", log)
                return await _sign_ins(address, store.url, seconds)

            figures.update(asyncio.run(run()))
    print(
        f"  {figures['accounts.sign_ins_per_s']:.1f} password sign-ins/s per process "
        f"({CLIENTS} clients; p50 {figures['accounts.sign_in_p50_ms']:.0f} ms, "
        f"p99 {figures['accounts.sign_in_p99_ms']:.0f} ms)"
    )
    return figures


if __name__ == "__main__":
    print(bench_accounts(float(sys.argv[1]) if len(sys.argv) > 1 else 5.0))
