"""The terminal client's platform commands as real processes (pexpect) against the whole platform:
``maumau queue``, ``maumau room create|join``, ``maumau leaderboard``, ``maumau profile``."""

from __future__ import annotations

import asyncio
import re
import sys
import tempfile

import pexpect
import pytest

from maumau_sdk import Platform, Tournaments
from tests.clients.platform import ROOT, RunningPlatform
from tests.clients.test_sdk_platform import eventually, play_out

PROMPT = r"Your move \("
SUIT = r"Which suit\? "
FAIR = "Verified: the deal was fair."


def spawn(platform: RunningPlatform, *args: str, home: str | None = None) -> pexpect.spawn:
    env = {**platform.env, "MAUMAU_HOME": home or tempfile.mkdtemp(prefix="maumau-home-")}
    return pexpect.spawn(
        sys.executable,
        ["-m", "maumau_cli", *args, *platform.client_args(), "--lang", "en", "--plain"],
        cwd=str(ROOT),
        env=env,
        encoding="utf-8",
        timeout=60,
        dimensions=(60, 200),
    )


def play_match(child: pexpect.spawn) -> None:
    """Answer every prompt with the first option until the fairness check is done."""
    while child.expect([PROMPT, SUIT, FAIR]) != 2:
        child.sendline("1")


@pytest.fixture
def sdk(everywhere: Platform) -> Platform:
    return everywhere


async def test_queue_then_profile_and_leaderboard_in_the_terminal(whole_platform, sdk):
    home = tempfile.mkdtemp(prefix="maumau-home-")
    queue = ["queue", "--rules", "classic", "--option", "target=0", "--seats", "2", "--ranked"]
    child = spawn(whole_platform, *queue, "--bots-after", "0", "--name", "Tess", home=home)

    def queue_and_play() -> str:
        child.expect(r"Queued for classic target=0 ranked")
        child.expect(r"Seated: seat (\d) of 2 players at match ([\w-]+) \(1 computer\)")
        match_id = child.match.group(2)
        play_match(child)
        child.expect(pexpect.EOF)
        return match_id

    try:
        match_id = await asyncio.to_thread(queue_and_play)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
    watcher = await sdk.register("Watcher")
    assert (await watcher.match(match_id)).ranked

    def run(*args: str) -> str:
        process = spawn(whole_platform, *args, home=home)
        process.expect(pexpect.EOF)
        process.close()
        assert process.exitstatus == 0, process.before
        return process.before

    profile = await eventually(
        lambda: asyncio.to_thread(run, "profile"), lambda text: "1 match," in text
    )
    assert "Tess (" in profile and "Level 1" in profile and "classic target=0" in profile
    around = await asyncio.to_thread(run, "leaderboard", "--rules", "classic", "--around")
    assert re.search(r">\s+\d+\. Tess", around)
    top = await asyncio.to_thread(run, "leaderboard", "--rules", "ostfriesland")
    assert "Nobody is on this ladder yet" in top
    bots = await asyncio.to_thread(run, "leaderboard", "--rules", "classic", "--bots")
    assert "the bots' ladder" in bots and "Tess" not in bots, "people are not on it"


async def test_room_create_start_with_bots_and_play_the_next_match(whole_platform):
    child = spawn(whole_platform, "room", "create", "--rules", "online", "--seats", "3",
                  "--bots", "random")  # fmt: skip

    def create_start_and_play_two() -> str:
        child.expect(r"Room ([A-Z]{6}) is open")
        code = child.match.group(1)
        child.sendline("s")
        child.expect("Match 1 of room")
        play_match(child)
        child.expect("next match starts")
        child.expect("Match 2 of room")
        child.expect(PROMPT)
        child.sendline("q")
        child.expect("You leave the match")
        child.expect(pexpect.EOF)
        assert "refused" not in child.before, child.before
        return code

    try:
        code = await asyncio.to_thread(create_start_and_play_two)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0 and len(code) == 6


async def test_room_join_by_code_plays_with_the_host(whole_platform, sdk):
    host = await sdk.register("Hostess")
    room = await host.create_room("online", 2)
    child = spawn(whole_platform, "room", "join", room.code)

    def join_and_play() -> None:
        child.expect(r"You sit at seat 1 of room " + room.code)
        child.expect("Match 1 of room")
        play_match(child)
        child.expect("next match starts")
        child.expect(PROMPT)
        child.sendline("q")
        child.expect(pexpect.EOF)

    async def host_plays() -> None:
        seat = await room.seat()
        await play_out(seat, 5)
        await (await room.next_match(after=seat.match_id)).leave()

    try:
        await asyncio.gather(asyncio.to_thread(join_and_play), host_plays())
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
    assert (await room.refresh()).matches_started == 2


async def test_a_tournament_joined_in_the_terminal_is_played_to_the_final_ranking(
    whole_platform, sdk
):
    """``maumau tournament join ID`` enters the tournament, plays the person's seat in every
    block, shows the standings between blocks and the final ranking, then ends."""
    address = whole_platform.address("tournaments")
    async with Tournaments.connect(address) as tournaments:
        organizer = await sdk.register("Organizer")
        created = await tournaments.create(
            organizer, "Terminal cup", rounds=2, change_every=1, max_per_table=4
        )
        tournament_id = created.tournament_id
        for name in ("Ada", "Bo", "Cy"):
            await tournaments.register(organizer, tournament_id, bot_name=name, bot_level="random")
        child = spawn(
            whole_platform,
            *("tournament", "join", tournament_id, "--tournaments-address", address),
            *("--name", "Tess"),
        )
        try:
            await asyncio.to_thread(child.expect, r"you are entrant 4 of Terminal cup")
            await tournaments.start(organizer, tournament_id)

            def play_both_blocks() -> str:
                child.expect(r"Block 1: you sit at table 1")
                play_match(child)
                child.expect(r"Standings after block 1:")
                child.expect(r"Block 2: you sit at table 1")
                play_match(child)
                # A tie for a paid place is played out in a deciding round before the ranking.
                while child.expect([PROMPT, SUIT, r"Final ranking:"]) != 2:
                    child.sendline("1")
                child.expect(r"(\d+)\. Tess .*<- you")
                place = child.match.group(1)
                child.expect(pexpect.EOF)
                return place

            place = await asyncio.to_thread(play_both_blocks)
        finally:
            child.close(force=True)
        assert child.exitstatus == 0
        standings = await tournaments.standings(tournament_id)
    assert standings.final and len(standings.rows) == 4
    tess = next(row for row in standings.rows if row.name == "Tess")
    assert (tess.place, tess.rounds_played) == (int(place), 2)


async def test_a_party_is_formed_by_invitation_and_queued_by_its_leader(whole_platform, sdk):
    """`maumau party invite`, the friend accepts with their own token (the SDK), `maumau party`
    shows both, `maumau queue --party` queues them together, `maumau party leave` leaves."""
    home = tempfile.mkdtemp(prefix="maumau-home-")
    friend = await sdk.register("Friend")

    def run(*args: str) -> str:
        process = spawn(whole_platform, *args, "--name", "Lea", home=home)
        process.expect(pexpect.EOF)
        process.close()
        assert process.exitstatus == 0, process.before
        return process.before

    invited = await asyncio.to_thread(run, "party", "invite", friend.player_id)
    assert "Party " in invited and f"invited: Friend ({friend.player_id})" in invited
    party = await friend.accept_party()
    assert party.member_ids[1] == friend.player_id
    shown = await asyncio.to_thread(run, "party")
    assert f"Friend ({friend.player_id})" in shown and "maumau queue --party" in shown
    leader_id = party.leader_id

    child = spawn(whole_platform, "queue", "--rules", "online", "--seats", "4", "--no-bots",
                  "--party", "--name", "Lea", home=home)  # fmt: skip

    def queue_then_quit() -> None:
        child.expect(r"Queued for online casual")

    try:
        await asyncio.to_thread(queue_then_quit)
        ticket = await friend.ticket()
        assert ticket.state.state == "searching"
        assert ticket.state.players == (leader_id, friend.player_id)
        child.sendline("q")
        await asyncio.to_thread(child.expect, "You left the queue")
    finally:
        child.close(force=True)
    left = await asyncio.to_thread(run, "party", "leave")
    assert "You left the party." in left
    assert (await friend.party()).leader_id == friend.player_id
