"""One reader of accounts' event streams per replica, shared by every open ``Events`` stream.

A blocking read per open stream would take a Redis connection each (500 streams of one account,
500 connections, more than the client's pool). Instead one task reads, every ``poll_seconds``,
the new entries of each account that has a stream open here, in one pipeline of non-blocking
XREADs (one per key, so it works on a Redis Cluster too), and hands them to that account's
subscribers. A subscriber that falls ``queue_limit`` events behind is dropped (it resumes from
its last event id), so a slow client holds no unbounded memory.

Presence is kept here too, once per account and replica however many streams it has open: the
sorted set ``online:{<player_id>}`` holds a member per replica with a stream of the account
open, scored by when it lapses (Unix ms), refreshed every ``refresh_seconds`` and removed when
the replica's last stream of the account closes; the key expires with its latest lapse. A bot's
presence is also in ``arena:online-bots`` (bot -> lapse), which ListOnlineBots pages through. A
replica that dies leaves nothing for long: its members lapse ``PRESENCE_REFRESHES`` refreshes
later.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import redis.asyncio as redis

from maumau.common import account_events, tokens
from maumau.common.account_events import online_key
from maumau.common.lifecycle import pause
from maumau.v1 import arena_pb2 as pb

log = logging.getLogger(__name__)

ONLINE_BOTS = account_events.ONLINE_BOTS
PRESENCE_REFRESHES = 3
"""A replica's presence of an account lapses this many refreshes after its latest."""


class FellBehind(Exception):
    """The subscriber read too slowly and was dropped from its feed."""


@dataclass(eq=False)
class Subscription:
    player_id: str
    since: str
    """The feed's position when it subscribed: stored events up to it are read from Redis."""
    queue: asyncio.Queue[pb.AccountEvent | None] = field(default_factory=asyncio.Queue)

    async def take(self, timeout: float) -> pb.AccountEvent | None:
        """The next event, or None when none came within ``timeout``; FellBehind if dropped."""
        try:
            async with asyncio.timeout(timeout):
                event = await self.queue.get()
        except TimeoutError:
            return None
        if event is None:
            raise FellBehind
        return event


@dataclass
class _Feed:
    position: str
    bot: bool
    subscribers: set[Subscription] = field(default_factory=set)


class EventFeeds:
    def __init__(
        self,
        client: redis.Redis,
        poll_seconds: float,
        refresh_seconds: float,
        queue_limit: int = 500,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.redis = client
        self.poll_seconds = poll_seconds
        self.refresh_seconds = refresh_seconds
        self.queue_limit = queue_limit
        self.clock = clock
        self.replica = tokens.new_id(8)
        self.feeds: dict[str, _Feed] = {}
        self._refresh_at = 0.0

    async def subscribe(self, player_id: str, bot: bool) -> Subscription:
        """A new subscriber of the account's events from now on; the account is online."""
        feed = self.feeds.get(player_id)
        if feed is None:
            position = await account_events.last_id(self.redis, player_id)
            feed = self.feeds.get(player_id)
            if feed is None:
                feed = self.feeds[player_id] = _Feed(position, bot)
                await self._refresh([(player_id, feed)])
        subscription = Subscription(player_id, feed.position)
        feed.subscribers.add(subscription)
        return subscription

    async def unsubscribe(self, subscription: Subscription) -> None:
        """The subscriber leaves; with the replica's last one of the account, its presence."""
        feed = self.feeds.get(subscription.player_id)
        if feed is None:
            return
        feed.subscribers.discard(subscription)
        if feed.subscribers:
            return
        del self.feeds[subscription.player_id]
        key = online_key(subscription.player_id)
        await self.redis.zrem(key, self.replica)
        if feed.bot and not await self.is_online(subscription.player_id):
            await self.redis.zrem(ONLINE_BOTS, subscription.player_id)

    async def is_online(self, player_id: str) -> bool:
        """Whether a stream of the account is open (on any replica)."""
        now = int(self.clock() * 1000)
        return int(await self.redis.zcount(online_key(player_id), now, "+inf")) > 0

    async def _refresh(self, feeds: list[tuple[str, _Feed]]) -> None:
        """Mark the accounts present on this replica until a few refreshes from now."""
        now = int(self.clock() * 1000)
        lapse = now + int(PRESENCE_REFRESHES * self.refresh_seconds * 1000)
        async with self.redis.pipeline(transaction=False) as pipe:
            for player_id, feed in feeds:
                key = online_key(player_id)
                pipe.zremrangebyscore(key, "-inf", now)
                pipe.zadd(key, {self.replica: lapse})
                pipe.pexpireat(key, lapse)
                if feed.bot:
                    pipe.zadd(ONLINE_BOTS, {player_id: lapse}, gt=True)
            await pipe.execute()

    async def run(self, stopping: asyncio.Event) -> None:
        """Poll the followed accounts' streams until ``stopping``; a failing Redis is logged
        and asked again at the next poll."""
        while not stopping.is_set():
            await pause(stopping, self.poll_seconds)
            try:
                await self.poll()
            except (redis.RedisError, OSError) as error:
                log.warning("reading accounts' event streams failed (%s); trying again", error)

    async def poll(self) -> None:
        followed = list(self.feeds.items())
        if not followed:
            return
        if self.clock() >= self._refresh_at:
            self._refresh_at = self.clock() + self.refresh_seconds
            await self._refresh(followed)
        async with self.redis.pipeline(transaction=False) as pipe:
            for player_id, feed in followed:
                pipe.xread({account_events.events_key(player_id): feed.position}, count=100)
            answers = await pipe.execute()
        for (_, feed), answer in zip(followed, answers, strict=True):
            for _key, entries in answer or []:
                for entry_id, fields in entries:
                    event = pb.AccountEvent.FromString(fields[account_events.FIELD])
                    event.event_id = feed.position = entry_id.decode()
                    self._hand_out(feed, event)

    def _hand_out(self, feed: _Feed, event: pb.AccountEvent) -> None:
        for subscription in list(feed.subscribers):
            if subscription.queue.qsize() >= self.queue_limit:
                feed.subscribers.discard(subscription)
                subscription.queue.put_nowait(None)
            else:
                subscription.queue.put_nowait(event)
