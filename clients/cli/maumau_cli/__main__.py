"""``maumau play``: one match against bots in the terminal, for example::

    maumau play --rules classic --bots 3 --level random --lang de
    python -m maumau_cli play --rules online --bots 1 --option wins=2

``maumau tournaments`` lists the tournaments; ``maumau tournament join ID`` enters one and plays
your seats as the blocks come, showing the standings between blocks.

``maumau play --help`` lists every option.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import sys
from collections.abc import Sequence

from maumau_cli.game import play
from maumau_cli.texts import LANGUAGES, Texts, default_language
from maumau_cli.tournament import join, list_tournaments
from maumau_sdk import DEFAULT_ADDRESS, DEFAULT_TOURNAMENTS_ADDRESS

PRESETS = ("classic", "online", "ostfriesland", "colour")
LEVELS = ("random", "heuristic", "strong")
DEFAULT_BOTS_ADDRESS = "127.0.0.1:50052"


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="maumau", description="Play Mau-Mau on a Mau-Mau platform from the terminal."
    )
    commands = top.add_subparsers(dest="command", metavar="COMMAND")
    game = commands.add_parser("play", help="play one match against bots")
    game.add_argument("--rules", choices=PRESETS, default="classic", help="the rule system")
    game.add_argument("--bots", type=int, default=3, help="how many bots (1-7, default 3)")
    game.add_argument("--level", choices=LEVELS, default="random", help="the bots' level")
    game.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a rule option, e.g. target=0 for a single round (repeatable)",
    )
    game.add_argument(
        "--lang", choices=LANGUAGES, default=None, help="de or en (default: from the locale)"
    )
    game.add_argument("--name", default=None, help="your name at the table")
    game.add_argument(
        "--address", default=DEFAULT_ADDRESS, help=f"the platform (default {DEFAULT_ADDRESS})"
    )
    game.add_argument(
        "--bots-address",
        default=DEFAULT_BOTS_ADDRESS,
        help=f"the bot service, for tips (default {DEFAULT_BOTS_ADDRESS})",
    )
    listing = commands.add_parser("tournaments", help="list the tournaments")
    _common(listing)
    tournament = commands.add_parser("tournament", help="take part in a tournament")
    actions = tournament.add_subparsers(dest="action", metavar="ACTION", required=True)
    joining = actions.add_parser("join", help="enter and play your seats as they come")
    joining.add_argument("tournament_id", metavar="ID", help="the tournament's id")
    joining.add_argument("--name", default=None, help="your name in the tournament")
    joining.add_argument(
        "--address", default=DEFAULT_ADDRESS, help=f"the platform (default {DEFAULT_ADDRESS})"
    )
    joining.add_argument(
        "--bots-address",
        default=DEFAULT_BOTS_ADDRESS,
        help=f"the bot service, for tips (default {DEFAULT_BOTS_ADDRESS})",
    )
    _common(joining)
    return top


def _common(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--tournaments-address",
        default=DEFAULT_TOURNAMENTS_ADDRESS,
        help=f"the tournaments service (default {DEFAULT_TOURNAMENTS_ADDRESS})",
    )
    command.add_argument(
        "--lang", choices=LANGUAGES, default=None, help="de or en (default: from the locale)"
    )


def main(argv: Sequence[str] | None = None) -> int:
    top = parser()
    args = top.parse_args(argv)
    if args.command in ("tournaments", "tournament"):
        texts = Texts(args.lang or default_language())
        try:
            if args.command == "tournaments":
                return asyncio.run(list_tournaments(args.tournaments_address, texts))
            name = (args.name or _user_name())[:32]
            return asyncio.run(
                join(
                    args.address,
                    args.tournaments_address,
                    args.tournament_id,
                    texts,
                    name,
                    args.bots_address,
                )
            )
        except KeyboardInterrupt:
            print(file=sys.stderr)
            return 130
    if args.command != "play":
        top.print_help()
        return 2
    options: dict[str, str] = {}
    for item in args.option:
        name, sep, value = item.partition("=")
        if not sep or not name:
            top.error(f"--option {item!r}: write NAME=VALUE, e.g. target=0")
        options[name.strip()] = value.strip()
    if not 1 <= args.bots <= 7:
        top.error("--bots: from 1 to 7")
    texts = Texts(args.lang or default_language())
    name = (args.name or _user_name())[:32]
    try:
        return asyncio.run(
            play(
                args.address,
                args.rules,
                args.bots,
                args.level,
                texts,
                name,
                options,
                args.bots_address,
            )
        )
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return 130


def _user_name() -> str:
    try:
        return getpass.getuser().capitalize() or "Player"
    except (KeyError, OSError):
        return "Player"


if __name__ == "__main__":
    sys.exit(main())
