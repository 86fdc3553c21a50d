"""Rate limits on the calls that make the platform hold something: per player and per address.

Every service's adapter spends from a :class:`Quotas` before it creates anything (a player, a
match, a room, a ticket, a tournament or a registration). The counts live in Redis (the
``limits`` package's moving windows, under keys ``quota/...``), so every replica counts against
the same windows. A call past a limit is refused with :class:`~maumau.common.errors.Exhausted`:
RESOURCE_EXHAUSTED, a message naming the limit, and ``retry-after-ms`` in the trailing metadata.

The address is the gRPC peer's host. Calls relayed for many people by one trusted proxy (the
gateway, which limits its own clients' addresses) come from its address; list such proxies in
``MAUMAU_RATE_EXEMPT_ADDRESSES`` so only the per-player limit applies to them.
"""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import grpc
import redis.asyncio as redis
from limits import RateLimitItem, parse
from limits.aio.storage import RedisClusterStorage, RedisStorage
from limits.aio.strategies import MovingWindowRateLimiter
from redis.asyncio.cluster import RedisCluster

from maumau.common.errors import Exhausted

KEY_PREFIX = "quota"
FORWARDED_FOR = "x-forwarded-for"
"""Metadata in which a trusted relay names the client it relays for (its first entry)."""
RELAY = "x-maumau-relay"
"""Metadata with the service token of a platform service relaying for clients (the gateway's
calls for browsers): it makes the service's ``x-forwarded-for`` trusted."""
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclass(frozen=True)
class Rates:
    """How many creating calls one player and one address may make: ``limits`` notation."""

    per_player: str = "120/minute"
    per_address: str = "600/minute"
    registrations_per_address: str = "60/minute"
    exempt_addresses: tuple[str, ...] = ()
    """Networks (CIDR) of trusted proxies, to which no per-address limit applies."""


def peer_host(context: grpc.aio.ServicerContext[Any, Any]) -> str:
    """The caller's host from gRPC's peer text (``ipv4:1.2.3.4:5678``, ``ipv6:[::1]:5678``,
    ``unix:/path``).

    >>> class Peer:
    ...     def __init__(self, text): self.text = text
    ...     def peer(self): return self.text
    >>> peer_host(Peer("ipv4:10.1.2.3:5000")), peer_host(Peer("ipv6:[::1]:80"))
    ('10.1.2.3', '::1')
    """
    kind, _, rest = context.peer().partition(":")
    if kind == "ipv4":
        return rest.rpartition(":")[0]
    if kind == "ipv6":
        return rest.rpartition(":")[0].strip("[]")
    return kind or "unknown"


def limits_storage(client: redis.Redis) -> RedisStorage:
    """The ``limits`` package's storage in the Redis of ``client``: the windows of every limit
    of the platform (keys ``quota/...``), so every replica counts against the same ones."""
    if isinstance(client, RedisCluster):
        # limits opens its own cluster client from a node; the window keys are single keys.
        node = client.get_nodes()[0]
        return RedisClusterStorage(
            f"async+redis+cluster://{node.host}:{node.port}",
            implementation="redispy",
            key_prefix=KEY_PREFIX,
        )
    return RedisStorage(
        "async+redis://",
        implementation="redispy",
        connection_pool=client.connection_pool,  # type: ignore[arg-type]  # typed too narrowly
        key_prefix=KEY_PREFIX,
    )


def exempted(host: str, networks: Sequence[Network]) -> bool:
    """Whether ``host`` is an address in one of ``networks`` (a trusted relay)."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return any(address in network for network in networks)


class Quotas:
    """One service's rate limits, counted in the Redis of ``client``."""

    def __init__(self, client: redis.Redis, rates: Rates) -> None:
        self._limiter = MovingWindowRateLimiter(limits_storage(client))
        self._per_player = parse(rates.per_player)
        self._per_address = parse(rates.per_address)
        self._registrations = parse(rates.registrations_per_address)
        self._exempt: Sequence[Network] = [
            ipaddress.ip_network(network, strict=False) for network in rates.exempt_addresses
        ]

    async def spend(
        self, context: grpc.aio.ServicerContext[Any, Any], player_id: str, action: str
    ) -> None:
        """Count one creating call ``action`` of a player (platform services, holding service
        tokens, are not limited) from the caller's address; Exhausted past a limit."""
        await self._hit(self._per_player, "player", player_id, f"player {player_id}", action)
        await self._hit_address(context, self._per_address, "address", action)

    async def spend_registration(self, context: grpc.aio.ServicerContext[Any, Any]) -> None:
        """Count one registration from the caller's address; Exhausted past the limit."""
        await self._hit_address(context, self._registrations, "register", "register")

    async def _hit_address(
        self,
        context: grpc.aio.ServicerContext[Any, Any],
        rate: RateLimitItem,
        scope: str,
        action: str,
    ) -> None:
        host = peer_host(context)
        if self._exempted(host):
            return
        await self._hit(rate, scope, host, f"address {host}", action)

    def _exempted(self, host: str) -> bool:
        return exempted(host, self._exempt)

    async def _hit(self, rate: RateLimitItem, scope: str, who: str, name: str, action: str) -> None:
        if await self._limiter.hit(rate, scope, who):
            return
        stats = await self._limiter.get_window_stats(rate, scope, who)
        wait = max(0.001, stats.reset_time - time.time())
        raise Exhausted(
            f"{action}: {name} is over its limit of {rate.amount} per "
            f"{_window(rate)}; try again in {wait:.1f} s",
            wait,
        )


def _window(rate: RateLimitItem) -> str:
    unit = rate.GRANULARITY.name
    return unit if rate.multiples == 1 else f"{rate.multiples} {unit}s"
