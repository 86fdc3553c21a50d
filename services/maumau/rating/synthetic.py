"""Synthetic finished matches as ``MatchResult`` messages, for tests and the benchmark: every
preset, 2-8 seats, ranked and unranked, bot seats, seats that left, and colour played in teams.
Seeded, so the same arguments give the same results."""

from __future__ import annotations

import random
from datetime import UTC, datetime

from maumau.rules.ruleset import PRESETS
from maumau.v1 import game_pb2
from maumau.wire import BOT_LEVELS, bot_level_to_pb

SEATS = {"classic": (2, 8), "online": (2, 4), "ostfriesland": (2, 8), "colour": (2, 8)}
REASONS = {"points": "target", "ostfriesland": "rounds", "wins": "wins", "collect": "target"}
START = datetime(2024, 9, 1, tzinfo=UTC).timestamp()
"""The first match ends here; ``span_days`` later covers the turn of the year (two seasons)."""


def synthetic_results(
    count: int,
    seed: int = 0,
    players: int = 40,
    ranked: float = 0.6,
    bots: float = 0.25,
    left: float = 0.05,
    teams: float = 0.3,
    span_days: float = 240.0,
    prefix: str = "synthetic",
) -> list[game_pb2.MatchResult]:
    """``count`` results as the engine writes them: shares ``ranked`` of ranked matches, ``bots``
    of bot seats, ``left`` of human seats that left, ``teams`` of colour matches in teams; human
    seats drawn from ``players`` players ``p00``, ``p01``, ... (at least 8)."""
    rng = random.Random(seed)
    pool = [f"p{n:02d}" for n in range(max(players, 8))]
    step = span_days * 86400 / max(count, 1)
    return [
        _result(rng, f"{prefix}-{seed}-{n}", pool, START + n * step, ranked, bots, left, teams)
        for n in range(count)
    ]


def _result(
    rng: random.Random,
    match_id: str,
    pool: list[str],
    finished_at: float,
    ranked: float,
    bots: float,
    left: float,
    teams: float,
) -> game_pb2.MatchResult:
    preset = rng.choice(sorted(PRESETS))
    in_teams = preset == "colour" and rng.random() < teams
    seats = 4 if in_teams else rng.randint(*SEATS[preset])
    scoring = PRESETS[preset].scoring
    humans = iter(rng.sample(pool, seats))
    bot_levels = [rng.choice(BOT_LEVELS) if rng.random() < bots else "" for _ in range(seats)]
    team = [s % 2 if in_teams else s for s in range(seats)]
    side_total = {t: rng.randint(0, 150) for t in set(team)}
    totals = [side_total[team[s]] for s in range(seats)]
    pick = min if scoring in ("points", "ostfriesland") else max
    best = pick(totals)
    winning_team = team[totals.index(best)]
    winners = [s for s in range(seats) if team[s] == winning_team]
    rounds = rng.randint(1, 9)
    rounds_won = [0] * seats
    rounds_won[winners[0]] = 1
    for _ in range(rounds - 1):
        rounds_won[rng.randrange(seats)] += 1
    players = ["" if level else next(humans) for level in bot_levels]
    return game_pb2.MatchResult(
        match_id=match_id,
        ruleset=f"{preset} teams=true" if in_teams else preset,
        preset=preset,
        ranked=rng.random() < ranked,
        teams=in_teams,
        seats=[
            game_pb2.MatchResult.Seat(
                seat=s,
                player_id=players[s],
                bot_level=bot_level_to_pb(bot_levels[s]),
                left=bool(players[s]) and rng.random() < left,
                team=team[s],
                total=totals[s],
                rounds_won=rounds_won[s],
                specials=rng.randint(0, 6),
                winner=s in winners,
            )
            for s in range(seats)
        ],
        winners=winners,
        reason=REASONS[scoring],
        rounds=rounds,
        finished_at=finished_at + rng.random(),
    )
