"""Waking follow streams when a ticket or room changes, whichever replica changed it.

A change publishes the names of what changed (``t:<ticket id>``, ``r:<room code>``) on one Redis
Pub/Sub channel; each replica holds one subscription and wakes its streams waiting on those
names. A message can be lost (a reconnect, a replica dying between its write and its publish), so
streams also reread on their own every ``follow_poll_seconds``: a notice makes them quick, the
stored state keeps them right.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import defaultdict
from collections.abc import Iterable, Iterator

import redis.asyncio as redis

log = logging.getLogger(__name__)

CHANNEL = "mm:notify"


class Notifier:
    def __init__(self, client: redis.Redis) -> None:
        self.redis = client
        self._waiting: defaultdict[str, set[asyncio.Event]] = defaultdict(set)
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._task = asyncio.create_task(self._listen())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def publish(self, names: Iterable[str]) -> None:
        """Tell every replica that ``names`` changed."""
        batch = list(names)
        for start in range(0, len(batch), 200):
            await self.redis.publish(CHANNEL, " ".join(batch[start : start + 200]))

    @contextlib.contextmanager
    def watch(self, name: str) -> Iterator[asyncio.Event]:
        """An event set whenever ``name`` may have changed, for the duration of the block."""
        event = asyncio.Event()
        self._waiting[name].add(event)
        try:
            yield event
        finally:
            self._waiting[name].discard(event)
            if not self._waiting[name]:
                del self._waiting[name]

    def _wake(self, names: Iterable[str]) -> None:
        for name in names:
            for event in self._waiting.get(name, ()):
                event.set()

    async def _listen(self) -> None:
        while True:
            try:
                async with self.redis.pubsub(ignore_subscribe_messages=True) as pubsub:
                    await pubsub.subscribe(CHANNEL)
                    self._wake(list(self._waiting))  # changes missed while (re)connecting
                    while True:
                        message = await pubsub.get_message(timeout=1.0)
                        if message is not None and isinstance(message["data"], bytes):
                            self._wake(message["data"].decode().split())
            except asyncio.CancelledError:
                raise
            except Exception as error:
                log.warning("notifications paused (%r); streams poll meanwhile", error)
                await asyncio.sleep(0.5)
