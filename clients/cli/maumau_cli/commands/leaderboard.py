"""``maumau leaderboard``: the ranked ladder of a rule system, top first or around you::

maumau leaderboard --rules classic
maumau leaderboard --rules online --around
maumau leaderboard --rules classic --bots
"""

from __future__ import annotations

import argparse

import grpc

from maumau_cli.common import PRESETS, add_platform_options, connect, guarded, me, say, texts_for
from maumau_cli.texts import Texts
from maumau_sdk import Leaderboard, MauMauError


def add(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser("leaderboard", help="the ranked ladder: top, or around you")
    parser.add_argument("--rules", choices=PRESETS, default="classic", help="the rule system")
    parser.add_argument("--season", default="", help='e.g. "2025" (default: this year)')
    parser.add_argument("--limit", type=int, default=10, help="places to show (default 10)")
    parser.add_argument("--around", action="store_true", help="the places around you")
    parser.add_argument(
        "--bots", action="store_true", help="the bots' ladder (bots and people never share one)"
    )
    add_platform_options(parser)
    parser.set_defaults(run=run, parser=parser)


async def run(args: argparse.Namespace) -> int:
    texts = texts_for(args)

    async def session() -> int:
        async with connect(args) as platform:
            mine = ""
            if args.around:
                player = await me(platform, args.name)
                mine = player.player_id
                try:
                    page = await platform.around(
                        mine,
                        args.rules,
                        season=args.season,
                        radius=max(args.limit // 2, 1),
                        bots=args.bots,
                    )
                except MauMauError as error:
                    if error.status != grpc.StatusCode.NOT_FOUND:
                        raise
                    say(texts.get("not_on_ladder", preset=args.rules))
                    return 0
            else:
                page = await platform.leaderboard(
                    args.rules, season=args.season, limit=args.limit, bots=args.bots
                )
            show(page, texts, mine)
            return 0

    return await guarded(texts, args.rating_address, session())


def show(page: Leaderboard, texts: Texts, mine: str = "") -> None:
    players = texts.count("player", page.total)
    header = "ladder_header_bots" if page.bots else "ladder_header"
    say(texts.get(header, preset=page.preset, season=page.season, players=players))
    if not page.entries:
        say(texts.get("ladder_empty"))
    for entry in page.entries:
        say(
            texts.get(
                "ladder_line",
                marker=">" if entry.player_id == mine else " ",
                rank=entry.rank,
                name=(entry.name or entry.player_id)[:24],
                rating=entry.skill.display,
                played=texts.count("match", entry.matches_played),
                won=entry.matches_won,
            )
        )
