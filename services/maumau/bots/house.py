"""The platform's own levels playing as bots: one seat of one match, played to its end through
the engine's Follow, GetView and Act with the seat's token, as any third-party bot plays, each
decision the level's (:func:`maumau.policies.decide`).

Playing through the SDK (``maumau_sdk.Seat.play``) keeps the house bots honest: they see what a
bot author's program sees, resume broken streams the same way and are refused the same way, so
their ratings on the bots' ladder are those of programs like the others.
"""

from __future__ import annotations

import asyncio
import random

from maumau.policies import decide
from maumau.rules import Action
from maumau_sdk import Player, View


async def play_seat(
    player: Player, match_id: str, seat: int, seat_token: str, level: str, rng: random.Random
) -> View:
    """Play ``seat`` of ``match_id`` as ``level`` until the match is over; the final view. A
    decision runs in a worker thread: ``strong`` thinks for a fifth of a second, which would
    stall every other seat the runner plays."""
    table = await player.seat_at(match_id, seat, seat_token)

    async def choose(view: View) -> Action:
        return await asyncio.to_thread(decide, view.rules, level, rng)

    return await table.play(choose)
