"""``maumau account``: your account on this platform, from the terminal::

maumau account                        # username, id, ways to sign in
maumau account claim ada              # the anonymous player you are becomes the account "ada"
maumau account password               # set or change the password
maumau account sessions               # signed-in devices
maumau account sign-out SESSION_ID    # one of them; --everywhere: all but this one
maumau account tokens                 # personal access tokens
maumau account token NAME --scope read --days 30    # a new one, shown once
maumau account revoke TOKEN_ID
maumau account export --out me.json   # everything kept about you
maumau account delete                 # asks for the username again
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from maumau_cli.commands.login import device_name, read_password
from maumau_cli.common import (
    add_platform_options,
    connect,
    forget,
    guarded,
    keep,
    me,
    say,
    texts_for,
)
from maumau_cli.texts import Texts
from maumau_sdk import Platform, Player
from maumau_sdk.accounts import SCOPES


def add(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser("account", help="your account: name, password, devices, tokens")
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    parser.set_defaults(run=run, parser=parser, action="show")
    add_platform_options(parser)

    def action(name: str, what: str) -> argparse.ArgumentParser:
        sub = actions.add_parser(name, help=what)
        add_platform_options(sub)
        sub.set_defaults(run=run, parser=sub, action=name)
        return sub

    action("show", "username, id and ways to sign in")
    claim = action("claim", "turn the player you are into an account with a username")
    claim.add_argument("username")
    claim.add_argument("--no-password", action="store_true", help="claim without a password")
    claim.add_argument("--password-stdin", action="store_true", help="read it from stdin")
    claim.add_argument("--device", default="")
    password = action("password", "set or change the password")
    password.add_argument("--password-stdin", action="store_true", help="read both from stdin")
    action("sessions", "the devices signed in")
    sign_out = action("sign-out", "sign a device out")
    sign_out.add_argument("session_id", nargs="?", default="")
    sign_out.add_argument("--everywhere", action="store_true", help="every device but this one")
    action("tokens", "personal access tokens")
    token = action("token", "create a personal access token (shown once)")
    token.add_argument("name")
    token.add_argument("--scope", choices=tuple(SCOPES), default="play")
    token.add_argument("--days", type=int, default=0, help="lifetime (default 90)")
    revoke = action("revoke", "end a personal access token")
    revoke.add_argument("token_id")
    export = action("export", "everything kept about you, as JSON")
    export.add_argument("--out", type=Path, default=None, help="a file (default: the terminal)")
    action("delete", "delete the account")


def when(seconds: int) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(seconds)) if seconds else "-"


async def show(t: Texts, player: Player) -> None:
    account = await player.account.get()
    say(t.get("account_header", username=account.username, player_id=account.player_id))
    say(t.get("account_password", state=t.get("yes" if account.has_password else "no")))
    for passkey in account.passkeys:
        say(t.get("account_passkey", name=passkey.name, used=when(passkey.last_used_at)))
    for link in account.providers:
        say(t.get("account_provider", provider=link.provider, email=link.email or link.subject))


async def act(args: argparse.Namespace, t: Texts, platform: Platform, player: Player) -> int:
    account = player.account
    if args.action == "show":
        await show(t, player)
    elif args.action == "claim":
        password = ""
        if not args.no_password:
            password = read_password(t.get("new_password_prompt"), args.password_stdin)
        claimed = await account.claim(
            args.username, password=password, device=device_name(args.device)
        )
        keep(platform, player, account=True)
        say(t.get("claimed", username=claimed.username, player_id=claimed.player_id))
    elif args.action == "password":
        current = read_password(t.get("current_password_prompt"), args.password_stdin)
        new = read_password(t.get("new_password_prompt"), args.password_stdin)
        await account.set_password(new, current_password=current)
        say(t.get("password_set"))
    elif args.action == "sessions":
        for session in await account.sessions():
            say(
                t.get(
                    "session_line",
                    session_id=session.session_id,
                    device=session.device or "-",
                    how=session.how,
                    since=when(session.signed_in_at),
                    current=t.get("session_current") if session.current else "",
                )
            )
    elif args.action == "sign-out":
        if args.everywhere:
            await account.sign_out_everywhere()
            keep(platform, player, account=True)
            say(t.get("signed_out_everywhere"))
        elif args.session_id:
            await account.sign_out(args.session_id)
            say(t.get("signed_out_one", session_id=args.session_id))
        else:
            args.parser.error(t.get("sign_out_which"))
    elif args.action == "tokens":
        for listed in await account.access_tokens():
            scope = next((name for name, value in SCOPES.items() if value == listed.scope), "?")
            say(
                t.get(
                    "token_line",
                    token_id=listed.token_id,
                    name=listed.name,
                    scope=scope,
                    until=when(listed.expires_at),
                )
            )
    elif args.action == "token":
        listed, secret = await account.create_access_token(
            args.name, scope=args.scope, ttl_days=args.days
        )
        say(t.get("token_created", token_id=listed.token_id, until=when(listed.expires_at)))
        say(secret)
    elif args.action == "revoke":
        await account.revoke_access_token(args.token_id)
        say(t.get("token_revoked", token_id=args.token_id))
    elif args.action == "export":
        text = json.dumps(await account.export(), indent=2, ensure_ascii=False)
        if args.out is None:
            say(text)
        else:
            args.out.write_text(text + "\n")
            say(t.get("exported", path=str(args.out)))
    elif args.action == "delete":
        typed = input(t.get("delete_confirm", username=player.name))
        await account.delete(typed.strip())
        forget(platform)
        say(t.get("deleted"))
    return 0


async def run(args: argparse.Namespace) -> int:
    t = texts_for(args)

    async def session() -> int:
        async with connect(args) as platform:
            return await act(args, t, platform, await me(platform, args.name))

    return await guarded(t, args.accounts_address, session())
