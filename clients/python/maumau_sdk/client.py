"""The asyncio client: :class:`Platform` -> :class:`Player` -> :class:`Seat`.

A whole match against three bots, playing the first legal action each turn::

    import asyncio
    from maumau_sdk import Platform

    async def main() -> None:
        async with Platform.connect("127.0.0.1:50051") as platform:
            player = await platform.register("Ada")
            seat = await player.create_match("classic", 4, bots={1: "random", 2: "random",
                                             3: "random"}, options={"target": 0})
            async for view in seat.turns():
                await seat.act(view.legal[0])
            print((await seat.info()).outcome)

    asyncio.run(main())

Calls that are safe to repeat (reading a view, joining, acting with its request id) are retried
when the platform is briefly unreachable; a refused call raises :class:`MauMauError`.
"""

from __future__ import annotations

import asyncio
import secrets
import time
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import grpc

from maumau import wire
from maumau.rules import BadInput
from maumau.rules.errors import MESSAGES as RULE_TEXTS
from maumau.v1 import (
    accounts_pb2,
    accounts_pb2_grpc,
    arena_pb2_grpc,
    bots_pb2,
    bots_pb2_grpc,
    engine_pb2,
    engine_pb2_grpc,
    game_pb2,
    matchmaking_pb2,
    matchmaking_pb2_grpc,
    players_pb2,
    players_pb2_grpc,
    rating_pb2,
    rating_pb2_grpc,
)
from maumau_sdk.accounts import Account
from maumau_sdk.errors import RETRYABLE, MauMauError
from maumau_sdk.lobby import (
    Hint,
    History,
    Leaderboard,
    PartyState,
    Profile,
    RoomState,
    TicketState,
)
from maumau_sdk.values import (
    ActionLike,
    ActResult,
    Event,
    MatchInfo,
    SeatInfo,
    View,
    action_to_pb,
)

if TYPE_CHECKING:
    from maumau_sdk.arena import Bot

DEFAULT_ADDRESS = "127.0.0.1:50051"
DEFAULT_MATCHMAKING_ADDRESS = "127.0.0.1:50053"
DEFAULT_RATING_ADDRESS = "127.0.0.1:50054"
DEFAULT_BOTS_ADDRESS = "127.0.0.1:50052"
DEFAULT_ACCOUNTS_ADDRESS = "127.0.0.1:50056"
CHANNEL_OPTIONS: tuple[tuple[str, int], ...] = (
    # Reconnect soon after a replica restarts: gRPC's own backoff grows to two minutes.
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.min_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 3000),
)
HEALTHY_SECONDS = 1.0
"""An event stream that lived this long before it broke counts as healthy: its failure starts a
new series of resumption attempts."""
T = TypeVar("T")

RESUMABLE = frozenset(
    {
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.CANCELLED,  # cancelled by the server side, e.g. a replica shutting down
        grpc.StatusCode.INTERNAL,  # a connection reset mid-stream
        grpc.StatusCode.ABORTED,
        grpc.StatusCode.UNKNOWN,  # an unexpected server fault, e.g. a Redis read timing out
    }
)
"""Statuses that end an event stream without ending the match: reading events changes nothing,
so the stream is resumed (within ``RetryPolicy.resume_within`` of failing calls)."""


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently calls are repeated when the platform is unreachable."""

    attempts: int = 6
    """Tries of one safe call (the first included) before its error is raised."""
    first_delay: float = 0.05
    max_delay: float = 2.0
    resume_within: float = 30.0
    """Seconds an event stream keeps trying to resume before it raises."""

    def delay(self, attempt: int) -> float:
        """The pause before retry number ``attempt`` (0-based), doubling up to ``max_delay``."""
        return float(min(self.max_delay, self.first_delay * 2**attempt))


def _stubs(channel: grpc.aio.Channel) -> tuple[Any, Any]:
    """The Engine and Players stubs of a channel (the generated stubs carry no types)."""
    engine = engine_pb2_grpc.EngineServiceStub(channel)
    players = players_pb2_grpc.PlayersServiceStub(channel)
    return engine, players


def _option_map(options: Mapping[str, object] | None) -> dict[str, str]:
    return {name: _option_text(value) for name, value in (options or {}).items()}


def _auth(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


def _option_text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class Platform:
    """A connection to a Mau-Mau platform (its engine's gRPC address).

    Use it as an async context manager: entering waits until the platform answers (raising
    :class:`MauMauError` with status UNAVAILABLE if it does not within ``timeout``), leaving
    closes the connection.

    >>> async def hello() -> str:  # doctest: +SKIP
    ...     async with Platform.connect("127.0.0.1:50051") as platform:
    ...         player = await platform.register("Ada")
    ...         return player.player_id
    """

    def __init__(
        self,
        address: str = DEFAULT_ADDRESS,
        *,
        timeout: float = 10.0,
        retry: RetryPolicy | None = None,
        credentials: grpc.ChannelCredentials | None = None,
        interceptors: Sequence[grpc.aio.ClientInterceptor] = (),
        matchmaking_address: str = DEFAULT_MATCHMAKING_ADDRESS,
        rating_address: str = DEFAULT_RATING_ADDRESS,
        bots_address: str = DEFAULT_BOTS_ADDRESS,
        accounts_address: str = DEFAULT_ACCOUNTS_ADDRESS,
    ) -> None:
        self.address = address
        self.matchmaking_address = matchmaking_address
        self.rating_address = rating_address
        self.bots_address = bots_address
        self.accounts_address = accounts_address
        self.timeout = timeout
        """Seconds each call may take (per attempt)."""
        self.retry = retry or RetryPolicy()
        self._credentials = credentials
        self._interceptors = list(interceptors)
        self._generation = 0
        self._closed = False
        self._channel = self._open()
        self._engine, self._players = _stubs(self._channel)
        self._others: dict[str, grpc.aio.Channel] = {}

    @classmethod
    def connect(
        cls,
        address: str = DEFAULT_ADDRESS,
        *,
        timeout: float = 10.0,
        retry: RetryPolicy | None = None,
        credentials: grpc.ChannelCredentials | None = None,
        interceptors: Sequence[grpc.aio.ClientInterceptor] = (),
        matchmaking_address: str = DEFAULT_MATCHMAKING_ADDRESS,
        rating_address: str = DEFAULT_RATING_ADDRESS,
        bots_address: str = DEFAULT_BOTS_ADDRESS,
        accounts_address: str = DEFAULT_ACCOUNTS_ADDRESS,
    ) -> Platform:
        """A platform client for the engine at ``address`` ("host:port"), the matchmaker and the
        rating service at theirs (connected at their first use); TLS when ``credentials`` are
        given. Enter it with ``async with`` (or call :meth:`wait_ready` and later
        :meth:`close`)."""
        return cls(
            address,
            timeout=timeout,
            retry=retry,
            credentials=credentials,
            interceptors=interceptors,
            matchmaking_address=matchmaking_address,
            rating_address=rating_address,
            bots_address=bots_address,
            accounts_address=accounts_address,
        )

    def _open(self, address: str | None = None) -> grpc.aio.Channel:
        address = address or self.address
        if self._credentials is not None:
            return grpc.aio.secure_channel(
                address,
                self._credentials,
                options=CHANNEL_OPTIONS,
                interceptors=self._interceptors,
            )
        return grpc.aio.insecure_channel(
            address, options=CHANNEL_OPTIONS, interceptors=self._interceptors
        )

    def _channel_to(self, address: str) -> grpc.aio.Channel:
        """The channel to another service (the engine's own when it is the same address)."""
        if address == self.address:
            return self._channel
        if address not in self._others:
            self._others[address] = self._open(address)
        return self._others[address]

    @property
    def _matchmaking(self) -> Any:
        channel = self._channel_to(self.matchmaking_address)
        return matchmaking_pb2_grpc.MatchmakingServiceStub(channel)

    @property
    def _accounts(self) -> Any:
        channel = self._channel_to(self.accounts_address)
        return accounts_pb2_grpc.AccountsServiceStub(channel)

    @property
    def _arena(self) -> Any:
        channel = self._channel_to(self.accounts_address)
        return arena_pb2_grpc.ArenaServiceStub(channel)

    @property
    def _rating(self) -> Any:
        channel = self._channel_to(self.rating_address)
        return rating_pb2_grpc.RatingServiceStub(channel)

    async def __aenter__(self) -> Platform:
        try:
            await self.wait_ready()
        except BaseException:
            await self.close()
            raise
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def wait_ready(self, timeout: float | None = None) -> None:
        """Wait until the platform answers; UNAVAILABLE :class:`MauMauError` after ``timeout``
        seconds (default: the call timeout)."""
        try:
            async with asyncio.timeout(timeout or self.timeout):
                await self._channel.channel_ready()
        except TimeoutError:
            raise MauMauError(
                grpc.StatusCode.UNAVAILABLE, f"no Mau-Mau platform answers at {self.address}"
            ) from None

    async def reconnect(self) -> None:
        """Replace the connection with a new one. Calls in flight on the old one are repeated
        on the new one when that is safe, and event streams resume where they were."""
        old = self._channel
        self._channel = self._open()
        self._engine, self._players = _stubs(self._channel)
        self._generation += 1
        await old.close()
        others, self._others = self._others, {}
        for channel in others.values():
            await channel.close()

    async def close(self) -> None:
        self._closed = True
        await self._channel.close()
        for channel in self._others.values():
            await channel.close()

    @property
    def closed(self) -> bool:
        return self._closed

    # ------------------------------------------------------------------ players

    async def register(self, name: str) -> Player:
        """Register a new player called ``name`` (1-32 printable characters)."""
        reply = await self._call(
            lambda: self._players.Register(
                players_pb2.RegisterRequest(name=name),
                timeout=self.timeout,
                wait_for_ready=True,
            ),
            safe=False,
        )
        return Player(self, reply.player_id, reply.player_token, name)

    async def login(self, username: str, password: str, *, device: str = "") -> Player:
        """Sign in to the account ``username`` with its password: the account's player (its
        id, history, XP and ratings), with a token of a new session listed as ``device``."""
        request = accounts_pb2.SignInRequest(username=username, password=password, device=device)
        reply = await self._call(
            lambda: self._accounts.SignIn(request, timeout=self.timeout, wait_for_ready=True),
            safe=False,
        )
        signed_in = reply.signed_in
        return Player(self, signed_in.player_id, signed_in.player_token, signed_in.username)

    def bot(self, token: str) -> Bot:
        """A bot account, from its ``bot:play`` access token: its events, the arena, challenges
        and the seats it is given (:class:`maumau_sdk.arena.Bot`)."""
        from maumau_sdk.arena import Bot  # here: the arena module builds on this one

        return Bot(self, token)

    def player(self, player_id: str, token: str, name: str = "") -> Player:
        """A player registered before, from its id and the token :meth:`register` gave it."""
        return Player(self, player_id, token, name)

    async def player_name(self, player_id: str) -> str:
        """A player's display name."""
        reply = await self._call(
            lambda: self._players.GetPlayer(
                players_pb2.GetPlayerRequest(player_id=player_id),
                timeout=self.timeout,
                wait_for_ready=True,
            ),
            safe=True,
        )
        return str(reply.player.name)

    # ------------------------------------------------------------------ tips

    async def hints(self, view: View, *, token: str, lang: str = "en") -> list[Hint]:
        """Every legal action of ``view`` ranked by the platform's Bots service, best first,
        each with its reasons (render them with ``hint.text(lang)``; ``lang`` also asks the
        service for ready-made text in ``hint.server_text``). ``token`` is yours: a player
        token (``player.token``) or the seat token of the view (``seat.token``)."""
        stub = bots_pb2_grpc.BotsServiceStub(self._channel_to(self.bots_address))
        reply = await self._call(
            lambda: stub.Hint(
                bots_pb2.HintRequest(view=view.pb, lang=lang),
                metadata=_auth(token),
                timeout=self.timeout,
                wait_for_ready=True,
            ),
            safe=True,
        )
        return [Hint.from_pb(ranked) for ranked in reply.actions]

    # ------------------------------------------------------------------ rating

    async def _read(self, method: str, request: Any) -> Any:
        """A read of the public rating service, repeated after a transient failure."""
        return await self._call(
            lambda: getattr(self._rating, method)(
                request, timeout=self.timeout, wait_for_ready=True
            ),
            safe=True,
        )

    async def leaderboard(
        self,
        preset: str = "classic",
        *,
        season: str = "",
        offset: int = 0,
        limit: int = 10,
        bots: bool = False,
    ) -> Leaderboard:
        """A page of the ranked ladder of ``preset``, best first (season "": this year); the
        people's, or with ``bots`` the bots' (bots and people never share a ladder)."""
        request = rating_pb2.LeaderboardRequest(
            preset=preset, season=season, offset=offset, limit=limit, ladder=_ladder(bots)
        )
        return Leaderboard.from_pb((await self._read("Leaderboard", request)).page)

    async def around(
        self,
        player_id: str,
        preset: str = "classic",
        *,
        season: str = "",
        radius: int = 5,
        bots: bool = False,
    ) -> Leaderboard:
        """The ladder page around a player: ``radius`` places above and below them (on the
        bots' ladder with ``bots``)."""
        request = rating_pb2.AroundRequest(
            player_id=player_id, preset=preset, season=season, radius=radius, ladder=_ladder(bots)
        )
        return Leaderboard.from_pb((await self._read("Around", request)).page)

    async def profile(self, player_id: str, *, recent: int = 10, bots: bool = False) -> Profile:
        """A player's profile (or a bot level's, "bot:strong"): XP, level, ratings, matches;
        the ratings of the people's ladder, or with ``bots`` of the bots'."""
        request = rating_pb2.GetProfileRequest(
            player_id=player_id, recent=recent, ladder=_ladder(bots)
        )
        return Profile.from_pb((await self._read("GetProfile", request)).profile)

    async def history(self, player_id: str, *, offset: int = 0, limit: int = 10) -> History:
        """A player's finished matches, newest first."""
        request = rating_pb2.HistoryRequest(player_id=player_id, offset=offset, limit=limit)
        return History.from_pb((await self._read("History", request)).page)

    # ------------------------------------------------------------------ calls

    async def _call(self, make: Callable[[], Awaitable[T]], *, safe: bool) -> T:
        """Run one call; a ``safe`` one (repeating it changes nothing) is repeated after a
        transient failure. Every failure raises :class:`MauMauError`."""
        attempt = 0
        while True:
            generation = self._check_open()
            try:
                return await make()
            except grpc.aio.AioRpcError as error:
                if not (safe and error.code() in RETRYABLE and attempt + 1 < self.retry.attempts):
                    raise MauMauError.from_rpc(error) from error
            except asyncio.CancelledError:
                self._raise_unless_replaced(generation)
                if not safe:
                    raise MauMauError(
                        grpc.StatusCode.CANCELLED,
                        "the connection was replaced during the call; it may or may not have "
                        "taken effect",
                    ) from None
            await asyncio.sleep(self.retry.delay(attempt))
            attempt += 1

    def _check_open(self) -> int:
        """The connection generation to start a call on; raises once the platform is closed."""
        if self._closed:
            raise MauMauError(grpc.StatusCode.CANCELLED, "the platform connection is closed")
        return self._generation

    def _raise_unless_replaced(self, generation: int) -> None:
        """Called for a call that ended in CancelledError: re-raise it if its own task is being
        cancelled, raise CANCELLED if the platform was closed, return if :meth:`reconnect`
        replaced the connection the call was on (so it may be repeated)."""
        task = asyncio.current_task()
        if task is not None and task.cancelling():
            raise asyncio.CancelledError
        if self._closed:
            raise MauMauError(grpc.StatusCode.CANCELLED, "the platform connection was closed")
        if self._generation == generation:
            raise asyncio.CancelledError


class Player:
    """A registered player: creates, joins and watches matches with its player token."""

    def __init__(self, platform: Platform, player_id: str, token: str, name: str = "") -> None:
        self.platform = platform
        self.player_id = player_id
        self.token = token
        """The signed player token: keep it to act as this player later."""
        self.name = name

    def __repr__(self) -> str:
        return f"Player({self.player_id!r}, name={self.name!r})"

    @property
    def account(self) -> Account:
        """The player's account: claim a username, passwords, sessions, access tokens."""
        return Account(self)

    async def renew_token(self) -> int:
        """Swap ``token`` for a fresh one with a new lifetime (player tokens expire; renew a
        kept one before it does); when the new one expires, in Unix seconds."""
        reply = await self.platform._call(
            lambda: self.platform._players.RenewToken(
                players_pb2.RenewTokenRequest(),
                metadata=_auth(self.token),
                timeout=self.platform.timeout,
                wait_for_ready=True,
            ),
            safe=True,
        )
        self.token = reply.token.player_token
        return int(reply.token.expires_at)

    async def create_match(
        self,
        preset: str = "classic",
        seats: int = 2,
        *,
        bots: Mapping[int, str] | Sequence[str] | None = None,
        options: Mapping[str, object] | None = None,
        auto_start: bool = True,
        ranked: bool = False,
        turn_seconds: int = 0,
        max_timeouts: int = 0,
        nonce: str | None = None,
        server_seed: str = "",
    ) -> Seat:
        """Open a match and take a seat at it.

        ``bots`` maps seats to bot levels ("random", "heuristic", "strong"; ValueError for any
        other name); a list fills seats 1, 2, ... in order. ``options`` are the preset's options
        (values may be numbers or booleans). With ``auto_start`` the match is dealt as soon as
        every seat is taken, at once if the other seats are all bots. ``nonce`` is this player's
        contribution to the deal seed (a random one by default), so the server alone cannot
        choose the cards.

        >>> seat = await player.create_match("online", 2, bots=["random"])  # doctest: +SKIP
        """
        if bots is None:
            bot_map: dict[int, str] = {}
        elif isinstance(bots, Mapping):
            bot_map = dict(bots)
        else:
            bot_map = {seat: level for seat, level in enumerate(bots, start=1)}
        nonce = secrets.token_hex(16) if nonce is None else nonce
        request = engine_pb2.CreateMatchRequest(
            ruleset=game_pb2.Ruleset(
                preset=preset,
                options={name: _option_text(value) for name, value in (options or {}).items()},
            ),
            seats=seats,
            bots={seat: wire.bot_level_to_pb(level) for seat, level in bot_map.items()},
            ranked=ranked,
            server_seed=server_seed,
            turn_seconds=turn_seconds,
            max_timeouts=max_timeouts,
            auto_start=auto_start,
            nonce=nonce,
        )
        reply = await self.platform._call(
            lambda: self.platform._engine.CreateMatch(
                request, metadata=_auth(self.token), timeout=self.platform.timeout
            ),
            safe=False,
        )
        match = MatchInfo.from_pb(reply.match)
        ((seat, token),) = reply.seat_tokens.items()
        return Seat(self, match, seat, token, nonce)

    async def join(
        self, match_id: str, *, seat: int | None = None, nonce: str | None = None
    ) -> Seat:
        """Take a free seat of a match (``seat``, or any free one when None), or get back your
        own seat with a fresh seat token."""
        nonce = secrets.token_hex(16) if nonce is None else nonce
        request = engine_pb2.JoinMatchRequest(match_id=match_id, seat=seat, nonce=nonce)
        reply = await self.platform._call(
            lambda: self.platform._engine.JoinMatch(
                request,
                metadata=_auth(self.token),
                timeout=self.platform.timeout,
                wait_for_ready=True,
            ),
            safe=True,
        )
        return Seat(self, MatchInfo.from_pb(reply.match), reply.seat, reply.seat_token, nonce)

    async def start(self, match_id: str) -> MatchInfo:
        """Deal the first round of a match you sit at (every seat must be taken)."""
        reply = await self.platform._call(
            lambda: self.platform._engine.StartMatch(
                engine_pb2.StartMatchRequest(match_id=match_id),
                metadata=_auth(self.token),
                timeout=self.platform.timeout,
            ),
            safe=False,
        )
        return MatchInfo.from_pb(reply.match)

    async def match(self, match_id: str) -> MatchInfo:
        """The public facts of any match."""
        reply = await self.platform._call(
            lambda: self.platform._engine.GetMatch(
                engine_pb2.GetMatchRequest(match_id=match_id),
                metadata=_auth(self.token),
                timeout=self.platform.timeout,
                wait_for_ready=True,
            ),
            safe=True,
        )
        return MatchInfo.from_pb(reply.match)

    async def matches(self, limit: int = 20) -> list[MatchInfo]:
        """Your matches: those not over first, the latest entered first; then the finished ones,
        the latest finished first."""
        reply = await self.platform._call(
            lambda: self.platform._engine.ListMatches(
                engine_pb2.ListMatchesRequest(limit=limit),
                metadata=_auth(self.token),
                timeout=self.platform.timeout,
                wait_for_ready=True,
            ),
            safe=True,
        )
        return [MatchInfo.from_pb(m) for m in reply.matches]

    def watch(self, match_id: str) -> Spectator:
        """Follow a match as a spectator: no hand, every seat's card count."""
        return Spectator(self.platform, match_id, self.token)

    # ------------------------------------------------------------------ matchmaking

    async def _matchmaking(self, method: str, request: Any, *, safe: bool) -> Any:
        platform = self.platform
        return await platform._call(
            lambda: getattr(platform._matchmaking, method)(
                request,
                metadata=_auth(self.token),
                timeout=platform.timeout,
                wait_for_ready=safe,
            ),
            safe=safe,
        )

    async def enqueue(
        self,
        preset: str = "classic",
        *,
        options: Mapping[str, object] | None = None,
        seat_counts: Sequence[int] = (),
        preferred_seats: int = 0,
        ranked: bool = False,
        party: Sequence[str] = (),
        allow_bots: bool = True,
        bots_after_seconds: float = 30.0,
        max_wait_seconds: float = 0.0,
    ) -> Ticket:
        """Queue for a table of ``preset``: ranked tables count for the ladder, casual ones do
        not. ``party`` names player ids to sit beside you: members of the party you lead, who
        accepted your invitation (:meth:`invite`, :meth:`accept_party`; ``party=(await
        player.party()).member_ids[1:]``). A ranked ticket is you alone (in a team game, you and
        one partner). Follow the ticket with :meth:`Ticket.follow` or :meth:`Ticket.seat`.

        >>> ticket = await player.enqueue("online", ranked=True)  # doctest: +SKIP
        >>> seat = await ticket.seat()                             # doctest: +SKIP
        """
        request = matchmaking_pb2.EnqueueRequest(
            ruleset=game_pb2.Ruleset(preset=preset, options=_option_map(options)),
            seat_counts=list(seat_counts),
            preferred_seats=preferred_seats,
            ranked=ranked,
            party=list(party),
            allow_bots=allow_bots,
            bots_after_seconds=bots_after_seconds,
            max_wait_seconds=max_wait_seconds,
            request_id=uuid.uuid4().hex,  # so a retry after a lost answer is the same ticket
        )
        reply = await self._matchmaking("Enqueue", request, safe=True)
        return Ticket(self, TicketState.from_pb(reply.ticket))

    async def ticket(self, ticket_id: str = "") -> Ticket:
        """A ticket of yours now; "" for your live (searching) one."""
        request = matchmaking_pb2.GetTicketRequest(ticket_id=ticket_id)
        reply = await self._matchmaking("GetTicket", request, safe=True)
        return Ticket(self, TicketState.from_pb(reply.ticket))

    async def invite(self, player_id: str) -> PartyState:
        """Invite a player to your party (a new one you lead, if you are in none)."""
        request = matchmaking_pb2.InviteToPartyRequest(player_id=player_id)
        reply = await self._matchmaking("InviteToParty", request, safe=True)
        return PartyState.from_pb(reply.party)

    async def accept_party(self, party_id: str = "") -> PartyState:
        """Accept an invitation: ``party_id``, or "" for your latest one."""
        request = matchmaking_pb2.AcceptPartyRequest(party_id=party_id)
        reply = await self._matchmaking("AcceptParty", request, safe=True)
        return PartyState.from_pb(reply.party)

    async def leave_party(self, party_id: str = "") -> PartyState:
        """Leave your party (or decline an invitation to ``party_id``); its searching ticket
        is cancelled."""
        request = matchmaking_pb2.LeavePartyRequest(party_id=party_id)
        reply = await self._matchmaking("LeaveParty", request, safe=True)
        return PartyState.from_pb(reply.party)

    async def party(self, party_id: str = "") -> PartyState:
        """Your party now ("" ), or one you are invited to."""
        request = matchmaking_pb2.GetPartyRequest(party_id=party_id)
        reply = await self._matchmaking("GetParty", request, safe=True)
        return PartyState.from_pb(reply.party)

    async def create_room(
        self,
        preset: str = "classic",
        seats: int = 4,
        *,
        options: Mapping[str, object] | None = None,
        bot_level: str = "",
        turn_seconds: int = 0,
    ) -> Room:
        """Open a private room (you host it, at seat 0); share ``room.state.code``. With a
        ``bot_level`` ("random", "heuristic", "strong"; ValueError for any other name), bots
        take the seats still free when you start it."""
        request = matchmaking_pb2.CreateRoomRequest(
            ruleset=game_pb2.Ruleset(preset=preset, options=_option_map(options)),
            seats=seats,
            bot_level=wire.bot_level_to_pb(bot_level),
            turn_seconds=turn_seconds,
        )
        reply = await self._matchmaking("CreateRoom", request, safe=False)
        return Room(self, RoomState.from_pb(reply.room))

    async def join_room(self, code: str) -> Room:
        """Take a seat in a room by its code or link (or get your own seat back)."""
        request = matchmaking_pb2.JoinRoomRequest(code=code)
        reply = await self._matchmaking("JoinRoom", request, safe=True)
        return Room(self, RoomState.from_pb(reply.room))

    async def room(self, code: str) -> Room:
        """A room as you see it now."""
        request = matchmaking_pb2.GetRoomRequest(code=code)
        reply = await self._matchmaking("GetRoom", request, safe=True)
        return Room(self, RoomState.from_pb(reply.room))

    async def seat_at(self, match_id: str, seat: int, token: str) -> Seat:
        """Your seat at a match the matchmaker seated you at, from its seat token."""
        return Seat(self, await self.match(match_id), seat, token)

    # ------------------------------------------------------------------ rating

    async def profile(self, *, recent: int = 10) -> Profile:
        return await self.platform.profile(self.player_id, recent=recent)

    async def history(self, *, offset: int = 0, limit: int = 10) -> History:
        return await self.platform.history(self.player_id, offset=offset, limit=limit)

    async def around(
        self, preset: str = "classic", *, season: str = "", radius: int = 5
    ) -> Leaderboard:
        return await self.platform.around(self.player_id, preset, season=season, radius=radius)


class _Following:
    """A server stream of states that is opened again after a transient failure (each stream
    starts from the current state, so nothing is lost)."""

    @staticmethod
    async def states(
        platform: Platform, open_stream: Callable[[], Any], within: float
    ) -> AsyncGenerator[Any, None]:
        failing_since: float | None = None
        attempt = 0
        while True:
            platform._check_open()
            call = open_stream()
            try:
                async for message in call:
                    failing_since, attempt = None, 0
                    yield message
                return
            except grpc.aio.AioRpcError as error:
                if error.code() not in RESUMABLE:
                    raise MauMauError.from_rpc(error) from error
                now = time.monotonic()
                failing_since = failing_since or now
                if now - failing_since > within:
                    raise MauMauError.from_rpc(error) from error
            finally:
                call.cancel()
            await asyncio.sleep(platform.retry.delay(attempt))
            attempt += 1


class Ticket:
    """A matchmaking ticket of yours: ``state`` is the latest :class:`TicketState` seen."""

    def __init__(self, player: Player, state: TicketState) -> None:
        self.player = player
        self.state = state

    def __repr__(self) -> str:
        return f"Ticket({self.state.ticket_id!r}, {self.state.state!r})"

    @property
    def ticket_id(self) -> str:
        return self.state.ticket_id

    async def refresh(self) -> TicketState:
        request = matchmaking_pb2.GetTicketRequest(ticket_id=self.ticket_id)
        reply = await self.player._matchmaking("GetTicket", request, safe=True)
        self.state = TicketState.from_pb(reply.ticket)
        return self.state

    async def cancel(self) -> TicketState:
        """Take the ticket out of the queue (FAILED_PRECONDITION once it is seated)."""
        request = matchmaking_pb2.CancelTicketRequest(ticket_id=self.ticket_id)
        reply = await self.player._matchmaking("CancelTicket", request, safe=True)
        self.state = TicketState.from_pb(reply.ticket)
        return self.state

    async def follow(self) -> AsyncIterator[TicketState]:
        """The ticket's state now, then every change, until it is seated, cancelled or expired."""
        platform, player = self.player.platform, self.player
        request = matchmaking_pb2.FollowTicketRequest(ticket_id=self.ticket_id)
        stream = _Following.states(
            platform,
            lambda: platform._matchmaking.FollowTicket(
                request, metadata=_auth(player.token), wait_for_ready=True
            ),
            platform.retry.resume_within,
        )
        async for message in stream:
            self.state = TicketState.from_pb(message.ticket)
            yield self.state
            if self.state.final:
                return

    async def wait(self) -> TicketState:
        """The ticket's final state: seated, cancelled or expired."""
        async for _state in self.follow():
            pass
        return self.state

    async def seat(self) -> Seat:
        """Wait until the ticket is seated and return your seat (a :class:`MauMauError` with
        status ABORTED says it was cancelled or expired instead)."""
        state = self.state if self.state.final else await self.wait()
        if state.state != "seated":
            raise MauMauError(
                grpc.StatusCode.ABORTED, f"ticket {state.ticket_id} {state.state}: {state.reason}"
            )
        return await self.player.seat_at(state.match_id, state.seat, state.seat_token)


class Room:
    """A private room you sit in: ``state`` is the latest :class:`RoomState` seen."""

    def __init__(self, player: Player, state: RoomState) -> None:
        self.player = player
        self.state = state

    def __repr__(self) -> str:
        return f"Room({self.state.code!r}, {self.state.status!r})"

    @property
    def code(self) -> str:
        return self.state.code

    async def refresh(self) -> RoomState:
        request = matchmaking_pb2.GetRoomRequest(code=self.code)
        reply = await self.player._matchmaking("GetRoom", request, safe=True)
        self.state = RoomState.from_pb(reply.room)
        return self.state

    async def start(self) -> RoomState:
        """Start the first match (host only): bots of the room's level fill free seats."""
        request = matchmaking_pb2.StartRoomRequest(code=self.code)
        reply = await self.player._matchmaking("StartRoom", request, safe=False)
        self.state = RoomState.from_pb(reply.room)
        return self.state

    async def follow(self) -> AsyncIterator[RoomState]:
        """The room now, then after every change, until you stop iterating."""
        platform, player = self.player.platform, self.player
        request = matchmaking_pb2.FollowRoomRequest(code=self.code)
        stream = _Following.states(
            platform,
            lambda: platform._matchmaking.FollowRoom(
                request, metadata=_auth(player.token), wait_for_ready=True
            ),
            platform.retry.resume_within,
        )
        try:
            async for message in stream:
                self.state = RoomState.from_pb(message.room)
                yield self.state
        finally:
            await stream.aclose()

    async def next_match(self, after: str | None = None) -> Seat:
        """Your seat at the room's next match: the first one whose id is not ``after`` (default:
        the match on now, or the first match when none has started)."""
        after = self.state.match_id if after is None else after
        states = self.follow()
        try:
            async for state in states:
                if state.match_id and state.match_id != after and state.seat_token:
                    return await self.player.seat_at(
                        state.match_id, state.your_seat, state.seat_token
                    )
        finally:
            await states.aclose()  # type: ignore[attr-defined]
        raise MauMauError(grpc.StatusCode.UNAVAILABLE, f"room {self.code} stopped answering")

    async def seat(self) -> Seat:
        """Your seat at the room's current match (waiting for the first one to start)."""
        if self.state.match_id and self.state.seat_token:
            state = self.state
            return await self.player.seat_at(state.match_id, state.your_seat, state.seat_token)
        return await self.next_match(after="")


class _Table:
    """What seats and spectators share: a view, the match facts and the event stream."""

    def __init__(self, platform: Platform, match_id: str, token: str) -> None:
        self.platform = platform
        self.match_id = match_id
        self.token = token
        self._seat_info: tuple[SeatInfo, ...] = ()

    async def view(self) -> View:
        """What this seat (or spectator) may see now."""
        reply = await self.platform._call(
            lambda: self.platform._engine.GetView(
                engine_pb2.GetViewRequest(match_id=self.match_id),
                metadata=_auth(self.token),
                timeout=self.platform.timeout,
                wait_for_ready=True,
            ),
            safe=True,
        )
        view = View.from_pb(reply.view, self._seat_info)
        self._seat_info = view.seats
        return view

    async def info(self) -> MatchInfo:
        """The public facts of the match (with the server seed once it is over)."""
        reply = await self.platform._call(
            lambda: self.platform._engine.GetMatch(
                engine_pb2.GetMatchRequest(match_id=self.match_id),
                metadata=_auth(self.token),
                timeout=self.platform.timeout,
                wait_for_ready=True,
            ),
            safe=True,
        )
        return MatchInfo.from_pb(reply.match)

    def events(self, after: str = "") -> EventStream:
        """The match's events after the event id ``after`` ("" from the beginning), then live
        ones, as an async iterator that ends when the match is over (after the server seed is
        revealed). A broken connection is resumed from the last event seen, so no event is
        missed or repeated.

        >>> async for event in seat.events():  # doctest: +SKIP
        ...     print(event.id, event.describe())
        """
        return EventStream(self.platform, self.match_id, self.token, after)


class Spectator(_Table):
    """A player watching a match it does not play: views without a hand, events without cards."""

    def __repr__(self) -> str:
        return f"Spectator({self.match_id!r})"


class Seat(_Table):
    """Your seat at a match: act, read your view, follow the events.

    ``seat`` is the seat number, ``token`` the seat token (keep it to come back), ``nonce`` your
    contribution to the deal seed and ``match`` the match facts when you sat down (among them
    the ``seed_commitment`` to check the revealed seed against when the match is over).
    """

    def __init__(
        self, player: Player, match: MatchInfo, seat: int, token: str, nonce: str = ""
    ) -> None:
        super().__init__(player.platform, match.match_id, token)
        self.player = player
        self.match = match
        self.seat = seat
        self.nonce = nonce
        self._seat_info = match.seat_info

    def __repr__(self) -> str:
        return f"Seat({self.match_id!r}, seat={self.seat})"

    async def act(self, action: ActionLike, *, request_id: str | None = None) -> ActResult:
        """Take an action: a rules-core action, its text ("7H", "JD:S!mau", "draw", "catch:2")
        or a ``maumau.v1.Action``. The request id (a fresh UUID unless given) makes a retry
        after a lost answer return the first answer instead of acting twice.

        A move the rules forbid raises :class:`MauMauError` with the rules core's ``code``:

        >>> try:  # doctest: +SKIP
        ...     await seat.act("QS")
        ... except MauMauError as error:
        ...     print(error.code, error.message("de"))
        card_not_in_hand QS ist nicht auf deiner Hand
        """
        try:
            message = action_to_pb(action)
        except BadInput as error:
            raise MauMauError(
                grpc.StatusCode.INVALID_ARGUMENT,
                error.message,
                code=error.code,
                params=error.params,
            ) from None
        request = engine_pb2.ActRequest(request_id=request_id or uuid.uuid4().hex, action=message)
        reply = await self.platform._call(
            lambda: self.platform._engine.Act(
                request,
                metadata=_auth(self.token),
                timeout=self.platform.timeout,
                wait_for_ready=True,
            ),
            safe=True,
        )
        return ActResult(
            version=reply.version,
            events=tuple(Event.from_pb(e) for e in reply.events),
            view=View.from_pb(reply.view, self._seat_info),
            request_id=request.request_id,
        )

    async def leave(self) -> MatchInfo:
        """Leave the match for good: a bot plays your seat from now on."""
        reply = await self.platform._call(
            lambda: self.platform._engine.Leave(
                engine_pb2.LeaveRequest(match_id=self.match_id),
                metadata=_auth(self.token),
                timeout=self.platform.timeout,
            ),
            safe=False,
        )
        return MatchInfo.from_pb(reply.match)

    async def start(self) -> MatchInfo:
        """Deal the first round (when the match was created without ``auto_start``)."""
        return await self.player.start(self.match_id)

    async def turns(self, poll_seconds: float = 2.0) -> AsyncIterator[View]:
        """Your views whenever the match waits for you, until it is over: act on each one.

        It waits for the match to start, follows the events in between and re-reads the view
        at least every ``poll_seconds``. A view is handed out once; if you do not act on it,
        the next one comes after something changed.

        >>> async for view in seat.turns():  # doctest: +SKIP
        ...     await seat.act(view.legal[0])
        """
        stream = self.events()
        news: asyncio.Queue[Event | None] = asyncio.Queue()

        async def pump() -> None:
            try:
                async for event in stream:
                    news.put_nowait(event)
            finally:
                news.put_nowait(None)

        pumping = asyncio.create_task(pump())
        handed_out = -1
        try:
            while True:
                view = await self._view_once_dealt()
                if view is not None:
                    if view.over:
                        return
                    if view.my_turn and view.version > handed_out:
                        handed_out = view.version
                        yield view
                        continue
                if pumping.done() and news.empty():
                    pumping.result()  # raise what ended the stream, if anything
                    await asyncio.sleep(poll_seconds)
                    continue
                try:
                    # asyncio.timeout, not wait_for: on Python 3.11 wait_for can swallow a
                    # cancellation that meets its timeout, and this loop would run on.
                    async with asyncio.timeout(poll_seconds):
                        await news.get()
                except TimeoutError:
                    continue
                while not news.empty():
                    news.get_nowait()
        finally:
            pumping.cancel()
            await asyncio.gather(pumping, return_exceptions=True)
            await stream.aclose()

    async def _view_once_dealt(self) -> View | None:
        """The view, or None while the match waits in its lobby."""
        try:
            return await self.view()
        except MauMauError as error:
            if error.status == grpc.StatusCode.FAILED_PRECONDITION and error.code is None:
                return None
            raise

    async def play(self, decide: Callable[[View], ActionLike | Awaitable[ActionLike]]) -> View:
        """Play until the match is over, acting as ``decide(view)`` says (it may be async);
        returns the final view.

        An action the rules refuse because the match moved on after its view (a bot caught
        a call you missed, a turn timer ran out) is dropped, and ``decide`` gets the next view;
        one refused on a view that is still current raises :class:`MauMauError`.

        >>> final = await seat.play(lambda view: view.legal[0])  # doctest: +SKIP
        """
        async for view in self.turns():
            choice = decide(view)
            action: Any = await choice if isinstance(choice, Awaitable) else choice
            try:
                await self.act(action)
            except MauMauError as refused:
                rule = refused.code is not None and refused.code in RULE_TEXTS["en"]
                if not rule or (await self.view()).version == view.version:
                    raise
        return await self.view()


class ResumingStream(Generic[T]):
    """An async iterator over a server stream that resumes by itself after a broken connection,
    from the id of the last message it took (``last_id``), so nothing is missed or repeated.
    ``resumed`` counts the times it had to resume. A subclass opens the stream (:meth:`_open`)
    and turns each message into an item (:meth:`_take`)."""

    stall_seconds: float | None = None
    """A stream silent for longer is taken for broken and resumed (None: wait for ever)."""

    def __init__(self, platform: Platform, after: str = "") -> None:
        self.platform = platform
        self.last_id = after
        self.resumed = 0
        self._items = self._run()

    def __aiter__(self) -> ResumingStream[T]:
        return self

    async def __anext__(self) -> T:
        return await self._items.__anext__()

    async def aclose(self) -> None:
        """Stop following (also done when an ``async for`` loop over it is left by break)."""
        await self._items.aclose()

    def _open(self) -> Any:
        """The call that streams the messages after ``last_id``."""
        raise NotImplementedError

    def _take(self, message: Any) -> T | None:
        """The item of a message (None: nothing to hand out), moving ``last_id`` on."""
        raise NotImplementedError

    async def _run(self) -> AsyncGenerator[T, None]:
        platform = self.platform
        retry = platform.retry
        attempt = 0
        failing_since: float | None = None
        while True:
            generation = platform._check_open()
            opened = time.monotonic()
            call = self._open()
            failure: MauMauError | None = None
            try:
                while True:
                    async with asyncio.timeout(self.stall_seconds):
                        message = await call.read()
                    if message is grpc.aio.EOF:
                        return  # the server ended the stream
                    attempt, failing_since = 0, None
                    item = self._take(message)
                    if item is not None:
                        yield item
            except grpc.aio.AioRpcError as error:
                failure = MauMauError.from_rpc(error)
                if error.code() not in RESUMABLE:
                    raise failure from error
            except TimeoutError:
                failure = MauMauError(
                    grpc.StatusCode.UNAVAILABLE,
                    f"the stream was silent for {self.stall_seconds} seconds",
                )
            except asyncio.CancelledError:
                platform._raise_unless_replaced(generation)
            finally:
                call.cancel()
            now = time.monotonic()
            if failing_since is None or now - opened > HEALTHY_SECONDS:
                failing_since, attempt = now, 0  # a stream that lived a while: a new failure
            remaining = retry.resume_within - (now - failing_since)
            if remaining <= 0:
                raise failure or MauMauError(
                    grpc.StatusCode.UNAVAILABLE, "the stream could not be resumed"
                )
            if failure is not None:
                await asyncio.sleep(min(retry.delay(attempt), remaining))
                attempt += 1
                await platform.wait_ready(max(remaining - retry.delay(attempt), 0.1))
            self.resumed += 1


class EventStream(ResumingStream[Event]):
    """A match's events (:meth:`Seat.events`), resumed after a broken connection from the last
    event it handed out; it ends when the match is over."""

    def __init__(self, platform: Platform, match_id: str, token: str, after: str = "") -> None:
        self.match_id = match_id
        self._token = token
        super().__init__(platform, after)

    def _open(self) -> Any:
        return self.platform._engine.Follow(
            engine_pb2.FollowRequest(match_id=self.match_id, after_event_id=self.last_id),
            metadata=_auth(self._token),
            wait_for_ready=True,
        )

    def _take(self, message: Any) -> Event:
        self.last_id = message.id
        return Event.from_pb(message.event, message.id)


def _ladder(bots: bool) -> rating_pb2.Ladder:
    """The ladder a rating call asks for: the bots', or (unset) the people's."""
    return rating_pb2.LADDER_BOTS if bots else rating_pb2.LADDER_UNSPECIFIED
