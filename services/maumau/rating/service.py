"""The Rating gRPC service: profiles, leaderboards, the page around a player, match history.

Read-only: the results consumer is the only writer. Every answer is public, so no token is asked.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping, Sequence
from typing import Any

import grpc

from maumau.common.errors import ServiceError
from maumau.common.players import PlayerDirectory
from maumau.rating.ladder import (
    BOT_PREFIX,
    BOTS,
    PEOPLE,
    Skill,
    current_season,
    level_for,
    rated_id_of,
    xp_for_level,
)
from maumau.rating.store import LadderRow, Player, RatingStore, is_bot
from maumau.rules.ruleset import PRESETS
from maumau.v1 import rating_pb2, rating_pb2_grpc

Context = grpc.aio.ServicerContext[Any, Any]

SEASON = re.compile(r"\d{4}")

LADDERS: dict[int, str] = {
    rating_pb2.LADDER_UNSPECIFIED: PEOPLE,
    rating_pb2.LADDER_PEOPLE: PEOPLE,
    rating_pb2.LADDER_BOTS: BOTS,
}
LADDER_PB = {PEOPLE: rating_pb2.LADDER_PEOPLE, BOTS: rating_pb2.LADDER_BOTS}


class RatingService(rating_pb2_grpc.RatingServiceServicer):
    def __init__(self, store: RatingStore, directory: PlayerDirectory) -> None:
        self.store = store
        self.directory = directory

    async def GetProfile(
        self, request: rating_pb2.GetProfileRequest, context: Context
    ) -> rating_pb2.GetProfileResponse:
        recent = _count(request.recent, "recent", default=10, most=100)
        ladder = _ladder_of(request.ladder)
        player_id = _player_id(request.player_id)
        state, name, bots = await asyncio.gather(
            self.store.player(player_id),
            self._name(player_id),
            self.store.bot_accounts([player_id]),
        )
        if state is None if is_bot(player_id) else not name:
            # A player is known by the player directory alone, whatever results name them.
            raise ServiceError(grpc.StatusCode.NOT_FOUND, f"no player {player_id!r}")
        state = state or Player({})
        ratings = sorted(state.ratings(ladder), key=lambda r: (r.season, r.preset), reverse=True)
        ranks, (_, history) = await asyncio.gather(
            self.store.ranks(player_id, [(r.preset, r.season) for r in ratings], ladder),
            self.store.history(player_id, 0, recent),
        )
        xp = state.count("xp")
        level = level_for(xp)
        profile = rating_pb2.Profile(
            player_id=player_id,
            name=name,
            bot=is_bot(player_id) or player_id in bots,
            xp=xp,
            level=level,
            level_xp=xp_for_level(level),
            next_level_xp=xp_for_level(level + 1),
            matches_played=state.count("played"),
            matches_won=state.count("won"),
            matches_left=state.count("left"),
            presets=[
                rating_pb2.PresetStats(
                    preset=preset,
                    matches_played=counts.count("played"),
                    matches_won=counts.count("won"),
                )
                for preset, counts in sorted(state.presets.items())
            ],
            ratings=[
                rating_pb2.SeasonRating(
                    preset=rating.preset,
                    season=rating.season,
                    skill=_skill(rating.skill),
                    rank=rank or 0,
                    matches_played=rating.played,
                    matches_won=rating.won,
                    ladder=LADDER_PB[rating.ladder],
                )
                for rating, rank in zip(ratings, ranks, strict=True)
            ],
            recent=[_summary(match, player_id) for match in history],
        )
        return rating_pb2.GetProfileResponse(profile=profile)

    async def Leaderboard(
        self, request: rating_pb2.LeaderboardRequest, context: Context
    ) -> rating_pb2.LeaderboardResponse:
        preset, season = _ladder(request.preset, request.season)
        ladder = _ladder_of(request.ladder)
        limit = _count(request.limit, "limit", default=10, most=100)
        if request.offset < 0:
            raise ServiceError(grpc.StatusCode.INVALID_ARGUMENT, "offset must not be negative")
        total, rows = await asyncio.gather(
            self.store.ladder_size(preset, season, ladder),
            self.store.ladder(preset, season, request.offset, limit, ladder),
        )
        page = await self._page(preset, season, ladder, total, rows)
        return rating_pb2.LeaderboardResponse(page=page)

    async def Around(
        self, request: rating_pb2.AroundRequest, context: Context
    ) -> rating_pb2.AroundResponse:
        preset, season = _ladder(request.preset, request.season)
        ladder = _ladder_of(request.ladder)
        radius = _count(request.radius, "radius", default=5, most=50)
        player_id = _player_id(request.player_id)
        [rank] = await self.store.ranks(player_id, [(preset, season)], ladder)
        if rank is None:
            whose = "bots'" if ladder == BOTS else "people's"
            raise ServiceError(
                grpc.StatusCode.NOT_FOUND,
                f"player {player_id!r} has no rating on the {whose} {preset} ladder of {season}",
            )
        start = max(0, rank - 1 - radius)
        total, rows = await asyncio.gather(
            self.store.ladder_size(preset, season, ladder),
            self.store.ladder(preset, season, start, rank + radius - start, ladder),
        )
        page = await self._page(preset, season, ladder, total, rows)
        return rating_pb2.AroundResponse(page=page)

    async def History(
        self, request: rating_pb2.HistoryRequest, context: Context
    ) -> rating_pb2.HistoryResponse:
        limit = _count(request.limit, "limit", default=10, most=100)
        if request.offset < 0:
            raise ServiceError(grpc.StatusCode.INVALID_ARGUMENT, "offset must not be negative")
        player_id = _player_id(request.player_id)
        total, history = await self.store.history(player_id, request.offset, limit)
        if not total and not await self._known(player_id):
            raise ServiceError(grpc.StatusCode.NOT_FOUND, f"no player {player_id!r}")
        page = rating_pb2.HistoryPage(
            total=total, matches=[_summary(match, player_id) for match in history]
        )
        return rating_pb2.HistoryResponse(page=page)

    async def _known(self, player_id: str) -> bool:
        if is_bot(player_id):
            return await self.store.player(player_id) is not None
        return bool(await self.directory.name(player_id))

    async def _name(self, player_id: str) -> str:
        if is_bot(player_id):
            return f"{player_id.removeprefix(BOT_PREFIX)} bot"
        return await self.directory.name(player_id)

    async def _page(
        self, preset: str, season: str, ladder: str, total: int, rows: Sequence[LadderRow]
    ) -> rating_pb2.LeaderboardPage:
        names = await asyncio.gather(*(self._name(row.rated_id) for row in rows))
        return rating_pb2.LeaderboardPage(
            preset=preset,
            season=season,
            ladder=LADDER_PB[ladder],
            total=total,
            entries=[
                rating_pb2.LadderEntry(
                    rank=row.rank,
                    player_id=row.rated_id,
                    name=name,
                    bot=ladder == BOTS,
                    skill=_skill(row.rating.skill),
                    matches_played=row.rating.played,
                    matches_won=row.rating.won,
                )
                for row, name in zip(rows, names, strict=True)
            ],
        )


def _player_id(player_id: str) -> str:
    if not player_id:
        raise ServiceError(grpc.StatusCode.INVALID_ARGUMENT, "player_id is required")
    return player_id


def _ladder(preset: str, season: str) -> tuple[str, str]:
    if preset not in PRESETS:
        raise ServiceError(
            grpc.StatusCode.INVALID_ARGUMENT,
            f"unknown preset {preset!r}: choose {', '.join(PRESETS)}",
        )
    if season and not SEASON.fullmatch(season):
        raise ServiceError(
            grpc.StatusCode.INVALID_ARGUMENT,
            f"season {season!r}: a season is a year like {current_season()}",
        )
    return preset, season or current_season()


def _ladder_of(value: int) -> str:
    if value not in LADDERS:
        raise ServiceError(
            grpc.StatusCode.INVALID_ARGUMENT,
            f"unknown ladder {value}: choose LADDER_PEOPLE or LADDER_BOTS (unset: the people's)",
        )
    return LADDERS[value]


def _count(value: int, name: str, default: int, most: int) -> int:
    if value == 0:
        return default
    if not 1 <= value <= most:
        raise ServiceError(
            grpc.StatusCode.INVALID_ARGUMENT, f"{name}={value}: use 1 to {most} (0: {default})"
        )
    return value


def _skill(skill: Skill | Sequence[float] | None) -> rating_pb2.Skill | None:
    if skill is None:
        return None
    skill = Skill(*skill)
    return rating_pb2.Skill(
        mu=skill.mu, sigma=skill.sigma, ordinal=skill.ordinal, display=skill.display
    )


def _summary(record: Mapping[str, Any], player_id: str) -> rating_pb2.MatchSummary:
    """A stored match record (see ``store.apply_result``) as the API shows it."""
    result = record["result"]
    seats = result["seats"]
    rated = [rated_id_of(seat["player_id"], seat["bot_level"]) for seat in seats]
    return rating_pb2.MatchSummary(
        match_id=result["match_id"],
        ruleset=result["ruleset"],
        preset=result["preset"],
        season=record["season"],
        ranked=result["ranked"],
        teams=result["teams"],
        finished_at=result["finished_at"],
        reason=result["reason"],
        rounds=result["rounds"],
        seat=rated.index(player_id) if player_id in rated else -1,
        seats=[
            rating_pb2.SeatOutcome(
                seat=seat["seat"],
                player_id=rated[n],
                bot=seat.get("bot", False) or is_bot(rated[n]),
                team=seat["team"],
                total=seat["total"],
                rounds_won=seat["rounds_won"],
                specials=seat["specials"],
                winner=seat["winner"],
                left=seat["left"],
                place=record["places"][n],
                xp=record["xp"][n],
                before=_skill(record["before"][n]),
                after=_skill(record["after"][n]),
            )
            for n, seat in enumerate(seats)
        ],
    )
