"""One way to reach the store: a single Redis or a Redis Cluster, whichever REDIS_URL names.

:func:`connect` asks the node named by the URL whether it runs in cluster mode (``INFO
cluster``) and returns redis-py's asyncio cluster client if so, else a plain client; the
services type both as ``redis.asyncio.Redis``, as the cluster client offers the same commands
and pipelines (every multi-key command and script of the platform keeps its keys in one hash
slot, see the README's "Key layout"). :func:`keyed_probe` is the health probe every service
uses: keyed reads that reach every master, so a store that cannot serve the service's calls
(a master down, a plain client on a cluster) reports NOT_SERVING. :class:`Durability` sends
``WAIT`` after a write that is acknowledged to a caller, so a failover cannot lose it.
"""

from __future__ import annotations

import asyncio
import logging
import zlib
from collections.abc import Awaitable, Callable, Iterable, Sequence
from functools import partial
from typing import Any, cast

import hiredis
import redis.asyncio as redis
from redis.asyncio.cluster import RedisCluster
from redis.commands.core import AsyncScript
from redis.exceptions import NoScriptError

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


def queue_script(pipe: Any, script: AsyncScript, keys: Sequence[str], args: Sequence[Any]) -> None:
    """Queue ``script`` in a pipeline by its digest (the cluster pipeline refuses its
    ``evalsha`` method, not the command itself; and a Script object would ask SCRIPT EXISTS)."""
    pipe.execute_command("EVALSHA", script.sha, len(keys), *keys, *args)


async def _send_and_read(connection: Any, command: bytes) -> Any:
    await connection.send_packed_command(command)
    return await connection.read_response()


async def _disconnect(connection: Any, error: Exception) -> None:
    """Before a retry: the next attempt connects afresh."""
    await connection.disconnect()


class ReplicationShortfall(Exception):
    """Fewer replicas than required confirmed a write in time: it is not acknowledged."""


class Durability:
    """Writes acknowledged only once ``min_replicas`` replicas confirm them (``WAIT``).

    ``min_replicas`` None: 1 on a cluster whose masters have replicas, else 0 (no WAIT)."""

    def __init__(
        self, client: redis.Redis, min_replicas: int | None = None, wait_ms: int = DEFAULT_WAIT_MS
    ) -> None:
        self.client = client
        if min_replicas is None:
            has_replicas = isinstance(client, RedisCluster) and bool(client.get_replicas())
            min_replicas = 1 if has_replicas else 0
        self.min_replicas = min_replicas
        self.wait_ms = wait_ms
        self._pool: Any = getattr(client, "connection_pool", None)  # a single Redis's
        self._spare: list[Any] = []
        """Connections held between script calls (see :meth:`_evalsha`)."""
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

    async def write(self, key: str, queue: Callable[[Any], object]) -> Any:
        """The reply of the one write ``queue`` puts in a pipeline for ``key``, then WAIT for it
        when replicas are required (raising ReplicationShortfall when too few confirm)."""
        async with self.client.pipeline(transaction=False) as pipe:
            queue(pipe)
            if self.min_replicas > 0:
                self.wait_after(pipe, key)
            replies = await pipe.execute(raise_on_error=False)
        if isinstance(replies[0], Exception):
            raise replies[0]
        if self.min_replicas > 0:
            self.check(replies[1])
        return replies[0]

    async def run_script(
        self, script: AsyncScript, keys: Sequence[str], args: Sequence[Any]
    ) -> Any:
        """``script(keys, args)``, then WAIT for it when replicas are required."""
        if self.min_replicas == 0:
            if isinstance(self.client, RedisCluster):
                return await script(keys=keys, args=args)
            return await self._evalsha(script, keys, args)
        for _ in range(2):
            async with self.client.pipeline(transaction=False) as pipe:
                queue_script(pipe, script, keys, args)
                self.wait_after(pipe, keys[0])
                reply, confirmed = await pipe.execute(raise_on_error=False)
            if isinstance(reply, NoScriptError):  # a new master, or a restarted Redis
                await self.client.script_load(script.script)
                continue
            if isinstance(reply, Exception):
                raise reply
            self.check(confirmed)
            return reply
        raise NoScriptError(f"script {script.sha} could not be loaded")

    async def _evalsha(self, script: AsyncScript, keys: Sequence[str], args: Sequence[Any]) -> Any:
        """EVALSHA on a connection of a single Redis, packed by hiredis and sent as redis-py
        sends a command (its retry on a fresh connection included), but without its generic
        command path, which costs as much again as the call itself (the scripts are the
        services' hottest calls); the script is loaded when Redis lacks it.

        The connection is one this object holds between its calls rather than hand it back to
        the pool (taking one from the pool and giving it back cost an eighth of an engine Act):
        only one whose last call ended with its reply read, or which redis-py closed on an
        error (it connects afresh when next used), so what it reads next is its own reply. At
        most half the pool is held so: the client's other calls always find connections."""
        command = hiredis.pack_command(("EVALSHA", script.sha, len(keys), *keys, *args))
        spare = self._spare
        for attempt in range(2):
            connection = spare.pop() if spare else await self._pool.get_connection()
            try:
                return await connection.retry.call_with_retry(
                    partial(_send_and_read, connection, command),
                    partial(_disconnect, connection),
                )
            except NoScriptError:
                if attempt:
                    raise
            finally:
                if len(spare) < self._spare_limit:
                    spare.append(connection)
                else:
                    await self._pool.release(connection)
            await self.client.script_load(script.script)
        raise NoScriptError(f"script {script.sha} could not be loaded")

    async def run_scripts_as_computed(
        self, script: AsyncScript, calls: Iterable[tuple[Sequence[str], Sequence[Any]]]
    ) -> list[Any]:
        """As :meth:`run_scripts`, but on a single Redis each call goes out as soon as
        ``calls`` yields it, on one connection: Redis runs one script while the caller computes
        the next (a lazy ``calls``), and the replies are read once all are sent. On a cluster,
        or when the connection breaks, the calls go through :meth:`run_scripts`."""
        if isinstance(self.client, RedisCluster):
            return await self.run_scripts(script, list(calls))
        step = 2 if self.min_replicas else 1
        sent: list[tuple[Sequence[str], Sequence[Any]]] = []
        answers: list[Any] = []
        pool: Any = self.client.connection_pool
        connection = await pool.get_connection()
        try:
            for keys, args in calls:
                commands = [("EVALSHA", script.sha, len(keys), *keys, *args)]
                if self.min_replicas:
                    commands.append(("WAIT", self.min_replicas, self.wait_ms))
                await connection.send_packed_command(
                    b"".join(hiredis.pack_command(command) for command in commands)
                )
                sent.append((keys, args))
            for _ in range(len(sent) * step):
                try:
                    answers.append(await connection.read_response())
                except redis.ResponseError as error:  # read: the next reply follows
                    answers.append(error)
        except (redis.ConnectionError, redis.TimeoutError, OSError):
            # Scripts sent may have run: each must be safe to run again, as after any retry.
            await connection.disconnect()
            return await self.run_scripts(script, [*sent, *calls])
        except BaseException:
            await connection.disconnect()  # replies may be left unread on it
            raise
        finally:
            await pool.release(connection)
        replies: list[Any] = []
        missing = []
        for n in range(len(sent)):
            reply = answers[n * step]
            if isinstance(reply, NoScriptError):  # a new master, or a restarted Redis
                missing.append(n)
            elif isinstance(reply, Exception):
                raise reply
            elif self.min_replicas:
                self.check(answers[n * step + 1])
            replies.append(reply)
        if missing:
            await self.client.script_load(script.script)
            again = await self.run_scripts(script, [sent[n] for n in missing])
            for n, reply in zip(missing, again, strict=True):
                replies[n] = reply
        return replies

    async def run_scripts(
        self, script: AsyncScript, calls: Sequence[tuple[Sequence[str], Sequence[Any]]]
    ) -> list[Any]:
        """``script(keys, args)`` for each of ``calls`` (keys of any slots), all in one round
        trip, each followed by its WAIT when replicas are required; the replies in order. A
        call whose node lacks the script is sent again once it is loaded (only that call)."""
        replies: list[Any] = [None] * len(calls)
        todo = list(range(len(calls)))
        for attempt in range(2):
            async with self.client.pipeline(transaction=False) as pipe:
                for n in todo:
                    keys, args = calls[n]
                    queue_script(pipe, script, keys, args)
                    if self.min_replicas:
                        self.wait_after(pipe, keys[0])
                answers = await pipe.execute(raise_on_error=False)
            step = 2 if self.min_replicas else 1
            missing = []
            for index, n in enumerate(todo):
                reply = answers[index * step]
                if isinstance(reply, NoScriptError) and attempt == 0:
                    missing.append(n)
                    continue
                if isinstance(reply, Exception):
                    raise reply
                if self.min_replicas:
                    self.check(answers[index * step + 1])
                replies[n] = reply
            if not missing:
                return replies
            await self.client.script_load(script.script)
            todo = missing
        raise NoScriptError(f"script {script.sha} could not be loaded")
