"""``maumau tournaments``: the tournaments, newest first::

maumau tournaments
"""

from __future__ import annotations

import argparse

from maumau_cli.common import add_platform_options, texts_for
from maumau_cli.tournament import add_tournaments_address, list_tournaments


def add(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser("tournaments", help="list the tournaments")
    add_platform_options(parser)
    add_tournaments_address(parser)
    parser.set_defaults(run=run, parser=parser)


async def run(args: argparse.Namespace) -> int:
    return await list_tournaments(args.tournaments_address, texts_for(args))
