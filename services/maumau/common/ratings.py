"""The ratings the ranked queue compares: a contract between the rating service (which writes
them) and the matchmaker (which reads them).

After every applied ranked match of the current season the rating service writes each rated
player's (and bot level's, ``bot:<level>``, or bot account's: theirs is of the bots' ladder)
ordinal (mu - 3 sigma, 0 for a new player) as text
under ``rating:<preset>:{<player_id>}``, e.g. ``rating:classic:{a1b2}`` = ``"17.5"``; the player
id is the key's hash tag, as in the player directory's ``player:{id}``. A key expires
RATING_KEPT_SECONDS after its last write (a missing one reads as a new player's rating).
"""

from __future__ import annotations

RATING_KEPT_SECONDS = 400 * 86400
"""A season and a bit: a player who has not played ranked that long starts over as new."""


def rating_key(preset: str, player_id: str) -> str:
    return f"rating:{preset}:{{{player_id}}}"
