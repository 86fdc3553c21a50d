"""Third-party bots in the arena, end to end (issue 27, "Done when"): the whole platform as
``python -m maumau.run`` starts it, the house's levels waiting in the arena (the bot accounts
Random, Heuristic and Strong); the Python example bot (clients/python/examples/arena_bot.py) and
the Node one (clients/typescript/examples/arena_bot.ts, built by the package's tsc) each make
their bot account from a process of their own, join the arena and play 20 rated arena matches
to the end; then both are on the bots' leaderboard with ratings, beside the platform's levels.
Each example also answers challenges: it declines another ruleset and a table larger than it
takes with the fitting reason, and accepts and plays one it takes.

The ruleset is ``colour target=0`` at two seats: one round is quick, and it is where the levels'
strengths are furthest apart. The house plays the bots that come, never itself, so its levels
are rated by their matches against the two example bots (about a dozen each). Measured with
``python -m maumau.bots.league``: heuristic beats random in 100% of 60 rounds (95% CI 94-100%)
and strong beats random in 99% of 100 (docs/bots.md); against the examples' simple policy, in
the runs of this test, random won none of its matches and heuristic and strong nearly all. So
random is last of the three after a handful of matches. Strong against heuristic is 61%
(51-70%) at the default budget (docs/bots.md): telling those two apart takes hundreds of
matches, more than a test of minutes plays, so the test holds random below both and leaves the
two unordered between themselves.
"""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from maumau.v1 import arena_pb2
from maumau_sdk import LadderEntry, Leaderboard, Platform
from tests.clients.platform import FAST, ROOT, RunningPlatform, start_platform
from tests.clients.test_sdk_arena import WAIT_SECONDS, Inbox, make_bot
from tests.support.programs import require

pytestmark = pytest.mark.xdist_group("clients/typescript")  # its npm folder, on one worker

RULESET = "colour target=0"
PRESET = "colour"
MATCHES = 20
PASSWORD = "tulip-harbour-lantern"
HOUSE = ("strong", "heuristic", "random")
PYTHON_BOT = ROOT / "clients" / "python" / "examples" / "arena_bot.py"
PACKAGE = ROOT / "clients" / "typescript"
NODE_BOT = PACKAGE / "dist" / "examples" / "arena_bot.js"
BUILD_SECONDS = 600
PLAY_SECONDS = 900
RATED_SECONDS = 60
ARENA = {
    "MAUMAU_MATCHMAKING_ARENA_PRESETS": RULESET,
    "MAUMAU_MATCHMAKING_ARENA_TICK_SECONDS": "0.2",
    "MAUMAU_BOTS_MAX_BUDGET_MS": "50",
}
"""The arena of one pool, so every match the house plays is where the test looks; waiting bots
seated five times a second and the house's strong level thinking a quarter of its default (still
far above random, which is all the test orders), so the 40 matches take less waiting."""
MATCH_LINE = re.compile(
    rf"^match \S+ \({re.escape(RULESET)}, arena, seat [01]\): (won|lost) \(\w+\); (\d+) played$",
    re.MULTILINE,
)


@pytest.fixture(scope="module")
def commands() -> dict[str, list[str]]:
    """Each example bot's command: the Python one as it is, the Node one from the package built
    as its own tests build it (``npm ci`` from the committed lock file when nothing is installed
    yet, else ``npm run build``)."""
    node = require("node", "nodejs")
    npm = require("npm", "npm")
    step = ["run", "build"] if (PACKAGE / "node_modules").exists() else ["ci"]
    built = subprocess.run(
        [npm, *step, "--no-audit", "--no-fund"],
        cwd=PACKAGE,
        capture_output=True,
        text=True,
        timeout=BUILD_SECONDS,
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    return {"python": [sys.executable, str(PYTHON_BOT)], "node": [node, str(NODE_BOT)]}


@pytest.fixture(scope="module")
def platform(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningPlatform]:
    running = start_platform(tmp_path_factory.mktemp("arena"), **FAST, **ARENA)
    yield running
    running.stop()


def addresses(platform: RunningPlatform) -> list[str]:
    return [
        "--address",
        platform.address("engine"),
        "--accounts-address",
        platform.address("accounts"),
        "--matchmaking-address",
        platform.address("matchmaking"),
    ]


def register(command: list[str], platform: RunningPlatform, username: str) -> tuple[str, str]:
    """Make the bot account with the bot's own --register: its player id and the token it
    prints."""
    made = subprocess.run(
        [*command, *addresses(platform), "--register", username, "--password", PASSWORD],
        env=platform.env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert made.returncode == 0, made.stdout + made.stderr
    said = re.search(rf"bot account {username} \((\S+)\)", made.stderr)
    assert said, made.stderr
    return said.group(1), made.stdout.strip().splitlines()[-1]


def start(
    command: list[str], platform: RunningPlatform, token: str, matches: int, log: Path
) -> subprocess.Popen[bytes]:
    """The bot, playing in the arena's pool of :data:`RULESET` until ``matches`` (0: ever)."""
    with open(log, "w") as out:
        return subprocess.Popen(
            [*command, *addresses(platform), "--ruleset", RULESET, "--matches", str(matches)],
            env={**platform.env, "MAUMAU_BOT_TOKEN": token},
            stdout=out,
            stderr=subprocess.STDOUT,
        )


async def bots_ladder(platform: RunningPlatform) -> Leaderboard:
    async with Platform.connect(
        platform.address("engine"), rating_address=platform.address("rating")
    ) as client:
        return await client.leaderboard(PRESET, limit=100, bots=True)


@pytest.mark.timeout(BUILD_SECONDS + PLAY_SECONDS + RATED_SECONDS + 120)
def test_a_python_and_a_node_bot_play_20_rated_arena_matches_each_and_are_rated(
    platform: RunningPlatform, commands: dict[str, list[str]], tmp_path: Path
) -> None:
    names = {language: f"{language}_arena_bot" for language in commands}
    tokens = {
        language: register(command, platform, names[language])[1]
        for language, command in commands.items()
    }
    logs = {language: tmp_path / f"{language}.log" for language in commands}
    running = {
        language: start(command, platform, tokens[language], MATCHES, logs[language])
        for language, command in commands.items()
    }
    try:
        for language, process in running.items():
            assert process.wait(PLAY_SECONDS) == 0, logs[language].read_text()[-4000:]
    finally:
        for process in running.values():
            if process.poll() is None:
                process.kill()
                process.wait()
    for log in logs.values():
        output = log.read_text()
        played = MATCH_LINE.findall(output)
        assert [int(count) for _, count in played] == list(range(1, MATCHES + 1)), output
        assert f"done: {MATCHES} matches played" in output, output

    board = asyncio.run(rated(platform, set(names.values())))
    by_name = {entry.name: entry for entry in board.entries}
    for name in names.values():  # both on the bots' ladder, with ratings of their 20 matches
        entry = by_name[name]
        assert entry.bot and entry.matches_played >= MATCHES and entry.skill.sigma < 25 / 3
    ranks = {level: house_entry(board, level).rank for level in HOUSE}
    assert ranks["random"] > max(ranks["strong"], ranks["heuristic"]), board


@pytest.mark.parametrize("language", ["python", "node"])
@pytest.mark.timeout(BUILD_SECONDS + 240)
async def test_the_example_accepts_the_challenges_it_plays_and_declines_the_others(
    language: str, platform: RunningPlatform, commands: dict[str, list[str]], tmp_path: Path
) -> None:
    name = f"{language}_challenged"
    bot_id, token = await asyncio.to_thread(register, commands[language], platform, name)
    log = tmp_path / "bot.log"
    process = start(commands[language], platform, token, 0, log)
    try:
        async with Platform.connect(
            platform.address("engine"),
            accounts_address=platform.address("accounts"),
            matchmaking_address=platform.address("matchmaking"),
        ) as client:
            challenger, other = await make_bot(client, "Ada"), await make_bot(client, "Bob")
            inbox = await Inbox.open(challenger)
            async with asyncio.timeout(WAIT_SECONDS):  # against a hang: until it listens
                while bot_id not in {b.player_id for b in await challenger.online_bots()}:
                    await asyncio.sleep(0.1)

            await challenger.challenge([bot_id], "classic", options={"target": 0})
            declined = (await inbox.next("challenge_declined")).challenge_declined
            assert declined.reason == arena_pb2.DECLINE_REASON_RULESET  # it plays colour
            await challenger.challenge([bot_id, other.player_id], PRESET, options={"target": 0})
            declined = (await inbox.next("challenge_declined")).challenge_declined
            assert declined.reason == arena_pb2.DECLINE_REASON_TOO_MANY_SEATS  # it takes 2

            made = await challenger.challenge([bot_id], PRESET, options={"target": 0}, rated=True)
            started = (await inbox.next("match_started")).match_started
            assert started.challenge_id == made.challenge_id and started.rated
            final = await (await challenger.seat(started)).play(lambda view: view.legal[0])
            assert final.over
            line = rf"^match {re.escape(started.match_id)} \({RULESET}, challenge, seat 1\): "
            async with asyncio.timeout(WAIT_SECONDS):  # the bot's line for the match
                while not re.search(line + r"(won|lost)", log.read_text(), re.MULTILINE):
                    assert process.poll() is None, log.read_text()
                    await asyncio.sleep(0.1)
            finished = (await inbox.next("match_finished")).match_finished
            assert finished.match_id == started.match_id
            await inbox.close()
    finally:
        process.terminate()
        process.wait()
    answers = log.read_text().lower()  # its lines for the two it declined
    assert re.search(r"^challenge \S+: ruleset$", answers, re.MULTILINE), answers
    assert re.search(r"^challenge \S+: too_many_seats$", answers, re.MULTILINE), answers


async def rated(platform: RunningPlatform, names: set[str]) -> Leaderboard:
    """The bots' ladder once the rating service applied every match of both bots."""
    async with asyncio.timeout(RATED_SECONDS):  # against a hang, not a speed assertion
        while True:
            board = await bots_ladder(platform)
            counts = {e.name: e.matches_played for e in board.entries if e.name in names}
            if len(counts) == len(names) and min(counts.values()) >= MATCHES:
                return board
            await asyncio.sleep(0.5)


def house_entry(board: Leaderboard, level: str) -> LadderEntry:
    """The ladder's entry of one of the platform's levels: the house's bot account, named as
    the level is shown ("Strong"; a name no person may claim)."""
    found = [e for e in board.entries if e.bot and e.name == level.capitalize()]
    assert found, f"no {level} level on the bots' ladder: {board}"
    return found[0]
