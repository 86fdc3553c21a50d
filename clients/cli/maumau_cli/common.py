"""What every subcommand shares: the platform's addresses, the language, and who you are.

The player you register as is kept per engine address in ``players.json`` under
``$MAUMAU_HOME`` (default ``$XDG_CONFIG_HOME/maumau``, else ``~/.config/maumau``), so queueing,
rooms, the profile and the history are about the same player from one command to the next.
"""

from __future__ import annotations

import argparse
import contextlib
import getpass
import json
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TextIO

import grpc

from maumau_cli.texts import LANGUAGES, Texts, default_language
from maumau_sdk import (
    DEFAULT_ACCOUNTS_ADDRESS,
    DEFAULT_ADDRESS,
    DEFAULT_MATCHMAKING_ADDRESS,
    DEFAULT_RATING_ADDRESS,
    MauMauError,
    Platform,
    Player,
)

DEFAULT_BOTS_ADDRESS = "127.0.0.1:50052"
PRESETS = ("classic", "online", "ostfriesland", "colour")
LEVELS = ("random", "heuristic", "strong")
Run = Callable[[argparse.Namespace], Awaitable[int]]


def address_option(
    parser: argparse.ArgumentParser, flag: str, variable: str, default: str, what: str
) -> None:
    """An address flag whose default comes from ``variable`` when it is set."""
    parser.add_argument(
        flag,
        default=os.environ.get(variable) or default,
        help=f"{what} (default ${variable}, else {default})",
    )


def add_platform_options(parser: argparse.ArgumentParser) -> None:
    """--address, --matchmaking-address, --rating-address, --accounts-address, --lang, --name
    and --plain."""
    address_option(parser, "--address", "MAUMAU_ADDRESS", DEFAULT_ADDRESS, "the engine")
    address_option(
        parser,
        "--matchmaking-address",
        "MAUMAU_MATCHMAKING_ADDRESS",
        DEFAULT_MATCHMAKING_ADDRESS,
        "the matchmaker",
    )
    address_option(
        parser, "--rating-address", "MAUMAU_RATING_ADDRESS", DEFAULT_RATING_ADDRESS, "the ladder"
    )
    address_option(
        parser,
        "--accounts-address",
        "MAUMAU_ACCOUNTS_ADDRESS",
        DEFAULT_ACCOUNTS_ADDRESS,
        "the accounts service",
    )
    parser.add_argument(
        "--lang", choices=LANGUAGES, default=None, help="de or en (default: from the locale)"
    )
    parser.add_argument(
        "--name", default=None, help="your name when you register (default: your login name)"
    )
    parser.add_argument(
        "--plain",
        action="store_true",
        help="letters instead of suit symbols (for screen readers and logs)",
    )


def add_rules_options(parser: argparse.ArgumentParser, default: str = "classic") -> None:
    parser.add_argument("--rules", choices=PRESETS, default=default, help="the rule system")
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a rule option, e.g. target=0 for a single round (repeatable)",
    )


def rule_options(parser: argparse.ArgumentParser, items: list[str]) -> dict[str, str]:
    options: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            parser.error(f"--option {item!r}: write NAME=VALUE, e.g. target=0")
        options[name.strip()] = value.strip()
    return options


def texts_for(args: argparse.Namespace) -> Texts:
    """The texts in the chosen language; suit symbols on a UTF-8 terminal unless --plain."""
    encoding = (getattr(sys.stdout, "encoding", "") or "").lower().replace("-", "")
    symbols = not args.plain and encoding == "utf8" and os.environ.get("TERM") != "dumb"
    return Texts(args.lang or default_language(), symbols=symbols)


def user_name() -> str:
    """The login name, capitalized; "Player" for root or when there is none."""
    try:
        login = getpass.getuser()
    except (KeyError, OSError):
        return "Player"
    if not login or login == "root" or os.geteuid() == 0:
        return "Player"
    return login.capitalize()


def say(text: str = "", out: TextIO | None = None) -> None:
    """Print a line; a terminal that went away (SIGHUP) is no error."""
    with contextlib.suppress(OSError):
        print(text, file=out or sys.stdout, flush=True)


def connect(args: argparse.Namespace) -> Platform:
    return Platform.connect(
        args.address,
        timeout=5.0,
        matchmaking_address=args.matchmaking_address,
        rating_address=args.rating_address,
        accounts_address=args.accounts_address,
    )


def home() -> Path:
    explicit = os.environ.get("MAUMAU_HOME")
    if explicit:
        return Path(explicit)
    config = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config) / "maumau"


def players_file() -> Path:
    return home() / "players.json"


def kept_players() -> dict[str, object]:
    """Who you are on each platform (by engine address), as ``players.json`` keeps it."""
    try:
        kept = json.loads(players_file().read_text())
    except (OSError, ValueError):
        return {}
    return kept if isinstance(kept, dict) else {}


class SignedOut(Exception):
    """The kept account session has ended: only signing in again brings the account back (a
    new anonymous player would not be you)."""

    def __init__(self, username: str) -> None:
        super().__init__(username)
        self.username = username


def keep(platform: Platform, player: Player, *, account: bool = False) -> None:
    """Keep ``player`` as who you are on this platform, readable by you alone; ``account``
    when it is a signed-in account's session rather than an anonymous player."""
    kept = kept_players()
    kept[platform.address] = {
        "player_id": player.player_id,
        "token": player.token,
        "name": player.name,
        **({"account": True} if account else {}),
    }
    path = players_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch(0o600)
    path.chmod(0o600)  # the token is who you are
    path.write_text(json.dumps(kept, indent=2))


def forget(platform: Platform) -> None:
    """Forget who you are on this platform (after signing out or deleting the account)."""
    kept = kept_players()
    if kept.pop(platform.address, None) is not None:
        players_file().write_text(json.dumps(kept, indent=2))


async def me(platform: Platform, name: str | None) -> Player:
    """The player kept for this platform's address, or a new one registered (and kept)."""
    known = kept_players().get(platform.address)
    player = None
    account = isinstance(known, dict) and bool(known.get("account"))
    if isinstance(known, dict) and {"player_id", "token"} <= known.keys():
        player = platform.player(known["player_id"], known["token"], known.get("name", ""))
        try:
            await player.renew_token()  # a kept token would otherwise expire one day
        except MauMauError as error:
            if error.status != grpc.StatusCode.UNAUTHENTICATED:
                raise
            if account:
                forget(platform)
                raise SignedOut(player.name) from error
            player = None  # expired or revoked: this platform knows us no more
    if player is None:
        player = await platform.register((name or user_name())[:32])
    keep(platform, player, account=account)
    return player


async def guarded(texts: Texts, address: str, work: Awaitable[int]) -> int:
    """Run a command's work; an unreachable platform is exit status 2, a refusal 1."""
    try:
        return await work
    except SignedOut as error:
        say(texts.get("signed_out", username=error.username))
        return 1
    except MauMauError as error:
        if error.status in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
            say(texts.get("no_platform", address=address))
            return 2
        say(texts.get("failed", message=error.message(texts.lang)))
        return 1
