"""Tournament test helpers: a real engine and tournaments replicas over the shared Redis, and a
record of a tournament as the engine scored it, to check the service against."""

from __future__ import annotations

import asyncio
import time
from collections import defaultdict
from dataclasses import dataclass, field

import grpc
import redis.asyncio

from maumau.common.config import ServiceConfig
from maumau.common.redis_client import connect
from maumau.common.tokens import issue_player_token
from maumau.tournaments.app import TournamentsApp
from maumau.tournaments.settings import Settings
from maumau.tournaments.worker import Hooks
from maumau.v1 import engine_pb2, engine_pb2_grpc, tournaments_pb2_grpc
from maumau.v1 import tournaments_pb2 as pb
from tests.support.engine import GENEROUS_SETTINGS, SECRET

PAID = (12, 10, 8, 7, 6, 5, 4, 3, 2, 1)


class Clock:
    """Wall time moved by ``offset`` seconds: the calendar the service sees."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.time() + self.offset


def fast(engine_address: str, **changes: object) -> Settings:
    defaults: dict[str, object] = {
        **GENEROUS_SETTINGS,
        "engine_address": engine_address,
        "lease_seconds": 1.5,
        "tick_seconds": 0.05,
        "results_claim_idle_seconds": 2.0,
        "max_per_organizer": 50,
    }
    return Settings(**{**defaults, **changes})  # type: ignore[arg-type]


async def start_tournaments(
    redis_url: str,
    engine_address: str,
    clock: Clock | None = None,
    hooks: Hooks | None = None,
    **changes: object,
) -> TournamentsApp:
    client = await connect(redis_url)  # a cluster client on a Redis Cluster
    config = ServiceConfig(host="127.0.0.1", port=0, metrics_port=0, health_interval_seconds=0.2)
    app = TournamentsApp(
        client,
        config,
        SECRET,
        fast(engine_address, **changes),
        clock or time.time,
        hooks,
    )
    await app.start()
    return app


async def clear_tournaments(client: redis.asyncio.Redis) -> None:
    for pattern in ("tour:*", "tournaments:*", "championship:*"):
        keys = [key async for key in client.scan_iter(match=pattern, count=1000)]
        for start in range(0, len(keys), 500):
            await client.delete(*keys[start : start + 500])


def auth(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


def player(player_id: str) -> tuple[tuple[str, str], ...]:
    return auth(issue_player_token(SECRET, player_id))


@dataclass
class Played:
    """A tournament as its follow stream and the engine's own match events tell it."""

    events: list[pb.TournamentEvent] = field(default_factory=list)
    seatings: dict[int, pb.Seating] = field(default_factory=dict)
    block_matches: dict[tuple[int, int], str] = field(default_factory=dict)
    rounds: dict[str, list[tuple[int, int, str, list[int]]]] = field(default_factory=dict)
    """Per block match: (round, winner seat, finish, points per seat) from the engine."""

    def final(self) -> pb.Standings:
        return next(e.final_ranking for e in self.events if e.HasField("final_ranking"))


async def enter_bots_and_start(
    stub: tournaments_pb2_grpc.TournamentsServiceStub,
    tournament_id: str,
    organizer: str,
    names: list[str],
    level: str,
) -> None:
    """Register a bot entrant of ``level`` per name, then start the tournament."""
    for name in names:
        await stub.RegisterEntrant(
            pb.RegisterEntrantRequest(tournament_id=tournament_id, bot_name=name, bot_level=level),
            metadata=player(organizer),
        )
    await stub.StartTournament(
        pb.StartTournamentRequest(tournament_id=tournament_id), metadata=player(organizer)
    )


async def follow(
    stub: tournaments_pb2_grpc.TournamentsServiceStub, tournament_id: str, timeout: float = 240
) -> Played:
    """Every event of the tournament until its final ranking (resuming after a dropped stream)."""
    played = Played()
    after = ""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            async for message in stub.FollowTournament(
                pb.FollowTournamentRequest(tournament_id=tournament_id, after_event_id=after),
                timeout=deadline - time.monotonic(),
            ):
                event = message.event
                after = event.id
                played.events.append(event)
                kind = event.WhichOneof("kind")
                if kind == "seated":
                    played.seatings[event.seated.block] = event.seated
                elif kind == "block_started":
                    b = event.block_started
                    played.block_matches[(b.block, b.table)] = b.match_id
                elif kind in ("final_ranking", "cancelled"):
                    return played
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.UNAVAILABLE:
                raise
            await asyncio.sleep(0.2)
    raise AssertionError(f"tournament {tournament_id} did not finish in {timeout} s")


async def engine_rounds(engine_address: str, played: Played) -> None:
    """Read each block match's rounds from the engine itself, as a spectator."""
    async with grpc.aio.insecure_channel(engine_address) as channel:
        stub = engine_pb2_grpc.EngineServiceStub(channel)
        for match_id in played.block_matches.values():
            rounds = []
            async for item in stub.Follow(
                engine_pb2.FollowRequest(match_id=match_id), metadata=player("test-spectator")
            ):
                if item.event.HasField("round_over"):
                    r = item.event.round_over
                    rounds.append((r.round, r.winner, r.finish, list(r.points)))
            played.rounds[match_id] = rounds


def expected_next_tables(
    tables: list[list[str]], points: dict[str, int], maumaus: dict[str, int]
) -> list[list[str]]:
    """The rule, written out again: at each table the len // 2 worst by points (then fewer
    Mau-Mau finishes, then the later seat) move to the next table, after those who stay."""
    count = len(tables)
    if count == 1:
        return [list(tables[0])]
    movers, stayers = [], []
    for table in tables:
        ranked = sorted(range(len(table)), key=lambda s: (points[table[s]], -maumaus[table[s]], s))
        keep = len(table) - len(table) // 2
        movers.append([table[s] for s in ranked[keep:]])
        stayers.append([e for e in table if e not in movers[-1]])
    return [stayers[i] + movers[(i - 1) % count] for i in range(count)]


def scores_after(
    played: Played, blocks: int, block_rounds: int = 5
) -> tuple[dict[str, int], dict[str, int], dict[str, int]]:
    """Points, Mau-Mau finishes and rounds per entrant after ``blocks`` blocks, from the
    engine's round results. A table level on points after its block plays a tie-break round in
    the engine (its match needs a winner); the tournament counts only the block's rounds."""
    points: dict[str, int] = defaultdict(int)
    maumaus: dict[str, int] = defaultdict(int)
    rounds: dict[str, int] = defaultdict(int)
    for (block, table), match_id in played.block_matches.items():
        if block >= blocks:
            continue
        seats = list(played.seatings[block].tables[table].entrants)
        for round_no, winner, finish, round_points in played.rounds[match_id]:
            if round_no > block_rounds:
                continue
            for seat, entrant in enumerate(seats):
                points[entrant] += round_points[seat]
                rounds[entrant] += 1
            if finish == "maumau":
                maumaus[seats[winner]] += 1
    return points, maumaus, rounds


async def settled(client: redis.asyncio.Redis, tournament_id: str) -> None:
    """Wait until no replica drives the finished tournament any more."""
    for _ in range(200):
        owner = await client.exists(f"tour:{{{tournament_id}}}:owner")
        due = await client.zscore("tournaments:due", tournament_id)
        if not owner and due is None:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"tournament {tournament_id} is still driven")
