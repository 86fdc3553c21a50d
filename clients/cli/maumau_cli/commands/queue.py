"""``maumau queue``: wait for a table with the matchmaker, then play it::

maumau queue --rules online --ranked
maumau queue --rules classic --seats 2 --seats 3 --no-bots
maumau queue --rules classic --party     # with the members of your party (maumau party)
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal

from maumau_cli.common import (
    DEFAULT_BOTS_ADDRESS,
    add_platform_options,
    add_rules_options,
    address_option,
    connect,
    guarded,
    me,
    rule_options,
    say,
    texts_for,
)
from maumau_cli.game import LineReader, play_seat
from maumau_cli.texts import Texts
from maumau_sdk import MauMauError, Ticket


def add(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser("queue", help="find a table with the matchmaker and play it")
    add_rules_options(parser)
    parser.add_argument("--ranked", action="store_true", help="a ranked table (the ladder)")
    parser.add_argument(
        "--seats",
        type=int,
        action="append",
        default=[],
        metavar="N",
        help="a table size you accept (repeatable; default: every size the rules play)",
    )
    parser.add_argument(
        "--party",
        action="store_true",
        help="sit with the members of the party you lead who accepted (see maumau party)",
    )
    parser.add_argument(
        "--no-bots", action="store_true", help="wait for people only; no bots fill the table"
    )
    parser.add_argument(
        "--bots-after",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="how long to wait for people before bots fill the seats (default 10)",
    )
    add_platform_options(parser)
    address_option(
        parser, "--bots-address", "MAUMAU_BOTS_ADDRESS", DEFAULT_BOTS_ADDRESS, "the bots, for tips"
    )
    parser.set_defaults(run=run, parser=parser)


async def run(args: argparse.Namespace) -> int:
    texts = texts_for(args)
    options = rule_options(args.parser, args.option)

    async def session() -> int:
        async with connect(args) as platform:
            player = await me(platform, args.name)
            party: tuple[str, ...] = ()
            if args.party:
                party = (await player.party()).member_ids[1:]
            ticket = await player.enqueue(
                args.rules,
                options=options,
                seat_counts=args.seats,
                ranked=args.ranked,
                party=party,
                allow_bots=not args.no_bots,
                bots_after_seconds=args.bots_after,
            )
            say(texts.get("queued", queue=ticket.state.queue, ticket_id=ticket.ticket_id))
            reader = LineReader()
            if not await wait_for_table(ticket, texts, reader):
                return 1 if ticket.state.state == "expired" else 0
            state = ticket.state
            say(
                texts.get(
                    "seated",
                    seat=state.seat,
                    table=texts.count("player", state.table_seats),
                    match_id=state.match_id,
                    bots=texts.count("computer", state.bot_seats),
                )
            )
            seat = await ticket.seat()
            status, _finished = await play_seat(seat, texts, reader, args.bots_address)
            return status

    return await guarded(texts, args.matchmaking_address, session())


async def wait_for_table(ticket: Ticket, texts: Texts, reader: LineReader) -> bool:
    """Follow the ticket until it is seated (True); q, Ctrl-C or a closed terminal cancel it,
    and a ticket that expires ends the wait (False)."""
    loop = asyncio.get_running_loop()
    quitting = asyncio.Event()
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        loop.add_signal_handler(signum, quitting.set)

    async def keyboard() -> None:
        while True:
            line = await reader.readline()
            if line is None or line.strip().lower() in ("q", "quit", "ende"):
                quitting.set()
                return

    async def follow() -> None:
        async for state in ticket.follow():
            if state.state == "searching":
                say(
                    texts.get("searching", seconds=texts.count("second", int(state.waited_seconds)))
                )

    following = asyncio.create_task(follow())
    watching = [asyncio.create_task(keyboard()), asyncio.create_task(quitting.wait())]
    try:
        await asyncio.wait([following, *watching], return_when=asyncio.FIRST_COMPLETED)
        if not following.done():
            with contextlib.suppress(MauMauError):
                await ticket.cancel()
            if ticket.state.state != "seated":
                say(texts.get("ticket_cancelled"))
                return False
        else:
            following.result()
        if ticket.state.state != "seated":
            say(texts.get("ticket_over", state=ticket.state.state, reason=ticket.state.reason))
            return False
        return True
    finally:
        for task in (following, *watching):
            task.cancel()
        await asyncio.gather(following, *watching, return_exceptions=True)
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            loop.remove_signal_handler(signum)
