"""Follow fan-out: a replica reads each followed match's event stream once, for all its followers.

Every Follow call subscribes to its match's :class:`Feed`. Feeds are grouped into lanes of at
most ``lane_size`` matches; a lane is one task holding one Redis connection in one blocking
``XREAD`` over the event streams of all its matches, and it hands each new entry to every
subscriber of that match. So a replica serving thousands of followers of a thousand matches
holds a handful of connections for them, whatever the followers do.

- A feed starts at the end of its stream: a subscriber reads what came before (from its
  ``after_event_id`` up to :attr:`Subscription.since`) itself, at its own pace, then takes what
  the feed hands it. Nothing is missed in between and nothing comes twice.
- A lane restarts its read when a match joins it (the read it is blocked in knows only the
  matches it started with); a feed whose last subscriber leaves is dropped.
- A subscriber holds at most ``queue_limit`` entries it has not sent yet. One that falls further
  behind (its client reads too slowly) is dropped from its feed; it sends what it holds, then ends
  with :class:`FellBehind`, so a slow client never holds up the others or grows the replica's
  memory, and resumes from the last event it received.
- A feed quiet for ``check_seconds`` is asked, by a task of its own (never holding up a lane),
  whether its match is still live (an expired match, or one over without a final event): if
  not, its subscribers end.
- A failed read (Redis unreachable) ends the lane's subscribers with the error, as a stream of
  their own would have ended: clients resume from their last event.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Iterator
from typing import Any, cast

import prometheus_client
import redis.asyncio as redis

from maumau.common.errors import Exhausted
from maumau.engine.codec import stream_events
from maumau.engine.keys import events_key
from maumau.v1 import game_pb2

log = logging.getLogger(__name__)

FEEDS = prometheus_client.Gauge(
    "engine_follow_feeds", "Matches whose event streams this replica reads for its followers."
)
LANES = prometheus_client.Gauge(
    "engine_follow_lanes",
    "Reader tasks of this replica's followers, each one Redis connection in a blocking read.",
)
FOLLOWERS = prometheus_client.Gauge(
    "engine_event_stream_followers", "Follow streams open on this replica."
)
FOLLOWERS_LIMIT = prometheus_client.Gauge(
    "engine_event_stream_followers_limit",
    "Follow streams this replica takes at most (MAUMAU_ENGINE_MAX_FOLLOW_STREAMS).",
)
REFUSED = prometheus_client.Counter(
    "engine_follow_refused_total",
    "Follow streams refused at a cap (limit: player or replica).",
    ["limit"],
)
FELL_BEHIND = prometheus_client.Counter(
    "engine_follow_behind_total",
    "Follow streams ended because their client read too slowly (it resumes from its last event).",
)

Entry = tuple[str, game_pb2.Event]
"""An event of a match's stream with its stream id."""

LiveCheck = Callable[[str], Awaitable[bool]]
"""Whether a match may still get events (False: gone or over)."""


CHECKS_AT_ONCE = 20


class FellBehind(Exception):
    """The subscriber's client read too slowly; it was dropped from its feed."""


class OpenStreams:
    """The Follow streams open on this replica, per player and in all, refused past the caps
    with a hint to retry after ``retry_after_seconds``."""

    def __init__(self, per_player: int, total: int, retry_after_seconds: float = 5.0) -> None:
        self.per_player = per_player
        self.total = total
        self.retry_after_seconds = retry_after_seconds
        self.open = 0
        self.by_player: dict[str, int] = {}
        FOLLOWERS_LIMIT.set(total)

    @contextlib.contextmanager
    def hold(self, player_id: str) -> Iterator[None]:
        """Count one stream of ``player_id`` while the block runs, or refuse it."""
        held = self.by_player.get(player_id, 0)
        if held >= self.per_player:
            REFUSED.labels("player").inc()
            raise Exhausted(
                f"this player already follows {held} streams on this replica, the most allowed:"
                " close one (or wait for a match to end) and try again",
                self.retry_after_seconds,
            )
        if self.open >= self.total:
            REFUSED.labels("replica").inc()
            raise Exhausted(
                f"this replica serves {self.open} follow streams, the most it takes: "
                "try again shortly (another replica may have room)",
                self.retry_after_seconds,
            )
        self.open += 1
        self.by_player[player_id] = held + 1
        FOLLOWERS.inc()
        try:
            yield
        finally:
            self.open -= 1
            FOLLOWERS.dec()
            left = self.by_player[player_id] - 1
            if left:
                self.by_player[player_id] = left
            else:
                del self.by_player[player_id]


def _consume_failure(task: asyncio.Task[None]) -> None:
    if not task.cancelled():
        task.exception()


class Subscription:
    """One follower's place in a feed: the entries handed to it and not yet taken."""

    def __init__(self, match_id: str, limit: int) -> None:
        self.match_id = match_id
        self.since = "0"
        """The feed hands this subscriber every entry after this stream id."""
        self._limit = limit
        self._entries: deque[Entry] = deque()
        self._ready = asyncio.Event()
        self._behind = False
        self._ended = False
        self._error: BaseException | None = None

    def offer(self, entries: list[Entry]) -> bool:
        """Hand over ``entries``; False (and dropped from the feed) when they do not fit."""
        if len(self._entries) + len(entries) > self._limit:
            self._behind = True
            self._ready.set()
            return False
        self._entries.extend(entries)
        self._ready.set()
        return True

    def end(self, error: BaseException | None = None) -> None:
        """No more entries will come: the match is over or gone, or the read failed."""
        self._ended, self._error = True, error
        self._ready.set()

    async def take(self) -> list[Entry] | None:
        """The entries handed over since the last take, waiting for some; None once the feed
        ended and everything was taken. Raises :class:`FellBehind` once this subscriber was
        dropped (after everything handed over before was taken), or the read's error."""
        while not self._entries:
            if self._behind:
                raise FellBehind()
            if self._ended:
                if self._error is not None:
                    raise redis.ConnectionError(f"reading the match's events failed: {self._error}")
                return None
            self._ready.clear()
            await self._ready.wait()
        taken = list(self._entries)
        self._entries.clear()
        return taken


class Feed:
    """One match whose stream a lane reads, and its subscribers."""

    def __init__(self, match_id: str) -> None:
        self.match_id = match_id
        self.key = events_key(match_id)
        self.position = "0"
        self.subscribers: set[Subscription] = set()
        self.lane: Lane | None = None
        self.heard_at = time.monotonic()
        self.starting: asyncio.Task[None] | None = None


class Lane:
    """One task reading the streams of up to ``lane_size`` feeds in one blocking XREAD."""

    def __init__(self, hub: FollowHub) -> None:
        self.hub = hub
        self.feeds: dict[str, Feed] = {}
        self.changed = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    def add(self, feed: Feed) -> None:
        feed.lane = self
        self.feeds[feed.key] = feed
        self.changed.set()
        if self.task is None:
            self.task = asyncio.create_task(self.run(), name="follow lane")
            LANES.inc()

    def remove(self, feed: Feed) -> None:
        if self.feeds.pop(feed.key, None) is not None and not self.feeds:
            self.changed.set()  # nothing left to read: end now, not after the read in hand

    async def run(self) -> None:
        try:
            while self.feeds:
                self.changed.clear()
                try:
                    reply = await self._read()
                    if reply:
                        self.hub.deliver(self.feeds, reply)
                except (redis.ConnectionError, redis.TimeoutError) as error:
                    log.warning("follow lane: reading events failed (%s); followers resume", error)
                    self.hub.end_all(list(self.feeds.values()), error)
                    return
        finally:
            self.hub.lanes.discard(self)
            LANES.dec()

    async def _read(self) -> Any:
        """One XREAD over every feed of the lane, cut short (None) when a feed joins."""
        streams = {key: feed.position for key, feed in self.feeds.items()}
        read = asyncio.ensure_future(
            self.hub.reader.xread(
                streams,  # type: ignore[arg-type]
                count=self.hub.read_count,
                block=self.hub.block_ms,
            )
        )
        changed = asyncio.ensure_future(self.changed.wait())
        try:
            await asyncio.wait({read, changed}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            changed.cancel()
            if not read.done():
                # Cut off mid-read, the connection is closed and the reply dropped: the next
                # read asks again from the same positions.
                read.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            return await read
        if asyncio.current_task().cancelling():  # type: ignore[union-attr]
            raise asyncio.CancelledError
        return None


class FollowHub:
    """The feeds and lanes of one replica. ``subscribe`` / ``unsubscribe`` per Follow call."""

    def __init__(
        self,
        client: redis.Redis,
        reader: redis.Redis,
        live: LiveCheck,
        queue_limit: int = 256,
        lane_size: int = 250,
        block_ms: int = 2000,
        check_seconds: float = 30.0,
        read_count: int = 100,
    ) -> None:
        self.redis = client
        """For short reads: where a feed starts, a last look at a quiet one."""
        self.reader = reader
        """For the lanes' blocking reads: a connection per lane."""
        self.live = live
        self.queue_limit = queue_limit
        self.lane_size = lane_size
        self.block_ms = block_ms
        self.check_seconds = check_seconds
        self.read_count = read_count
        self.feeds: dict[str, Feed] = {}
        self.lanes: set[Lane] = set()
        self._checker: asyncio.Task[None] | None = None

    async def subscribe(self, match_id: str) -> Subscription:
        """A new subscriber of ``match_id``'s feed (started if needed); its ``since`` says
        from where on the feed hands it entries. Unsubscribe it when done."""
        subscription = Subscription(match_id, self.queue_limit)
        feed = self.feeds.get(match_id)
        if feed is None:
            feed = self.feeds[match_id] = Feed(match_id)
            FEEDS.inc()
            if self._checker is None or self._checker.done():
                self._checker = asyncio.create_task(self.check_quiet(), name="follow checks")
            feed.starting = asyncio.create_task(self._start(feed), name="follow feed start")
            # Its failure reaches the callers waiting; taken here too, in case none is left.
            feed.starting.add_done_callback(_consume_failure)
        feed.subscribers.add(subscription)
        if feed.starting is None:
            subscription.since = feed.position
            return subscription
        try:
            await asyncio.shield(feed.starting)
        except BaseException:
            self.unsubscribe(subscription)
            raise
        return subscription

    def unsubscribe(self, subscription: Subscription) -> None:
        feed = self.feeds.get(subscription.match_id)
        if feed is None:
            return
        feed.subscribers.discard(subscription)
        if not feed.subscribers and feed.starting is None:
            self._drop(feed)

    async def _start(self, feed: Feed) -> None:
        """Place the feed at the end of its stream, hand that position to the subscribers
        that came meanwhile, then let a lane read on from there."""
        try:
            last = cast(list[Any], await self.redis.xrevrange(feed.key, count=1))
        except BaseException:
            self._drop(feed)
            raise
        finally:
            feed.starting = None
        feed.position = last[0][0].decode() if last else "0"
        if not feed.subscribers:  # every caller left while it started
            self._drop(feed)
            return
        for subscription in feed.subscribers:
            subscription.since = feed.position
        feed.heard_at = time.monotonic()
        lane = next((lane for lane in self.lanes if len(lane.feeds) < self.lane_size), None)
        if lane is None:
            lane = Lane(self)
            self.lanes.add(lane)
        lane.add(feed)

    def _drop(self, feed: Feed) -> None:
        if self.feeds.get(feed.match_id) is feed:
            del self.feeds[feed.match_id]
            FEEDS.dec()
        if feed.lane is not None:
            feed.lane.remove(feed)

    def deliver(self, feeds: dict[str, Feed], reply: Any) -> None:
        """Hand each stream's new entries to its feed's subscribers."""
        now = time.monotonic()
        for key, raw in reply:
            feed = feeds.get(key.decode())
            if feed is None or not raw:
                continue
            entries = [
                (event_id, game_pb2.Event.FromString(event))
                for entry_id, fields in raw
                for event_id, event in stream_events(entry_id.decode(), fields)
            ]
            feed.position, feed.heard_at = entries[-1][0], now
            for subscription in list(feed.subscribers):
                if not subscription.offer(entries):
                    FELL_BEHIND.inc()
                    feed.subscribers.discard(subscription)
            if not feed.subscribers:
                self._drop(feed)

    async def check_quiet(self) -> None:
        """While there are feeds: every ``check_seconds``, ask whether the matches of feeds
        quiet that long are still live, a few at once; end the feeds of those that are not,
        after one last read of what they hold."""
        while self.feeds:
            await asyncio.sleep(self.check_seconds)
            now = time.monotonic()
            quiet = [f for f in self.feeds.values() if now - f.heard_at >= self.check_seconds]
            for start in range(0, len(quiet), CHECKS_AT_ONCE):
                batch = quiet[start : start + CHECKS_AT_ONCE]
                try:
                    live = await asyncio.gather(*(self.live(f.match_id) for f in batch))
                    for feed, is_live in zip(batch, live, strict=True):
                        feed.heard_at = now
                        if not is_live and self.feeds.get(feed.match_id) is feed:
                            reply = await self.redis.xread({feed.key: feed.position})
                            if reply:
                                self.deliver({feed.key: feed}, reply)
                            self.end_all([feed])
                except (redis.ConnectionError, redis.TimeoutError) as error:
                    log.warning("follow: checking quiet matches failed (%s)", error)
                except Exception:
                    log.exception("follow: checking quiet matches failed")

    def end_all(self, feeds: Iterable[Feed], error: BaseException | None = None) -> None:
        for feed in feeds:
            for subscription in feed.subscribers:
                subscription.end(error)
            feed.subscribers.clear()
            self._drop(feed)

    async def close(self) -> None:
        """End every lane (their subscribers' calls are ended by the server)."""
        tasks = [lane.task for lane in self.lanes if lane.task is not None]
        if self._checker is not None:
            tasks.append(self._checker)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
