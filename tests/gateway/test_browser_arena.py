"""Play a bot in a real browser (Debian's Chromium, headless) against the whole platform, with
bot accounts online in the test process (issue 27: "a person challenging a bot and playing it in
the browser"): a person with an account finds the bot on /bots, challenges it, the bot accepts,
the person plays the match to its end on the table (a random one of the moves offered each
turn) and the summary shows; a bot that declines
with the reason "ruleset" is said to in words, in German; the page by keyboard alone (challenge
and cancel), an axe audit of the bots online and of a challenge waiting, and a phone's width
without sideways scrolling; without an account the page says to make one."""

from __future__ import annotations

import asyncio
import random
import re
import secrets

from axe_playwright_python.async_playwright import Axe
from playwright.async_api import Browser, BrowserContext, Page, expect
from playwright.async_api import Error as PlaywrightError

from tests.gateway.arena_bots import PASSWORD, WAIT_SECONDS, online_bot
from tests.gateway.browser import ARTEFACTS, Player, match_of, new_context
from tests.gateway.support import Gateway, Platform
from tests.gateway.test_browser_axe import findings

CLAIM = """async ([username, password]) => {
  const response = await fetch("/api/account/claim", { method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ username, password }) });
  return response.status;
}"""


async def person(context: BrowserContext, gateway: Gateway, name: str = "Ada") -> Page:
    """A tab whose player claimed an account, on /bots."""
    player = await Player.open(context, gateway.url)
    await player.sign_in(name)
    await player.page.wait_for_selector("#play-now .tile")
    status = await player.page.evaluate(CLAIM, ["ada" + secrets.token_hex(4), PASSWORD])
    assert status == 200
    response = await player.page.goto(f"{gateway.url}/bots")
    assert response is not None and response.status == 200  # a page of the client, not a lost one
    return player.page


async def bot_name(page: Page, player_id: str) -> str:
    listed = await page.evaluate("fetch('/api/arena/bots').then((r) => r.json())")
    names = [b["name"] for b in listed["bots"] if b["player_id"] == player_id]
    assert len(names) == 1, listed
    return str(names[0])


class RandomPlayer(Player):
    """A person who plays a random one of the moves the table offers each turn (a wish or a
    confirmation the page asks for after a card comes first, as for :class:`Player`)."""

    rng = random.Random()

    async def step(self, tap: bool = False) -> bool:
        page = self.page
        try:
            if await self.over() or await page.locator(".table.busy").count():
                return False
            before = await self.version()
            for follow_up in (".prompt .wish", ".prompt button.primary"):
                if await page.locator(follow_up).count():
                    await page.locator(follow_up).first.click(timeout=1500)
                    await self.wait_change(before)
                    return True
            offered = page.locator(".card-button.legal, .table .actions .action")
            count = await offered.count()
            if not count:
                return False
            await offered.nth(self.rng.randrange(count)).click(timeout=1500)
            if not await page.locator(".prompt").count():
                await self.wait_change(before)
            return True
        except PlaywrightError:
            return False  # the table was redrawn under the pointer: look again


async def audit(page: Page, screen: str) -> None:
    found = findings((await Axe().run(page)).response)
    assert not found, f"{screen}:\n" + "\n".join(found)


async def test_a_person_challenges_a_bot_and_plays_it_to_the_end(
    services: Platform, gateway: Gateway, context: BrowserContext
) -> None:
    async with online_bot(services, "Robo" + secrets.token_hex(3)) as robo:
        page = await person(context, gateway)
        await expect(page.get_by_role("heading", name="Play a bot")).to_be_visible()
        name = await bot_name(page, robo.player_id)
        entry = page.locator(".bot-entry", has_text=name)
        await expect(entry).to_contain_text("BOT")
        await expect(entry).to_contain_text("Not rated yet")
        ARTEFACTS.mkdir(exist_ok=True)
        await page.screenshot(path=str(ARTEFACTS / "bots.png"))
        await page.get_by_label("Rule system").select_option("classic")
        await page.get_by_role("radio", name="Casual (no rating)").check()
        await page.get_by_role("button", name=f"Challenge {name}").click()
        await page.wait_for_url(re.compile(r"/play\?match=.+&arena=1"))
        await page.wait_for_selector(".table")
        moves = await RandomPlayer(page, gateway.url).play_to_end(timeout=120)
        assert moves > 0
        summary = page.locator("#summary")
        await expect(summary.get_by_role("heading", name="Match over")).to_be_visible()
        await expect(summary).to_contain_text(re.compile(f"You won!|Winner: {name}"))
        await expect(summary.get_by_role("button", name="Play a bot again")).to_be_visible()
        async with asyncio.timeout(WAIT_SECONDS):  # the bot hears the end of the same match
            while match_of(page) not in robo.finished:
                await asyncio.sleep(0.05)
        assert len(robo.challenges) == 1


async def test_a_decline_is_said_in_words_with_its_reason_in_german(
    services: Platform, gateway: Gateway, browser: Browser
) -> None:
    context = await new_context(browser, locale="de-DE", viewport={"width": 1280, "height": 800})
    try:
        async with online_bot(services, "Picky", "ruleset") as picky:
            page = await person(context, gateway)
            heading = page.get_by_role("heading", name="Gegen einen Bot spielen")
            await expect(heading).to_be_visible()
            name = await bot_name(page, picky.player_id)
            await page.get_by_role("button", name=f"{name} herausfordern").click()
            status = page.locator("#challenge-status")
            await expect(status).to_have_text(
                f"{name} hat abgelehnt: er spielt dieses Regelwerk nicht."
            )
            await expect(page).to_have_url(f"{gateway.url}/bots")
    finally:
        await context.close()


async def test_the_page_by_keyboard_audited_and_at_a_phones_width(
    services: Platform, gateway: Gateway, browser: Browser
) -> None:
    context = await new_context(
        browser, locale="en-GB", viewport={"width": 390, "height": 844}, is_mobile=True
    )
    try:
        async with online_bot(services, "Quiet" + secrets.token_hex(3), "ignore") as quiet:
            page = await person(context, gateway)
            name = await bot_name(page, quiet.player_id)
            challenge = page.get_by_role("button", name=f"Challenge {name}")
            await expect(challenge).to_be_visible()
            assert await page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
            await audit(page, "the bots online")
            for _ in range(40):  # Tab to the bot's Challenge button, then press it
                if await challenge.evaluate("(b) => b === document.activeElement"):
                    break
                await page.keyboard.press("Tab")
            await page.keyboard.press("Enter")
            status = page.locator("#challenge-status")
            await expect(status).to_contain_text(f"Waiting for {name} to answer")
            await audit(page, "a challenge waiting")
            ARTEFACTS.mkdir(exist_ok=True)
            await page.screenshot(path=str(ARTEFACTS / "bots-phone.png"), full_page=True)
            assert await page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
            cancel = page.get_by_role("button", name="Cancel")
            for _ in range(40):
                if await cancel.evaluate("(b) => b === document.activeElement"):
                    break
                await page.keyboard.press("Shift+Tab")
            await page.keyboard.press("Enter")
            await expect(status).to_have_text("You withdrew the challenge.")
            assert len(quiet.challenges) == 1
    finally:
        await context.close()


async def test_without_an_account_the_page_says_to_make_one(
    gateway: Gateway, context: BrowserContext
) -> None:
    player = await Player.open(context, gateway.url)
    await player.sign_in("Anon")
    await player.page.wait_for_selector("#play-now .tile")
    await player.page.goto(f"{gateway.url}/bots")
    await expect(player.page.get_by_text("Bots play people who have an account")).to_be_visible()
    await expect(player.page.get_by_role("link", name="Create an account")).to_be_visible()
