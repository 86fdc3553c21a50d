"""The rating rules, pure: finished-match results, XP and levels, places, seasons, openskill.

No Redis and no gRPC here: the store applies what these functions compute.

>>> xp_earned(SeatResult(0, "ada", "", False, 0, 12, 2, 3, True))
29
>>> level_for(99), level_for(100), xp_for_level(3)
(1, 2, 300)
>>> season_of(1735689600.0)  # 2025-01-01 00:00 UTC
'2025'
"""

from __future__ import annotations

import math
from collections.abc import Container, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, NamedTuple, TypeVar

from maumau.rating.pool import MODEL, RATINGS, Teams
from maumau.rules.ruleset import PRESETS
from maumau.v1 import game_pb2
from maumau.wire import bot_level_from_pb

T = TypeVar("T")

BOT_PREFIX = "bot:"
"""A bot level rates as the pseudo-player ``bot:<level>`` (one rating per preset and season)."""

PEOPLE = "people"
BOTS = "bots"
"""The two ladders of every preset and season. Bots and people never share one: a bot seat (a
bot level, or a bot account of the player directory) is rated among the match's bots only, on
the bots' ladder, so no result against people moves a bot; a person is rated against everyone
at the table as before, a bot at its rating on the bots' ladder, on the people's ladder."""

XP_PLAYED = 8
XP_WON = 14
XP_ROUND_WON = 2
XP_SPECIAL = 1
"""The colour rule text's XP table, used for every preset: play a match 8, win it 14 (on top),
win a round 2, each penalty card played 1 (a 7 in French decks, a draw-2 or draw-4 in colour)."""

LEVEL_STEP = 100
"""Level L starts at ``LEVEL_STEP * L * (L - 1) / 2`` XP: each level takes 100 XP more than the
one before (level 2 at 100, level 3 at 300, level 4 at 600, level 10 at 4,500)."""

LOWER_IS_BETTER: Mapping[str, bool] = {"points": True, "ostfriesland": True}
"""By the rules core's ``Ruleset.scoring``: penalty points ('points', 'ostfriesland') are better
low; round wins ('wins') and collected points ('collect') are better high."""


class Skill(NamedTuple):
    """An openskill rating: the estimated skill ``mu`` and its uncertainty ``sigma``."""

    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """The conservative rating the ladder sorts by: mu - 3 sigma."""
        return self.mu - 3 * self.sigma

    @property
    def display(self) -> int:
        """The number shown to people: 1000 + 40 * ordinal (a new player shows 1000).

        >>> DEFAULT_SKILL.display, Skill(30.0, 4.0).display
        (1000, 1720)
        """
        return round(1000 + 40 * self.ordinal)


DEFAULT_SKILL = Skill(MODEL.mu, MODEL.sigma)


def soften(skill: Skill) -> Skill:
    """Where a new season starts from last season's rating: mu kept, sigma halfway back to a new
    player's, so the ladder restarts lower and a good player climbs back fast.

    >>> soften(Skill(30.0, 2.0)).sigma == 2.0 + (25 / 3 - 2.0) / 2
    True
    """
    return Skill(skill.mu, skill.sigma + (DEFAULT_SKILL.sigma - skill.sigma) / 2)


def xp_for_level(level: int) -> int:
    """The XP at which ``level`` starts (level 1 at 0)."""
    return LEVEL_STEP * level * (level - 1) // 2


def level_for(xp: int) -> int:
    """The level reached with ``xp``: the largest L with xp_for_level(L) <= xp."""
    level = (1 + math.isqrt(1 + 8 * max(xp, 0) // LEVEL_STEP)) // 2
    while xp_for_level(level + 1) <= xp:  # guard the integer square root's rounding
        level += 1
    return level


def season_of(finished_at: float) -> str:
    """A season is the calendar year (UTC) in which the match ended."""
    return str(datetime.fromtimestamp(finished_at, UTC).year)


def current_season() -> str:
    return str(datetime.now(UTC).year)


def rated_id_of(player_id: str, bot_level: str) -> str:
    """Who a seat counts for: its player, or its bot level's pseudo-player ('' if neither)."""
    return player_id or (BOT_PREFIX + bot_level if bot_level else "")


class BadResult(ValueError):
    """A results-stream entry that is not a finished match this service can apply."""


@dataclass(slots=True)
class SeatResult:
    """One seat of a finished match (``MatchResult.Seat``); never changed once built (not
    frozen: a frozen dataclass costs several times as much to build, once per seat rated)."""

    seat: int
    player_id: str
    """'' for a bot seat."""
    bot_level: str
    """The bot level of a seat no player held, else ''."""
    left: bool
    team: int
    """The team's first seat in team play, else the seat itself."""
    total: int
    rounds_won: int
    specials: int
    """Penalty special cards played."""
    winner: bool

    rated_id: str = field(init=False)
    """Who this seat counts for: the player, or the bot level's pseudo-player ('' if neither)."""
    bot: bool = field(init=False)
    """A bot level's seat, or a bot account's (:meth:`Result.mark_bot_accounts`)."""

    def __post_init__(self) -> None:
        self.rated_id = rated_id_of(self.player_id, self.bot_level)
        self.bot = bool(self.bot_level)

    @property
    def ladder(self) -> str:
        """The ladder this seat is rated on: :data:`BOTS` or :data:`PEOPLE`."""
        return BOTS if self.bot else PEOPLE

    def to_dict(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "player_id": self.player_id,
            "bot_level": self.bot_level,
            "left": self.left,
            "team": self.team,
            "total": self.total,
            "rounds_won": self.rounds_won,
            "specials": self.specials,
            "winner": self.winner,
            "bot": self.bot,
        }


@dataclass(slots=True)
class Result:
    """A finished match from the results stream (``MatchResult``); never changed once built
    but for :meth:`mark_bot_accounts` (not frozen, as :class:`SeatResult`)."""

    match_id: str
    ruleset: str
    preset: str
    ranked: bool
    teams: bool
    seats: tuple[SeatResult, ...]
    winners: tuple[int, ...]
    reason: str
    rounds: int
    finished_at: float

    season: str = field(init=False, repr=False, compare=False)
    """The season the match counts for (:func:`season_of`)."""
    rated: dict[str, list[SeatResult]] = field(init=False, repr=False, compare=False)
    """The seats of everyone rated, by rated id in order of first appearance (see
    :func:`by_rated_id`). Both worked out once: every step of applying the result asks."""

    def __post_init__(self) -> None:
        rated: dict[str, list[SeatResult]] = {}
        for seat in self.seats:
            if seat.rated_id:
                rated.setdefault(seat.rated_id, []).append(seat)
        self.rated = rated
        self.season = season_of(self.finished_at)

    def mark_bot_accounts(self, bot_accounts: Container[str]) -> None:
        """Mark the seats of players the player directory calls bots (the results stream names
        players only; a bot flag never goes once set, so reading it when applying is exact)."""
        for seat in self.seats:
            if seat.player_id in bot_accounts:
                seat.bot = True

    @classmethod
    def from_pb(cls, message: game_pb2.MatchResult) -> Result:
        """The result of a ``MatchResult``; BadResult says why this service cannot apply it."""
        try:
            seats = tuple(
                SeatResult(  # by position: a good part quicker than by name, once per seat
                    seat.seat,
                    seat.player_id,
                    bot_level_from_pb(seat.bot_level),
                    seat.left,
                    seat.team,
                    seat.total,
                    seat.rounds_won,
                    seat.specials,
                    seat.winner,
                )
                for seat in message.seats
            )
        except ValueError as error:
            raise BadResult(f"result {message.match_id}: {error}") from None
        result = cls(
            match_id=message.match_id,
            ruleset=message.ruleset,
            preset=message.preset,
            ranked=message.ranked,
            teams=message.teams,
            seats=seats,
            winners=tuple(message.winners),
            reason=message.reason,
            rounds=message.rounds,
            finished_at=message.finished_at,
        )
        if not result.match_id:
            raise BadResult("result has an empty match_id")
        if result.preset not in PRESETS:
            raise BadResult(f"result {result.match_id} has an unknown preset {result.preset!r}")
        if not 1 <= len(result.seats) <= 8:
            raise BadResult(f"result {result.match_id} has {len(result.seats)} seats")
        if any(seat.seat != n for n, seat in enumerate(result.seats)):
            raise BadResult(f"result {result.match_id} does not list its seats in order")
        return result

    def to_dict(self) -> dict[str, Any]:
        """The result as the rating service keeps it in a match's history."""
        return {
            "match_id": self.match_id,
            "ruleset": self.ruleset,
            "preset": self.preset,
            "ranked": self.ranked,
            "teams": self.teams,
            "seats": [seat.to_dict() for seat in self.seats],
            "winners": list(self.winners),
            "reason": self.reason,
            "rounds": self.rounds,
            "finished_at": self.finished_at,
        }


def xp_earned(seat: SeatResult) -> int:
    """XP for one seat of a match: nothing for a seat that left (or a bot, level or account)."""
    if seat.left or seat.bot or not seat.player_id:
        return 0
    return (
        XP_PLAYED
        + XP_WON * seat.winner
        + XP_ROUND_WON * seat.rounds_won
        + XP_SPECIAL * seat.specials
    )


def side_of(result: Result, seat: SeatResult) -> int:
    """The seats that share a place: a team in team play (its first seat), else one seat."""
    return seat.team if result.teams else seat.seat


def places(result: Result) -> list[int]:
    """Each seat's 1-based place (equal results share one): winners first, then by match total
    (the better end by the preset's scoring), and a side with a seat that left ranks last.

    >>> seat = lambda s, total, won: SeatResult(s, f"p{s}", "", False, s, total, 0, 0, won)
    >>> seats = (seat(0, 40, False), seat(1, 12, True), seat(2, 40, False))
    >>> places(Result("m", "classic", "classic", True, False, seats, (1,), "target", 9, 0.0))
    [2, 1, 2]
    """
    sign = 1 if LOWER_IS_BETTER.get(PRESETS[result.preset].scoring, False) else -1
    keys: dict[int, tuple[bool, bool, int]] = {}
    for seat in result.seats:
        side = side_of(result, seat)
        left, lost, total = keys.get(side, (False, True, 0))
        keys[side] = (left or seat.left, lost and not seat.winner, total + sign * seat.total)
    ordered = sorted(keys.values())
    return [ordered.index(keys[side_of(result, seat)]) + 1 for seat in result.seats]


def rate(result: Result, priors: Mapping[str, Skill], place: Sequence[int]) -> dict[str, Skill]:
    """New ratings of everyone rated in a ranked ``result``, from ``priors`` (by rated id) and
    each seat's ``place`` (from :func:`places`).

    People are rated against every side of the match, bots (:data:`BOTS`) against the match's
    other bots only, so none is rated when a single side holds bots. A rated id at several seats
    (two bots of one level) is rated for each seat: its mu moves by the sum of the seats'
    changes and its sigma by the product of their factors.
    """
    sides: dict[int, list[SeatResult]] = {}
    bot_sides: dict[int, list[SeatResult]] = {}
    people = False
    for seat in result.seats:
        if seat.rated_id:
            sides.setdefault(side_of(result, seat), []).append(seat)
            if seat.bot:
                bot_sides.setdefault(side_of(result, seat), []).append(seat)
            else:
                people = True
    rated: dict[str, Skill] = {}
    if people and len(sides) >= 2:
        everyone = _rate_sides(sides, priors, place)
        rated = {r: skill for r, skill in everyone.items() if not result.rated[r][0].bot}
    if len(bot_sides) >= 2:
        rated.update(_rate_sides(bot_sides, priors, place))
    return rated


def _rate_sides(
    sides: dict[int, list[SeatResult]], priors: Mapping[str, Skill], place: Sequence[int]
) -> dict[str, Skill]:
    """openskill over ``sides`` (two or more, all of one ladder)."""
    ratings = iter(RATINGS)
    teams = Teams()
    for side in sides.values():
        team = []
        for seat in side:
            rating = next(ratings)
            rating.mu, rating.sigma = priors[seat.rated_id]
            team.append(rating)
        teams.append(team)
    ranks: list[float] = [place[side[0].seat] for side in sides.values()]
    rated: dict[str, list[Any]] = {}
    for side, team in zip(sides.values(), MODEL.rate(teams, ranks=ranks), strict=True):
        for seat, rating in zip(side, team, strict=True):
            rated.setdefault(seat.rated_id, []).append(rating)
    return {rated_id: _combined(priors[rated_id], ratings) for rated_id, ratings in rated.items()}


def _combined(prior: Skill, ratings: list[Any]) -> Skill:
    if len(ratings) == 1:
        return Skill(ratings[0].mu, ratings[0].sigma)
    mu, sigma = prior
    for rating in ratings:
        mu += rating.mu - prior.mu
        sigma *= rating.sigma / prior.sigma
    return Skill(mu, sigma)


def by_rated_id(result: Result) -> dict[str, list[SeatResult]]:
    """The seats of everyone rated in ``result``, in order of first appearance (not to be
    changed: the result's own)."""
    return result.rated
