"""Tournaments and the yearly championship, from asyncio Python.

::

    async with Platform.connect() as platform, Tournaments.connect() as tournaments:
        organizer = await platform.register("Organizer")
        cup = await tournaments.create(organizer, "Friday cup", ranked=True)
        await tournaments.register(organizer, cup.tournament_id, bot_name="Rudi")
        ...
        await tournaments.start(organizer, cup.tournament_id)
        async for event in tournaments.follow(cup.tournament_id):
            if event.HasField("final_ranking"):
                print(event.final_ranking)

The answers are the ``maumau.v1`` messages of ``tournaments.proto``, documented field by field
there. Calls that change something take the :class:`~maumau_sdk.client.Player` making them.
"""

from __future__ import annotations

import asyncio
import builtins
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TypeVar

import grpc

from maumau.v1 import game_pb2, tournaments_pb2_grpc
from maumau.v1 import tournaments_pb2 as pb
from maumau_sdk.client import Player
from maumau_sdk.errors import MauMauError

DEFAULT_TOURNAMENTS_ADDRESS = "127.0.0.1:50055"
RETRYABLE = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
T = TypeVar("T")


class Tournaments:
    """A connection to the tournaments service. Use it as an async context manager."""

    def __init__(
        self, address: str = DEFAULT_TOURNAMENTS_ADDRESS, *, timeout: float = 10.0
    ) -> None:
        self.address = address
        self.timeout = timeout
        self._channel = grpc.aio.insecure_channel(address)
        self._stub = tournaments_pb2_grpc.TournamentsServiceStub(self._channel)

    @classmethod
    def connect(
        cls, address: str = DEFAULT_TOURNAMENTS_ADDRESS, *, timeout: float = 10.0
    ) -> Tournaments:
        return cls(address, timeout=timeout)

    async def __aenter__(self) -> Tournaments:
        try:
            async with asyncio.timeout(self.timeout):  # not wait_for: it can lose a cancel
                await self._channel.channel_ready()
        except TimeoutError:
            await self.close()
            raise MauMauError(
                grpc.StatusCode.UNAVAILABLE, f"no tournaments service answers at {self.address}"
            ) from None
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def close(self) -> None:
        await self._channel.close()

    # ------------------------------------------------------------ organizing and entering

    async def create(
        self,
        organizer: Player,
        name: str,
        *,
        preset: str = "ostfriesland",
        options: dict[str, str] | None = None,
        rounds: int = 20,
        change_every: int = 5,
        max_per_table: int = 8,
        start_at: float = 0.0,
        registration_closes_at: float = 0.0,
        fill_with_bots: bool = False,
        ranked: bool = False,
        max_entrants: int = 0,
        min_entrants: int = 0,
        turn_seconds: int = 60,
        bot_level: str = "",
    ) -> pb.Tournament:
        """Create a tournament (see ``CreateTournamentRequest`` for every option)."""
        request = pb.CreateTournamentRequest(
            name=name,
            ruleset=game_pb2.Ruleset(preset=preset, options=options or {}),
            rounds=rounds,
            change_every=change_every,
            max_per_table=max_per_table,
            start_at=start_at,
            registration_closes_at=registration_closes_at,
            fill_with_bots=fill_with_bots,
            ranked=ranked,
            max_entrants=max_entrants,
            min_entrants=min_entrants,
            turn_seconds=turn_seconds,
            bot_level=bot_level,
        )
        reply = await self._call(
            lambda: self._stub.CreateTournament(
                request, metadata=self._as(organizer), timeout=self.timeout
            )
        )
        return reply.tournament

    async def register(
        self, player: Player, tournament_id: str, *, bot_name: str = "", bot_level: str = ""
    ) -> pb.Tournament:
        """Enter ``player``, or (the organizer) a bot named ``bot_name``."""
        request = pb.RegisterEntrantRequest(
            tournament_id=tournament_id, bot_name=bot_name, bot_level=bot_level
        )
        reply = await self._call(
            lambda: self._stub.RegisterEntrant(
                request, metadata=self._as(player), timeout=self.timeout
            )
        )
        return reply.tournament

    async def unregister(
        self, player: Player, tournament_id: str, *, bot_name: str = ""
    ) -> pb.Tournament:
        """Withdraw before the start, leave after it (keeping the points so far)."""
        request = pb.UnregisterEntrantRequest(tournament_id=tournament_id, bot_name=bot_name)
        reply = await self._call(
            lambda: self._stub.UnregisterEntrant(
                request, metadata=self._as(player), timeout=self.timeout
            )
        )
        return reply.tournament

    async def start(self, organizer: Player, tournament_id: str) -> pb.Tournament:
        request = pb.StartTournamentRequest(tournament_id=tournament_id)
        reply = await self._call(
            lambda: self._stub.StartTournament(
                request, metadata=self._as(organizer), timeout=self.timeout
            )
        )
        return reply.tournament

    async def seat(self, player: Player, tournament_id: str) -> pb.Seat:
        """The player's seat in the block (or deciding round) being played: its match id and
        seat token, to play with :meth:`~maumau_sdk.client.Player.match` and the engine."""
        request = pb.GetSeatRequest(tournament_id=tournament_id)
        reply = await self._call(
            lambda: self._stub.GetSeat(request, metadata=self._as(player), timeout=self.timeout),
            safe=True,
        )
        return reply.seat

    # ------------------------------------------------------------ reading

    async def get(self, tournament_id: str) -> pb.Tournament:
        request = pb.GetTournamentRequest(tournament_id=tournament_id)
        reply = await self._call(
            lambda: self._stub.GetTournament(request, timeout=self.timeout), safe=True
        )
        return reply.tournament

    async def list(self, status: str = "", limit: int = 20) -> list[pb.Tournament]:
        request = pb.ListTournamentsRequest(status=status, limit=limit)
        reply = await self._call(
            lambda: self._stub.ListTournaments(request, timeout=self.timeout), safe=True
        )
        return list(reply.tournaments)

    async def standings(self, tournament_id: str) -> pb.Standings:
        request = pb.GetStandingsRequest(tournament_id=tournament_id)
        reply = await self._call(
            lambda: self._stub.GetStandings(request, timeout=self.timeout), safe=True
        )
        return reply.standings

    async def championship(self, year: int = 0, limit: int = 100) -> pb.Championship:
        """The championship table of ``year`` (0: this year)."""
        request = pb.GetChampionshipRequest(year=year, limit=limit)
        reply = await self._call(
            lambda: self._stub.GetChampionship(request, timeout=self.timeout), safe=True
        )
        return reply.championship

    async def history(self, player: str, limit: int = 20) -> builtins.list[pb.PlayerTournament]:
        """A player's (id or ``bot:<name>``) tournaments and places, newest first."""
        request = pb.GetPlayerTournamentsRequest(player=player, limit=limit)
        reply = await self._call(
            lambda: self._stub.GetPlayerTournaments(request, timeout=self.timeout), safe=True
        )
        return list(reply.tournaments.tournaments)

    async def follow(
        self, tournament_id: str, after: str = ""
    ) -> AsyncIterator[pb.TournamentEvent]:
        """The tournament's events after ``after`` until the final ranking (or cancellation);
        resumes after a dropped connection with no gap and no repeat."""
        attempt = 0
        while True:
            try:
                stream = self._stub.FollowTournament(
                    pb.FollowTournamentRequest(tournament_id=tournament_id, after_event_id=after)
                )
                async for message in stream:
                    event = message.event
                    attempt = 0
                    after = event.id
                    yield event
                    if event.WhichOneof("kind") in ("final_ranking", "cancelled"):
                        return
                return
            except grpc.aio.AioRpcError as error:
                if error.code() not in RETRYABLE or attempt >= 10:
                    raise MauMauError.from_rpc(error) from error
            attempt += 1
            await asyncio.sleep(min(2.0, 0.1 * 2**attempt))

    # ------------------------------------------------------------ calls

    def _as(self, player: Player) -> tuple[tuple[str, str], ...]:
        return (("authorization", f"Bearer {player.token}"),)

    async def _call(self, make: Callable[[], Awaitable[T]], *, safe: bool = False) -> T:
        """One call; a ``safe`` one (reading) is repeated after a transient failure."""
        attempt = 0
        while True:
            try:
                return await make()
            except grpc.aio.AioRpcError as error:
                if not (safe and error.code() in RETRYABLE and attempt < 4):
                    raise MauMauError.from_rpc(error) from error
            attempt += 1
            await asyncio.sleep(0.1 * 2**attempt)
