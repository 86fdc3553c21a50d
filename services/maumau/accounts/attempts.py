"""Sign-in attempts, limited per username and per client address, across replicas.

Each limit is a counter with an expiry in Redis (the ``limits`` package's fixed windows, keys
``quota/...`` beside the platform's other limits): every attempt counts before its password is
hashed, so a flood past the limit costs no hashing. A username counts whether an account has it
or not (its folded form), so the limit tells nothing about which names exist. Past a limit:
RESOURCE_EXHAUSTED with ``retry-after-ms``, when its window resets.

The address is the gRPC peer's host. A trusted relay names the client it relays for in the
metadata ``x-forwarded-for`` (its first entry): a platform service that shows its service token in
``x-maumau-relay`` (the gateway does, for every browser), or a peer listed in
``MAUMAU_RATE_EXEMPT_ADDRESSES``. Nobody else's ``x-forwarded-for`` counts, so a stranger cannot
spread its attempts over addresses it makes up.
"""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Sequence
from typing import Any

import grpc
import redis.asyncio as redis
from limits import RateLimitItem, parse
from limits.aio.strategies import FixedWindowRateLimiter

from maumau.accounts.errors import AccountExhausted
from maumau.common import tokens
from maumau.common.quotas import (
    FORWARDED_FOR,
    RELAY,
    Network,
    exempted,
    limits_storage,
    peer_host,
)


def relayed_by_service(context: grpc.aio.ServicerContext[Any, Any], secret: bytes) -> bool:
    """Whether the call shows a platform service's token in :data:`RELAY`."""
    for key, value in context.invocation_metadata() or ():
        if key == RELAY and isinstance(value, str):
            try:
                tokens.verify_service_token(secret, value)
            except tokens.TokenError:
                return False
            return True
    return False


def client_address(
    context: grpc.aio.ServicerContext[Any, Any], relays: Sequence[Network], secret: bytes
) -> str:
    """The caller's address: the peer's, or what a trusted relay says it relays for."""
    host = peer_host(context)
    if not exempted(host, relays) and not relayed_by_service(context, secret):
        return host
    for key, value in context.invocation_metadata() or ():
        if key == FORWARDED_FOR and isinstance(value, str):
            first = value.split(",")[0].strip()
            try:
                return str(ipaddress.ip_address(first))
            except ValueError:
                break
    return host


class Attempts:
    """The sign-in limits of one service replica."""

    def __init__(
        self,
        client: redis.Redis,
        per_username: str,
        per_address: str,
        relays: Sequence[str],
        secret: bytes,
    ) -> None:
        self._secret = secret
        self._limiter = FixedWindowRateLimiter(limits_storage(client))
        self._per_username = parse(per_username)
        self._per_address = parse(per_address)
        self.relays: list[Network] = [ipaddress.ip_network(r, strict=False) for r in relays]

    def address(self, context: grpc.aio.ServicerContext[Any, Any]) -> str:
        return client_address(context, self.relays, self._secret)

    async def spend(self, address: str, folded_username: str | None) -> None:
        """Count one sign-in attempt from ``address`` (for ``folded_username``, a password
        sign-in); AccountExhausted past a limit."""
        await self._hit(self._per_address, "sign-in-address", address, f"address {address}")
        if folded_username is not None:
            await self._hit(
                self._per_username, "sign-in-username", folded_username, "this username"
            )

    async def _hit(self, rate: RateLimitItem, scope: str, who: str, name: str) -> None:
        if await self._limiter.hit(rate, scope, who):
            return
        stats = await self._limiter.get_window_stats(rate, scope, who)
        wait = max(0.001, stats.reset_time - time.time())
        raise AccountExhausted("sign_in_limited", {"who": name, "seconds": round(wait)}, wait)
