"""Accounts replicas for tests, and their callers: each player a channel of its own."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import grpc

from maumau.accounts.app import AccountsApp
from maumau.accounts.settings import Settings
from maumau.common.config import ServiceConfig
from maumau.common.redis_client import connect
from maumau.v1 import accounts_pb2 as pb
from maumau.v1 import accounts_pb2_grpc, players_pb2, players_pb2_grpc
from tests.support.engine import SECRET
from tests.support.rpc import auth

ORIGIN = "http://localhost:8080"
GENEROUS = "100000 per minute"

CHEAP_HASHES = {"password_time_cost": 1, "password_memory_kib": 8 * 1024}
"""argon2id at its least for tests that hash many passwords (bench/accounts.py measures the
real parameters)."""


def settings(engine_address: str = "127.0.0.1:9", **changes: object) -> Settings:
    defaults: dict[str, object] = {
        **CHEAP_HASHES,
        "engine_address": engine_address,
        "rating_address": changes.pop("rating_address", "127.0.0.1:9"),
        "tournaments_address": changes.pop("tournaments_address", "127.0.0.1:9"),
        "sign_ins_per_username": GENEROUS,
        "sign_ins_per_address": GENEROUS,
        "origins": ORIGIN,
        "rp_id": "localhost",
    }
    return Settings(**{**defaults, **changes})  # type: ignore[arg-type]


async def start_accounts(
    redis_url: str, engine_address: str = "127.0.0.1:9", **changes: object
) -> AccountsApp:
    client = await connect(redis_url)
    config = ServiceConfig(host="127.0.0.1", port=0, metrics_port=0, health_interval_seconds=0.2)
    app = AccountsApp(client, config, SECRET, settings(engine_address, **changes))
    await app.start()
    return app


async def stop_accounts(app: AccountsApp) -> None:
    await app.stop(0)
    await app.redis.aclose()


@dataclass
class Player:
    """A player as a client holds it: a channel to the engine (Players) and one to Accounts."""

    engine: grpc.aio.Channel
    accounts: grpc.aio.Channel
    player_id: str
    token: str

    @property
    def stub(self) -> accounts_pb2_grpc.AccountsServiceStub:
        return accounts_pb2_grpc.AccountsServiceStub(self.accounts)

    @property
    def auth(self) -> tuple[tuple[str, str], ...]:
        return auth(self.token)

    @classmethod
    async def register(cls, engine: str, accounts: str, name: str = "Anon") -> Player:
        engine_channel = grpc.aio.insecure_channel(engine)
        reply = await players_pb2_grpc.PlayersServiceStub(engine_channel).Register(
            players_pb2.RegisterRequest(name=name)
        )
        return cls(
            engine_channel, grpc.aio.insecure_channel(accounts), reply.player_id, reply.player_token
        )

    async def claim(self, username: str, password: str = "", device: str = "") -> pb.ClaimResponse:
        answer = await self.stub.Claim(
            pb.ClaimRequest(username=username, password=password, device=device), metadata=self.auth
        )
        self.token = answer.signed_in.player_token
        return answer

    async def close(self) -> None:
        await self.engine.close()
        await self.accounts.close()


def trailer(error: grpc.aio.AioRpcError) -> dict[str, Any]:
    """The error's code and params from its trailing metadata."""
    found = {key: value for key, value in error.trailing_metadata() or ()}
    params = found.get("maumau-error-params")
    return {
        "code": found.get("maumau-error-code"),
        "params": json.loads(params) if isinstance(params, str) else None,
        "retry-after-ms": found.get("retry-after-ms"),
    }
