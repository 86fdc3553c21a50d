"""The ladder's rules against farming, pure: how much one ranked match may move a rating.

openskill gives every rated id of a ranked match a new rating (mu, sigma). Two rules then decide
how much of that change is kept; both move mu and sigma the same fraction ``t`` of the way from
the prior to openskill's rating, so the ordinal (mu - 3 sigma) moves exactly ``t`` of its way.

1. **Familiar opponents count less.** Within :data:`WINDOW_SECONDS` (a day), every earlier ranked
   match of the same preset in which a player met any of this match's opposing accounts halves
   the match's weight for them: 1, 1/2, 1/4, and from :data:`REPEATS_IGNORED` earlier meetings on
   it counts nothing. Bot levels are no accounts (the matchmaker chooses them), teammates are
   not opponents, and on the bots' ladder the rule does not apply (the matchmaker chooses whom a
   bot meets, and a few bots meet each other all day). Why: a player with a second account, or
   friends handing each other wins, meet the same few accounts over and over; players of a busy
   queue rarely meet one account several times a day, and lose little when they do.
2. **No climbing over weak opponents.** A match lifts a rating's ordinal at most to
   :data:`CLIMB_MARGIN` above the best prior ordinal among the opponents it finished ahead of, and
   not at all when it finished ahead of nobody; losses count in full. Why: openskill shrinks
   sigma with every match, so the ordinal - and the displayed rating, 1000 + 40 * ordinal - grows
   with the number of matches even against far weaker opponents (30 wins over random bots once
   showed 1946). Under this rule beating opponents of ordinal at most X, however often, never
   shows more than 1000 + 40 * (X + CLIMB_MARGIN), and a player climbs only by finishing ahead
   of players (or bot levels) who are close to them.

>>> repeat_weight(0), repeat_weight(1), repeat_weight(2), repeat_weight(3)
(1.0, 0.5, 0.25, 0.0)
>>> climb_cap([4.0, -2.0]), climb_cap([])
(9.0, -inf)
>>> kept(Skill(25.0, 8.0), Skill(27.0, 7.0), weight=1.0, cap=-1.0)  # ordinal 1.0 -> 6.0, cap -1
Skill(mu=25.0, sigma=8.0)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from maumau.rating.ladder import Result, SeatResult, Skill, by_rated_id

WINDOW_SECONDS = 86400.0
"""How far back earlier meetings with the same accounts count."""

REPEATS_IGNORED = 3
"""From this many earlier meetings within the window on, a match counts nothing."""

MEETINGS_KEPT = 64
"""Earlier ranked matches remembered per player and preset (only those within the window)."""

CLIMB_MARGIN = 5.0
"""How far above the best opponent beaten a match may lift an ordinal (200 displayed points)."""

Meeting = Sequence[Any]
"""An earlier ranked match: when it finished, and the opposing accounts (player ids) met; a pair,
stored as a JSON list (so typed loosely: the compiled module checks a tuple type at run time)."""


def repeat_weight(meetings: int) -> float:
    """The weight of a match after ``meetings`` earlier meetings with the same accounts."""
    return 0.0 if meetings >= REPEATS_IGNORED else 0.5 ** max(meetings, 0)


def familiar_meetings(
    earlier: Iterable[Meeting],
    opponents: Iterable[str],
    now: float,
    window: float = WINDOW_SECONDS,
) -> int:
    """The most earlier meetings within the ``window`` (seconds) with any one of ``opponents``.

    >>> familiar_meetings([(10.0, ["b"]), (20.0, ["b", "c"]), (30.0, ["c"])], ["b"], 40.0)
    2
    >>> familiar_meetings([(10.0, ["b"])], ["b"], 10.0 + WINDOW_SECONDS)
    0
    """
    wanted = set(opponents)
    if not wanted:
        return 0
    counts = dict.fromkeys(wanted, 0)
    for finished_at, met in earlier:
        if now - window < finished_at <= now:
            for account in wanted.intersection(met):
                counts[account] += 1
    return max(counts.values(), default=0)


def recent(earlier: Iterable[Meeting], now: float, window: float = WINDOW_SECONDS) -> list[Meeting]:
    """The meetings still within the ``window``, newest last, at most MEETINGS_KEPT."""
    kept: list[Meeting] = sorted(
        ((at, list(met)) for at, met in earlier if at > now - window), key=lambda m: m[0]
    )
    return kept[-MEETINGS_KEPT:]


def climb_cap(beaten: Iterable[float]) -> float:
    """The highest ordinal a match may lift a rating to, from the prior ordinals of the opponents
    it finished ahead of."""
    return max(beaten, default=-math.inf) + CLIMB_MARGIN


def kept(prior: Skill, rated: Skill, *, weight: float, cap: float) -> Skill:
    """What is kept of openskill's change from ``prior`` to ``rated``: ``weight`` of it (rule 1),
    and no more of a rise than reaches ``cap`` (rule 2)."""
    t = min(max(weight, 0.0), 1.0)
    start = prior.ordinal
    rise = t * (rated.ordinal - start)
    if rise > 0 and start + rise > cap:
        t = 0.0 if start >= cap else t * (cap - start) / rise
    if t == 0.0:
        return prior
    return Skill(
        prior.mu + t * (rated.mu - prior.mu), prior.sigma + t * (rated.sigma - prior.sigma)
    )


def opponents(result: Result, rated_id: str) -> list[SeatResult]:
    """The seats of ``result`` not on the side of any seat of ``rated_id``: every one for a
    person, the bots' for a bot (rated among bots only)."""
    own = by_rated_id(result)[rated_id]
    bot = own[0].bot
    if result.teams:
        teams = {seat.team for seat in own}
        against = [seat for seat in result.seats if seat.team not in teams]
    else:
        against = [seat for seat in result.seats if seat.rated_id != rated_id]
    return [seat for seat in against if seat.bot] if bot else against


def opposingaccounts(result: Result, rated_id: str) -> list[str]:
    """The players (no bots) ``rated_id`` played against in ``result``, sorted."""
    return accounts(opponents(result, rated_id))


def accounts(seats: Iterable[SeatResult]) -> list[str]:
    """The players (no bot levels) at ``seats``, sorted."""
    return sorted({seat.player_id for seat in seats if seat.player_id})


def kept_ratings(
    result: Result,
    place: Sequence[int],
    before: Mapping[str, Skill],
    rated: Mapping[str, Skill],
    earlier: Mapping[str, Iterable[Meeting]],
    against: Mapping[str, list[SeatResult]] | None = None,
    met: Mapping[str, list[str]] | None = None,
    window: float = WINDOW_SECONDS,
) -> dict[str, Skill]:
    """The ratings a ranked ``result`` leaves, from openskill's ``rated`` ones: both rules
    applied to every rated id (rule 1 to people only: the arena and the ranked queue choose
    whom a bot meets, and a few bots meet each other all day).
    ``against``: each rated id's :func:`opponents`, and ``met``: each player's opposing
    :func:`accounts`, when the caller has them already. ``window``: how far back rule 1 looks
    (seconds)."""
    seats = by_rated_id(result)
    ordinal = {rated_id: skill.ordinal for rated_id, skill in before.items()}
    kept_now = {}
    for rated_id, skill in rated.items():
        own = seats[rated_id]
        best = place[own[0].seat] if len(own) == 1 else min(place[seat.seat] for seat in own)
        opposing = against[rated_id] if against is not None else opponents(result, rated_id)
        weight = 1.0
        if own[0].player_id and not own[0].bot:
            previous = earlier.get(rated_id, ())
            if previous:  # a player's first ranked match of the day meets nobody again
                opposing_accounts = met[rated_id] if met is not None else accounts(opposing)
                weight = repeat_weight(
                    familiar_meetings(previous, opposing_accounts, result.finished_at, window)
                )
        beaten = [
            ordinal[seat.rated_id] for seat in opposing if seat.rated_id and place[seat.seat] > best
        ]
        kept_now[rated_id] = kept(before[rated_id], skill, weight=weight, cap=climb_cap(beaten))
    return kept_now
