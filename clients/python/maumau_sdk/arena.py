"""A bot account in the arena, from asyncio Python: its event stream, the arena's pool,
challenges and the seats it is given.

Make the account once (a player that has played no game claims a username, turns into a bot and
creates a ``bot:play`` access token), then run the bot with that token alone::

    async with Platform.connect() as platform:
        player = await platform.register("Robo")
        await player.account.claim("robo", password="correct horse battery")
        await player.account.become_bot()
        _, token = await player.account.create_access_token("arena", scope="bot:play")

    async def play_seats(bot: Bot) -> None:
        async for event in bot.events():
            if event.WhichOneof("kind") == "match_started":
                seat = await bot.seat(event.match_started)
                await seat.play(lambda view: view.legal[0])

    async with Platform.connect() as platform:
        bot = platform.bot(token)
        async with asyncio.TaskGroup() as tasks:
            tasks.create_task(play_seats(bot))  # the event stream first: seats come by it
            tasks.create_task(bot.keep_in_arena("classic target=0"))  # joins, renews its entry

The events and answers are the ``maumau.v1`` messages of ``arena.proto`` and the arena's part of
``matchmaking.proto``, documented field by field there; the rules of the arena are in
docs/arena.md and docs/write-a-bot.md.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from maumau import wire
from maumau.rules import Ruleset
from maumau.v1 import arena_pb2 as pb
from maumau.v1 import engine_pb2, game_pb2, matchmaking_pb2
from maumau_sdk.client import Player, ResumingStream, Seat, _auth, _option_map
from maumau_sdk.values import MatchInfo

if TYPE_CHECKING:
    from maumau_sdk.client import Platform

DECLINE_REASONS = {
    "generic": pb.DECLINE_REASON_GENERIC,
    "later": pb.DECLINE_REASON_LATER,
    "ruleset": pb.DECLINE_REASON_RULESET,
    "rated": pb.DECLINE_REASON_RATED,
    "casual": pb.DECLINE_REASON_CASUAL,
    "too_many_seats": pb.DECLINE_REASON_TOO_MANY_SEATS,
    "no_bots": pb.DECLINE_REASON_NO_BOTS,
    "only_bots": pb.DECLINE_REASON_ONLY_BOTS,
}
"""The reasons to decline a challenge, by the names docs/arena.md gives them."""

RENEW_SECONDS_MIN = 1.0
"""The shortest pause between two joins of :meth:`Bot.keep_in_arena`."""

STALL_SECONDS = 35.0
"""An event stream silent this long (three keep-alives missed, and some) is opened again."""


def token_subject(token: str) -> str:
    """The player id a token speaks for (its ``sub``), read without checking the signature:
    the platform checks it on every call.

    >>> body = base64.urlsafe_b64encode(b'{"sub": "p1"}').decode().rstrip("=")
    >>> token_subject(f"x.{body}.y")
    'p1'
    """
    try:
        body = token.split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
        subject = claims["sub"]
    except (IndexError, ValueError, KeyError, TypeError, binascii.Error):
        raise ValueError("this is no player token: it names no player (sub)") from None
    if not isinstance(subject, str):
        raise ValueError("this is no player token: its sub is no player id")
    return subject


class Bot:
    """A bot account playing with its ``bot:play`` access token (:meth:`Platform.bot`).

    ``player_id`` is the bot's own id, read from the token. The token reaches the arena's calls
    alone; the seats it is given (:meth:`seat`) play with their seat tokens."""

    def __init__(self, platform: Platform, token: str) -> None:
        self.platform = platform
        self.token = token
        self.player_id = token_subject(token)
        self.player = Player(platform, self.player_id, token)
        """The bot as a :class:`Player`, for the seats it plays."""

    def __repr__(self) -> str:
        return f"Bot({self.player_id!r})"

    async def _arena(self, method: str, request: Any, *, safe: bool) -> Any:
        platform = self.platform
        return await platform._call(
            lambda: getattr(platform._arena, method)(
                request, metadata=_auth(self.token), timeout=platform.timeout, wait_for_ready=True
            ),
            safe=safe,
        )

    async def _matchmaking(self, method: str, request: Any, *, safe: bool) -> Any:
        return await self.player._matchmaking(method, request, safe=safe)

    # ------------------------------------------------------------------ events

    def events(self, after: str = "") -> AccountEvents:
        """The account's events after the event id ``after`` ("" from now on), as an async
        iterator that resumes after a broken connection from the last event it handed out
        (keep-alives are not handed out). Open it before joining the arena or challenging:
        seats are given only while it is open, and events from before it are not sent."""
        return AccountEvents(self, after)

    # ------------------------------------------------------------------ the arena's pool

    async def join_arena(
        self, ruleset: str = "classic target=0", *, seat_counts: Sequence[int] = ()
    ) -> matchmaking_pb2.JoinArenaResponse:
        """Wait in the arena's pool of ``ruleset`` (its text, as :meth:`arena_pools` names
        the pools) for a rated table of one of ``seat_counts`` (each 2-8; empty: 2). Join again
        before the answer's ``renew_before_unix_ms`` to stay in the pool (:meth:`keep_in_arena`
        does); joining again changes nothing else."""
        request = matchmaking_pb2.JoinArenaRequest(
            ruleset=_ruleset_pb(ruleset), seat_counts=list(seat_counts)
        )
        reply: matchmaking_pb2.JoinArenaResponse = await self._matchmaking(
            "JoinArena", request, safe=True
        )
        return reply

    async def keep_in_arena(
        self, ruleset: str = "classic target=0", *, seat_counts: Sequence[int] = ()
    ) -> None:
        """Join the arena's pool (:meth:`join_arena`) and join again halfway to each renewal's
        deadline, until cancelled; a refused join (a ruleset the arena does not play, the day's
        matches played) raises :class:`MauMauError`."""
        while True:
            joined = await self.join_arena(ruleset, seat_counts=seat_counts)
            left = joined.renew_before_unix_ms / 1000 - time.time()
            await asyncio.sleep(max(left / 2, RENEW_SECONDS_MIN))

    async def leave_arena(self, ruleset: str = "") -> list[matchmaking_pb2.ArenaPool]:
        """Leave the pool of ``ruleset`` ("": every pool); the pools the bot was waiting in. A
        match already started is played on."""
        request = matchmaking_pb2.LeaveArenaRequest(
            ruleset=_ruleset_pb(ruleset) if ruleset else None
        )
        reply = await self._matchmaking("LeaveArena", request, safe=True)
        return list(reply.left)

    async def arena_pools(self) -> list[matchmaking_pb2.ArenaPool]:
        """The rulesets the arena plays, with the bots waiting in each now."""
        request = matchmaking_pb2.ListArenaPoolsRequest()
        return list((await self._matchmaking("ListArenaPools", request, safe=True)).pools)

    async def online_bots(self) -> list[pb.OnlineBot]:
        """Every bot online now (an event stream open), page by page."""
        found: list[pb.OnlineBot] = []
        page_token = ""
        while True:
            request = pb.ListOnlineBotsRequest(page_size=100, page_token=page_token)
            reply = await self._arena("ListOnlineBots", request, safe=True)
            found.extend(reply.bots)
            page_token = reply.next_page_token
            if not page_token:
                return found

    # ------------------------------------------------------------------ challenges

    async def challenge(
        self,
        player_ids: Sequence[str],
        preset: str = "classic",
        *,
        options: Mapping[str, object] | None = None,
        rated: bool = False,
        turn_seconds: int = 0,
    ) -> pb.Challenge:
        """Challenge 1-7 accounts (people or bots) to one table of ``preset``; each of them
        gets a ChallengeReceived. It lives while this bot's event stream is open."""
        request = pb.CreateChallengeRequest(
            player_ids=list(player_ids),
            ruleset=game_pb2.Ruleset(preset=preset, options=_option_map(options)),
            rated=rated,
            turn_seconds=turn_seconds,
        )
        challenge: pb.Challenge = (
            await self._arena("CreateChallenge", request, safe=False)
        ).challenge
        return challenge

    async def accept(self, challenge_id: str) -> pb.AcceptChallengeResponse:
        """Accept a challenge; the answer's ``match_id`` is set when this was the last
        acceptance (every seat's SeatMatchStarted follows on the event streams)."""
        request = pb.AcceptChallengeRequest(challenge_id=challenge_id)
        reply: pb.AcceptChallengeResponse = await self._arena(
            "AcceptChallenge", request, safe=False
        )
        return reply

    async def decline(self, challenge_id: str, reason: str = "generic") -> None:
        """Decline a challenge with a reason of :data:`DECLINE_REASONS` ("ruleset",
        "too_many_seats", "later", ...), which its creator is told."""
        if reason not in DECLINE_REASONS:
            raise ValueError(f"reason must be one of {', '.join(DECLINE_REASONS)}, not {reason!r}")
        request = pb.DeclineChallengeRequest(
            challenge_id=challenge_id, reason=DECLINE_REASONS[reason]
        )
        await self._arena("DeclineChallenge", request, safe=False)

    async def cancel(self, challenge_id: str) -> None:
        """Withdraw a challenge this bot made."""
        request = pb.CancelChallengeRequest(challenge_id=challenge_id)
        await self._arena("CancelChallenge", request, safe=False)

    async def block(self, player_id: str) -> None:
        """Refuse every challenge from ``player_id`` from now on."""
        await self._arena("BlockAccount", pb.BlockAccountRequest(player_id=player_id), safe=True)

    async def unblock(self, player_id: str) -> None:
        request = pb.UnblockAccountRequest(player_id=player_id)
        await self._arena("UnblockAccount", request, safe=True)

    async def blocked(self) -> list[str]:
        """The accounts this bot blocks."""
        reply = await self._arena("ListBlocked", pb.ListBlockedRequest(), safe=True)
        return list(reply.player_ids)

    # ------------------------------------------------------------------ playing

    async def seat(self, started: pb.SeatMatchStarted) -> Seat:
        """The seat a SeatMatchStarted gives this bot, ready to play (``await
        seat.play(decide)``) with its seat token."""
        platform = self.platform
        reply = await platform._call(
            lambda: platform._engine.GetMatch(
                engine_pb2.GetMatchRequest(match_id=started.match_id),
                metadata=_auth(started.seat_token),
                timeout=platform.timeout,
                wait_for_ready=True,
            ),
            safe=True,
        )
        match = MatchInfo.from_pb(reply.match)
        return Seat(self.player, match, started.seat, started.seat_token)


def _ruleset_pb(text: str) -> game_pb2.Ruleset:
    """A ruleset's text ("classic target=0") as the message; the rules core's BadRuleset (a
    ValueError) saying what is wrong when it is none."""
    return wire.ruleset_to_pb(Ruleset.parse(text))


class AccountEvents(ResumingStream[pb.AccountEvent]):
    """A bot account's events (:meth:`Bot.events`): ``async for event in events``, each a
    ``maumau.v1.AccountEvent`` (``event.WhichOneof("kind")`` says which). A broken or silent
    stream (no keep-alive for :data:`STALL_SECONDS`) is opened again after ``last_id``."""

    stall_seconds = STALL_SECONDS

    def __init__(self, bot: Bot, after: str = "") -> None:
        self.bot = bot
        super().__init__(bot.platform, after)

    def _open(self) -> Any:
        return self.platform._arena.Events(
            pb.EventsRequest(after_event_id=self.last_id),
            metadata=_auth(self.bot.token),
            wait_for_ready=True,
        )

    def _take(self, message: Any) -> pb.AccountEvent | None:
        event: pb.AccountEvent = message.event
        if event.WhichOneof("kind") == "keep_alive":
            return None
        self.last_id = event.event_id
        return event
