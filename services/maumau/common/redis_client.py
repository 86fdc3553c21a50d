"""One way to reach the store: a single Redis or a Redis Cluster, whichever REDIS_URL names.

:func:`connect` asks the node named by the URL whether it runs in cluster mode (``INFO
cluster``) and returns redis-py's asyncio cluster client if so, else a plain client; the
services type both as ``redis.asyncio.Redis``, as the cluster client offers the same commands
and pipelines (every multi-key command and script of the platform keeps its keys in one hash
slot, see the README's "Key layout"). :func:`keyed_probe` is the health probe every service
uses: keyed reads that reach every master, so a store that cannot serve the service's calls
(a master down, a plain client on a cluster) reports NOT_SERVING.

:class:`Durability` is the one script runner of every store: a list of :class:`Call` entries
(a :class:`Script` or a plain command, its keys and arguments, whether replicas must confirm
it) goes out in one round trip, with ``WAIT`` after each write that is acknowledged to a caller,
so a failover cannot lose it; a script a node lacks is loaded and its call sent again. What
Redis refuses comes back as one of two kinds: a store that cannot answer for a moment
(:func:`is_transient`: the caller retries) or a bug of the platform (:class:`StoreError`, a Lua
script's error or a WRONGTYPE reply), which is logged with the script and its keys and counted
in ``maumau_store_errors_total{script}``.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import re
import zlib
from collections.abc import Awaitable, Callable, Iterable, Sequence
from functools import partial
from typing import Any, NamedTuple, cast

import hiredis
import prometheus_client
import redis.asyncio as redis
from redis import exceptions
from redis.asyncio.cluster import RedisCluster

log = logging.getLogger(__name__)

CLUSTER_CONNECTIONS_PER_NODE = 1000
"""The cluster client's connections per node: it raises, rather than waits, beyond them."""

PROBE_TAGS = 16
"""Hash tags the probe reads on a single Redis: a plain client that was pointed at one node of a
cluster meets a MOVED for most of them."""

DEFAULT_WAIT_MS = 1000

DEFAULT_SHARDS = 8
"""Shards of each global structure (hash tags ``{0}`` to ``{7}``), so no one slot carries all
of its traffic; ``MAUMAU_REDIS_SHARDS`` changes it (the same for every service)."""


async def connect(url: str, retry_seconds: float = 1.0) -> redis.Redis:
    """A client for ``url``: the cluster client when the node runs in cluster mode. Waits (and
    logs) until the node answers, since what kind of store it is cannot be known before."""
    while True:
        plain = redis.Redis.from_url(url)
        try:
            info = await plain.info("cluster")
        except (redis.ConnectionError, redis.TimeoutError, OSError) as error:
            log.warning("Redis at %s does not answer (%s); asking again", url, error)
            await plain.aclose()
            await asyncio.sleep(retry_seconds)
            continue
        if not info.get("cluster_enabled"):
            return plain
        await plain.aclose()
        cluster = RedisCluster.from_url(url, max_connections=CLUSTER_CONNECTIONS_PER_NODE)
        await cluster.initialize()
        log.info("Redis at %s is a cluster of %d nodes", url, len(cluster.get_nodes()))
        return cast(redis.Redis, cluster)


def shard_of(name: str, shards: int) -> int:
    """The shard of a global structure that ``name`` (a match id, ...) belongs in: stable
    across processes, unlike ``hash()``.

    >>> shard_of("m1", 8), shard_of("m1", 1)
    (7, 0)
    """
    return zlib.crc32(name.encode()) % shards


def is_cluster(client: redis.Redis) -> bool:
    return isinstance(client, RedisCluster)


def probe_keys(client: redis.Redis) -> list[str]:
    """Keys whose reads reach every node that serves slots (on a single Redis: keys of
    ``PROBE_TAGS`` tags)."""
    if not isinstance(client, RedisCluster):
        return [f"maumau:probe:{{{n}}}" for n in range(PROBE_TAGS)]
    wanted = {node.name for node in client.get_primaries()}
    keys, n = [], 0
    while wanted and n < 100_000:
        key = f"maumau:probe:{{{n}}}"
        name = client.get_node_from_key(key).name
        if name in wanted:
            wanted.discard(name)
            keys.append(key)
        n += 1
    return keys


def keyed_probe(
    client: redis.Redis, own_keys: Callable[[], Sequence[str]] = list
) -> Callable[[], Awaitable[object]]:
    """A health probe that reads keys on every master, and the service's ``own_keys()`` (its
    global structures): it fails whenever one of those reads would."""

    async def probe() -> object:
        async with client.pipeline(transaction=False) as pipe:
            for key in [*probe_keys(client), *own_keys()]:
                pipe.exists(key)
            return await pipe.execute()

    return probe


STORE_ERRORS = prometheus_client.Counter(
    "maumau_store_errors_total",
    "Redis errors that are bugs of the platform, not outages (a Lua script's error, a WRONGTYPE "
    "reply), by script ('command' for a plain command); each is logged at ERROR.",
    ["script"],
)
COMMAND = "command"
"""The ``script`` label of a store error of a plain command (its name is in the log line)."""
STORE_ERRORS.labels(COMMAND)


class Script:
    """A Lua script of a store: its name (in the log line and the ``script`` label of
    ``maumau_store_errors_total`` when Redis refuses it) and its source. It is called by its
    digest (EVALSHA) and loaded where Redis lacks it.

    >>> Script("demo.echo", "return ARGV[1]")
    Script('demo.echo')
    """

    __slots__ = ("name", "sha", "source")

    def __init__(self, name: str, source: str) -> None:
        self.name = name
        self.source = source
        self.sha = hashlib.sha1(source.encode(), usedforsecurity=False).hexdigest()
        STORE_ERRORS.labels(name)  # a series from 0, so that its first error is an increase

    def __repr__(self) -> str:
        return f"Script({self.name!r})"


class Call(NamedTuple):
    """One entry of a round trip: a script, or a plain command by its name (``"ZADD"``), with
    its keys and arguments (sent as ``command keys... args...``), and whether replicas must
    confirm it (``WAIT`` after it on its node, when :class:`Durability` requires replicas)."""

    script: Script | str
    keys: Sequence[str]
    args: Sequence[Any] = ()
    wait: bool = False

    @property
    def command(self) -> tuple[Any, ...]:
        script, keys = self.script, self.keys
        if isinstance(script, Script):
            return ("EVALSHA", script.sha, len(keys), *keys, *self.args)
        return (script, *keys, *self.args)


class ReplicationShortfall(Exception):
    """Fewer replicas than required confirmed a write in time: it is not acknowledged."""


class StoreError(Exception):
    """Redis refused a call in a way no retry mends: a Lua script's error, a WRONGTYPE reply, a
    command it does not accept. A bug of the platform, not an outage: :func:`reported` logs it
    (at ERROR, with the script or command and its keys) and counts it as it is made; callers
    get INTERNAL (``maumau.common.errors``)."""

    def __init__(self, name: str, keys: Sequence[str], error: BaseException) -> None:
        on = f" on keys {list(keys)}" if keys else ""
        super().__init__(f"Redis refused {name}{on}: {error}")
        self.name = name
        self.keys = list(keys)
        self.error = error


def reported(
    name: str, keys: Sequence[str], error: BaseException, label: str = COMMAND
) -> StoreError:
    """``error`` as a :class:`StoreError`, logged (with its traceback when ``keys`` do not say
    where it came from) and counted under ``label``."""
    refused = StoreError(name, keys, error)
    log.error("store error (a bug, reported): %s", refused, exc_info=None if keys else error)
    STORE_ERRORS.labels(label).inc()
    return refused


TRANSIENT: tuple[type[BaseException], ...] = (
    redis.ConnectionError,  # BusyLoadingError (LOADING) among them
    redis.TimeoutError,
    ReplicationShortfall,
    # A Redis Cluster between a master's failure and its replica's promotion, or a client whose
    # map of the slots is out of date.
    exceptions.ClusterError,  # ClusterDownError, MasterDownError
    exceptions.TryAgainError,
    exceptions.AskError,  # MovedError
    exceptions.ReadOnlyError,  # a master turned replica
    exceptions.RedisClusterException,  # SlotNotCoveredError, no node reachable
    exceptions.NoScriptError,  # a node that lost its scripts twice in one call
)
"""Errors of a store that cannot answer for a moment: the caller retries (same request id)."""

_TRANSIENT_REPLIES = re.compile(
    r"(?:^|: )-?(?:READONLY|LOADING|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|NOREPLICAS|UNBLOCKED|BUSY"
    r"|MISCONF) "
)
"""Refusals of a store that cannot answer for a moment that redis-py has no class of its own
for, or that come quoted in a script's error: fewer replicas than ``min-replicas-to-write``
(NOREPLICAS), a blocked read cut by a failover (UNBLOCKED), another script running too long
(BUSY), a disk that cannot take a snapshot (MISCONF); Redis 6 reports a write on a read-only
replica inside a script as ``Error running script ...: -READONLY ...``."""


def is_transient(error: BaseException) -> bool:
    """Whether ``error`` is of a store that cannot answer for a moment (see TRANSIENT)."""
    return isinstance(error, TRANSIENT) or (
        isinstance(error, exceptions.ResponseError)
        and _TRANSIENT_REPLIES.search(str(error)) is not None
    )


def is_out_of_memory(error: BaseException) -> bool:
    """Whether Redis refused a write because its memory is full: a command refused
    (OutOfMemoryError), or a write inside a Lua script, which Redis 6 reports as a script error
    quoting the refusal."""
    return isinstance(error, exceptions.OutOfMemoryError) or (
        isinstance(error, exceptions.ResponseError) and "OOM command not allowed" in str(error)
    )


def is_store_bug(error: BaseException) -> bool:
    """Whether ``error`` is a refusal of Redis that no retry mends (a StoreError, or any other
    Redis error that is neither transient nor a full memory)."""
    return isinstance(error, StoreError) or (
        isinstance(error, exceptions.RedisError)
        and not is_transient(error)
        and not is_out_of_memory(error)
    )


async def _disconnect(connection: Any, error: Exception) -> None:
    """Before a retry: the next attempt connects afresh."""
    await connection.disconnect()


class Durability:
    """The one way the stores run their scripts (and the plain writes that go with them):
    :meth:`replies`, with writes acknowledged only once ``min_replicas`` replicas confirm them
    (``WAIT``).

    ``min_replicas`` None: 1 on a cluster whose masters have replicas, else 0 (no WAIT)."""

    def __init__(
        self, client: redis.Redis, min_replicas: int | None = None, wait_ms: int = DEFAULT_WAIT_MS
    ) -> None:
        self.client = client
        self.cluster = isinstance(client, RedisCluster)
        if min_replicas is None:
            has_replicas = isinstance(client, RedisCluster) and bool(client.get_replicas())
            min_replicas = 1 if has_replicas else 0
        self.min_replicas = min_replicas
        self.wait_ms = wait_ms
        wait: tuple[Any, ...] = ("WAIT", min_replicas, wait_ms)
        self._wait: bytes = hiredis.pack_command(wait)
        self._pool: Any = getattr(client, "connection_pool", None)  # a single Redis's
        self._spare: list[Any] = []
        """Connections held between round trips (see :meth:`_exchange`)."""
        self._spare_limit = max(1, getattr(self._pool, "max_connections", 2) // 2)

    def wait_after(self, pipe: Any, key: str) -> None:
        """Queue ``WAIT`` in ``pipe`` after the writes queued for ``key``: on the same
        connection to the same node, so it counts those writes."""
        target: dict[str, Any] = {}
        if isinstance(self.client, RedisCluster):
            target = {"target_nodes": self.client.get_node_from_key(key)}
        pipe.execute_command("WAIT", self.min_replicas, self.wait_ms, **target)

    def check(self, confirmed: object) -> None:
        """Raise ReplicationShortfall unless ``confirmed`` (WAIT's reply) is enough."""
        if isinstance(confirmed, BaseException) or not isinstance(confirmed, int):
            raise ReplicationShortfall(f"replicas did not confirm the write: {confirmed!r}")
        if confirmed < self.min_replicas:
            raise ReplicationShortfall(
                f"{confirmed} of {self.min_replicas} replicas confirmed the write "
                f"within {self.wait_ms} ms"
            )

    async def call(
        self,
        script: Script | str,
        keys: Sequence[str],
        args: Sequence[Any] = (),
        wait: bool = False,
    ) -> Any:
        """The reply of one call (see :meth:`replies`); raises its error."""
        reply = (await self.replies((Call(script, keys, args, wait),)))[0]
        if isinstance(reply, Exception):
            raise reply
        return reply

    async def run(self, calls: Iterable[Call]) -> list[Any]:
        """The replies of ``calls`` (see :meth:`replies`); raises the first error among them."""
        replies = await self.replies(calls)
        for reply in replies:
            if isinstance(reply, Exception):
                raise reply
        return replies

    async def replies(self, calls: Iterable[Call]) -> list[Any]:
        """Every call in one round trip (keys of any slots), each that waits followed by its
        WAIT; the replies in order, an error in place of its call's reply: one of a store that
        cannot answer for a moment as Redis gave it (ReplicationShortfall when too few replicas
        confirmed), any other as a :class:`StoreError`, logged and counted. A call whose node
        lacks its script is sent again once the script is loaded (only that call).

        On a single Redis each call goes out as soon as ``calls`` yields it (Redis runs one
        while the caller computes the next, from a lazy ``calls``); on a cluster they go in one
        pipeline. A call may run twice (a retry after a broken connection): each must be safe
        to run again, as after any retry of a caller."""
        if isinstance(calls, list | tuple) and not calls:
            return []
        sent, answers = await (self._pipelined(calls) if self.cluster else self._exchange(calls))
        replies, missing = self._parse(sent, answers, reload=True)
        if missing:  # a new master, or a restarted Redis
            lacked = {cast(Script, sent[n].script).source for n in missing}
            for source in sorted(lacked):
                await self.client.script_load(source)
            again = [sent[n] for n in missing]
            again, answers = await (
                self._pipelined(again) if self.cluster else self._exchange(again)
            )
            for n, reply in zip(missing, self._parse(again, answers, reload=False)[0], strict=True):
                replies[n] = reply
        return replies

    async def _pipelined(self, calls: Iterable[Call]) -> tuple[list[Call], list[Any]]:
        """On a cluster: the calls sent in one pipeline and what Redis answered, WAITs'
        replies included."""
        sent = list(calls)
        waits = self.min_replicas > 0
        async with self.client.pipeline(transaction=False) as pipe:
            for call in sent:
                pipe.execute_command(*call.command)
                if waits and call.wait:
                    self.wait_after(pipe, call.keys[0])
            return sent, await pipe.execute(raise_on_error=False)

    async def _exchange(self, calls: Iterable[Call]) -> tuple[list[Call], list[Any]]:
        """On a connection of a single Redis: each call packed by hiredis and written as it
        comes, then every reply read (an error reply read as its exception: the next reply
        follows), retried on a fresh connection as redis-py retries a command, but without its
        generic command path, which costs as much again as the call itself (the scripts are the
        services' hottest calls).

        The connection is one this object holds between its round trips rather than hand it
        back to the pool (taking one from the pool and giving it back cost an eighth of an
        engine Act): only one whose last round trip ended with every reply read, or which
        redis-py closed on an error (it connects afresh when next used), so what it reads next
        is its own reply. At most half the pool is held so: the client's other calls always
        find connections."""
        wait = self._wait if self.min_replicas > 0 else None
        pack = hiredis.pack_command
        sent: list[Call] = []
        pending = iter(calls)
        expected = 0  # replies to read, WAITs' included
        connection = self._spare.pop() if self._spare else await self._pool.get_connection()

        async def exchange() -> list[Any]:
            nonlocal expected
            if sent:  # again, on a fresh connection: what went out before goes again
                await connection.send_packed_command(
                    b"".join(self._packed(call, wait) for call in sent)
                )
            for call in pending:
                sent.append(call)
                packed = pack(call.command)
                if wait is not None and call.wait:
                    packed += wait
                    expected += 1
                expected += 1
                await connection.send_packed_command(packed)
            answers: list[Any] = []
            for _ in range(expected):
                try:
                    answers.append(await connection.read_response())
                except exceptions.ResponseError as error:
                    answers.append(error)
            return answers

        try:
            answers = await connection.retry.call_with_retry(
                exchange, partial(_disconnect, connection)
            )
        except BaseException:
            await connection.disconnect()  # replies may be left unread on it
            raise
        finally:
            if len(self._spare) < self._spare_limit:
                self._spare.append(connection)
            else:
                await self._pool.release(connection)
        return sent, answers

    @staticmethod
    def _packed(call: Call, wait: bytes | None) -> bytes:
        packed: bytes = hiredis.pack_command(call.command)
        return packed + wait if wait is not None and call.wait else packed

    def _parse(
        self, sent: list[Call], answers: list[Any], reload: bool
    ) -> tuple[list[Any], list[int]]:
        """Each call's reply (or error, see :meth:`replies`) from ``answers``, and when
        ``reload``, the indexes of the calls whose node lacked their script."""
        waits = self.min_replicas > 0
        if not waits:  # the common case: each answer is its call's reply
            for answer in answers:
                if isinstance(answer, Exception):
                    break
            else:
                return answers, []
        replies: list[Any] = []
        missing: list[int] = []
        at = 0
        for n, call in enumerate(sent):
            reply = answers[at]
            at += 1
            if waits and call.wait:
                confirmed = answers[at]
                at += 1
                if not isinstance(reply, Exception):
                    try:
                        self.check(confirmed)
                    except ReplicationShortfall as shortfall:
                        reply = shortfall
            if isinstance(reply, exceptions.NoScriptError) and reload:
                missing.append(n)
            elif isinstance(reply, exceptions.RedisError) and is_store_bug(reply):
                script = call.script
                if isinstance(script, Script):
                    reply = reported(f"script {script.name}", call.keys, reply, script.name)
                else:
                    reply = reported(f"command {script}", call.keys, reply)
            replies.append(reply)
        return replies, missing
