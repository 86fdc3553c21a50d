"""Engine replicas for tests, and their clients: each player has its own channel and tokens, as
real clients do."""

from __future__ import annotations

import asyncio
import dataclasses
import random
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TypeVar

import grpc
import redis.asyncio

from maumau.common.config import ServiceConfig
from maumau.common.quotas import Rates
from maumau.common.redis_client import connect
from maumau.common.results import read_result, results_stream_of
from maumau.common.streams import StreamEntry
from maumau.common.tokens import issue_service_token
from maumau.engine.app import EngineApp
from maumau.engine.codec import stream_events
from maumau.engine.keys import match_key, request_ids_key
from maumau.engine.matches import EngineSettings
from maumau.engine.record import Stored
from maumau.engine.store import MatchStore
from maumau.rules import Match
from maumau.v1 import engine_pb2, engine_pb2_grpc, game_pb2, players_pb2, players_pb2_grpc
from tests.support.rpc import auth

SECRET = b"engine tests secret"

GENEROUS = Rates("100000/minute", "100000/minute", "100000/minute")
"""Rate limits no test reaches by accident (every test shares one Redis and one address); the
tests of the limits themselves set their own."""

GENEROUS_SETTINGS = {
    "rate_per_player": GENEROUS.per_player,
    "rate_per_address": GENEROUS.per_address,
    "registrations_per_address": GENEROUS.registrations_per_address,
}
"""The same for a service's settings class."""


def generous(settings: EngineSettings) -> EngineSettings:
    """``settings`` with GENEROUS rates, unless they name rates of their own."""
    return settings if settings.rates != Rates() else dataclasses.replace(settings, rates=GENEROUS)


def engine_config(port: int = 0) -> ServiceConfig:
    return ServiceConfig(host="127.0.0.1", port=port, metrics_port=0, health_interval_seconds=0.2)


async def start_engine(
    url: str, settings: EngineSettings | None = None, port: int = 0
) -> tuple[EngineApp, redis.asyncio.Redis]:
    """A replica on ``port`` (0: a free one) whose bots move at once unless ``settings`` say
    otherwise, and its Redis client (close it after stopping the replica)."""
    client = await connect(url)  # a cluster client on a Redis Cluster
    app = EngineApp(
        client,
        engine_config(port),
        SECRET,
        generous(settings or EngineSettings(bot_delay_seconds=0)),
        0.01,
    )
    await app.start()
    return app, client


async def stop_engine(app: EngineApp, client: redis.asyncio.Redis) -> None:
    await app.stop(0)
    await client.aclose()


@dataclass
class Client:
    """One player: a channel of its own, a player token, and seat tokens once seated."""

    channel: grpc.aio.Channel
    player_id: str
    token: str
    seat_tokens: dict[str, str] = field(default_factory=dict)
    seats: dict[str, int] = field(default_factory=dict)

    @property
    def engine(self) -> engine_pb2_grpc.EngineServiceStub:
        return engine_pb2_grpc.EngineServiceStub(self.channel)

    @classmethod
    async def register(cls, address: str, name: str) -> Client:
        channel = grpc.aio.insecure_channel(address)
        reply = await players_pb2_grpc.PlayersServiceStub(channel).Register(
            players_pb2.RegisterRequest(name=name)
        )
        return cls(channel, reply.player_id, reply.player_token)

    async def create(self, preset: str, seats: int, **fields: object) -> engine_pb2.MatchInfo:
        options = fields.pop("options", {})
        reply = await self.engine.CreateMatch(
            engine_pb2.CreateMatchRequest(
                ruleset=game_pb2.Ruleset(preset=preset, options=options), seats=seats, **fields
            ),
            metadata=auth(self.token),
        )
        for seat, token in reply.seat_tokens.items():
            self.seat_tokens[reply.match.match_id] = token
            self.seats[reply.match.match_id] = seat
        return reply.match

    async def join(self, match_id: str, seat: int | None = None, nonce: str = "") -> int:
        reply = await self.engine.JoinMatch(
            engine_pb2.JoinMatchRequest(match_id=match_id, seat=seat, nonce=nonce),
            metadata=auth(self.token),
        )
        self.seat_tokens[match_id], self.seats[match_id] = reply.seat_token, reply.seat
        return reply.seat

    async def view(self, match_id: str) -> game_pb2.View:
        reply = (
            await self.engine.GetView(
                engine_pb2.GetViewRequest(match_id=match_id),
                metadata=auth(self.seat_tokens[match_id]),
            )
        ).view
        return reply

    async def act(
        self, match_id: str, action: game_pb2.Action | str, request_id: str | None = None
    ) -> engine_pb2.ActResponse:
        if isinstance(action, str):
            action = game_pb2.Action(text=action)
        return await self.engine.Act(
            engine_pb2.ActRequest(request_id=request_id or uuid.uuid4().hex, action=action),
            metadata=auth(self.seat_tokens[match_id]),
        )

    async def close(self) -> None:
        await self.channel.close()


async def register_all(address: str, count: int) -> list[Client]:
    return [await Client.register(address, f"player {i}") for i in range(count)]


async def close_all(clients: Iterable[Client]) -> None:
    for client in clients:
        await client.close()


def acting(view: game_pb2.View) -> bool:
    """Whether the view's seat is the one the match waits for."""
    waited_for = view.chooser if view.phase == "starter_suit" else view.turn
    return view.seat == waited_for and view.phase != "over"


def pick(view: game_pb2.View, rng: random.Random) -> game_pb2.Action:
    """A random legal action, a card before anything else when one fits (as a person plays:
    drawing at random while holding playable cards makes rounds needlessly long)."""
    plays = [a for a in view.legal if a.WhichOneof("kind") == "play"]
    # Catches and calls are left out: a bot seat may make its call first, so they could race.
    moves = [a for a in view.legal if a.WhichOneof("kind") not in ("catch_seat", "call")]
    return rng.choice(plays or moves)


async def play_to_the_end(
    match_id: str, clients: list[Client], rng: random.Random, max_actions: int = 20_000
) -> list[game_pb2.View]:
    """Every client looks at its own view; the one the match waits for plays a random legal
    action. Returns the views seen, so callers can check what each seat was shown."""
    seen: list[game_pb2.View] = []
    for _ in range(max_actions):
        views = [await client.view(match_id) for client in clients]
        seen += views
        if views[0].phase == "over":
            return seen
        mover = next(
            (c for c, v in zip(clients, views, strict=True) if acting(v)),
            None,
        )
        if mover is None:  # a bot seat is due: the engine's deadline loop moves it
            await asyncio.sleep(0.01)  # a busy engine may take a while; polls are not actions
            continue
        view = views[clients.index(mover)]
        await mover.act(match_id, pick(view, rng))
    raise AssertionError(f"match {match_id} did not end within {max_actions} actions")


# ---------------------------------------------------------------- concurrency and failure tests

T = TypeVar("T")


async def twin(client: Client, address: str) -> Client:
    """The same player (same tokens) over a channel of its own to another replica."""
    return Client(
        grpc.aio.insecure_channel(address),
        client.player_id,
        client.token,
        dict(client.seat_tokens),
        dict(client.seats),
    )


def due(view: game_pb2.View) -> int:
    """The seat the match waits for."""
    return view.chooser if view.phase == "starter_suit" else view.turn


async def stored_events(client: redis.asyncio.Redis, match_id: str) -> list[tuple[str, bytes]]:
    """Every event of the match's stream as stored: (stream id, serialized Event)."""
    return await MatchStore(client).read_events(match_id, "0", None, count=1_000_000)


async def result_entries(
    client: redis.asyncio.Redis, store: MatchStore, match_id: str
) -> list[bytes]:
    """The ids of the entries holding ``match_id``'s result in its shard of the results stream."""
    entries = await client.xrange(results_stream_of(match_id, store.shards))
    return [i for i, fields in entries if read_result(StreamEntry(i, fields)).match_id == match_id]


async def stored_version(client: redis.asyncio.Redis, match_id: str) -> int:
    stored = await MatchStore(client).load(match_id)
    assert stored is not None, f"match {match_id} is not stored"
    return stored.version


def kinds(events: Iterable[game_pb2.Event]) -> list[str]:
    return [str(event.WhichOneof("kind")) for event in events]


async def follow(
    address: str, token: str, match_id: str, timeout: float, after: str = ""
) -> list[engine_pb2.FollowResponse]:
    """Follow a match until its seed is revealed, reconnecting from the last event seen when the
    stream breaks (a replica or Redis went away), as a real client does."""
    seen: list[engine_pb2.FollowResponse] = []
    deadline = time.monotonic() + timeout
    async with grpc.aio.insecure_channel(address) as channel:
        stub = engine_pb2_grpc.EngineServiceStub(channel)
        while time.monotonic() < deadline:
            position = seen[-1].id if seen else after
            try:
                async for item in stub.Follow(
                    engine_pb2.FollowRequest(match_id=match_id, after_event_id=position),
                    metadata=auth(token),
                    timeout=max(0.1, deadline - time.monotonic()),
                ):
                    seen.append(item)
                    if item.event.WhichOneof("kind") == "seed_revealed":
                        return seen
            except grpc.aio.AioRpcError as error:
                if error.code() == grpc.StatusCode.DEADLINE_EXCEEDED:
                    break
                await asyncio.sleep(0.05)
    raise AssertionError(f"the match was not over within {timeout} s; saw {len(seen)} events")


async def play_until(
    match_id: str,
    clients: list[Client],
    rng: random.Random,
    stop: Callable[[game_pb2.View], bool],
    timeout: float = 20.0,
) -> list[engine_pb2.ActResponse]:
    """Like play_to_the_end, but returns every acknowledged answer and stops as soon as ``stop``
    holds for the first client's view (or the match is over); bot seats are waited for."""
    answers: list[engine_pb2.ActResponse] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        views = [await client.view(match_id) for client in clients]
        if views[0].phase == "over" or stop(views[0]):
            return answers
        mover = next((c for c, v in zip(clients, views, strict=True) if acting(v)), None)
        if mover is None:
            await asyncio.sleep(0.01)
            continue
        answers.append(await mover.act(match_id, pick(views[clients.index(mover)], rng)))
    raise AssertionError(f"match {match_id}: condition not reached within {timeout} s")


# ---------------------------------------------------------------- streams, stored state, tokens


class Follower:
    """One Follow stream as a client reads it: a task puts each event into a queue; ``cancel``
    hangs up, as a client that loses its connection does. ``ended`` is set when the server ends
    the stream, ``error`` holds the status it ended with, if any."""

    def __init__(
        self, channel: grpc.aio.Channel, token: str, match_id: str = "", after: str = ""
    ) -> None:
        self.queue: asyncio.Queue[engine_pb2.FollowResponse | None] = asyncio.Queue()
        self.call = engine_pb2_grpc.EngineServiceStub(channel).Follow(
            engine_pb2.FollowRequest(match_id=match_id, after_event_id=after),
            metadata=auth(token),
        )
        self.ended = False
        self.error: grpc.aio.AioRpcError | None = None
        self.task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        try:
            async for event in self.call:
                await self.queue.put(event)
            self.ended = True
        except asyncio.CancelledError:
            pass  # we hung up
        except grpc.aio.AioRpcError as error:
            self.error = error
        finally:
            await self.queue.put(None)

    async def next(self, timeout: float = 5.0) -> engine_pb2.FollowResponse | None:
        """The next event, or None once the stream is over."""
        return await asyncio.wait_for(self.queue.get(), timeout)

    async def take(self, count: int, timeout: float = 5.0) -> list[engine_pb2.FollowResponse]:
        events = []
        for _ in range(count):
            event = await self.next(timeout)
            assert event is not None, f"the stream ended after {len(events)} of {count} events"
            events.append(event)
        return events

    async def rest(self, timeout: float = 10.0) -> list[engine_pb2.FollowResponse]:
        """Every event until the server ends the stream."""
        events = []
        while (event := await self.next(timeout)) is not None:
            events.append(event)
        assert self.error is None, self.error
        return events

    async def cancel(self) -> None:
        self.call.cancel()
        await self.task


async def cancel_all(followers: Iterable[Follower]) -> None:
    for follower in followers:
        await follower.cancel()


async def stored_match(store: MatchStore, match_id: str) -> tuple[Stored, Match]:
    """The true state of a match as Redis holds it."""
    stored = await store.load(match_id)
    assert stored is not None, f"no match {match_id} in Redis"
    return stored, Match.from_bytes(stored.state)


async def raw_events(store: MatchStore, match_id: str) -> list[tuple[str, game_pb2.Event]]:
    """Every event of a match as stored (unredacted), with its stream id."""
    entries = await store.redis.xrange(f"{match_key(match_id)}:events")
    return [
        (event_id, game_pb2.Event.FromString(event))
        for entry_id, fields in entries
        for event_id, event in stream_events(entry_id.decode(), fields)
    ]


async def snapshot(store: MatchStore, match_id: str) -> tuple[object, ...]:
    """Every byte Redis holds for a match: record, state, version and kept answers, events,
    request ids."""
    key = match_key(match_id)
    return (
        await store.redis.hgetall(key),
        await store.redis.xrange(f"{key}:events"),
        await store.redis.hgetall(request_ids_key(match_id)),
    )


def service_token(secret: bytes) -> str:
    return issue_service_token(secret, "tests")


async def start_match(client: Client, match_id: str) -> engine_pb2.MatchInfo:
    reply = (
        await client.engine.StartMatch(
            engine_pb2.StartMatchRequest(match_id=match_id), metadata=auth(client.token)
        )
    ).match
    return reply


async def seated_table(
    address: str, preset: str, seats: int, options: dict[str, str] | None = None
) -> tuple[list[Client], str]:
    """``seats`` registered players seated at a new match of ``preset``, dealt."""
    clients = await register_all(address, seats)
    match = await clients[0].create(preset, seats, options=options or {})
    for client in clients[1:]:
        await client.join(match.match_id)
    await start_match(clients[0], match.match_id)
    return clients, match.match_id


async def due_client(clients: list[Client], match_id: str) -> tuple[Client, game_pb2.View] | None:
    """The client the match waits for and its view; None when a bot is due or it is over."""
    for client in clients:
        view = await client.view(match_id)
        if acting(view):
            return client, view
    return None


async def play_actions(match_id: str, clients: list[Client], rng: random.Random, count: int) -> int:
    """Up to ``count`` actions by whichever seat is due; returns how many were taken."""
    for taken in range(count):
        found = await due_client(clients, match_id)
        if found is None:
            return taken
        await found[0].act(match_id, pick(found[1], rng))
    return count


def assert_acknowledged_in_stream(
    events: list[game_pb2.Event], answers: Iterable[engine_pb2.ActResponse]
) -> None:
    """Every acknowledged answer's events are in the stored stream exactly where its version
    says: in version order, each answer's events as one unbroken run (redacted for the seat that
    acted), none twice; moves nobody was acknowledged for (bots, timers) may lie in between."""
    from maumau.wire import redact_pb

    answers = list(answers)
    versions = [answer.version for answer in answers]
    assert len(set(versions)) == len(versions), f"one version acknowledged twice: {versions}"
    as_seen = {
        seat: [redact_pb(event, seat) for event in events]
        for seat in {answer.view.seat for answer in answers}
    }
    position = 0
    for answer in sorted(answers, key=lambda a: a.version):
        seen, want = as_seen[answer.view.seat], list(answer.events)
        while position + len(want) <= len(seen) and seen[position : position + len(want)] != want:
            position += 1
        assert position + len(want) <= len(seen), f"version {answer.version} is not stored"
        position += len(want)


def acted(event: game_pb2.Event, seat: int) -> bool:
    """Whether ``event`` is ``seat`` taking an action: a card, a draw, a pass, a penalty or skip
    taken, a suit named, a call (cards drawn for a deal, an ace or a catch are not actions)."""
    kind = event.WhichOneof("kind")
    if kind in ("played", "suit_named", "called", "passed", "skipped"):
        return bool(getattr(event, kind).seat == seat)
    if kind == "drew":
        return event.drew.seat == seat and event.drew.reason in ("draw", "penalty")
    return False
