"""A replica dying mid-formation (issue 5, "Several matchmaker replicas"): its claimed tickets
are claimed again once its lease runs out, and seated once, by another replica, whether it died
before or after creating the match."""

from __future__ import annotations

import asyncio

from prometheus_client import REGISTRY

from maumau.engine.app import EngineApp
from maumau.matchmaking.tickets import Formation
from maumau.matchmaking.worker import Hooks
from tests.matchmaking.support import Engine, Player, StartMatchmaker
from tests.support.polling import eventually

LEASE = 0.5


def takeovers(outcome: str) -> float:
    return (
        REGISTRY.get_sample_value("matchmaking_lease_takeovers_total", {"outcome": outcome}) or 0.0
    )


async def queue_pair(address: str, name: str) -> tuple[list[Player], list[str]]:
    players = [Player.connect(f"{name}-{n}", address) for n in "ab"]
    tickets = [(await p.enqueue("online", seat_counts=[2])).ticket_id for p in players]
    return players, tickets


async def seated(players: list[Player], tickets: list[str]) -> list[str]:
    """The match each ticket is seated at (after following it to its end)."""
    ends = [(await p.follow(t))[-1] for p, t in zip(players, tickets, strict=True)]
    assert [t.state for t in ends] == ["seated", "seated"]
    return [t.match_id for t in ends]


async def test_tickets_of_a_replica_dying_before_it_creates_the_match_are_seated_by_another(
    matchmakers: StartMatchmaker, engine: EngineApp
) -> None:
    claimed: list[Formation] = []

    async def die_after_claiming(formation: Formation) -> None:
        claimed.append(formation)
        await asyncio.Event().wait()  # hangs until killed

    dying = await matchmakers(Hooks(after_claim=die_after_claiming), lease_seconds=LEASE)
    players, tickets = await queue_pair(f"127.0.0.1:{dying.port}", "die-before")
    await eventually(lambda: asyncio.sleep(0, bool(claimed)), 5, "the claim")
    await dying.kill()
    returned = takeovers("returned")
    survivor = await matchmakers(lease_seconds=LEASE)
    for player in players:
        player.channel = Player.connect(player.player_id, f"127.0.0.1:{survivor.port}").channel
    match_ids = await seated(players, tickets)
    assert match_ids[0] == match_ids[1]
    assert takeovers("returned") == returned + 1
    watcher = Engine(f"127.0.0.1:{engine.port}")
    for player in players:
        assert [m.match_id for m in await watcher.matches_of(player.player_id)] == match_ids[:1]
        await player.close()
    await watcher.close()


async def test_a_match_created_by_a_replica_that_died_is_found_and_its_tickets_seated_there(
    matchmakers: StartMatchmaker, engine: EngineApp
) -> None:
    created: list[str] = []

    async def die_after_creating(formation: Formation, match_id: str) -> None:
        created.append(match_id)
        await asyncio.Event().wait()

    dying = await matchmakers(Hooks(after_create=die_after_creating), lease_seconds=LEASE)
    players, tickets = await queue_pair(f"127.0.0.1:{dying.port}", "die-after")
    await eventually(lambda: asyncio.sleep(0, bool(created)), 5, "the match")
    await dying.kill()
    adopted = takeovers("adopted")
    survivor = await matchmakers(lease_seconds=LEASE)
    for player in players:
        player.channel = Player.connect(player.player_id, f"127.0.0.1:{survivor.port}").channel
    assert await seated(players, tickets) == created * 2  # the match the dead replica made
    assert takeovers("adopted") == adopted + 1
    watcher = Engine(f"127.0.0.1:{engine.port}")
    for player in players:
        assert [m.match_id for m in await watcher.matches_of(player.player_id)] == created
        await player.close()
    await watcher.close()


async def test_a_replica_too_slow_for_its_lease_leaves_its_late_match_to_bots(
    matchmakers: StartMatchmaker, engine: EngineApp
) -> None:
    claimed: list[Formation] = []
    resume = asyncio.Event()

    async def stall(formation: Formation) -> None:
        claimed.append(formation)
        await resume.wait()

    slow = await matchmakers(Hooks(after_claim=stall), lease_seconds=LEASE)
    players, tickets = await queue_pair(f"127.0.0.1:{slow.port}", "slow")
    await eventually(lambda: asyncio.sleep(0, bool(claimed)), 5, "the claim")
    await matchmakers(lease_seconds=LEASE)  # takes the tickets over once the lease runs out
    match_ids = await seated(players, tickets)
    watcher = Engine(f"127.0.0.1:{engine.port}")
    abandoned = REGISTRY.get_sample_value("matchmaking_abandoned_matches_total") or 0.0
    resume.set()  # the slow replica now creates its match, finds its tickets seated elsewhere

    async def late_match_left() -> bool:
        matches = await watcher.matches_of(players[0].player_id)
        late = [m for m in matches if m.match_id != match_ids[0]]
        return bool(late) and all(s.left for s in late[0].seat_info)

    await eventually(late_match_left, 5, "the late match's seats handed to bots")
    assert REGISTRY.get_sample_value("matchmaking_abandoned_matches_total") == abandoned + 1
    for player in players:  # the tickets still say where to play
        assert (await player.get()).match_id == match_ids[0]
        await player.close()
    await watcher.close()
