"""maumau_sdk: play Mau-Mau on the platform from asyncio Python.

Connect, register, open a match against bots and play it to the end::

    import asyncio
    import random

    from maumau_sdk import Platform

    async def main() -> None:
        async with Platform.connect("127.0.0.1:50051") as platform:
            player = await platform.register("Ada")
            seat = await player.create_match("classic", 4, bots=["random"] * 3,
                                             options={"target": 0})
            async for view in seat.turns():          # each time the match waits for you
                await seat.act(random.choice(view.legal))
            print((await seat.info()).outcome)

    asyncio.run(main())

The pieces:

- :class:`Platform` (``Platform.connect(address)``) -> :meth:`Platform.register` -> :class:`Player`;
  :meth:`Platform.login` signs in to an account, ``player.account`` (:class:`Account`) claims a
  username and manages passwords, sessions and personal access tokens
- :meth:`Player.create_match` / :meth:`Player.join` -> :class:`Seat` (keeps the seat token)
- :meth:`Seat.view` -> :class:`View`; :meth:`Seat.act` -> :class:`ActResult` (request ids and safe
  retries are automatic); ``async for event in seat.events()`` (resumes after reconnects)
- :class:`MauMauError`: ``status``, ``code``, ``params`` and ``message(lang)`` in English or
  German; ``reason``, ``metadata``, ``retry_after``, ``localized`` and ``field_violations`` from
  the standard error details
- :func:`verify_match`: check the revealed seed and replay every deal and draw you saw
- :meth:`Player.enqueue` -> :class:`Ticket` (``await ticket.seat()``); :meth:`Player.create_room`
  and :meth:`Player.join_room` -> :class:`Room` (``await room.seat()``, ``room.next_match()``)
- :meth:`Platform.hints`: the legal actions ranked by the Bots service, with their reasons
- :meth:`Platform.leaderboard`, :meth:`Platform.around`, :meth:`Platform.profile`,
  :meth:`Platform.history` (and the same for yourself on :class:`Player`)
- :meth:`Platform.bot` -> :class:`Bot`: a bot account with its ``bot:play`` token (after
  ``player.account.become_bot()``): ``bot.events()`` (:class:`AccountEvents`, resumed after a
  broken stream), :meth:`Bot.keep_in_arena`, challenges (:meth:`Bot.challenge`,
  :meth:`Bot.accept`, :meth:`Bot.decline` with a reason of :data:`DECLINE_REASONS`) and
  :meth:`Bot.seat` for each SeatMatchStarted
- :class:`Tournaments` (``Tournaments.connect(address)``): create, register, follow, standings and
  the yearly championship of East-Frisian tournaments
"""

from maumau.rules import Action, Card, Outcome, Play
from maumau_sdk.accounts import Account
from maumau_sdk.arena import DECLINE_REASONS, AccountEvents, Bot
from maumau_sdk.client import (
    DEFAULT_ACCOUNTS_ADDRESS,
    DEFAULT_ADDRESS,
    DEFAULT_BOTS_ADDRESS,
    DEFAULT_MATCHMAKING_ADDRESS,
    DEFAULT_RATING_ADDRESS,
    EventStream,
    Platform,
    Player,
    ResumingStream,
    RetryPolicy,
    Room,
    Seat,
    Spectator,
    Ticket,
)
from maumau_sdk.errors import MauMauError
from maumau_sdk.fairness import FairnessReport, verify_match
from maumau_sdk.lobby import (
    Hint,
    History,
    LadderEntry,
    Leaderboard,
    MatchSummary,
    PartyMember,
    PartyState,
    Profile,
    Rating,
    RoomSeat,
    RoomState,
    Skill,
    TicketState,
)
from maumau_sdk.tournaments import DEFAULT_TOURNAMENTS_ADDRESS, Tournaments
from maumau_sdk.values import (
    ActionLike,
    ActResult,
    Event,
    MatchInfo,
    SeatInfo,
    View,
    action_from_pb,
    action_to_pb,
    event_from_pb,
    to_action,
)

__all__ = [
    "DECLINE_REASONS",
    "DEFAULT_ACCOUNTS_ADDRESS",
    "DEFAULT_ADDRESS",
    "DEFAULT_BOTS_ADDRESS",
    "DEFAULT_MATCHMAKING_ADDRESS",
    "DEFAULT_RATING_ADDRESS",
    "DEFAULT_TOURNAMENTS_ADDRESS",
    "Account",
    "AccountEvents",
    "ActResult",
    "Action",
    "ActionLike",
    "Bot",
    "Card",
    "Event",
    "EventStream",
    "FairnessReport",
    "Hint",
    "History",
    "LadderEntry",
    "Leaderboard",
    "MatchInfo",
    "MatchSummary",
    "MauMauError",
    "Outcome",
    "PartyMember",
    "PartyState",
    "Platform",
    "Play",
    "Player",
    "Profile",
    "Rating",
    "ResumingStream",
    "RetryPolicy",
    "Room",
    "RoomSeat",
    "RoomState",
    "Seat",
    "SeatInfo",
    "Skill",
    "Spectator",
    "Ticket",
    "TicketState",
    "Tournaments",
    "View",
    "action_from_pb",
    "action_to_pb",
    "event_from_pb",
    "to_action",
    "verify_match",
]
