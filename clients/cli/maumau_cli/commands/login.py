"""``maumau login``: sign in to your account on this device, and ``maumau logout``::

maumau login ada                      # asks for the password
printf '%s\\n' "$PW" | maumau login ada --password-stdin

From then on every command plays as the account (its id, history, XP and ratings). An anonymous
player becomes an account with ``maumau account claim NAME``.
"""

from __future__ import annotations

import argparse
import getpass
import platform as host
import sys

from maumau_cli.common import (
    add_platform_options,
    connect,
    forget,
    guarded,
    keep,
    kept_players,
    say,
    texts_for,
)


def add(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser("login", help="sign in to your account on this device")
    parser.add_argument("username")
    parser.add_argument(
        "--password-stdin", action="store_true", help="read the password from standard input"
    )
    parser.add_argument("--device", default="", help="how this device is listed in your sessions")
    add_platform_options(parser)
    parser.set_defaults(run=run, parser=parser)
    logout = commands.add_parser("logout", help="sign this device out of your account")
    add_platform_options(logout)
    logout.set_defaults(run=run_logout, parser=logout)


def device_name(given: str) -> str:
    return (given or f"maumau on {host.system()} ({host.node()})")[:64]


def read_password(prompt: str, from_stdin: bool) -> str:
    """The password from standard input (for scripts) or typed without echo."""
    if from_stdin:
        return sys.stdin.readline().rstrip("\n")
    return getpass.getpass(prompt)


async def run(args: argparse.Namespace) -> int:
    t = texts_for(args)
    password = read_password(t.get("password_prompt"), args.password_stdin)

    async def session() -> int:
        async with connect(args) as platform:
            player = await platform.login(args.username, password, device=device_name(args.device))
            keep(platform, player, account=True)
            say(t.get("logged_in", username=player.name, player_id=player.player_id))
            return 0

    return await guarded(t, args.accounts_address, session())


async def run_logout(args: argparse.Namespace) -> int:
    t = texts_for(args)

    async def session() -> int:
        async with connect(args) as platform:
            known = kept_players().get(platform.address)
            if not (isinstance(known, dict) and known.get("account")):
                say(t.get("not_logged_in"))
                return 1
            player = platform.player(known["player_id"], known["token"], known.get("name", ""))
            sessions = await player.account.sessions()
            for current in (s for s in sessions if s.current):
                await player.account.sign_out(current.session_id)
            forget(platform)
            say(t.get("logged_out", username=player.name))
            return 0

    return await guarded(t, args.accounts_address, session())
