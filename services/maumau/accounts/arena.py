"""The Arena service (``maumau.v1.ArenaService``), served in the Accounts service's process: bot
accounts and each account's event stream (read through ``event_feeds``, which also keeps who is
online).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import time
from collections.abc import AsyncIterator, Callable
from typing import cast

import grpc
import prometheus_client
import redis.asyncio as redis

from maumau import wire
from maumau.accounts.callers import Context
from maumau.accounts.challenges import DEADLINES, MAX_BLOCKS, Challenge, ChallengeBook
from maumau.accounts.errors import AccountExhausted, refusal
from maumau.accounts.event_feeds import ONLINE_BOTS, EventFeeds, FellBehind, Subscription
from maumau.accounts.export import CALL_SECONDS, ON_BEHALF_SECONDS, Services
from maumau.accounts.settings import Settings
from maumau.accounts.store import AccountStore
from maumau.common import account_events, daily_limits, tokens
from maumau.common.lifecycle import pause
from maumau.common.players import BOT, PlayerDirectory, is_bot, player_key
from maumau.rules import Ruleset
from maumau.v1 import arena_pb2 as pb
from maumau.v1 import arena_pb2_grpc, engine_pb2, rating_pb2

MAX_CHALLENGED, MAX_ID, MAX_TURN_SECONDS = 7, 128, 3600
DECLINE_REASONS = frozenset(pb.DeclineReason.values()) - {pb.DECLINE_REASON_UNSPECIFIED}
ARENA_SERVICE = "arena"
"""The service token's name the engine creates rated challenge matches for."""
log = logging.getLogger(__name__)
EVENT_ID = re.compile(r"\d{1,20}-\d{1,20}")
MAX_PAGE, DEFAULT_PAGE, MAX_OFFSET = 100, 50, 100_000
READ_BATCH = 100

STREAMS_OPEN = prometheus_client.Gauge(
    "maumau_arena_event_streams", "Accounts' Events streams open on this replica."
)
CHALLENGES = prometheus_client.Counter(
    "maumau_arena_challenges_total",
    "Challenges by what became of them: created, accepted (each acceptance), declined, "
    "cancelled, expired.",
    ["outcome"],
)
for _outcome in ("created", "accepted", "declined", "cancelled", "expired"):
    CHALLENGES.labels(_outcome)  # each series from 0, so rates and panels have data at once
STREAMS_REFUSED = prometheus_client.Counter(
    "maumau_arena_event_streams_refused_total",
    "Events streams refused because their account held the most allowed on this replica.",
)


class OpenStreams:
    """The Events streams open on this replica, per account and in all, refused past
    ``per_account`` and ``total`` (as the engine bounds its Follow streams)."""

    def __init__(self, per_account: int, total: int) -> None:
        self.per_account = per_account
        self.total = total
        self.open = 0
        self.by_account: dict[str, int] = {}

    def take(self, player_id: str) -> None:
        held = self.by_account.get(player_id, 0)
        if held >= self.per_account:
            STREAMS_REFUSED.inc()
            raise AccountExhausted("event_streams", {"held": held}, 5.0)
        if self.open >= self.total:
            STREAMS_REFUSED.inc()
            raise AccountExhausted("event_streams_replica", {"open": self.open}, 5.0)
        self.by_account[player_id] = held + 1
        self.open += 1
        STREAMS_OPEN.inc()

    def give_back(self, player_id: str) -> None:
        STREAMS_OPEN.dec()
        self.open -= 1
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
        self.streams = OpenStreams(settings.arena_max_streams, settings.arena_max_replica_streams)
        self.book = ChallengeBook(
            store.redis, settings.arena_challenge_seconds, settings.arena_challenge_max_seconds
        )
        self._service = tokens.bearer_metadata(tokens.issue_service_token(secret, ARENA_SERVICE))
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

    # ---------------------------------------------------------------- challenges

    async def CreateChallenge(
        self, request: pb.CreateChallengeRequest, context: Context
    ) -> pb.CreateChallengeResponse:
        creator = await self._caller(context, tokens.Scope.BOT_PLAY)
        challenged = tuple(request.player_ids)
        if not (
            1 <= len(challenged) <= MAX_CHALLENGED
            and len(set(challenged)) == len(challenged)
            and creator not in challenged
            and all(0 < len(p) <= MAX_ID for p in challenged)
        ):
            raise refusal("challenge_players", most=MAX_CHALLENGED)
        if not 0 <= request.turn_seconds <= MAX_TURN_SECONDS:
            raise refusal("challenge_turn", most=MAX_TURN_SECONDS)
        ruleset = wire.ruleset_from_pb(request.ruleset)
        ruleset.check_seats(len(challenged) + 1)
        for player_id in challenged:
            if await self.store.account(player_id) is None:
                raise refusal("challenge_no_account", player=player_id)
        if await self.book.blocked_by_any(challenged, creator):
            raise refusal("challenge_refused")
        seating = (creator, *challenged)
        with self._limited():
            if await self._all_bots(seating):
                for player_id in seating:
                    await daily_limits.remaining(
                        self.redis, player_id, daily_limits.BOT_MATCHES,
                        self.settings.arena_bot_matches_per_day, self.clock(),
                    )  # fmt: skip
            await daily_limits.spend(
                self.redis, creator, daily_limits.CHALLENGES,
                self.settings.arena_challenges_per_day, self.clock(),
            )  # fmt: skip
        now = self._now_ms()
        challenge = await self.book.create(
            creator, challenged, ruleset.text, request.rated, request.turn_seconds, now
        )
        shown = self._challenge_pb(challenge, now)
        CHALLENGES.labels("created").inc()
        for player_id in challenged:
            received = pb.AccountEvent(challenge_received=pb.ChallengeReceived(challenge=shown))
            await account_events.publish(self.redis, player_id, received)
        return pb.CreateChallengeResponse(challenge=shown)

    async def _challenge_of(self, challenge_id: str, player_id: str) -> Challenge:
        """The open challenge naming ``player_id``; NOT_FOUND alike for every other case."""
        found = None
        if 0 < len(challenge_id) <= MAX_ID:
            found = await self.book.get(challenge_id)
        if found is None or player_id not in found.seating:
            raise refusal("arena_challenge_unknown", challenge=challenge_id[:MAX_ID])
        return found

    async def AcceptChallenge(
        self, request: pb.AcceptChallengeRequest, context: Context
    ) -> pb.AcceptChallengeResponse:
        player_id = await self._caller(context, tokens.Scope.BOT_PLAY)
        challenge = await self._challenge_of(request.challenge_id, player_id)
        if player_id == challenge.creator:
            raise refusal("challenge_own")
        taken = await self.book.accept(challenge.challenge_id, player_id)
        if not taken:
            raise refusal("arena_challenge_unknown", challenge=challenge.challenge_id)
        CHALLENGES.labels("accepted").inc()
        shown = self._challenge_pb(challenge, self._now_ms())
        shown.accepted_ids.append(player_id)
        if taken == 1:
            return pb.AcceptChallengeResponse(challenge=shown)
        match_id = await self._start(challenge)
        return pb.AcceptChallengeResponse(challenge=shown, match_id=match_id)

    def _limited(self) -> contextlib.AbstractContextManager[None]:
        """A daily limit reached: RESOURCE_EXHAUSTED naming it and when it resets."""
        return daily_limits.refused_past_limit(self.clock())

    async def _all_bots(self, seating: tuple[str, ...]) -> bool:
        async with self.redis.pipeline(transaction=False) as pipe:
            for player_id in seating:
                pipe.hget(player_key(player_id), BOT)
            flags = await pipe.execute()
        return all(flag in (b"1", "1") for flag in flags)

    async def _start(self, challenge: Challenge) -> str:
        """Create and start the challenge's match; every seat gets its seat token. A match of
        bots alone counts against each bot's daily bot-vs-bot limit (checked when the challenge
        was made; one reached since cancels the challenge)."""
        seating = challenge.seating
        if await self._all_bots(seating):
            try:
                with self._limited():
                    for player_id in seating:
                        await daily_limits.spend(
                            self.redis, player_id, daily_limits.BOT_MATCHES,
                            self.settings.arena_bot_matches_per_day, self.clock(),
                        )  # fmt: skip
            except daily_limits.DailyLimitExhausted:
                await self._tell_ended(challenge, "starting", "cancelled", seating)
                raise
        try:
            reply = await self.services.engine.CreateMatch(
                engine_pb2.CreateMatchRequest(
                    ruleset=wire.ruleset_to_pb(Ruleset.parse(challenge.ruleset)),
                    seats=len(seating),
                    ranked=challenge.rated,
                    turn_seconds=challenge.turn_seconds,
                    auto_start=True,
                    players=[
                        engine_pb2.SeatedPlayer(seat=seat, player_id=player)
                        for seat, player in enumerate(seating)
                    ],
                    request_id=challenge.challenge_id,
                ),
                metadata=self._service,
                timeout=CALL_SECONDS,
            )
        except grpc.aio.AioRpcError:
            await self._tell_ended(challenge, "starting", "cancelled", seating)
            raise refusal("service_unavailable", service="engine") from None
        match_id: str = reply.match.match_id
        await account_events.mark_match(self.redis, match_id, challenge.challenge_id)
        await self.book.end(challenge.challenge_id, "starting")
        for seat, player in enumerate(seating):
            started = pb.SeatMatchStarted(
                match_id=match_id,
                seat=seat,
                seat_token=tokens.issue_seat_token(self.secret, match_id, seat, player),
                ruleset_text=challenge.ruleset,
                rated=challenge.rated,
                challenge_id=challenge.challenge_id,
            )
            await account_events.publish(self.redis, player, pb.AccountEvent(match_started=started))
        return match_id

    async def DeclineChallenge(
        self, request: pb.DeclineChallengeRequest, context: Context
    ) -> pb.DeclineChallengeResponse:
        player_id = await self._caller(context, tokens.Scope.BOT_PLAY)
        if request.reason not in DECLINE_REASONS:
            raise refusal("decline_reason")
        challenge = await self._challenge_of(request.challenge_id, player_id)
        if player_id == challenge.creator:
            raise refusal("challenge_own")
        if await self.book.end(challenge.challenge_id):
            CHALLENGES.labels("declined").inc()
            declined = pb.ChallengeDeclined(
                challenge_id=challenge.challenge_id, player_id=player_id, reason=request.reason
            )
            await account_events.publish(
                self.redis, challenge.creator, pb.AccountEvent(challenge_declined=declined)
            )
            others = tuple(p for p in challenge.challenged if p != player_id)
            await self._tell(challenge, "cancelled", others)
        return pb.DeclineChallengeResponse()

    async def CancelChallenge(
        self, request: pb.CancelChallengeRequest, context: Context
    ) -> pb.CancelChallengeResponse:
        player_id = await self._caller(context, tokens.Scope.BOT_PLAY)
        challenge = await self._challenge_of(request.challenge_id, player_id)
        if player_id != challenge.creator:
            raise refusal("arena_challenge_unknown", challenge=challenge.challenge_id)
        await self._tell_ended(challenge, "open", "cancelled", challenge.challenged)
        return pb.CancelChallengeResponse()

    async def _tell_ended(
        self, challenge: Challenge, state: str, how: str, players: tuple[str, ...]
    ) -> None:
        if await self.book.end(challenge.challenge_id, state):
            CHALLENGES.labels(how).inc()
            await self._tell(challenge, how, players)

    async def _tell(self, challenge: Challenge, how: str, players: tuple[str, ...]) -> None:
        for player in players:
            if how == "expired":
                event = pb.AccountEvent(
                    challenge_expired=pb.ChallengeExpired(challenge_id=challenge.challenge_id)
                )
            else:
                event = pb.AccountEvent(
                    challenge_cancelled=pb.ChallengeCancelled(challenge_id=challenge.challenge_id)
                )
            await account_events.publish(self.redis, player, event)

    async def sweep(self, stopping: asyncio.Event) -> None:
        """Expire the challenges past their deadline whose creator has no stream open (or that
        reached their longest life), every second until ``stopping``."""
        while not stopping.is_set():
            await pause(stopping, self.settings.arena_sweep_seconds)
            try:
                await self.sweep_once()
            except (redis.RedisError, OSError) as error:
                log.warning("expiring challenges failed (%s); trying again", error)

    async def sweep_once(self) -> None:
        now = self._now_ms()
        for challenge_id in await self.book.due(now):
            challenge = await self.book.get(challenge_id)
            if challenge is None:
                await self.redis.zrem(DEADLINES, challenge_id)
            elif not self.book.outlived(challenge, now) and await self.feeds.is_online(
                challenge.creator
            ):
                await self.book.extend(challenge_id, now)
            else:
                await self._tell_ended(challenge, "open", "expired", challenge.seating)

    def _challenge_pb(self, challenge: Challenge, now_ms: int) -> pb.Challenge:
        ruleset = Ruleset.parse(challenge.ruleset)
        return pb.Challenge(
            challenge_id=challenge.challenge_id,
            creator_id=challenge.creator,
            challenged_ids=challenge.challenged,
            ruleset=wire.ruleset_to_pb(ruleset),
            ruleset_text=challenge.ruleset,
            rated=challenge.rated,
            accepted_ids=sorted(challenge.accepted),
            expires_unix_ms=self.book.deadline_ms(challenge, now_ms),
        )

    # ---------------------------------------------------------------- blocks

    def _other(self, player_id: str, me: str) -> str:
        if not 0 < len(player_id) <= MAX_ID or player_id == me:
            raise refusal("block_player", most=MAX_ID)
        return player_id

    async def BlockAccount(
        self, request: pb.BlockAccountRequest, context: Context
    ) -> pb.BlockAccountResponse:
        me = await self._caller(context, tokens.Scope.BOT_PLAY)
        if not await self.book.block(me, self._other(request.player_id, me)):
            raise refusal("blocks_full", most=MAX_BLOCKS)
        return pb.BlockAccountResponse()

    async def UnblockAccount(
        self, request: pb.UnblockAccountRequest, context: Context
    ) -> pb.UnblockAccountResponse:
        me = await self._caller(context, tokens.Scope.BOT_PLAY)
        await self.book.unblock(me, self._other(request.player_id, me))
        return pb.UnblockAccountResponse()

    async def ListBlocked(
        self, request: pb.ListBlockedRequest, context: Context
    ) -> pb.ListBlockedResponse:
        me = await self._caller(context, tokens.Scope.BOT_PLAY)
        return pb.ListBlockedResponse(player_ids=await self.book.blocked(me))


def _position(event_id: str) -> tuple[int, int]:
    milliseconds, _, sequence = event_id.partition("-")
    return int(milliseconds), int(sequence or 0)
