"""``maumau party``: play with friends by invitation and consent::

    maumau party invite PLAYER_ID   # you lead; they see the invitation with `maumau party`
    maumau party accept             # take up your latest invitation (or name its party id)
    maumau party                    # your party: members and open invitations
    maumau party leave              # leave it (or decline an invitation: leave PARTY_ID)
    maumau queue --party            # the leader queues everyone who accepted

A player's id is in ``maumau profile``.
"""

from __future__ import annotations

import argparse

import grpc

from maumau_cli.common import add_platform_options, connect, guarded, me, say, texts_for
from maumau_cli.texts import Texts
from maumau_sdk import MauMauError, PartyState, Player


def add(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser("party", help="invite friends, accept, leave; then queue together")
    actions = parser.add_subparsers(dest="party_command", metavar="ACTION")
    invite = actions.add_parser("invite", help="invite a player (by id) to your party")
    invite.add_argument("player_id", help="their player id (maumau profile shows one's own)")
    accept = actions.add_parser("accept", help="join the party that invited you")
    accept.add_argument("party_id", nargs="?", default="", help="default: your latest invitation")
    leave = actions.add_parser("leave", help="leave your party, or decline an invitation")
    leave.add_argument("party_id", nargs="?", default="", help="default: your party")
    show = actions.add_parser("show", help="your party (the default action)")
    show.add_argument("party_id", nargs="?", default="", help="default: your party")
    for sub in (parser, invite, accept, leave, show):
        add_platform_options(sub)
        sub.set_defaults(run=run, parser=sub)


async def run(args: argparse.Namespace) -> int:
    texts = texts_for(args)

    async def session() -> int:
        async with connect(args) as platform:
            player = await me(platform, args.name)
            action = args.party_command or "show"
            party_id = getattr(args, "party_id", "")
            if action == "invite":
                party = await player.invite(args.player_id)
            elif action == "accept":
                party = await player.accept_party(party_id)
            elif action == "leave":
                party = await player.leave_party(party_id)
                say(texts.get("party_left"))
                if not party.members:
                    return 0
            else:
                try:
                    party = await player.party(party_id)
                except MauMauError as error:
                    if error.status != grpc.StatusCode.NOT_FOUND or party_id:
                        raise
                    say(texts.get("party_none"))
                    return 1
            show_party(party, player, texts)
            return 0

    return await guarded(texts, args.matchmaking_address, session())


def show_party(party: PartyState, player: Player, texts: Texts) -> None:
    say(texts.get("party_header", party_id=party.party_id))
    for member in party.members:
        lead = texts.get("party_leader") if member.player_id == party.leader_id else ""
        say(texts.get("party_member", name=member.name, player_id=member.player_id, lead=lead))
    for invited in party.invited:
        say(
            texts.get(
                "party_invited",
                name=invited.name,
                player_id=invited.player_id,
                seconds=int(invited.expires_in_seconds),
            )
        )
    if party.leader_id == player.player_id and len(party.members) > 1:
        say(texts.get("party_queue_hint"))
