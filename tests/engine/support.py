"""Test clients of the engine: each player has its own channel and tokens, as real clients do."""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field

import grpc

from maumau.v1 import engine_pb2, engine_pb2_grpc, game_pb2, players_pb2, players_pb2_grpc


def auth(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


@dataclass
class Client:
    """One player: a channel of its own, a player token, and seat tokens once seated."""

    channel: grpc.aio.Channel
    player_id: str
    token: str
    seat_tokens: dict[str, str] = field(default_factory=dict)
    seats: dict[str, int] = field(default_factory=dict)

    @property
    def engine(self) -> engine_pb2_grpc.EngineStub:
        return engine_pb2_grpc.EngineStub(self.channel)

    @classmethod
    async def register(cls, address: str, name: str) -> Client:
        channel = grpc.aio.insecure_channel(address)
        reply = await players_pb2_grpc.PlayersStub(channel).Register(
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

    async def join(self, match_id: str, seat: int = -1, nonce: str = "") -> int:
        reply = await self.engine.JoinMatch(
            engine_pb2.JoinMatchRequest(match_id=match_id, seat=seat, nonce=nonce),
            metadata=auth(self.token),
        )
        self.seat_tokens[match_id], self.seats[match_id] = reply.seat_token, reply.seat
        return reply.seat

    async def view(self, match_id: str) -> game_pb2.View:
        return await self.engine.GetView(
            engine_pb2.GetViewRequest(match_id=match_id), metadata=auth(self.seat_tokens[match_id])
        )

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
    return rng.choice(plays or list(view.legal))


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
            continue
        view = views[clients.index(mover)]
        await mover.act(match_id, pick(view, rng))
    raise AssertionError(f"match {match_id} did not end within {max_actions} actions")
