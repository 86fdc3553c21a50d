"""Parties by consent (issue 10, "Parties with consent", finding 2): a player is queued only after
accepting the leader's invitation with their own token; unknown ids are NOT_FOUND; invitations and
parties expire and are bounded."""

from __future__ import annotations

import asyncio

import grpc
import pytest
import redis.asyncio

from maumau.matchmaking.parties import MAX_INVITATIONS, invites_key
from tests.matchmaking.support import Player, StartMatchmaker, party_of, register


def address_of(app: object) -> str:
    return f"127.0.0.1:{app.port}"  # type: ignore[attr-defined]


async def refusal(call: object) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await call  # type: ignore[misc]
    return refused.value


async def test_invited_players_who_accept_are_queued_and_seated_with_their_leader(
    matchmakers: StartMatchmaker, redis_client: redis.asyncio.Redis
) -> None:
    app = await matchmakers()
    leader, member = (Player.connect(f"party-{n}", address_of(app)) for n in "ab")
    await register(redis_client, leader, member)
    invited = await leader.invite(member.player_id)
    assert invited.leader_id == leader.player_id
    assert [m.player_id for m in invited.members] == [leader.player_id]
    assert [m.player_id for m in invited.invited] == [member.player_id]
    assert 0 < invited.invited[0].expires_in_seconds <= 300
    # The invited player sees the invitation, and accepts it without naming it.
    assert (await member.party(invited.party_id)).party_id == invited.party_id
    accepted = await member.accept()
    assert [m.player_id for m in accepted.members] == [leader.player_id, member.player_id]
    assert not accepted.invited and accepted.expires_in_seconds > 0
    assert (await member.party()).party_id == invited.party_id

    ticket = await leader.enqueue("classic", seat_counts=[2], party=[member.player_id])
    assert list(ticket.players) == [leader.player_id, member.player_id]
    ends = await asyncio.gather(leader.follow(ticket.ticket_id), member.follow(ticket.ticket_id))
    assert ends[0][-1].state == ends[1][-1].state == "seated"
    assert ends[0][-1].match_id == ends[1][-1].match_id
    assert {ends[0][-1].seat, ends[1][-1].seat} == {0, 1}
    for player in (leader, member):
        await player.close()


async def test_nobody_is_queued_without_their_consent_and_the_victim_still_queues(
    matchmakers: StartMatchmaker, redis_client: redis.asyncio.Redis
) -> None:
    """Finding 2: an Enqueue naming a victim's id no longer queues them."""
    app = await matchmakers()
    attacker, victim = (Player.connect(f"consent-{n}", address_of(app)) for n in "ab")
    await register(redis_client, attacker, victim)
    fields = {"seat_counts": [2]}

    denied = await refusal(attacker.enqueue("classic", party=[victim.player_id], **fields))
    assert denied.code() == grpc.StatusCode.PERMISSION_DENIED
    assert "InviteToParty" in (denied.details() or "")
    unknown = await refusal(attacker.enqueue("classic", party=["made-up-id"], **fields))
    assert unknown.code() == grpc.StatusCode.NOT_FOUND
    assert "made-up-id" in (unknown.details() or "")
    # An invitation is not consent: only acceptance is.
    await attacker.invite(victim.player_id)
    still = await refusal(attacker.enqueue("classic", party=[victim.player_id], **fields))
    assert still.code() == grpc.StatusCode.PERMISSION_DENIED
    # No ticket was left behind for the victim, whose own Enqueue works.
    assert (await refusal(victim.get())).code() == grpc.StatusCode.NOT_FOUND
    own = await victim.enqueue("classic", **fields)
    assert own.state == "searching" and list(own.players) == [victim.player_id]
    await victim.cancel(own.ticket_id)
    # The attacker can go on alone too.
    alone = await attacker.enqueue("classic", **fields)
    await attacker.cancel(alone.ticket_id)
    for player in (attacker, victim):
        await player.close()


async def test_refusals_name_what_is_missing(
    matchmakers: StartMatchmaker, redis_client: redis.asyncio.Redis
) -> None:
    app = await matchmakers(party_max=3)
    a, b, c, d, stranger = (Player.connect(f"refuse-{n}", address_of(app)) for n in "abcdx")
    await register(redis_client, a, b, c, d, stranger)

    assert (await refusal(a.invite("nobody-registered"))).code() == grpc.StatusCode.NOT_FOUND
    assert (await refusal(a.invite(""))).code() == grpc.StatusCode.INVALID_ARGUMENT
    assert (await refusal(a.invite(a.player_id))).code() == grpc.StatusCode.INVALID_ARGUMENT
    assert (await refusal(b.accept())).code() == grpc.StatusCode.NOT_FOUND
    assert (await refusal(b.accept("no-such-party"))).code() == grpc.StatusCode.NOT_FOUND
    assert (await refusal(b.party())).code() == grpc.StatusCode.NOT_FOUND
    assert (await refusal(b.leave_party())).code() == grpc.StatusCode.NOT_FOUND

    party = await a.invite(b.player_id)
    await a.invite(c.player_id)
    full = await refusal(a.invite(d.player_id))  # 3 players and invitations at most
    assert full.code() == grpc.StatusCode.FAILED_PRECONDITION and "full" in (full.details() or "")
    # Accepting one's own invitation only: the stranger was not invited.
    assert (await refusal(stranger.accept(party.party_id))).code() == grpc.StatusCode.NOT_FOUND
    looked = await refusal(stranger.party(party.party_id))
    assert looked.code() == grpc.StatusCode.PERMISSION_DENIED
    await b.accept(party.party_id)
    # Only the leader invites and queues.
    assert (await refusal(b.invite(d.player_id))).code() == grpc.StatusCode.PERMISSION_DENIED
    queued = await refusal(b.enqueue("classic", seat_counts=[2], party=[a.player_id]))
    assert queued.code() == grpc.StatusCode.PERMISSION_DENIED
    # A member of one party cannot join another before leaving.
    other = await d.invite(b.player_id)
    busy = await refusal(b.accept(other.party_id))
    assert busy.code() == grpc.StatusCode.FAILED_PRECONDITION
    await b.leave_party()
    assert [m.player_id for m in (await b.accept(other.party_id)).members] == [
        d.player_id,
        b.player_id,
    ]
    # c declines; then a's party is a alone, and its invitation list is empty.
    declined = await c.leave_party(party.party_id)
    assert [m.player_id for m in declined.members] == [a.player_id] and not declined.invited
    for player in (a, b, c, d, stranger):
        await player.close()


async def test_leaving_cancels_the_party_ticket_and_the_next_member_leads(
    matchmakers: StartMatchmaker, redis_client: redis.asyncio.Redis
) -> None:
    app = await matchmakers()
    a, b, c = (Player.connect(f"leave-{n}", address_of(app)) for n in "abc")
    await party_of(redis_client, a, b, c)
    ticket = await a.enqueue("ostfriesland", seat_counts=[8], party=[b.player_id, c.player_id])
    after = await b.leave_party()
    assert [m.player_id for m in after.members] == [a.player_id, c.player_id]
    ended = await a.get(ticket.ticket_id)
    assert ended.state == "cancelled" and b.player_id in ended.reason
    # b is no longer queued with them.
    refused = await refusal(
        a.enqueue("ostfriesland", seat_counts=[8], party=[b.player_id, c.player_id])
    )
    assert refused.code() == grpc.StatusCode.PERMISSION_DENIED
    # The leader leaves: c leads, and the party is gone once c leaves too.
    assert (await a.leave_party()).leader_id == c.player_id
    gone = await c.leave_party()
    assert not gone.members
    assert (await refusal(c.party(gone.party_id))).code() == grpc.StatusCode.NOT_FOUND
    for player in (a, b, c):
        await player.close()


async def test_invitations_and_parties_expire_and_are_bounded(
    matchmakers: StartMatchmaker, redis_client: redis.asyncio.Redis
) -> None:
    app = await matchmakers(invite_ttl_seconds=0.5, party_ttl_seconds=2.0)
    a, b, c = (Player.connect(f"expire-{n}", address_of(app)) for n in "abc")
    await register(redis_client, a, b, c)
    party = await a.invite(b.player_id)
    await asyncio.sleep(0.7)
    assert (await refusal(b.accept(party.party_id))).code() == grpc.StatusCode.NOT_FOUND
    assert not (await a.party()).invited  # the expired invitation is no longer shown
    await a.invite(c.player_id)
    await c.accept()
    await asyncio.sleep(2.2)  # nobody touched the party
    assert (await refusal(a.party())).code() == grpc.StatusCode.NOT_FOUND
    assert (await refusal(c.party(party.party_id))).code() == grpc.StatusCode.NOT_FOUND
    assert await redis_client.exists(invites_key(c.player_id)) == 0

    # A flood of invitations to one player keeps only the newest few (on a replica whose
    # invitations outlast the flood however slow the machine is).
    lasting = await matchmakers()
    inviters = [
        Player.connect(f"flood-{n}", address_of(lasting)) for n in range(MAX_INVITATIONS + 4)
    ]
    await register(redis_client, *inviters)
    for inviter in inviters:
        await inviter.invite(b.player_id)
    assert await redis_client.zcard(invites_key(b.player_id)) == MAX_INVITATIONS
    # The latest invitation is the one accepted without an id.
    assert (await b.accept()).leader_id == inviters[-1].player_id
    for player in (a, b, c, *inviters):
        await player.close()


async def test_a_ranked_ticket_is_one_player_or_one_team(
    matchmakers: StartMatchmaker, redis_client: redis.asyncio.Redis
) -> None:
    """Partners on opposite sides of a ranked table could hand each other wins."""
    app = await matchmakers()
    a, b = (Player.connect(f"ranked-party-{n}", address_of(app)) for n in "ab")
    await party_of(redis_client, a, b)
    refused = await refusal(a.enqueue("classic", ranked=True, party=[b.player_id]))
    assert refused.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "ranked" in (refused.details() or "")
    team = await a.enqueue("colour teams=true", ranked=True, party=[b.player_id])
    assert team.state == "searching"
    await a.cancel(team.ticket_id)
    for player in (a, b):
        await player.close()


async def test_declining_another_invitation_leaves_ones_own_party_ticket_alone(
    matchmakers: StartMatchmaker, redis_client: redis.asyncio.Redis
) -> None:
    app = await matchmakers()
    a, b, other = (Player.connect(f"decline-{n}", address_of(app)) for n in "abo")
    await party_of(redis_client, a, b)
    await register(redis_client, other)
    invitation = await other.invite(b.player_id)
    ticket = await a.enqueue("ostfriesland", seat_counts=[8], party=[b.player_id])
    declined = await b.leave_party(invitation.party_id)
    assert not declined.invited
    assert (await a.get(ticket.ticket_id)).state == "searching"
    await a.cancel(ticket.ticket_id)
    for player in (a, b, other):
        await player.close()
