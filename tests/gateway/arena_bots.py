"""A bot account online in the test process, as a bot author's program runs it: the SDK opens its
event stream, answers every challenge (accepts, or declines with one reason) and plays each seat
it is given with a random legal move (or lets challenges lie unanswered)."""

from __future__ import annotations

import asyncio
import contextlib
import random
import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from maumau_sdk import Bot, Platform
from tests.gateway.support import Platform as Services

PASSWORD = "a long walk by the sea"
WAIT_SECONDS = 30.0
"""Against a hang, not a speed assertion."""


@dataclass
class OnlineBot:
    bot: Bot
    token: str
    username: str
    answer: str
    """"accept", "ignore", or the reason to decline with."""
    challenges: list[str] = field(default_factory=list)
    finished: list[str] = field(default_factory=list)
    tasks: set[asyncio.Task[None]] = field(default_factory=set)

    @property
    def player_id(self) -> str:
        return self.bot.player_id

    async def listen(self, seed: int) -> None:
        rng = random.Random(seed)
        async for event in self.bot.events():
            kind = event.WhichOneof("kind")
            if kind == "challenge_received":
                challenge_id = event.challenge_received.challenge.challenge_id
                self.challenges.append(challenge_id)
                if self.answer == "accept":
                    await self.bot.accept(challenge_id)
                elif self.answer != "ignore":
                    await self.bot.decline(challenge_id, self.answer)
            elif kind == "match_started":
                seat = await self.bot.seat(event.match_started)
                task = asyncio.create_task(self.play(seat, rng))
                self.tasks.add(task)
                task.add_done_callback(self.tasks.discard)
            elif kind == "match_finished":
                self.finished.append(event.match_finished.match_id)

    async def play(self, seat: object, rng: random.Random) -> None:
        await seat.play(lambda view: rng.choice(view.legal))  # type: ignore[attr-defined]


@contextlib.asynccontextmanager
async def online_bot(
    services: Services, name: str, answer: str = "accept"
) -> AsyncIterator[OnlineBot]:
    """A new bot account ``name`` (a username of its own), online until the block ends,
    answering every challenge with ``answer``."""
    async with Platform.connect(
        f"127.0.0.1:{services.engine.port}",
        matchmaking_address=f"127.0.0.1:{services.matchmaking.port}",
        rating_address=f"127.0.0.1:{services.rating.port}",
        bots_address=f"127.0.0.1:{services.bots.port}",
        accounts_address=f"127.0.0.1:{services.accounts.port}",
    ) as platform:
        player = await platform.register(name)
        username = f"{name.lower()[:10]}_{secrets.token_hex(4)}"
        await player.account.claim(username, password=PASSWORD)
        await player.account.become_bot()
        _, token = await player.account.create_access_token("arena", scope="bot:play")
        online = OnlineBot(platform.bot(token), token, username, answer)
        listening = asyncio.create_task(online.listen(secrets.randbits(32)))
        try:
            async with asyncio.timeout(WAIT_SECONDS):
                while online.player_id not in {b.player_id for b in await online.bot.online_bots()}:
                    await asyncio.sleep(0.05)
            yield online
        finally:
            for task in (listening, *online.tasks):
                task.cancel()
            await asyncio.gather(listening, *online.tasks, return_exceptions=True)
