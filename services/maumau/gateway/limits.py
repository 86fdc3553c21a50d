"""What one caller may use of one gateway process: request rates and open WebSockets.

Token buckets per session and per client address, kept in this process: a browser keeps its
WebSocket (and, behind an Ingress with sticky sessions, its requests) on one replica, so a
per-process budget is the budget one caller gets per replica. The tables are bounded: the least
recently seen keys are forgotten first, which only ever gives a forgotten caller a full bucket.
"""

from __future__ import annotations

import time
from collections import Counter, OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

MAX_KEYS = 100_000


@dataclass
class Bucket:
    tokens: float
    updated: float


class RateLimiter:
    """A token bucket per key: ``rate`` tokens a second, at most ``burst`` saved up."""

    def __init__(
        self, rate: float, burst: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate, self.burst, self.clock = rate, burst, clock
        self.buckets: OrderedDict[str, Bucket] = OrderedDict()

    def allow(self, key: str, cost: float = 1.0) -> bool:
        now = self.clock()
        bucket = self.buckets.pop(key, None) or Bucket(self.burst, now)
        bucket.tokens = min(self.burst, bucket.tokens + (now - bucket.updated) * self.rate)
        bucket.updated = now
        allowed = bucket.tokens >= cost
        if allowed:
            bucket.tokens -= cost
        self.buckets[key] = bucket
        while len(self.buckets) > MAX_KEYS:
            self.buckets.popitem(last=False)
        return allowed

    def wait(self, key: str, cost: float = 1.0) -> float:
        """Seconds until ``key`` may spend ``cost`` again (0: now)."""
        bucket = self.buckets.get(key)
        if bucket is None:
            return 0.0
        saved = min(self.burst, bucket.tokens + (self.clock() - bucket.updated) * self.rate)
        return max(0.0, (cost - saved) / self.rate)


class SocketCounts:
    """Open WebSockets per session and per address, with caps."""

    def __init__(self, per_session: int, per_address: int, total: int) -> None:
        self.per_session, self.per_address, self.total = per_session, per_address, total
        self.sessions: Counter[str] = Counter()
        self.addresses: Counter[str] = Counter()
        self.open = 0

    def refusal(self, session: str, address: str) -> str | None:
        """Why one more socket may not open, or None when it may."""
        if self.open >= self.total:
            return "gateway_full"
        if self.sessions[session] >= self.per_session:
            return "session_sockets"
        if self.addresses[address] >= self.per_address:
            return "address_sockets"
        return None

    def add(self, session: str, address: str) -> None:
        self.sessions[session] += 1
        self.addresses[address] += 1
        self.open += 1

    def remove(self, session: str, address: str) -> None:
        self.open -= 1
        for counter, key in ((self.sessions, session), (self.addresses, address)):
            counter[key] -= 1
            if counter[key] <= 0:
                del counter[key]
