"""A rated id's stored state in one preset, and applying one finished match to such states, pure:
the store reads the states from Redis and writes back what :func:`apply_result` made of them.

No Redis here, so that installing compiles this module with mypyc (``build_support.py``), as
``ladder`` and ``farming``: it is the rating service's Python work per result.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import orjson

from maumau.rating.farming import (
    MEETINGS_KEPT,
    WINDOW_SECONDS,
    Meeting,
    accounts,
    kept_ratings,
    opponents,
    recent,
)
from maumau.rating.ladder import (
    BOTS,
    DEFAULT_SKILL,
    PEOPLE,
    Result,
    Skill,
    by_rated_id,
    places,
    rate,
    soften,
    xp_earned,
)


@dataclass(frozen=True)
class SeasonRating:
    preset: str
    season: str
    ladder: str
    """:data:`PEOPLE` or :data:`BOTS`."""
    skill: Skill
    played: int
    """Ranked matches of this preset in this season."""
    won: int


class PresetState:
    """What is kept about one rated id in one preset, as stored (JSON)::

        {"xp": 38, "played": 3, "won": 1, "left": 1,
         "seasons": {"2025": [mu, sigma, ranked matches played, won]},
         "bots": {"2025": [mu, sigma, ranked matches played, won]},
         "met": [[finished_at, [player ids met]], ...]}

    ``seasons`` are the people's ladder's ratings, ``bots`` the bots' ladder's (absent until a
    bot's first ranked match; bot levels rated before the bots' ladder keep their old
    ``seasons``, no longer on any current ladder).

    ``met`` holds the ranked matches of the last day against other accounts, for the rule
    against farming (:mod:`maumau.rating.farming`).

    ``read`` is the text it was read from (b'' for none): the commit compares against it.
    """

    def __init__(self, text: bytes | str | None = None) -> None:
        self.read = text.encode() if isinstance(text, str) else text or b""
        self.data: dict[str, Any] = (
            orjson.loads(self.read)
            if self.read
            else {"xp": 0, "played": 0, "won": 0, "left": 0, "seasons": {}}
        )

    def count(self, name: str) -> int:
        """``xp``, ``played``, ``won`` or ``left``."""
        return int(self.data[name])

    def seasons(self, ladder: str) -> dict[str, Any]:
        """The ratings on ``ladder`` by season (not to be changed: the state's own)."""
        found: dict[str, Any] = self.data.get(_FIELDS[ladder], {})
        return found

    def skill(self, season: str, ladder: str = PEOPLE) -> Skill | None:
        rating = self.seasons(ladder).get(season)
        return None if rating is None else Skill(rating[0], rating[1])

    def prior(self, season: str, ladder: str = PEOPLE) -> Skill:
        """The rating a ranked match of ``season`` starts from on ``ladder``: this season's,
        else the latest earlier season's softened, else a new player's."""
        seasons = self.seasons(ladder)
        if season in seasons:
            return Skill(*seasons[season][:2])
        earlier = [s for s in seasons if s < season]
        return soften(Skill(*seasons[max(earlier)][:2])) if earlier else DEFAULT_SKILL

    def ratings(self, preset: str, ladder: str = PEOPLE) -> Iterator[SeasonRating]:
        for season, (mu, sigma, played, won) in self.seasons(ladder).items():
            yield SeasonRating(preset, season, ladder, Skill(mu, sigma), played, won)

    def add_match(
        self,
        xp: int,
        won: bool,
        left: bool,
        season: str,
        rated: Skill | None,
        ladder: str = PEOPLE,
    ) -> None:
        """Count one match (and its new rating on ``ladder``, for a ranked one)."""
        data = self.data
        data["xp"] += xp
        data["played"] += 1
        data["won"] += won
        data["left"] += left
        if rated is not None:
            seasons = data.setdefault(_FIELDS[ladder], {})
            _, _, played, wins = seasons.get(season, (0, 0, 0, 0))
            seasons[season] = [rated.mu, rated.sigma, played + 1, wins + won]

    def meetings(self) -> list[Meeting]:
        """The player's latest ranked matches of this preset: (finished at, accounts met)."""
        met: list[Meeting] = self.data.get("met", [])
        return met

    def meet(self, finished_at: float, accounts: list[str], window: float = WINDOW_SECONDS) -> None:
        """Remember a ranked match against ``accounts`` (only the ``window``'s, bounded)."""
        if not accounts:
            return
        met = self.meetings()
        if met and met[-1][0] <= finished_at:  # the newest match, as nearly always: append
            start = bisect.bisect_right(met, finished_at - window, key=_finished_at)
            self.data["met"] = [
                *met[max(start, len(met) + 1 - MEETINGS_KEPT) :],
                [finished_at, accounts],
            ]
        else:
            self.data["met"] = recent([*met, (finished_at, accounts)], finished_at, window)

    def dumps(self) -> bytes:
        return orjson.dumps(self.data)


_FIELDS = {PEOPLE: "seasons", BOTS: "bots"}
"""The field of a state that holds each ladder's ratings."""


def _finished_at(meeting: Meeting) -> float:
    at: float = meeting[0]
    return at


def skill_json(skill: Skill | None) -> list[float] | None:
    return None if skill is None else [skill.mu, skill.sigma]


def apply_result(
    result: Result, players: dict[str, PresetState], window: float = WINDOW_SECONDS
) -> bytes:
    """Apply one match to the in-memory states of its ``players`` in its preset (by rated id)
    and return the match's stored record, JSON: ``result`` (the MatchResult's fields), the
    ``season`` it counted for, and per seat its ``places``, ``xp``, and rating ``before`` and
    ``after`` (``[mu, sigma]``, null in an unranked match). ``window``: how far back the rule
    against familiar opponents looks (seconds)."""
    place = places(result)
    season = result.season
    seats = by_rated_id(result)
    xp = [xp_earned(seat) for seat in result.seats]
    before: dict[str, Skill] = {}
    after: dict[str, Skill] = {}
    met: dict[str, list[str]] = {}
    if result.ranked:
        before = {r: players[r].prior(season, own[0].ladder) for r, own in seats.items()}
        against = {rated_id: opponents(result, rated_id) for rated_id in seats}
        met = {
            r: accounts(against[r])
            for r, own in seats.items()
            if own[0].player_id and not own[0].bot
        }
        earlier = {rated_id: players[rated_id].meetings() for rated_id in met}
        rated = rate(result, before, place)
        after = kept_ratings(result, place, before, rated, earlier, against, met, window)
    for rated_id, own in seats.items():
        state = players[rated_id]
        if len(own) == 1:  # nearly always: one seat per rated id
            [seat] = own
            earned, won, left = xp[seat.seat], seat.winner and not seat.left, seat.left
        else:
            earned = sum(xp[seat.seat] for seat in own)
            won = any(seat.winner and not seat.left for seat in own)
            left = any(seat.left for seat in own)
        state.add_match(
            xp=earned,
            won=won,
            left=left,
            season=season,
            rated=after.get(rated_id),
            ladder=own[0].ladder,
        )
        if rated_id in met:
            state.meet(result.finished_at, met[rated_id], window)
    rating = {
        "result": result.to_dict(),
        "season": season,
        "places": place,
        "xp": xp,
        "before": [skill_json(before.get(seat.rated_id)) for seat in result.seats],
        "after": [skill_json(after.get(seat.rated_id)) for seat in result.seats],
    }
    return orjson.dumps(rating)
