"""Private rooms (issue 5, "Private rooms"; the room experience of the `online` rule text): an
invite code and link, the host starts or the room starts when full, match after match with the
same people, a tally of wins, and a player who lost the connection gets their seat back."""

from __future__ import annotations

import random
import time

import grpc
import pytest
import redis.asyncio

from maumau.engine.app import EngineApp
from maumau.matchmaking.rooms import CODE_LETTERS, STARTING, RoomRecord, room_key
from maumau.v1 import (
    engine_pb2,
    engine_pb2_grpc,
    game_pb2,
    matchmaking_pb2,
    matchmaking_pb2_grpc,
    players_pb2,
    players_pb2_grpc,
)
from tests.matchmaking.support import StartMatchmaker, ruleset
from tests.support.engine import Client, play_to_the_end
from tests.support.polling import eventually
from tests.support.rpc import auth


class Member:
    """A registered player with a channel of its own to the matchmaker."""

    def __init__(self, name: str, player_id: str, token: str, address: str) -> None:
        self.name, self.player_id, self.token = name, player_id, token
        self.address = address
        self.channel = grpc.aio.insecure_channel(address)

    @classmethod
    async def register(cls, name: str, engine: str, matchmaker: str) -> Member:
        async with grpc.aio.insecure_channel(engine) as channel:
            reply = await players_pb2_grpc.PlayersServiceStub(channel).Register(
                players_pb2.RegisterRequest(name=name)
            )
        return cls(name, reply.player_id, reply.player_token, matchmaker)

    @property
    def rooms(self) -> matchmaking_pb2_grpc.MatchmakingServiceStub:
        return matchmaking_pb2_grpc.MatchmakingServiceStub(self.channel)

    async def reconnect(self) -> None:
        """The connection is lost; a new one is made."""
        await self.channel.close()
        self.channel = grpc.aio.insecure_channel(self.address)

    async def create(self, rules: str, seats: int, bot_level: int = 0) -> matchmaking_pb2.Room:
        return (
            await self.rooms.CreateRoom(
                matchmaking_pb2.CreateRoomRequest(
                    ruleset=ruleset(rules), seats=seats, bot_level=bot_level
                ),
                metadata=auth(self.token),
            )
        ).room

    async def join(self, code: str) -> matchmaking_pb2.Room:
        request = matchmaking_pb2.JoinRoomRequest(code=code)
        return (await self.rooms.JoinRoom(request, metadata=auth(self.token))).room

    async def start(self, code: str) -> matchmaking_pb2.Room:
        request = matchmaking_pb2.StartRoomRequest(code=code)
        return (await self.rooms.StartRoom(request, metadata=auth(self.token))).room

    def follow(self, code: str) -> grpc.aio.UnaryStreamCall:  # type: ignore[type-arg]
        request = matchmaking_pb2.FollowRoomRequest(code=code)
        return self.rooms.FollowRoom(request, metadata=auth(self.token), timeout=10)

    async def get(self, code: str) -> matchmaking_pb2.Room:
        request = matchmaking_pb2.GetRoomRequest(code=code)
        return (await self.rooms.GetRoom(request, metadata=auth(self.token))).room

    def player(self, room: matchmaking_pb2.Room, engine: str) -> Client:
        """An engine client for the room's current match, with the seat token the room gave."""
        client = Client(grpc.aio.insecure_channel(engine), self.player_id, self.token)
        client.seat_tokens[room.match_id], client.seats[room.match_id] = (
            room.seat_token,
            room.your_seat,
        )
        return client


async def members(names: str, engine: EngineApp, matchmaker: object) -> list[Member]:
    engine_address = f"127.0.0.1:{engine.port}"
    address = f"127.0.0.1:{matchmaker.port}"  # type: ignore[attr-defined]
    return [await Member.register(name, engine_address, address) for name in names.split()]


async def test_a_room_plays_two_matches_with_a_rejoin_and_keeps_the_tally(
    matchmakers: StartMatchmaker, engine: EngineApp
) -> None:
    app = await matchmakers()
    host, guest, stranger = await members("Ada Bo Cy", engine, app)
    engine_address = f"127.0.0.1:{engine.port}"

    room = await host.create("online", seats=3, bot_level=game_pb2.BOT_LEVEL_RANDOM)
    code = room.code
    assert len(code) == 6 and set(code) <= set(CODE_LETTERS)
    assert (room.link, room.web_path) == (f"maumau://room/{code}", f"/room/{code}")
    assert (room.status, room.your_seat, room.host_player_id) == ("open", 0, host.player_id)

    # The guest follows the link as typed on a phone: lower case, a separator.
    joined = await guest.join(f"maumau://room/{code[:3].lower()}-{code[3:].lower()}")
    assert joined.your_seat == 1 and joined.seat_list[1].name == "Bo"
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await guest.start(code)
    assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED

    started = await host.start(code)
    assert started.status == "playing" and started.matches_started == 1
    assert [s.bot_level for s in started.seat_list] == [0, 0, game_pb2.BOT_LEVEL_RANDOM]
    first_match = started.match_id
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await stranger.join(code)  # the seats are the same people's now
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION

    guest_view = await guest.get(code)
    updates = guest.follow(code)  # what the guest's screen shows meanwhile
    players = [host.player(started, engine_address), guest.player(guest_view, engine_address)]
    await play_to_the_end(first_match, players, random.Random(1))

    async for message in updates:
        second = message.room
        if second.matches_started == 2 and second.status == "playing":
            break
    updates.cancel()
    assert second.match_id != first_match
    outcome = await engine_match(engine_address, players[0].seat_tokens[first_match])
    assert [s.wins for s in second.seat_list] == [
        int(seat in outcome.outcome.winners) for seat in range(3)
    ]

    # The guest loses the connection and comes back by code: same seat, the current match.
    await guest.reconnect()
    back = await guest.join(code)
    assert (back.your_seat, back.match_id) == (1, second.match_id)
    host_room = await host.get(code)
    players = [host.player(host_room, engine_address), guest.player(back, engine_address)]
    view = await players[1].view(second.match_id)
    assert view.seat == 1 and len(view.hand) > 0
    await play_to_the_end(second.match_id, players, random.Random(2))

    async def third_match() -> matchmaking_pb2.Room | None:
        room = await host.get(code)
        return room if room.matches_started == 3 else None

    tally = await eventually(third_match, 10, "the tally of two matches")
    assert sum(s.wins for s in tally.seat_list) == 2
    assert [s.player_id for s in tally.seat_list] == [host.player_id, guest.player_id, ""]
    for someone in (host, guest, stranger):
        await someone.channel.close()
    for client in players:
        await client.close()


async def test_a_room_starts_by_itself_when_its_last_seat_is_taken(
    matchmakers: StartMatchmaker, engine: EngineApp
) -> None:
    app = await matchmakers()
    host, guest, late = await members("Dee Eli Fay", engine, app)
    room = await host.create("classic target=0", seats=2)
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await host.start(room.code)  # a free seat, and no bots to fill it
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    joined = await guest.join(room.code)
    assert joined.status == "playing" and joined.match_id and joined.seat_token
    async with grpc.aio.insecure_channel(f"127.0.0.1:{engine.port}") as channel:
        info = (
            await engine_pb2_grpc.EngineServiceStub(channel).GetMatch(
                engine_pb2.GetMatchRequest(match_id=joined.match_id),
                metadata=auth(joined.seat_token),
            )
        ).match
    assert [s.player_id for s in info.seat_info] == [host.player_id, guest.player_id]
    assert info.status == "playing"
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await late.join(room.code)
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await late.join("NOPE1")
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await late.join("ZZZZZZ")
    assert refused.value.code() == grpc.StatusCode.NOT_FOUND
    for someone in (host, guest, late):
        await someone.channel.close()


async def engine_match(address: str, seat_token: str) -> engine_pb2.MatchInfo:
    async with grpc.aio.insecure_channel(address) as channel:
        return (
            await engine_pb2_grpc.EngineServiceStub(channel).GetMatch(
                engine_pb2.GetMatchRequest(), metadata=auth(seat_token)
            )
        ).match


async def test_a_start_stalled_by_a_dead_replica_is_finished_by_another(
    matchmakers: StartMatchmaker, engine: EngineApp, redis_client: redis.asyncio.Redis
) -> None:
    app = await matchmakers(lease_seconds=0.5)
    host, guest = await members("Gus Hal", engine, app)
    room = await host.create("online", seats=2)
    # As a replica leaves it that died while creating the room's first match:
    record = RoomRecord.from_json(await redis_client.get(room_key(room.code)))
    record.players[1], record.status, record.owner = guest.player_id, "starting", "dead"
    record.lease_until = time.time() + 0.3
    await redis_client.set(room_key(room.code), record.to_json())
    await redis_client.zadd(STARTING, {room.code: record.lease_until})

    async def playing() -> matchmaking_pb2.Room | None:
        raw = await redis_client.get(room_key(room.code))
        if RoomRecord.from_json(raw).status != "playing":
            return None
        return await guest.get(room.code)

    started = await eventually(playing, 5, "the room's match")  # by the sweep, unasked
    assert started.matches_started == 1 and started.your_seat == 1 and started.seat_token
    for someone in (host, guest):
        await someone.channel.close()
