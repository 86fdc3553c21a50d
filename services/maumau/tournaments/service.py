"""The gRPC adapter of the tournaments service: tokens and requests in, state changes through
the store, tournaments, standings and the championship out."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from functools import partial
from typing import Any

import grpc

from maumau import wire
from maumau.common import tokens
from maumau.common.errors import ServiceError, invalid
from maumau.common.players import PlayerDirectory
from maumau.common.quotas import Quotas
from maumau.rules.errors import BadInput
from maumau.tournaments import ranking
from maumau.tournaments.engine import Engine
from maumau.tournaments.settings import Settings
from maumau.tournaments.state import (
    BOT_ENTRANT,
    OVER,
    PLAYING,
    STATUSES,
    Config,
    Entrant,
    Events,
    Tournament,
)
from maumau.tournaments.store import TournamentStore, events_of
from maumau.v1 import game_pb2, tournaments_pb2_grpc
from maumau.v1 import tournaments_pb2 as pb
from maumau.wire import BOT_LEVELS

Context = grpc.aio.ServicerContext[Any, Any]
FOLLOW_BLOCK_MS = 2000
MAX_NAME = 64


def _name(text: str, what: str, longest: int) -> str:
    name = text.strip()
    if not 1 <= len(name) <= longest or not name.isprintable():
        raise invalid(f"{what} has 1 to {longest} printable characters")
    return name


def _id(text: str) -> str:
    if not 1 <= len(text) <= 64 or not text.isprintable():
        raise invalid("tournament_id is required (the id CreateTournament returned)")
    return text


class TournamentsService(tournaments_pb2_grpc.TournamentsServiceServicer):
    def __init__(
        self,
        store: TournamentStore,
        engine: Engine,
        secret: bytes,
        settings: Settings,
        quotas: Quotas,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.quotas = quotas
        self.store = store
        self.engine = engine
        self.secret = secret
        self.settings = settings
        self.clock = clock
        self._follows = 0

    async def _player(self, context: Context) -> str:
        claims = tokens.verify_player_token(self.secret, tokens.bearer(context))
        return (await PlayerDirectory(self.store.redis).check_token(claims)).player_id

    # ---------------------------------------------------------------- creating

    async def CreateTournament(
        self, request: pb.CreateTournamentRequest, context: Context
    ) -> pb.CreateTournamentResponse:
        organizer = await self._player(context)
        config = self._config(request, organizer)
        now = self.clock()
        tournament = Tournament(
            tournament_id=tokens.new_id(),
            config=config,
            created_at=now,
            seed=tokens.new_id(),
        )
        await self.quotas.spend(context, organizer, "CreateTournament")
        if not await self.store.count_for_organizer(
            organizer, tournament.tournament_id, now, self.settings.max_per_organizer
        ):
            raise ServiceError(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"you have {self.settings.max_per_organizer} tournaments not over yet; "
                "wait for one to end",
            )
        try:
            await self.store.create(tournament, [])
        except BaseException:
            await self.store.release_organizer(organizer, tournament.tournament_id)
            raise
        # Due at the start time, or (never started) when it is cancelled after the retention.
        await self.store.set_due(
            tournament.tournament_id, config.start_at or now + self.settings.retention_seconds
        )
        return pb.CreateTournamentResponse(tournament=tournament.to_pb())

    def _config(self, r: pb.CreateTournamentRequest, organizer: str) -> Config:
        name = _name(r.name, "a tournament name", MAX_NAME)
        preset = r.ruleset.preset or "ostfriesland"
        try:
            options = {k: v for k, v in r.ruleset.options.items() if k != "rounds"}
            ruleset = wire.ruleset_from_pb(game_pb2.Ruleset(preset=preset, options=options))
        except BadInput as error:
            raise invalid(f"ruleset: {error}") from None
        if not _plays_fixed_rounds(preset):
            raise invalid(
                f"{preset} plays to a target, not a fixed number of rounds; tournaments play "
                "presets with a 'rounds' option (ostfriesland)"
            )
        rounds = r.rounds or 20
        change_every = r.change_every or 5
        max_per_table = r.max_per_table or 8
        limit = self.settings.max_entrants
        max_entrants = r.max_entrants or limit
        min_entrants = r.min_entrants or 2
        now = self.clock()
        checks = [
            (1 <= rounds <= 100, "rounds must be from 1 to 100"),
            (1 <= change_every <= rounds, "change_every must be from 1 to rounds"),
            (rounds % change_every == 0, "rounds must be a multiple of change_every"),
            (
                3 <= max_per_table <= min(8, ruleset.max_seats),
                f"max_per_table must be from 3 to {min(8, ruleset.max_seats)}",
            ),
            (2 <= max_entrants <= limit, f"max_entrants must be from 2 to {limit}"),
            (2 <= min_entrants <= max_entrants, "min_entrants must be from 2 to max_entrants"),
            (0 <= r.turn_seconds <= 600, "turn_seconds must be from 0 (the default timer) to 600"),
            (
                r.start_at == 0 or now <= r.start_at <= now + 366 * 24 * 3600,
                "start_at must be within the next year (Unix seconds), or 0 to start by hand",
            ),
            (
                r.registration_closes_at == 0
                or (
                    now < r.registration_closes_at
                    and (not r.start_at or r.registration_closes_at <= r.start_at)
                ),
                "registration_closes_at must be in the future and not after start_at",
            ),
            (
                not r.bot_level or r.bot_level in BOT_LEVELS,
                f"bot_level must be one of {', '.join(BOT_LEVELS)}",
            ),
        ]
        for ok, message in checks:
            if not ok:
                raise invalid(message)
        return Config(
            name=name,
            organizer_id=organizer,
            ruleset=ruleset.text,
            rounds=rounds,
            change_every=change_every,
            max_per_table=max_per_table,
            registration_closes_at=r.registration_closes_at,
            start_at=r.start_at,
            fill_with_bots=r.fill_with_bots,
            ranked=r.ranked,
            max_entrants=max_entrants,
            min_entrants=min_entrants,
            turn_seconds=r.turn_seconds if r.HasField("turn_seconds") else 60,
            bot_level=r.bot_level or "heuristic",
        )

    # ---------------------------------------------------------------- entering

    async def RegisterEntrant(
        self, request: pb.RegisterEntrantRequest, context: Context
    ) -> pb.RegisterEntrantResponse:
        caller = await self._player(context)
        tournament_id = _id(request.tournament_id)
        now = self.clock()
        if request.bot_name:
            name = _name(request.bot_name, "a bot name", 32)
            level = request.bot_level or "heuristic"
            if level not in BOT_LEVELS:
                raise invalid(f"bot_level must be one of {', '.join(BOT_LEVELS)}")
            entrant = Entrant(f"{BOT_ENTRANT}{name}", name, level)
        else:
            if request.bot_level:
                raise invalid("bot_level goes with bot_name")
            entrant = Entrant(caller, await self._player_name(caller))
        await self.quotas.spend(context, caller, "Register")

        def register(t: Tournament) -> tuple[Events, None]:
            if request.bot_name and caller != t.config.organizer_id:
                raise ServiceError(
                    grpc.StatusCode.PERMISSION_DENIED, "only the organizer enters bots"
                )
            return t.register(entrant, now), None

        t, _ = await self.store.update(tournament_id, register)
        return pb.RegisterEntrantResponse(tournament=t.to_pb())

    async def _player_name(self, player_id: str) -> str:
        """The name from the shared player directory."""
        return await PlayerDirectory(self.store.redis).name(player_id) or f"player {player_id[:6]}"

    async def UnregisterEntrant(
        self, request: pb.UnregisterEntrantRequest, context: Context
    ) -> pb.UnregisterEntrantResponse:
        caller = await self._player(context)
        tournament_id = _id(request.tournament_id)
        entrant_id = f"{BOT_ENTRANT}{request.bot_name.strip()}" if request.bot_name else caller

        def unregister(t: Tournament) -> tuple[Events, Any]:
            if request.bot_name and caller != t.config.organizer_id:
                raise ServiceError(
                    grpc.StatusCode.PERMISSION_DENIED, "only the organizer withdraws bots"
                )
            return t.unregister(entrant_id)

        t, seat_match = await self.store.update(tournament_id, unregister)
        person = not entrant_id.startswith(BOT_ENTRANT)
        if seat_match is not None and seat_match.match_id and person:
            await self.engine.leave(
                seat_match.match_id, seat_match.entrants.index(entrant_id), entrant_id
            )
        return pb.UnregisterEntrantResponse(tournament=t.to_pb())

    async def StartTournament(
        self, request: pb.StartTournamentRequest, context: Context
    ) -> pb.StartTournamentResponse:
        caller = await self._player(context)
        tournament_id = _id(request.tournament_id)
        t, _ = await self.store.update(tournament_id, partial(_start, caller))
        await self.store.set_due(tournament_id, self.clock())
        return pb.StartTournamentResponse(tournament=t.to_pb())

    # ---------------------------------------------------------------- reading

    async def GetTournament(
        self, request: pb.GetTournamentRequest, context: Context
    ) -> pb.GetTournamentResponse:
        t = (await self.store.load(_id(request.tournament_id))).tournament
        return pb.GetTournamentResponse(tournament=t.to_pb())

    async def ListTournaments(
        self, request: pb.ListTournamentsRequest, context: Context
    ) -> pb.ListTournamentsResponse:
        if request.status and request.status not in STATUSES:
            raise invalid(f"status must be one of {', '.join(STATUSES)} (or empty for any)")
        if not 0 <= request.limit <= 100:
            raise invalid("limit must be from 1 to 100 (0: 20)")
        limit = request.limit or 20
        found = [
            t
            # A status filter looks a little further back; each look reads whole states.
            for t in await self.store.recent(limit * 5 if request.status else limit)
            if not request.status or t.status == request.status
        ]
        return pb.ListTournamentsResponse(tournaments=[t.to_pb() for t in found[:limit]])

    async def GetStandings(
        self, request: pb.GetStandingsRequest, context: Context
    ) -> pb.GetStandingsResponse:
        t = (await self.store.load(_id(request.tournament_id))).tournament
        return pb.GetStandingsResponse(standings=t.standings())

    async def GetSeat(self, request: pb.GetSeatRequest, context: Context) -> pb.GetSeatResponse:
        caller = await self._player(context)
        t = (await self.store.load(_id(request.tournament_id))).tournament
        if t.entrant(caller) is None:
            raise ServiceError(grpc.StatusCode.FAILED_PRECONDITION, "you are not an entrant")
        if t.status in OVER:
            raise ServiceError(grpc.StatusCode.FAILED_PRECONDITION, f"the tournament is {t.status}")
        matches = [(i, m) for i, m in enumerate(t.tables)] if t.status == PLAYING else []
        if t.decider is not None:
            matches = [(-1, t.decider)]
        for table, match in matches:
            if caller in match.entrants:
                seat = match.entrants.index(caller)
                token = (
                    self.engine.seat_token(match.match_id, seat, caller) if match.match_id else ""
                )
                found = pb.Seat(
                    tournament_id=t.tournament_id,
                    block=t.block,
                    table=table,
                    match_id=match.match_id,
                    seat=seat,
                    seat_token=token,
                )
                return pb.GetSeatResponse(seat=found)
        raise ServiceError(
            grpc.StatusCode.FAILED_PRECONDITION,
            f"no seat for you now (the tournament is {t.status}); follow it for the next block",
        )

    async def FollowTournament(
        self, request: pb.FollowTournamentRequest, context: Context
    ) -> AsyncIterator[pb.FollowTournamentResponse]:
        tournament_id = _id(request.tournament_id)
        t = (await self.store.load(tournament_id)).tournament
        position = request.after_event_id or "0"
        if position != "0" and not _is_stream_id(position):
            raise invalid(f"after_event_id {position!r} is not an event id")
        if self._follows >= self.settings.max_follow_streams:
            raise ServiceError(
                grpc.StatusCode.RESOURCE_EXHAUSTED, "too many follow streams here; retry later"
            )
        self._follows += 1
        over = t.status in OVER
        try:
            while True:
                entries = await self.store.read_events(
                    tournament_id, position, block_ms=None if over else FOLLOW_BLOCK_MS
                )
                for event in events_of(entries):
                    position = event.id
                    yield pb.FollowTournamentResponse(event=event)
                    if event.WhichOneof("kind") in ("final_ranking", "cancelled"):
                        return
                if entries:
                    continue
                if over:
                    return
                over = (await self.store.load(tournament_id)).tournament.status in OVER
        except asyncio.CancelledError:
            raise
        finally:
            self._follows -= 1

    async def GetChampionship(
        self, request: pb.GetChampionshipRequest, context: Context
    ) -> pb.GetChampionshipResponse:
        if not 0 <= request.limit <= 1000:
            raise invalid("limit must be from 1 to 1000 (0: 100)")
        year = request.year or ranking.championship_year(self.clock(), self.settings.time_zone)
        if not 2000 <= year <= 9999:
            raise invalid("year must be from 2000 to 9999 (0: this year)")
        rows = await self.store.championship(year, 1000)
        names = {r.player: r.name for r in rows}
        scheduled, decided = await self.store.deciders(year)
        order = ranking.championship_order(
            [ranking.ChampionshipEntry(r.player, r.points, r.maumaus, r.tournaments) for r in rows],
            decided,
        )
        championship = pb.Championship(
            year=year,
            rows=[
                pb.ChampionshipRow(
                    place=p.place,
                    player=p.entry.player,
                    name=names[p.entry.player],
                    points=p.entry.points,
                    maumaus=p.entry.maumaus,
                    tournaments=p.entry.tournaments,
                    tied=p.tied,
                    decider=scheduled.get(p.entry.player, "") if p.tied else "",
                )
                for p in order[: request.limit or 100]
            ],
        )
        return pb.GetChampionshipResponse(championship=championship)

    async def GetPlayerTournaments(
        self, request: pb.GetPlayerTournamentsRequest, context: Context
    ) -> pb.GetPlayerTournamentsResponse:
        if not 1 <= len(request.player) <= 64:
            raise invalid("player is required: a player id or bot:<name>")
        if not 0 <= request.limit <= 100:
            raise invalid("limit must be from 1 to 100 (0: 20)")
        history = await self.store.history(request.player, request.limit or 20)
        found = pb.PlayerTournaments(tournaments=[pb.PlayerTournament(**h) for h in history])
        return pb.GetPlayerTournamentsResponse(tournaments=found)


def _plays_fixed_rounds(preset: str) -> bool:
    """Whether the preset has the ``rounds`` option (a match of a fixed number of rounds)."""
    try:
        wire.ruleset_from_pb(game_pb2.Ruleset(preset=preset, options={"rounds": "1"}))
    except BadInput:
        return False
    return True


def _start(caller: str, t: Tournament) -> tuple[Events, None]:
    t.request_start(caller)
    return [], None


def _is_stream_id(text: str) -> bool:
    first, _, second = text.partition("-")
    return first.isdigit() and (not second or second.isdigit())
