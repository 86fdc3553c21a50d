"""``maumau``: play Mau-Mau on a Mau-Mau platform from the terminal.

    maumau play --rules classic --bots 3 --level random --lang de
    maumau queue --rules online --ranked
    maumau room create --rules classic --seats 4 --bots heuristic
    maumau room join KXWMPQ
    maumau leaderboard --rules classic
    maumau profile

``maumau COMMAND --help`` lists every option of a command; the commands are the modules named in
:data:`maumau_cli.commands.COMMANDS`.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import sys
from collections.abc import Sequence

from maumau_cli.commands import COMMANDS


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="maumau", description="Play Mau-Mau on a Mau-Mau platform from the terminal."
    )
    commands = top.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"maumau_cli.commands.{name}").add(commands)
    return top


def main(argv: Sequence[str] | None = None) -> int:
    top = parser()
    args = top.parse_args(argv)
    if getattr(args, "run", None) is None:
        top.print_help()
        return 2
    try:
        status: int = asyncio.run(args.run(args))
        return status
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
