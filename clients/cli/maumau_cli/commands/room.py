"""``maumau room``: private rooms with invite codes::

    maumau room create --rules classic --seats 4 --bots heuristic
    maumau room join KXWMPQ

The host types ``s`` to start (bots of the room's level fill free seats); a room starts by
itself when its last seat is taken. After each match the room's next match starts with the same
seats and the tally of wins goes on; ``q`` leaves.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib

from maumau_cli.common import (
    DEFAULT_BOTS_ADDRESS,
    LEVELS,
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
from maumau_sdk import MauMauError, Room, RoomState


def add(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser("room", help="create or join a private room by its code")
    actions = parser.add_subparsers(dest="room_command", metavar="ACTION", required=True)
    create = actions.add_parser("create", help="open a room and share its code")
    add_rules_options(create)
    create.add_argument("--seats", type=int, default=4, help="seats at the table (default 4)")
    create.add_argument(
        "--bots", choices=LEVELS, default=None, help="bots of this level fill free seats at start"
    )
    create.add_argument("--turn-seconds", type=int, default=0, help="turn timer (0: none)")
    join = actions.add_parser("join", help="take a seat in a room by its code or link")
    join.add_argument("code", help="the invite code, e.g. KXWMPQ, or its link")
    for sub in (create, join):
        add_platform_options(sub)
        address_option(
            sub, "--bots-address", "MAUMAU_BOTS_ADDRESS", DEFAULT_BOTS_ADDRESS, "the bots, for tips"
        )
        sub.set_defaults(run=run, parser=sub)


async def run(args: argparse.Namespace) -> int:
    texts = texts_for(args)

    async def session() -> int:
        async with connect(args) as platform:
            player = await me(platform, args.name)
            if args.room_command == "create":
                room = await player.create_room(
                    args.rules,
                    args.seats,
                    options=rule_options(args.parser, args.option),
                    bot_level=args.bots or "",
                    turn_seconds=args.turn_seconds,
                )
                say(texts.get("room_created", code=room.code, link=room.state.link))
            else:
                room = await player.join_room(args.code)
                say(
                    texts.get(
                        "room_joined",
                        seat=room.state.your_seat,
                        code=room.code,
                        ruleset=room.state.ruleset,
                    )
                )
            return await play_room(room, texts, LineReader(), args.bots_address)

    return await guarded(texts, args.matchmaking_address, session())


def seats_line(state: RoomState, texts: Texts) -> str:
    names = [
        texts.get("room_wins", name=s.name or s.bot_level or texts.get("room_free"), wins=s.wins)
        for s in state.seats
    ]
    return texts.get("room_seats", seats=", ".join(names))


async def play_room(room: Room, texts: Texts, reader: LineReader, tips_address: str) -> int:
    """Wait in the room (the host may start it), then play its matches one after another."""
    played = ""
    while True:
        if not await wait_for_match(room, texts, reader, played):
            say(texts.get("room_left"))
            return 0
        seat = await room.seat()
        played = seat.match_id
        say(texts.get("room_match", number=room.state.matches_started, code=room.code))
        status, finished = await play_seat(seat, texts, reader, tips_address)
        if not finished:
            return status  # the player left the match (q) or was interrupted
        say(texts.get("room_next"))


async def wait_for_match(room: Room, texts: Texts, reader: LineReader, played: str) -> bool:
    """Follow the room until a match other than ``played`` is on (True), starting it when the
    host types s; q (or the end of the input) gives up (False)."""
    if room.state.match_id and room.state.match_id != played:
        return True
    quit_ = asyncio.Event()

    async def keyboard() -> None:
        while True:
            line = await reader.readline()
            answer = "q" if line is None else line.strip().lower()
            if answer in ("q", "quit", "ende"):
                quit_.set()
                return
            if answer in ("s", "start"):
                try:
                    await room.start()
                except MauMauError as error:
                    say(texts.get("failed", message=error.message(texts.lang)))

    async def follow() -> None:
        shown = ""
        async for state in room.follow():
            line = seats_line(state, texts)
            if line != shown:
                say(line)
                shown = line
            if state.match_id and state.match_id != played and state.seat_token:
                return

    following = asyncio.create_task(follow())
    watching = [asyncio.create_task(keyboard()), asyncio.create_task(quit_.wait())]
    try:
        done, _ = await asyncio.wait([following, *watching], return_when=asyncio.FIRST_COMPLETED)
        if following in done:
            following.result()
            return True
        return False
    finally:
        for task in (following, *watching):
            task.cancel()
        with contextlib.suppress(Exception):
            await asyncio.gather(following, *watching, return_exceptions=True)
