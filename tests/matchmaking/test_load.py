"""Many players through two matchmaker replicas at once (issue 5, "Tests"): 1,000 tickets from
500 players of mixed presets, sizes and parties, each player with one live ticket at a time.

Every ticket ends seated exactly once (or cancelled or expired, never seated), no player sits at
two tables for one ticket, no party is split, and every table is 2-8 seats matching its tickets.
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter, defaultdict
from dataclasses import dataclass, field

import grpc
import redis.asyncio

from maumau.engine.app import EngineApp
from maumau.matchmaking.ratings import rating_key
from maumau.matchmaking.tickets import Formation
from maumau.matchmaking.worker import Hooks
from maumau.v1 import matchmaking_pb2
from tests.matchmaking.support import Engine, Player, StartMatchmaker, party_of

TICKETS = 1000
SINGLES, PAIRS = 400, 50  # 400 + 2 * 50 = 500 players
QUEUES = [
    # ruleset, ranked, sizes a ticket picks from, preferred
    ("classic", False, [2, 3, 4], 4),
    ("online", False, [2, 3, 4], 2),
    ("ostfriesland", False, [4, 5, 6, 7, 8], 6),
    ("colour teams=true", False, [4], 4),
    ("classic", True, [2, 3, 4], 3),
]


@dataclass
class Unit:
    """A single player or a party of two, queueing again and again."""

    players: list[Player]
    finals: list[matchmaking_pb2.Ticket] = field(default_factory=list)
    member_views: list[matchmaking_pb2.Ticket] = field(default_factory=list)
    seated_seen: Counter[str] = field(default_factory=Counter)


async def test_a_thousand_tickets_through_two_replicas(
    matchmakers: StartMatchmaker, engine: EngineApp, redis_client: redis.asyncio.Redis
) -> None:
    rng = random.Random(5)
    created_by: dict[str, list[str]] = defaultdict(list)

    def recorder(name: str) -> Hooks:
        async def after_create(formation: Formation, match_id: str) -> None:
            created_by[name].append(match_id)

        return Hooks(after_create=after_create)

    settings = {"smaller_after_seconds": 0.3, "rating_widen_per_second": 20.0, "tick_seconds": 0.05}
    replicas = [await matchmakers(recorder(name), **settings) for name in ("one", "two")]
    channels = [grpc.aio.insecure_channel(f"127.0.0.1:{r.port}") for r in replicas]
    units: list[Unit] = []
    for n in range(SINGLES + PAIRS):
        size = 1 if n < SINGLES else 2
        units.append(Unit([Player.on(f"load-{n}-{k}", channels[0]) for k in range(size)]))
    for unit in units:
        if len(unit.players) > 1:
            await party_of(redis_client, *unit.players)
        for player in unit.players:  # ranked ratings, spread so that the window matters
            await redis_client.set(rating_key("classic", player.player_id), rng.uniform(0, 40))

    issued = 0

    async def play(unit: Unit) -> None:
        nonlocal issued
        leader = unit.players[0]
        while issued < TICKETS:
            issued += 1
            # A ranked ticket is one player (a pair would face each other).
            queues = [q for q in QUEUES if len(unit.players) == 1 or not q[1]]
            rules, ranked, sizes, preferred = rng.choice(queues)
            counts = sorted({preferred, *rng.sample(sizes, rng.randint(1, len(sizes)))})
            bots = rng.random() < 0.5
            leader.channel = rng.choice(channels)  # replicas behind a load balancer
            ticket = await leader.enqueue(
                rules,
                ranked=ranked,
                seat_counts=counts,
                preferred_seats=preferred,
                party=[p.player_id for p in unit.players[1:]],
                allow_bots=bots,
                bots_after_seconds=rng.uniform(0.2, 1.0),
                max_wait_seconds=3.0,
            )
            if rng.random() < 0.1:
                await asyncio.sleep(rng.uniform(0, 0.2))
                try:
                    await leader.cancel(ticket.ticket_id)
                except grpc.aio.AioRpcError as error:  # already seated, or being seated
                    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
            leader.channel = rng.choice(channels)
            states = await leader.follow(ticket.ticket_id, timeout=20)
            unit.seated_seen[ticket.ticket_id] += sum(t.state == "seated" for t in states)
            final = states[-1]
            assert final.state in ("seated", "cancelled", "expired")
            unit.finals.append(final)
            for member in unit.players[1:]:
                unit.member_views.append(await member.get(ticket.ticket_id))

    await asyncio.gather(*(play(unit) for unit in units))

    finals = [t for unit in units for t in unit.finals]
    assert len(finals) == TICKETS
    assert len({t.ticket_id for t in finals}) == TICKETS
    assert all(n <= 1 for unit in units for n in unit.seated_seen.values())
    seated = [t for t in finals if t.state == "seated"]
    assert len(seated) > TICKETS * 0.6, Counter(t.state for t in finals)
    assert created_by["one"] and created_by["two"], "both replicas formed tables"

    # Every table on the engine holds exactly its tickets' players, at their seats.
    watcher = Engine(f"127.0.0.1:{engine.port}")
    by_match: dict[str, list[matchmaking_pb2.Ticket]] = defaultdict(list)
    for ticket in seated:
        by_match[ticket.match_id].append(ticket)
    for match_id, tickets in by_match.items():
        info = await watcher.match(tickets[0].seat_token)
        assert info.match_id == match_id
        assert 2 <= info.seats <= 8
        ruleset = " ".join([tickets[0].request.ruleset.preset, *_options(tickets[0])])
        assert info.ruleset_text == ruleset and info.ranked == tickets[0].request.ranked
        humans = {s.player_id: s.seat for s in info.seat_info if s.player_id}
        expected = {}
        for ticket in tickets:
            assert ticket.queue == tickets[0].queue
            assert info.seats in ticket.request.seat_counts and ticket.table_seats == info.seats
            assert ticket.bot_seats == info.seats - len(humans)
            if ticket.bot_seats:
                assert ticket.request.allow_bots
            expected.update(dict.fromkeys(ticket.players))
            expected[ticket.players[0]] = ticket.seat
        assert set(humans) == set(expected)
        for ticket in tickets:
            assert humans[ticket.players[0]] == ticket.seat
    # A party's member sees the same match, with a seat of its own; a colour team sits 0+2/1+3.
    leaders = {t.ticket_id: t for t in seated}
    for view in (v for unit in units for v in unit.member_views):
        if view.state != "seated":
            continue
        leader = leaders[view.ticket_id]
        assert view.match_id == leader.match_id and view.seat != leader.seat
        if "teams=true" in view.queue:
            assert view.seat % 2 == leader.seat % 2

    # No player is at more engine matches than they had seated tickets: no duplicate tables.
    seated_per_player: Counter[str] = Counter()
    for ticket in seated:
        seated_per_player.update(ticket.players)
    for unit in units:
        for player in unit.players:
            matches = await watcher.matches_of(player.player_id)
            assert len(matches) == seated_per_player[player.player_id], player.player_id
    # Every seated match is one some replica created or adopted (a create that timed out under
    # load is found by its seed commitment once its lease runs out), and none was left over.
    assert {m for made in created_by.values() for m in made} == set(by_match)

    await watcher.close()
    for channel in channels:
        await channel.close()


def _options(ticket: matchmaking_pb2.Ticket) -> list[str]:
    return [f"{k}={v}" for k, v in sorted(ticket.request.ruleset.options.items())]
