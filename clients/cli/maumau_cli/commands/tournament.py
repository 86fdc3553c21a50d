"""``maumau tournament join ID``: enter a tournament and play your seats as the blocks come, with
the standings between blocks::

maumau tournament join 5tV0c9Qm2hLr7kqJ1xYw3A
"""

from __future__ import annotations

import argparse

from maumau_cli.common import (
    DEFAULT_BOTS_ADDRESS,
    add_platform_options,
    address_option,
    texts_for,
)
from maumau_cli.tournament import add_tournaments_address, join


def add(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser("tournament", help="take part in a tournament")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    joining = actions.add_parser("join", help="enter and play your seats as they come")
    joining.add_argument("tournament_id", metavar="ID", help="the tournament's id")
    add_platform_options(joining)
    add_tournaments_address(joining)
    address_option(
        joining, "--bots-address", "MAUMAU_BOTS_ADDRESS", DEFAULT_BOTS_ADDRESS, "the bots, for tips"
    )
    joining.set_defaults(run=run, parser=joining)


async def run(args: argparse.Namespace) -> int:
    return await join(args, texts_for(args))
