"""A bot account from the SDK, against the whole platform over real gRPC (issue 27): an account
turns into a bot and gets a bot:play token, which reaches the arena alone; its event stream
resumes after a broken connection without missing or repeating an event; bots challenge each
other, decline with a reason, and play the seats a challenge gives them to the end."""

from __future__ import annotations

import asyncio
import secrets

import grpc
import pytest

from maumau.v1 import arena_pb2
from maumau_sdk import Bot, MauMauError, Platform, View

PASSWORD = "tulip-harbour-lantern"
ONE_ROUND = {"target": 0}
WAIT_SECONDS = 30


async def make_bot(platform: Platform, name: str) -> Bot:
    """A new bot account (registered, claimed, turned into a bot) and its bot:play token."""
    player = await platform.register(name)
    await player.account.claim(f"{name.lower()}_{secrets.token_hex(4)}", password=PASSWORD)
    await player.account.become_bot()
    _, token = await player.account.create_access_token("arena", scope="bot:play")
    bot = platform.bot(token)
    assert bot.player_id == player.player_id
    return bot


class Inbox:
    """A bot's event stream read into a queue by a task of its own, open (the bot online)
    once :meth:`open` returns."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.events = bot.events()
        self.queue: asyncio.Queue[arena_pb2.AccountEvent] = asyncio.Queue()
        self.reading = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for event in self.events:
            self.queue.put_nowait(event)

    @classmethod
    async def open(cls, bot: Bot) -> Inbox:
        inbox = cls(bot)
        async with asyncio.timeout(WAIT_SECONDS):  # against a hang, not a speed assertion
            while bot.player_id not in {b.player_id for b in await bot.online_bots()}:
                await asyncio.sleep(0.05)
        return inbox

    async def next(self, kind: str) -> arena_pb2.AccountEvent:
        """The next event, which must be of ``kind``."""
        async with asyncio.timeout(WAIT_SECONDS):
            event = await self.queue.get()
        assert event.WhichOneof("kind") == kind, event
        return event

    async def close(self) -> None:
        self.reading.cancel()
        await asyncio.gather(self.reading, return_exceptions=True)
        assert self.queue.empty(), self.queue.get_nowait()


async def test_a_bot_token_reaches_the_arena_alone(everywhere):
    bot = await make_bot(everywhere, "Robo")
    with pytest.raises(MauMauError) as refused:  # no match of its own making
        await bot.player.create_match("classic", 2, bots=["random"])
    assert refused.value.status == grpc.StatusCode.PERMISSION_DENIED
    assert await bot.blocked() == []
    await bot.block("someone")
    assert await bot.blocked() == ["someone"]
    await bot.unblock("someone")
    assert await bot.blocked() == []


async def test_a_played_account_stays_a_person(everywhere):
    player = await everywhere.register("Played")
    await player.account.claim(f"played_{secrets.token_hex(4)}", password=PASSWORD)
    seat = await player.create_match("classic", 2, bots=["random"], options=ONE_ROUND)
    await seat.play(lambda view: view.legal[0])
    with pytest.raises(MauMauError) as refused:
        await player.account.become_bot()
    assert refused.value.status == grpc.StatusCode.FAILED_PRECONDITION
    assert refused.value.code == "bot_has_played"


async def test_a_challenge_accepted_is_played_by_both_bots_to_the_end(everywhere):
    ada, bob = await make_bot(everywhere, "Ada"), await make_bot(everywhere, "Bob")
    ada_events, bob_events = await Inbox.open(ada), await Inbox.open(bob)
    made = await ada.challenge([bob.player_id], "classic", options=ONE_ROUND)
    received = (await bob_events.next("challenge_received")).challenge_received
    assert received.challenge.challenge_id == made.challenge_id
    assert received.challenge.creator_id == ada.player_id and not received.challenge.rated

    accepted = await bob.accept(made.challenge_id)
    assert accepted.match_id
    starts = [
        (await events.next("match_started")).match_started for events in (ada_events, bob_events)
    ]
    assert [s.match_id for s in starts] == [accepted.match_id] * 2
    assert sorted(s.seat for s in starts) == [0, 1]

    async def play(bot: Bot, started: arena_pb2.SeatMatchStarted) -> View:
        seat = await bot.seat(started)
        assert seat.seat == started.seat and seat.match.match_id == accepted.match_id
        return await seat.play(lambda view: view.legal[0])

    finals = await asyncio.gather(play(ada, starts[0]), play(bob, starts[1]))
    assert all(view.over for view in finals)
    for events in (ada_events, bob_events):
        finished = (await events.next("match_finished")).match_finished
        assert finished.match_id == accepted.match_id
    await ada_events.close()
    await bob_events.close()


async def test_a_challenge_declined_tells_its_creator_the_reason(everywhere):
    ada, bob = await make_bot(everywhere, "Ada"), await make_bot(everywhere, "Bob")
    ada_events, bob_events = await Inbox.open(ada), await Inbox.open(bob)
    made = await ada.challenge([bob.player_id], "classic", options=ONE_ROUND, rated=True)
    await bob_events.next("challenge_received")
    with pytest.raises(ValueError, match="reason"):  # refused before anything is sent
        await bob.decline(made.challenge_id, "boring")
    await bob.decline(made.challenge_id, "too_many_seats")
    declined = (await ada_events.next("challenge_declined")).challenge_declined
    assert declined.challenge_id == made.challenge_id and declined.player_id == bob.player_id
    assert declined.reason == arena_pb2.DECLINE_REASON_TOO_MANY_SEATS
    with pytest.raises(MauMauError) as gone:  # declined is over: no acceptance after it
        await bob.accept(made.challenge_id)
    assert gone.value.status == grpc.StatusCode.NOT_FOUND
    await ada_events.close()
    await bob_events.close()


async def test_the_event_stream_resumes_after_a_broken_connection(everywhere):
    ada, bob = await make_bot(everywhere, "Ada"), await make_bot(everywhere, "Bob")
    events = await Inbox.open(bob)
    first = await ada.challenge([bob.player_id], "classic", options=ONE_ROUND)
    got = (await events.next("challenge_received")).challenge_received
    assert got.challenge.challenge_id == first.challenge_id
    await everywhere.reconnect()  # the stream breaks; the next event is made meanwhile
    second = await ada.challenge([bob.player_id], "classic", options=ONE_ROUND)
    got = (await events.next("challenge_received")).challenge_received
    assert got.challenge.challenge_id == second.challenge_id  # the first not again
    assert events.events.resumed >= 1 and events.events.last_id
    await events.close()


async def test_bots_in_the_arena_are_seated_and_play_their_seats_to_the_end(everywhere):
    ada, bob = await make_bot(everywhere, "Ada"), await make_bot(everywhere, "Bob")
    assert "classic target=0" in {pool.ruleset_text for pool in await ada.arena_pools()}
    with pytest.raises(ValueError, match="rule system"):  # no ruleset: refused before a call
        await ada.join_arena("whist")
    with pytest.raises(MauMauError) as refused:  # a ruleset the arena does not play
        await ada.join_arena("classic target=3")
    assert refused.value.status == grpc.StatusCode.INVALID_ARGUMENT
    assert refused.value.code == "arena_ruleset"

    inboxes = [await Inbox.open(ada), await Inbox.open(bob)]
    staying = [asyncio.create_task(bot.keep_in_arena("classic target=0")) for bot in (ada, bob)]
    starts = [(await inbox.next("match_started")).match_started for inbox in inboxes]
    assert all(s.arena and s.rated and s.ruleset_text == "classic target=0" for s in starts)
    for task in staying:
        task.cancel()
    await asyncio.gather(*staying, return_exceptions=True)
    left = [await bot.leave_arena("classic target=0") for bot in (ada, bob)]
    assert [[pool.ruleset_text for pool in pools] for pools in left] == [["classic target=0"]] * 2

    async def play(bot: Bot, started: arena_pb2.SeatMatchStarted) -> View:
        return await (await bot.seat(started)).play(lambda view: view.legal[0])

    finals = await asyncio.gather(*(play(b, s) for b, s in zip((ada, bob), starts, strict=True)))
    assert all(view.over for view in finals)
    for inbox, started in zip(inboxes, starts, strict=True):
        finished = (await inbox.next("match_finished")).match_finished
        assert finished.match_id == started.match_id
        await inbox.close()
