"""A bot for the arena: a bot account that waits in the arena's pool, plays every seat it is
given and answers challenges, with a policy of its own. Copy it and change :func:`choose`.

Make the bot account once (it prints the bot's ``bot:play`` token, shown this once)::

    python clients/python/examples/arena_bot.py --register robo_1234 --password 'three words here'

then run the bot with that token (``--token`` or ``MAUMAU_BOT_TOKEN``)::

    MAUMAU_BOT_TOKEN=... python clients/python/examples/arena_bot.py --matches 20

The platform's addresses are the flags' ``--address``, ``--accounts-address`` and
``--matchmaking-address``, or the terminal client's ``MAUMAU_ADDRESS``,
``MAUMAU_ACCOUNTS_ADDRESS`` and ``MAUMAU_MATCHMAKING_ADDRESS`` (default: ``make run``'s). It logs
one line per match. It waits in the arena's pool of ``--ruleset`` ("classic target=0"
unless given: one round of the family rules) for tables of the sizes of ``--seats`` (2 unless
given), accepts challenges of that preset and size, and declines the others with the reason
that fits (ruleset, too_many_seats, later when it plays enough tables already). After
``--matches`` matches it leaves the arena, plays out the seats it holds and stops.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections import Counter

from maumau.rules import Ruleset
from maumau.v1 import arena_pb2
from maumau_sdk import ActionLike, Bot, MauMauError, Platform, Play, View

MAX_TABLES = 4
"""Tables played at once; a challenge beyond them is declined as "later"."""


def choose(view: View) -> ActionLike:
    """The bot's policy: catch a seat that missed its call; else play a card of the suit it
    holds most of, keeping Jacks and wilds for later, with the call the play needs and the suit
    it holds most of as wish; else name that suit, or draw, pass or accept."""
    suits = Counter(card.suit for card in view.hand if card.suit)
    longest = suits.most_common(1)[0][0] if suits else ""
    by_text = {action.text: action for action in view.legal}
    catches = [a for a in view.legal if a.text.startswith("catch:")]
    if catches:
        return catches[0]
    plays = [a for a in view.legal if isinstance(a, Play)]
    if plays:

        def value(play: Play) -> tuple[bool, bool, int, bool]:
            special = play.card.rank == "J" or not play.card.suit
            wish_fits = play.suit is None or play.suit == longest
            return (play.call is not None, not special, suits[play.card.suit], wish_fits)

        return max(plays, key=value)
    for text in (f"suit:{longest}", "draw", "pass", "accept"):
        if text in by_text:
            return by_text[text]
    return view.legal[0]


class ArenaBot:
    """The bot's run: its event stream, its entry in the arena and the seats it plays."""

    def __init__(self, bot: Bot, args: argparse.Namespace) -> None:
        self.bot = bot
        self.ruleset: str = args.ruleset
        self.preset = Ruleset.parse(args.ruleset).preset
        self.seat_counts: list[int] = args.seats or [2]
        self.matches: int = args.matches
        self.played = 0
        self.won = 0
        self.started: set[str] = set()
        self.seats: set[asyncio.Task[None]] = set()
        self.enough = asyncio.Event()

    async def run(self) -> None:
        async with asyncio.TaskGroup() as tasks:
            listening = tasks.create_task(self.listen())  # first: seats come by the stream
            waiting = tasks.create_task(
                self.bot.keep_in_arena(self.ruleset, seat_counts=self.seat_counts)
            )
            await self.enough.wait()
            waiting.cancel()
            await self.bot.leave_arena(self.ruleset)
            while self.seats:  # the seats already given are played to their end
                await asyncio.wait(set(self.seats))
            listening.cancel()
        print(f"done: {self.played} matches played, {self.won} won", flush=True)

    async def listen(self) -> None:
        async for event in self.bot.events():
            kind = event.WhichOneof("kind")
            if kind == "match_started" and event.match_started.match_id not in self.started:
                self.started.add(event.match_started.match_id)
                task = asyncio.create_task(self.play(event.match_started))
                self.seats.add(task)
                task.add_done_callback(self.seats.discard)
            elif kind == "challenge_received":
                await self.answer(event.challenge_received.challenge)
            elif kind == "arena_paused":
                print(f"paused until {event.arena_paused.until_unix_ms} ms", flush=True)

    async def answer(self, challenge: arena_pb2.Challenge) -> None:
        """Accept a challenge the bot plays; decline the others with the reason that fits."""
        seats = len(challenge.challenged_ids) + 1
        reason = None
        if challenge.ruleset.preset != self.preset:
            reason = "ruleset"
        elif seats > max(self.seat_counts):
            reason = "too_many_seats"
        elif self.enough.is_set() or len(self.seats) >= MAX_TABLES:
            reason = "later"
        try:
            if reason is None:
                await self.bot.accept(challenge.challenge_id)
            else:
                await self.bot.decline(challenge.challenge_id, reason)
        except MauMauError as error:  # withdrawn or expired meanwhile
            print(f"challenge {challenge.challenge_id}: {error.message()}", flush=True)
            return
        print(f"challenge {challenge.challenge_id}: {reason or 'accepted'}", flush=True)

    async def play(self, started: arena_pb2.SeatMatchStarted) -> None:
        """Play one seat to the end of its match and log the match's line."""
        try:
            seat = await self.bot.seat(started)
            await seat.play(choose)
            outcome = (await seat.info()).outcome
        except MauMauError as error:
            result = f"ended: {error.message()}"
        else:
            won = outcome is not None and started.seat in outcome.winners
            self.won += won
            result = f"{'won' if won else 'lost'} ({outcome.reason if outcome else 'no outcome'})"
        self.played += 1
        where = "arena" if started.arena else "challenge"
        print(
            f"match {started.match_id} ({started.ruleset_text}, {where}, seat {started.seat}): "
            f"{result}; {self.played} played",
            flush=True,
        )
        if self.matches and self.played >= self.matches:
            self.enough.set()


async def register(platform: Platform, username: str, password: str) -> str:
    """Make the bot account: a new player claims ``username``, turns into a bot for good and
    creates its bot:play access token."""
    player = await platform.register(username)
    await player.account.claim(username, password=password, device="arena bot set-up")
    await player.account.become_bot()
    _, token = await player.account.create_access_token("arena bot", scope="bot:play")
    print(f"bot account {username} ({player.player_id}); its token, shown once:", file=sys.stderr)
    return token


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    env = os.environ.get
    parser.add_argument("--address", default=env("MAUMAU_ADDRESS", "127.0.0.1:50051"))
    parser.add_argument(
        "--accounts-address", default=env("MAUMAU_ACCOUNTS_ADDRESS", "127.0.0.1:50056")
    )
    parser.add_argument(
        "--matchmaking-address", default=env("MAUMAU_MATCHMAKING_ADDRESS", "127.0.0.1:50053")
    )
    parser.add_argument("--token", default=os.environ.get("MAUMAU_BOT_TOKEN", ""))
    parser.add_argument("--register", metavar="USERNAME", help="make the bot account")
    parser.add_argument("--password", help="the bot account's password (with --register)")
    parser.add_argument("--ruleset", default="classic target=0", help="the arena pool it joins")
    parser.add_argument("--seats", action="append", type=int, help="a table size it takes")
    parser.add_argument("--matches", type=int, default=0, help="stop after this many (0: never)")
    args = parser.parse_args()
    if args.register and not args.password:
        parser.error("--register needs --password")
    if not args.register and not args.token:
        parser.error("no token: give --token or set MAUMAU_BOT_TOKEN (or --register first)")
    return args


async def main() -> None:
    args = arguments()
    async with Platform.connect(
        args.address,
        accounts_address=args.accounts_address,
        matchmaking_address=args.matchmaking_address,
    ) as platform:
        if args.register:
            print(await register(platform, args.register, args.password), flush=True)
            return
        await ArenaBot(platform.bot(args.token), args).run()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except* MauMauError as refused:  # e.g. a ruleset the arena does not play, a limit reached
        sys.exit("; ".join(f"refused: {error}" for error in refused.exceptions))
