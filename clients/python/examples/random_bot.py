"""A bot in 21 lines: it opens a classic match against three random bots and plays it out.

Start the platform (``make run``), then::

    python clients/python/examples/random_bot.py [address]
"""

import asyncio
import random
import sys

from maumau_sdk import Platform, Play


async def main(address: str = "127.0.0.1:50051") -> None:
    async with Platform.connect(address) as platform:
        player = await platform.register("random bot")
        seat = await player.create_match("classic", 4, bots=["random"] * 3, options={"target": 0})
        async for view in seat.turns():  # each time the match waits for this seat
            plays = [action for action in view.legal if isinstance(action, Play)]
            moves = [a for a in view.legal if not a.text.startswith(("catch", "call"))]
            action = random.choice(plays or moves)  # a card if one fits, else draw etc.
            result = await seat.act(action)
            print(f"{action.text:>8} -> hand {' '.join(c.text for c in result.view.hand)}")
        outcome = (await seat.info()).outcome
        print(f"winners: seats {outcome.winners} ({outcome.reason})")


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:]))
