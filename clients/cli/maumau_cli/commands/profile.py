"""``maumau profile``: XP and level, ratings and ranks, and the latest matches::

maumau profile            # yours
maumau profile bot:strong # anyone's, by player id
"""

from __future__ import annotations

import argparse

from maumau_cli.common import add_platform_options, connect, guarded, me, say, texts_for


def add(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser("profile", help="XP, level, ratings and match history")
    parser.add_argument("player_id", nargs="?", default="", help="whose (default: yours)")
    parser.add_argument("--recent", type=int, default=10, help="matches to list (default 10)")
    add_platform_options(parser)
    parser.set_defaults(run=run, parser=parser)


async def run(args: argparse.Namespace) -> int:
    t = texts_for(args)

    async def session() -> int:
        async with connect(args) as platform:
            player_id = args.player_id or (await me(platform, args.name)).player_id
            profile = await platform.profile(player_id, recent=args.recent)
            say(t.get("profile_header", name=profile.name, player_id=profile.player_id))
            say(
                t.get(
                    "profile_level",
                    level=profile.level,
                    xp=profile.xp,
                    next=max(profile.next_level_xp - profile.xp, 0),
                )
            )
            say(
                t.get(
                    "profile_matches",
                    played=t.count("match", profile.matches_played),
                    won=profile.matches_won,
                    left=profile.matches_left,
                )
            )
            for rating in profile.ratings:
                say(
                    t.get(
                        "profile_rating",
                        preset=rating.preset,
                        season=rating.season,
                        rating=rating.skill.display,
                        rank=rating.rank,
                        played=t.count("match", rating.matches_played),
                    )
                )
            if profile.recent:
                say(t.get("profile_recent"))
            for match in profile.recent:
                say(
                    t.get(
                        "profile_match",
                        ruleset=match.ruleset,
                        mode=t.get("ranked" if match.ranked else "casual"),
                        place=match.place,
                        xp=match.xp,
                        won=t.get("profile_won") if match.won else "",
                    )
                )
            return 0

    return await guarded(t, args.rating_address, session())
