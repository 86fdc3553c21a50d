"""Failures the platform is built to survive, with real processes, sockets and redis-servers.

docs/architecture.md, "Services are stateless; Redis holds every match": any replica can serve
any match after another dies, and no timer is lost when a replica dies (deadlines sit in Redis and
a claim is only a lease); "Growing past one machine": Redis keeps every match with the append-only
file on; a turn timer plays a silent seat's default and hands it to a bot.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from pathlib import Path
from subprocess import Popen

import grpc
import pytest
import redis.asyncio

from maumau import fairness, wire
from maumau.common.redis_server import EmbeddedRedis, free_port
from maumau.engine.matches import due_seat
from maumau.engine.store import MatchStore
from maumau.rules import DRAW, Match, Ruleset
from maumau.v1 import engine_pb2, game_pb2
from tests.support.engine import (
    SECRET,
    Client,
    acted,
    acting,
    assert_acknowledged_in_stream,
    close_all,
    follow,
    kinds,
    pick,
    play_until,
    service_token,
    start_engine,
    stored_events,
    stored_version,
    twin,
)
from tests.support.polling import eventually
from tests.support.processes import kill_if_running, spawn, until_serving
from tests.support.rpc import NOT_SERVING, auth, reports, serving

LEASE = 1.0
"""The deadline lease of the engine process that gets killed, in seconds."""


class ReplyTrap:
    """A TCP relay between an engine process and Redis: a real network hop, nothing faked.

    Once armed with a match id, it holds back Redis's replies on a connection as soon as one of
    them hands out that match's deadline (the claim script returns match ids as bulk strings):
    the claim has reached Redis, but the replica never hears of it, as when a replica dies right
    after claiming. ``release`` lets the held replies through after all."""

    def __init__(self, redis_port: int) -> None:
        self.redis_port = redis_port
        self.pattern = b""
        self.sprung = asyncio.Event()
        self._released = asyncio.Event()
        self._tasks: set[asyncio.Task[None]] = set()
        self._writers: list[asyncio.StreamWriter] = []
        self._server: asyncio.Server | None = None

    async def start(self) -> str:
        self._server = await asyncio.start_server(self._relay, "127.0.0.1", 0)
        return f"redis://127.0.0.1:{self._server.sockets[0].getsockname()[1]}/0"

    def arm(self, match_id: str) -> None:
        self.pattern = f"${len(match_id)}\r\n{match_id}\r\n".encode()
        self.sprung.clear()
        self._released.clear()

    def release(self) -> None:
        self.pattern = b""
        self._released.set()

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        for writer in self._writers:
            writer.close()
        if self._server is not None:
            self._server.close()

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        redis_reader, redis_writer = await asyncio.open_connection("127.0.0.1", self.redis_port)
        self._writers += [writer, redis_writer]
        for task in (
            asyncio.create_task(self._pump(reader, redis_writer, replies=False)),
            asyncio.create_task(self._pump(redis_reader, writer, replies=True)),
        ):
            self._tasks.add(task)

    async def _pump(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, replies: bool
    ) -> None:
        tail = b""
        with contextlib.suppress(ConnectionError, asyncio.CancelledError):
            while data := await reader.read(65536):
                if replies and self.pattern and self.pattern in tail + data:
                    self.sprung.set()
                    await self._released.wait()
                tail = (tail + data)[-64:]
                writer.write(data)
                await writer.drain()
        writer.close()


def spawn_engine(port: int, redis_url: str, log: Path, lease_seconds: float) -> Popen[bytes]:
    """``python -m maumau.engine`` as it runs in production, configured from the environment."""
    env = {
        "MAUMAU_ENGINE_HOST": "127.0.0.1",
        "MAUMAU_ENGINE_PORT": str(port),
        "MAUMAU_ENGINE_METRICS_PORT": "0",
        "MAUMAU_ENGINE_BOT_DELAY_MS": "0",
        "MAUMAU_ENGINE_DEADLINE_LEASE_SECONDS": str(lease_seconds),
        "MAUMAU_TOKEN_SECRET": SECRET.decode(),
        "REDIS_URL": redis_url,
    }
    return spawn("maumau.engine", env, log)


async def test_a_replica_killed_mid_match_leaves_the_match_and_its_bot_to_another(
    redis_server, tmp_path
):
    """Any replica can serve any match after another dies, and no timer is lost: a match is
    played through an engine process until a human's move leaves the bot seat due and that
    process has claimed the bot's deadline; the process is SIGKILLed before it moves the bot.
    A second replica leaves the claim alone until the dead one's lease (1 s here) runs out, then
    moves the bot; the players finish the match through it, and the stream holds every
    acknowledged move once, in order."""
    trap = ReplyTrap(redis_server.port)
    port = free_port()
    log = tmp_path / "engine.log"
    process = spawn_engine(port, await trap.start(), log, LEASE)
    address = f"127.0.0.1:{port}"
    clients: list[Client] = []
    direct = redis_client(redis_server)
    survivor, survivor_client = None, None
    try:
        await until_serving(process, address, log)
        clients = [await Client.register(address, f"player {i}") for i in range(2)]
        match = await clients[0].create(
            "classic", 3, bots={2: game_pb2.BOT_LEVEL_RANDOM}, options={"target": "50"}
        )
        match_id = match.match_id
        await clients[1].join(match_id)
        await clients[1].engine.StartMatch(
            engine_pb2.StartMatchRequest(match_id=match_id), metadata=auth(clients[1].token)
        )
        store = MatchStore(direct)
        rng = random.Random(5)
        answers: list[engine_pb2.ActResponse] = []
        give_up = time.monotonic() + 20
        while True:
            assert time.monotonic() < give_up, "never caught the process claiming the bot's move"
            views = [await client.view(match_id) for client in clients]
            assert views[0].phase != "over", "the match ended before the moment came"
            mover = next((c for c, v in zip(clients, views, strict=True) if acting(v)), None)
            if mover is None:  # the bot's turn: the process moves it
                await asyncio.sleep(0.01)
                continue
            answers.append(await mover.act(match_id, pick(views[clients.index(mover)], rng)))
            stored = await store.load(match_id)
            assert stored is not None
            if len(answers) < 3 or stored.record.status != "playing" or due_of(stored.state) != 2:
                continue
            # The move is committed and the bot is due: catch the process's claim on it.
            armed_at = time.time()
            trap.arm(match_id)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(trap.sprung.wait(), 0.5)
            if trap.sprung.is_set():
                stored = await store.load(match_id)
                assert stored is not None
                if stored.record.status == "playing" and due_of(stored.state) == 2:
                    break
            trap.release()  # the process was quicker than the trap: try at a later turn

        claimed_until = await MatchStore(direct).deadlines.due(match_id)
        assert claimed_until is not None and claimed_until >= armed_at + LEASE - 0.05
        process.kill()  # SIGKILL: the claimed bot move dies with the process
        process.wait(timeout=10)
        killed_at_version = stored.version

        survivor, survivor_client = await start_engine(redis_server.url)
        survivor_address = f"127.0.0.1:{survivor.port}"

        async def bot_moved() -> bool:
            return await stored_version(survivor_client, match_id) > killed_at_version

        await eventually(bot_moved, 10, "the surviving replica to move the bot")
        assert time.time() >= claimed_until - 0.05, "the dead replica's lease was not honoured"
        players = [await twin(client, survivor_address) for client in clients]
        clients += players
        answers += await play_until(match_id, players, rng, stop=lambda _: False)

        events = [
            game_pb2.Event.FromString(data)
            for _, data in await stored_events(survivor_client, match_id)
        ]
        assert_acknowledged_in_stream(events, answers)
        assert kinds(events).count("seed_revealed") == 1
        final = await players[0].view(match_id)
        assert final.phase == "over" and final.version == await stored_version(
            survivor_client, match_id
        )
    finally:
        kill_if_running(process)
        await trap.close()
        if survivor is not None:
            await survivor.stop(0)
        for opened in (survivor_client, direct):
            if opened is not None:
                await opened.aclose()
        await close_all(clients)


def redis_client(server: EmbeddedRedis) -> redis.asyncio.Redis:
    return redis.asyncio.Redis.from_url(server.url)


def due_of(state: bytes) -> int:
    return due_seat(Match.from_bytes(state))


async def test_redis_restarted_mid_match_keeps_every_acknowledged_move(tmp_path):
    """Redis keeps every match (append-only file on, fsync always): Redis is shut down cleanly
    in the middle of a match and started again on the same files. Meanwhile the engine reports
    NOT_SERVING, then SERVING again; every move a client was acknowledged is stored with its
    version and events, the match is finished afterwards, and a follower that reconnects from
    the last event it saw gets every event exactly once. An action sent while Redis is down is
    refused and leaves no trace; retried with the same request id afterwards it is applied once.
    Calls right after the restart succeed, though every pooled Redis connection broke."""
    server = EmbeddedRedis(tmp_path / "redis", appendfsync="always")
    await asyncio.to_thread(server.start)
    app, client = await start_engine(server.url)
    address = f"127.0.0.1:{app.port}"
    clients: list[Client] = []
    try:
        clients = [await Client.register(address, f"player {i}") for i in range(3)]
        match = await clients[0].create("classic", 3, options={"target": "0"})
        match_id = match.match_id
        for other in clients[1:]:
            await other.join(match_id)
        await clients[2].engine.StartMatch(
            engine_pb2.StartMatchRequest(match_id=match_id), metadata=auth(clients[2].token)
        )
        follower = asyncio.create_task(
            follow(address, clients[1].seat_tokens[match_id], match_id, timeout=25)
        )
        rng = random.Random(8)
        answers = await play_until(match_id, clients, rng, stop=lambda v: v.version >= 14)
        before = await stored_events(client, match_id)
        views = [await c.view(match_id) for c in clients]
        mover, view = next((c, v) for c, v in zip(clients, views, strict=True) if acting(v))
        await asyncio.gather(*(c.view(match_id) for c in clients * 3))  # a pool of connections

        await asyncio.to_thread(server.stop)  # SHUTDOWN: flushes the append-only file
        await eventually(
            lambda: reports(address, NOT_SERVING), 10, "health NOT_SERVING without Redis"
        )
        with pytest.raises(grpc.aio.AioRpcError) as refused:  # refused, so never acknowledged
            await asyncio.wait_for(
                mover.act(match_id, view.legal[0], request_id="during the outage"), 10
            )
        assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
        assert "retry with the same request id" in refused.value.details()
        await asyncio.to_thread(server.start)
        await eventually(lambda: serving(address), 15, "health SERVING once Redis is back")
        # Every pooled connection broke with the restart: calls right away must still succeed.
        await asyncio.gather(*(c.view(match_id) for c in clients * 3))

        assert await stored_version(client, match_id) == answers[-1].version
        after = await stored_events(client, match_id)
        assert after == before
        events = [game_pb2.Event.FromString(data) for _, data in after]
        assert_acknowledged_in_stream(events, answers)

        # The refused action, retried with its request id, is applied now, once.
        retried = await mover.act(match_id, view.legal[0], request_id="during the outage")
        assert retried.version == answers[-1].version + 1
        answers.append(retried)

        answers += await play_until(match_id, clients, rng, stop=lambda _: False)
        final = [
            game_pb2.Event.FromString(data) for _, data in await stored_events(client, match_id)
        ]
        assert_acknowledged_in_stream(final, answers)
        assert final[-1].HasField("seed_revealed")
        followed = await follower
        assert [item.id for item in followed] == [
            entry_id for entry_id, _ in await stored_events(client, match_id)
        ]
    finally:
        await close_all(clients)
        await app.stop(0)
        await client.aclose()
        await asyncio.to_thread(server.stop)


async def test_a_silent_seat_times_out_then_a_bot_plays_it(address, redis_server):
    """Turn timers: with turn_seconds=1 and max_timeouts=2, a seat whose player never acts gets
    its default action when its timer runs out (TimedOut, then its draw, penalty or pass, which
    ends its turn: here it draws a card it could play, and keeps it), on its second timed-out
    turn it is handed to a bot (HandedToBot), and from then on the engine plays it: the match
    runs to its end without the silent client."""
    silent = await Client.register(address, "silent")
    try:
        ruleset = wire.ruleset_from_pb(game_pb2.Ruleset(preset="online", options={"wins": "1"}))
        reply = await silent.engine.CreateMatch(
            engine_pb2.CreateMatchRequest(
                ruleset=wire.ruleset_to_pb(ruleset),
                seats=2,
                players=[engine_pb2.SeatedPlayer(seat=0, player_id=silent.player_id)],
                bots={1: game_pb2.BOT_LEVEL_RANDOM},
                turn_seconds=1,
                max_timeouts=2,
                auto_start=True,
                server_seed=seed_where_seat_0_draws_a_playable_card(ruleset.text),
            ),
            metadata=auth(service_token(SECRET)),
        )
        match = reply.match
        silent.seat_tokens[match.match_id] = reply.seat_tokens[0]
        assert match.status == "playing"
        match_id = match.match_id
        direct = redis_client(redis_server)
        store = MatchStore(direct)

        async def over() -> bool:
            stored = await store.load(match_id)
            return stored is not None and stored.record.status == "over"

        await eventually(over, 60, "the match to end without the silent player")
        events = [
            game_pb2.Event.FromString(data) for _, data in await stored_events(direct, match_id)
        ]
        await direct.aclose()
        names = kinds(events)
        timeouts = [i for i, name in enumerate(names) if name == "timed_out"]
        handed = [i for i, name in enumerate(names) if name == "handed_to_bot"]
        assert len(timeouts) == 2, names
        assert all(events[i].timed_out.seat == 0 for i in timeouts)
        assert handed == [timeouts[1] + 1] and events[handed[0]].handed_to_bot.seat == 0

        first_turn = events[timeouts[0] + 1 : timeouts[1]]
        assert kinds(first_turn[:2]) == ["drew", "passed"], first_turn[:3]
        # The default action ended the turn (a skip may bring the turn straight back to it).
        assert "turn_started" in kinds(first_turn), "the seat timed out twice in one turn"
        assert acted(events[handed[0] + 1], 0)
        later = events[handed[0] + 1 :]
        assert sum(acted(e, 0) for e in later) >= 2, "the bot did not go on playing seat 0"
        assert later[-1].HasField("seed_revealed")

        view = await silent.view(match_id)
        assert view.phase == "over" and view.seats[0].bot_level == game_pb2.BOT_LEVEL_RANDOM
    finally:
        await silent.close()


def seed_where_seat_0_draws_a_playable_card(ruleset_text: str) -> str:
    """A server seed whose deal has seat 0 to move first with drawing as its default action,
    and the drawn card playable: the case where a timed-out seat would still be due after its
    default action (the engine ends the turn by keeping the card)."""
    for n in range(10_000):
        seed = f"silent seat {n}"
        deal = fairness.deal_seed(seed, ["", ""])
        match, _ = Match.start(Ruleset.parse(ruleset_text), 2, deal)
        if due_seat(match) != 0 or match.phase != "play" or match.default_action(0) != DRAW:
            continue
        match.apply(0, DRAW)
        if match.phase == "drawn":
            return seed
    raise AssertionError("no such seed among the first 10000")
