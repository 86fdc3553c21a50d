"""The SDK over the whole platform (engine, matchmaker, rating, bots as ``make run`` starts them):
queueing casual and ranked, rooms by code with their next match, the ladder, profiles and
histories."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

import grpc
import pytest

from maumau_sdk import MauMauError, Platform, Seat
from tests.clients.test_sdk import choose

T = TypeVar("T")


@pytest.fixture
def platform(everywhere: Platform) -> Platform:
    return everywhere


async def eventually(read: Callable[[], Awaitable[T]], ok: Callable[[T], bool]) -> T:
    """Read until ``ok`` (the rating service applies results a moment after a match ends)."""
    for _ in range(150):
        value = await read()
        if ok(value):
            return value
        await asyncio.sleep(0.2)
    raise AssertionError(f"never became true: {value}")


async def play_out(seat: Seat, seed: int) -> None:
    rng = random.Random(seed)
    final = await seat.play(lambda view: choose(view, rng))
    assert final.over


async def test_a_casual_ticket_is_seated_with_bots_and_the_match_shows_in_the_history(platform):
    player = await platform.register("Queuer")
    ticket = await player.enqueue("online", seat_counts=[2], bots_after_seconds=0)
    assert ticket.state.state == "searching" and ticket.state.queue.startswith("online")
    seat = await ticket.seat()
    assert ticket.state.state == "seated" and ticket.state.bot_seats == 1
    assert seat.match.seat_info[seat.seat].player_id == player.player_id
    await play_out(seat, 1)
    history = await eventually(player.history, lambda h: h.total >= 1)
    assert history.matches[0].match_id == seat.match_id and not history.matches[0].ranked
    profile = await player.profile()
    assert profile.matches_played == 1 and profile.xp >= 8
    assert profile.recent[0].match_id == seat.match_id


async def test_a_ranked_match_puts_the_player_on_the_ladder_top_and_around(platform):
    player = await platform.register("Climber")
    ticket = await player.enqueue("classic", options={"target": 0}, seat_counts=[2],
                                  ranked=True, bots_after_seconds=0)  # fmt: skip
    seat = await ticket.seat()
    assert (await seat.info()).ranked
    await play_out(seat, 2)
    around = await eventually(
        lambda: platform.around(player.player_id, "classic"),
        lambda page: any(e.player_id == player.player_id for e in page.entries),
    )
    mine = next(e for e in around.entries if e.player_id == player.player_id)
    assert mine.matches_played == 1 and mine.name == "Climber"
    top = await platform.leaderboard("classic", limit=100)
    assert top.total >= 1 and not any(e.bot for e in top.entries), "bots have their own ladder"
    assert [e.rank for e in top.entries] == sorted(e.rank for e in top.entries)
    assert any(e.player_id == player.player_id for e in top.entries)
    profile = await player.profile()
    assert [r.preset for r in profile.ratings] == ["classic"]


async def test_the_bots_of_a_ranked_table_are_rated_on_the_bots_ladder_only(platform):
    """rating.proto, Ladder: a ranked table of one person and two bots (one level, chosen by
    the matchmaker) rates the person on the people's ladder and the level, between its two
    seats, on the bots' ladder."""
    player = await platform.register("Lone")
    ticket = await player.enqueue("classic", options={"target": 0}, seat_counts=[3],
                                  ranked=True, bots_after_seconds=0)  # fmt: skip
    seat = await ticket.seat()
    await play_out(seat, 3)
    bots = await eventually(
        lambda: platform.leaderboard("classic", limit=100, bots=True),
        lambda page: any(e.player_id.startswith("bot:") for e in page.entries),
    )
    assert bots.bots and all(e.bot for e in bots.entries)
    assert player.player_id not in {e.player_id for e in bots.entries}
    people = await platform.leaderboard("classic", limit=100)
    assert not people.bots and not any(e.bot for e in people.entries)
    level = next(e.player_id for e in bots.entries if e.player_id.startswith("bot:"))
    rating = next(r for r in (await platform.profile(level, bots=True)).ratings)
    assert rating.bots and rating.preset == "classic"


async def test_a_room_by_code_plays_its_match_and_then_the_next_one(platform):
    host = await platform.register("Host")
    guest = await platform.register("Guest")
    room = await host.create_room("online", 2)
    assert len(room.code) == 6 and room.state.status == "open" and room.state.your_seat == 0
    joined = await guest.join_room(room.code.lower())  # case does not matter
    assert joined.state.your_seat == 1
    seats = await asyncio.gather(room.seat(), joined.seat())
    assert seats[0].match_id == seats[1].match_id
    first = seats[0].match_id
    await asyncio.gather(play_out(seats[0], 3), play_out(seats[1], 4))
    nexts = await asyncio.gather(room.next_match(after=first), joined.next_match(after=first))
    assert nexts[0].match_id == nexts[1].match_id != first
    state = await room.refresh()
    assert state.matches_started == 2 and sum(s.wins for s in state.seats) == 1
    for seat in nexts:
        await seat.leave()


async def test_a_searching_ticket_is_cancelled_and_refusals_are_clear(platform):
    player = await platform.register("Patient")
    ticket = await player.enqueue("ostfriesland", allow_bots=False)
    assert (await player.ticket()).ticket_id == ticket.ticket_id  # the live ticket
    assert (await ticket.cancel()).state == "cancelled"
    with pytest.raises(MauMauError) as refused:
        await ticket.seat()
    assert refused.value.status == grpc.StatusCode.ABORTED
    with pytest.raises(MauMauError) as unknown_room:
        await player.join_room("KXWMPQ")
    assert unknown_room.value.status == grpc.StatusCode.NOT_FOUND
    with pytest.raises(MauMauError) as unknown_player:
        await platform.profile("nobody-at-all")
    assert unknown_player.value.status == grpc.StatusCode.NOT_FOUND


async def test_hints_rank_every_legal_action_with_reasons_in_english_and_german(platform):
    player = await platform.register("Learner")
    seat = await player.create_match("classic", 2, bots=["random"], options={"target": 0})
    async for view in seat.turns():
        hints = await platform.hints(view, token=seat.token, lang="de")
        assert {h.action for h in hints} == set(view.legal)
        assert [h.score for h in hints] == sorted((h.score for h in hints), reverse=True)
        best = hints[0]
        assert best.reasons and best.text("de") == best.server_text
        assert best.text("en") != best.text("de")
        await seat.leave()
        break


async def test_a_kept_player_token_is_renewed_and_both_tokens_act(platform):
    """Player tokens expire; a client keeping one renews it (the terminal client does at start)."""
    player = await platform.register("Keeper")
    old = player.token
    expires_at = await player.renew_token()
    assert expires_at > time.time() + 86400
    again = platform.player(player.player_id, old)
    assert [m.match_id for m in await again.matches()] == []
    assert await player.matches() == []
