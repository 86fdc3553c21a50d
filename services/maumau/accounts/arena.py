"""The Arena service (``maumau.v1.ArenaService``), served in the Accounts service's process: bot
accounts and each account's event stream (read through ``event_feeds``, which also keeps who is
online).
"""

from __future__ import annotations

import re
import time
from collections.abc import AsyncIterator, Callable
from typing import cast

import grpc
import prometheus_client
import redis.asyncio as redis

from maumau.accounts.callers import Context
from maumau.accounts.errors import AccountExhausted, refusal
from maumau.accounts.event_feeds import ONLINE_BOTS, EventFeeds, FellBehind, Subscription
from maumau.accounts.export import CALL_SECONDS, ON_BEHALF_SECONDS, Services
from maumau.accounts.settings import Settings
from maumau.accounts.store import AccountStore
from maumau.common import account_events, tokens
from maumau.common.errors import ServiceError
from maumau.common.players import BOT, PlayerDirectory, is_bot, player_key
from maumau.v1 import arena_pb2 as pb
from maumau.v1 import arena_pb2_grpc, engine_pb2, rating_pb2

EVENT_ID = re.compile(r"\d{1,20}-\d{1,20}")
MAX_PAGE, DEFAULT_PAGE, MAX_OFFSET = 100, 50, 100_000
READ_BATCH = 100

STREAMS_OPEN = prometheus_client.Gauge(
    "maumau_arena_event_streams", "Accounts' Events streams open on this replica."
)
STREAMS_REFUSED = prometheus_client.Counter(
    "maumau_arena_event_streams_refused_total",
    "Events streams refused because their account held the most allowed on this replica.",
)


class OpenStreams:
    """The Events streams open on this replica per account, refused past ``per_account``."""

    def __init__(self, per_account: int) -> None:
        self.per_account = per_account
        self.by_account: dict[str, int] = {}

    def take(self, player_id: str) -> None:
        held = self.by_account.get(player_id, 0)
        if held >= self.per_account:
            STREAMS_REFUSED.inc()
            raise AccountExhausted("event_streams", {"held": held}, 5.0)
        self.by_account[player_id] = held + 1
        STREAMS_OPEN.inc()

    def give_back(self, player_id: str) -> None:
        STREAMS_OPEN.dec()
        left = self.by_account[player_id] - 1
        if left:
            self.by_account[player_id] = left
        else:
            del self.by_account[player_id]


class ArenaService(arena_pb2_grpc.ArenaServiceServicer):
    def __init__(
        self,
        store: AccountStore,
        secret: bytes,
        settings: Settings,
        services: Services,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.services = services
        self.redis: redis.Redis = store.redis
        self.directory = PlayerDirectory(store.redis)
        self.secret = secret
        self.settings = settings
        self.clock = clock
        self.streams = OpenStreams(settings.arena_max_streams)
        self.feeds = EventFeeds(
            store.redis,
            settings.arena_poll_seconds,
            refresh_seconds=settings.arena_keepalive_seconds,
            clock=clock,
        )

    async def _caller(self, context: Context, needs: tokens.Scope) -> str:
        """The player id of the account the call's token is of (a grant still there)."""
        claims = tokens.verify_player_token(self.secret, tokens.bearer(context), needs=needs)
        if claims.generation is None or not await self.directory.name(claims.player_id):
            raise refusal("not_a_player")
        await self.directory.check_token(claims)
        if await self.store.account(claims.player_id) is None:
            raise refusal("no_account")
        return claims.player_id

    def _now_ms(self) -> int:
        return int(self.clock() * 1000)

    # ---------------------------------------------------------------- bot accounts

    async def BecomeBot(
        self, request: pb.BecomeBotRequest, context: Context
    ) -> pb.BecomeBotResponse:
        player_id = await self._caller(context, tokens.Scope.ACCOUNT)
        if await is_bot(self.redis, player_id):
            return pb.BecomeBotResponse()
        played = await self.games_played(player_id)
        if played:
            raise refusal("bot_has_played", played=played)
        await self.redis.hset(player_key(player_id), BOT, "1")
        return pb.BecomeBotResponse()

    async def games_played(self, player_id: str) -> int:
        """The games the player sat in, as the engine (every match, in play or over, rated or
        not) and the rating service (finished matches, XP) know them; UNAVAILABLE when one of
        them does not answer, since a bot account cannot be undone."""
        token = tokens.issue_player_token(self.secret, player_id, ttl_seconds=ON_BEHALF_SECONDS)
        try:
            matches = await self.services.engine.ListMatches(
                engine_pb2.ListMatchesRequest(limit=1),
                metadata=tokens.bearer_metadata(token),
                timeout=CALL_SECONDS,
            )
        except grpc.aio.AioRpcError:
            raise refusal("service_unavailable", service="engine") from None
        try:
            profile = (
                await self.services.rating.GetProfile(
                    rating_pb2.GetProfileRequest(player_id=player_id), timeout=CALL_SECONDS
                )
            ).profile
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.NOT_FOUND:
                raise refusal("service_unavailable", service="rating") from None
            profile = rating_pb2.Profile()
        return max(len(matches.matches), profile.matches_played, int(profile.xp > 0))

    # ---------------------------------------------------------------- events

    async def Events(
        self, request: pb.EventsRequest, context: Context
    ) -> AsyncIterator[pb.EventsResponse]:
        player_id = await self._caller(context, tokens.Scope.BOT_PLAY)
        if request.after_event_id and not EVENT_ID.fullmatch(request.after_event_id):
            raise refusal("event_id")
        bot = await is_bot(self.redis, player_id)
        self.streams.take(player_id)
        subscription: Subscription | None = None
        try:
            subscription = await self.feeds.subscribe(player_id, bot)
            if request.after_event_id:
                async for stored in self._stored(player_id, request.after_event_id, subscription):
                    yield stored
            while True:
                event = await subscription.take(self.settings.arena_keepalive_seconds)
                yield pb.EventsResponse(event=event or pb.AccountEvent(keep_alive=pb.KeepAlive()))
        except FellBehind:
            raise refusal("events_behind", most=self.feeds.queue_limit) from None
        finally:
            self.streams.give_back(player_id)
            if subscription is not None:
                await self.feeds.unsubscribe(subscription)

    async def _stored(
        self, player_id: str, after: str, subscription: Subscription
    ) -> AsyncIterator[pb.EventsResponse]:
        """The stored events after ``after`` up to where the subscription's feed took over."""
        limit = _position(subscription.since)
        while _position(after) < limit:
            events = await account_events.read_after(
                self.redis, player_id, after, count=READ_BATCH, block_ms=None
            )
            if not events:
                return
            for event in events:
                if _position(event.event_id) > limit:
                    return
                after = event.event_id
                yield pb.EventsResponse(event=event)

    async def ListOnlineBots(
        self, request: pb.ListOnlineBotsRequest, context: Context
    ) -> pb.ListOnlineBotsResponse:
        await self._caller(context, tokens.Scope.BOT_PLAY)
        if not 0 <= request.page_size <= MAX_PAGE:
            raise refusal("page_size", most=MAX_PAGE, default=DEFAULT_PAGE)
        size = request.page_size or DEFAULT_PAGE
        token = request.page_token
        if token and not (token.isdigit() and len(token) <= 6 and 0 < int(token) <= MAX_OFFSET):
            raise refusal("page_token")
        offset = int(token or 0)
        now = self._now_ms()
        await self.redis.zremrangebyscore(ONLINE_BOTS, "-inf", now)
        members = cast(list[bytes], await self.redis.zrange(ONLINE_BOTS, offset, offset + size))
        ids = [m.decode() for m in members]
        names = await self.directory.names(ids[:size])
        bots = [pb.OnlineBot(player_id=i, name=n) for i, n in zip(ids, names, strict=False)]
        more = len(ids) > size and offset + size <= MAX_OFFSET
        return pb.ListOnlineBotsResponse(
            bots=bots, next_page_token=str(offset + size) if more else ""
        )

    # ---------------------------------------------------------------- challenges (next)

    async def CreateChallenge(
        self, request: pb.CreateChallengeRequest, context: Context
    ) -> pb.CreateChallengeResponse:
        raise _not_yet()

    async def AcceptChallenge(
        self, request: pb.AcceptChallengeRequest, context: Context
    ) -> pb.AcceptChallengeResponse:
        raise _not_yet()

    async def DeclineChallenge(
        self, request: pb.DeclineChallengeRequest, context: Context
    ) -> pb.DeclineChallengeResponse:
        raise _not_yet()

    async def CancelChallenge(
        self, request: pb.CancelChallengeRequest, context: Context
    ) -> pb.CancelChallengeResponse:
        raise _not_yet()

    async def BlockAccount(
        self, request: pb.BlockAccountRequest, context: Context
    ) -> pb.BlockAccountResponse:
        raise _not_yet()

    async def UnblockAccount(
        self, request: pb.UnblockAccountRequest, context: Context
    ) -> pb.UnblockAccountResponse:
        raise _not_yet()

    async def ListBlocked(
        self, request: pb.ListBlockedRequest, context: Context
    ) -> pb.ListBlockedResponse:
        raise _not_yet()


def _position(event_id: str) -> tuple[int, int]:
    milliseconds, _, sequence = event_id.partition("-")
    return int(milliseconds), int(sequence or 0)


def _not_yet() -> ServiceError:
    """Challenges and blocks are not served by this version yet: a clear UNIMPLEMENTED."""
    return ServiceError(
        grpc.StatusCode.UNIMPLEMENTED,
        "challenges and blocks are not served by this version yet (docs/arena.md)",
    )
