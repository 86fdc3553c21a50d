"""``maumau play``: one match against bots, for example::

maumau play --rules classic --bots 3 --level random --lang de
"""

from __future__ import annotations

import argparse

from maumau_cli.common import (
    DEFAULT_BOTS_ADDRESS,
    LEVELS,
    add_platform_options,
    add_rules_options,
    address_option,
    rule_options,
    texts_for,
)
from maumau_cli.game import play


def add(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser("play", help="play one match against bots")
    add_rules_options(parser)
    parser.add_argument("--bots", type=int, default=3, help="how many bots (1-7, default 3)")
    parser.add_argument("--level", choices=LEVELS, default="random", help="the bots' level")
    add_platform_options(parser)
    address_option(
        parser, "--bots-address", "MAUMAU_BOTS_ADDRESS", DEFAULT_BOTS_ADDRESS, "the bots, for tips"
    )
    parser.set_defaults(run=run, parser=parser)


async def run(args: argparse.Namespace) -> int:
    options = rule_options(args.parser, args.option)
    if not 1 <= args.bots <= 7:
        args.parser.error("--bots: from 1 to 7")
    return await play(args, texts_for(args), options)
