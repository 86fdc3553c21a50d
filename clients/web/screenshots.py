"""Pictures of the web client, written to clients/web/screenshots/ and shown in docs/playing.md.

Starts the whole platform on free ports of this machine as the gateway tests do (a real
redis-server in a temporary folder, every service, the gateway), opens Debian's Chromium through
Playwright and photographs, at a desktop's 1280x800 and a phone's 390x844 (device scale 1, so
the PNGs stay small; Debian's pngquant, when installed, makes them smaller still): the front
page, a 4-seat table (against three computers, started by a click on the front page's tile) and
an 8-seat table (a room its host starts, computers in the free seats) in each deck (52 French
cards, the 32-card Skat deck, the colour deck), the summary after a match (the whole page), and
the account's pages: sign-up, sign-in and the account page (the whole page) of a player who
signed up with a password and made an access token, and "Play a bot" with a challenge waiting
(a bot account online in this process, answering nothing).
Each table is taken when it is the page's turn, with its playable cards raised. The deals are
new each run. ``SHOTS`` lists the pictures; tests/clients/test_screenshots.py holds the
committed folder and docs/playing.md to it.

    make screenshots, or .venv/bin/python clients/web/screenshots.py [--only NAME ...] [--out DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).absolute().parents[2]
OUT = Path(__file__).absolute().parent / "screenshots"

SIZES = {"desktop": (1280, 800), "phone": (390, 844)}
DECKS = {
    "french52": ("classic", {"deck": "french52", "target": "0"}),
    "skat32": ("classic", {"deck": "skat32", "target": "0"}),
    "colour": ("colour", {"target": "0", "teams": "false"}),
}


@dataclass(frozen=True)
class Shot:
    name: str
    what: str  # "front", "table", "summary", "bots", or an account page: "sign-up", "sign-in",
    # "account"
    deck: str = ""
    seats: int = 0
    size: str = "desktop"

    @property
    def file(self) -> str:
        return f"{self.name}.png"


def all_shots() -> list[Shot]:
    """Every picture the script takes, in the order it takes them."""
    listed: list[Shot] = []
    for size in SIZES:
        listed.append(Shot(f"front-{size}", "front", size=size))
        for deck in DECKS:
            for seats in (4, 8):
                listed.append(Shot(f"table-{deck}-{seats}-{size}", "table", deck, seats, size))
        listed.append(Shot(f"summary-{size}", "summary", "french52", 4, size))
        for page in ACCOUNT_PAGES:
            listed.append(Shot(f"{page}-{size}", page, size=size))
        listed.append(Shot(f"bots-{size}", "bots", size=size))
    return listed


ACCOUNT_PAGES = ("sign-up", "sign-in", "account")
TALL = ("summary", "account")
"""The shots of the whole page, taller than the window."""


SHOTS = all_shots()

POST = """async ([path, body]) => {
  const response = await fetch(path, { method: "POST",
    headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  return await response.json();
}"""

MY_TURN = """() => {
  const table = document.querySelector(".table");
  return Boolean(table && !table.classList.contains("busy")
    && table.dataset.turn === table.dataset.seat
    && document.querySelector(".card-button.legal, .table .actions .action, .prompt button"));
}"""


def smaller(path: Path) -> None:
    """Debian's pngquant, when installed, cuts a picture to a quarter of its bytes (a palette of
    256 colours, which these flat pages need no more than); without it the PNG stays as taken."""
    pngquant = shutil.which("pngquant")
    if pngquant:
        subprocess.run(
            [
                pngquant,
                "--quality",
                "70-95",
                "--speed",
                "3",
                "--force",
                "--output",
                str(path),
                str(path),
            ],
            check=False,
        )


async def table_at_my_turn(page: Any) -> None:
    """Wait until it is the page's turn on a table that has settled."""
    await page.wait_for_function(MY_TURN, timeout=30_000)
    await page.wait_for_timeout(600)  # fade-ins over, the tip asked for


ACCOUNT_NAMES = {"desktop": "Ada", "phone": "Lina"}
"""A username per size: both are taken on one platform."""


async def account_page(page: Any, base: str, what: str, username: str) -> None:
    """An account page as a person sees it: the sign-up form, the sign-in page with its ways,
    or the account of a player who signed up with a password and made an access token."""
    if what == "sign-in":
        await page.goto(base + "/sign-in")
        await page.locator("#sign-in-passkey").wait_for()
    else:
        await page.goto(base + "/sign-up")
        await page.locator("#sign-up-username").wait_for()
    if what == "account":
        await page.locator("#sign-up-username").fill(username)
        await page.locator("#sign-up-password-input").fill("a long walk by the sea")
        await page.locator("#sign-up-password-input").press("Enter")
        await page.locator("#acct-tokens").wait_for()
        await page.get_by_role("textbox", name="Token name").fill("my bot script")
        await page.get_by_role("button", name="Create token").click()
        await page.locator("#token-secret").wait_for()
    await page.wait_for_timeout(400)


async def bots_page(page: Any, base: str, username: str) -> None:
    """The "Play a bot" page of a player with an account, a challenge to the bot waiting."""
    claim = {"username": username, "password": "a long walk by the sea"}
    await page.evaluate(POST, ["/api/account/claim", claim])
    await page.goto(base + "/bots")
    await page.locator(".bot-entry button").first.click()
    await page.locator("#challenge-cancel").wait_for()
    await page.wait_for_timeout(400)


async def take(browser: Any, base: str, shot: Shot, out: Path) -> None:
    from tests.gateway.browser import match_of, robot

    width, height = SIZES[shot.size]
    phone = shot.size == "phone"
    context = await browser.new_context(
        viewport={"width": width, "height": height},
        device_scale_factor=1,
        is_mobile=phone,
        has_touch=phone,
        locale="en-GB",
        reduced_motion="reduce",
    )
    try:
        page = await context.new_page()
        await page.goto(base)
        await page.fill("input[name=name]", "Ada")
        await page.click("form button[type=submit]")
        await page.locator("#play-now .tile").first.wait_for()
        if shot.what in ACCOUNT_PAGES:
            await account_page(page, base, shot.what, ACCOUNT_NAMES[shot.size])
        elif shot.what == "bots":
            await bots_page(page, base, f"{ACCOUNT_NAMES[shot.size].lower()}_bots")
        elif shot.what in ("table", "summary"):
            preset, options = DECKS[shot.deck]
            if shot.seats <= 4:
                # As a person starts it: one click on the tile (which sends the page's nonce),
                # the deck and three computers as "More options" keeps them.
                kept = {"computers": shot.seats - 1, "level": "heuristic", preset: options}
                await page.evaluate(
                    "o => localStorage.setItem('maumau.options', JSON.stringify(o))", kept
                )
                await page.reload()
                await page.locator(f"#play-now .tile[data-preset={preset}]").click()
            else:
                ruleset = {"preset": preset, "options": options}
                room = await page.evaluate(
                    POST,
                    [
                        "/api/rooms",
                        {"ruleset": ruleset, "seats": shot.seats, "bot_level": "heuristic"},
                    ],
                )
                await page.goto(base + room["web_path"])
                await page.locator("#start-room").click()
            await page.locator(".table").wait_for()
            if shot.what == "summary":
                await robot(page, match_of(page))
                await page.locator("#summary #fairness").wait_for(timeout=30_000)
                await page.locator("#summary .xp-earned").wait_for(timeout=20_000)
                await page.wait_for_timeout(400)
            else:
                await table_at_my_turn(page)
                if shot.seats > 4:  # a room's table under its head
                    await page.locator("#room").evaluate(
                        "r => r.scrollIntoView({ block: 'start' })"
                    )
        else:
            await page.wait_for_timeout(400)
        await page.screenshot(path=str(out / shot.file), full_page=shot.what in TALL)
        smaller(out / shot.file)
        print(f"wrote {out / shot.file}")
    finally:
        await context.close()


async def main(only: list[str], out: Path) -> None:
    sys.path.insert(0, str(ROOT))
    from playwright.async_api import async_playwright

    from maumau.common.redis_server import EmbeddedRedis
    from tests.gateway.arena_bots import online_bot
    from tests.gateway.browser import CHROMIUM, FLAGS
    from tests.gateway.support import platform, start_gateway

    out.mkdir(parents=True, exist_ok=True)
    chosen = [s for s in SHOTS if not only or any(part in s.name for part in only)]
    with tempfile.TemporaryDirectory() as folder, EmbeddedRedis(Path(folder)) as redis_server:
        async with platform(redis_server.url) as services, online_bot(services, "Robo", "ignore"):
            gateway = await start_gateway(services.settings())
            try:
                async with async_playwright() as playwright:
                    browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
                    try:
                        for shot in chosen:
                            await take(browser, gateway.url, shot, out)
                    finally:
                        await browser.close()
            finally:
                await gateway.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--only", nargs="*", default=[], help="take only the shots whose names contain one of these"
    )
    parser.add_argument("--out", type=Path, default=OUT, help="the folder to write to")
    arguments = parser.parse_args()
    asyncio.run(main(arguments.only, arguments.out))
