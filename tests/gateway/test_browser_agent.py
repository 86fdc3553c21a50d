"""A whole match played as an AI agent operating the page's accessibility tree would play it
(the online rules' FAQ: such a tool can join as a player): every step found by role and
accessible name alone (``get_by_role``), never by a CSS selector, class or test id. The agent
signs in, starts a game from the front page, plays each turn from what the tree offers (a wish
asked, the drawn card, a turn to sit out, the enabled cards of its hand, its options), reads the
summary and starts the next match."""

from __future__ import annotations

import asyncio
import re
import time

from playwright.async_api import BrowserContext, Locator, Page
from playwright.async_api import Error as PlaywrightError

from tests.gateway.browser import ARTEFACTS
from tests.gateway.support import Gateway

QUESTIONS = (
    re.compile(r"^Which (suit|colour) do you wish with"),
    re.compile(r"starts the round: name the suit"),
    re.compile(r"^You drew the .*: play it or keep it$"),
    re.compile(r"^You are skipped"),
)
"""The groups in which the table asks something, by their accessible names."""

ANSWERS = re.compile(r"^(Play it|Sit out|Keep it|Draw a card|Take \d+ cards|Keep the drawn card)$")
"""Which of a group's buttons answer it (a wish prompt's "Back" does not)."""


async def first_present(locator: Locator) -> Locator | None:
    return locator.first if await locator.count() else None


async def one_move(page: Page) -> bool:
    """Look at the tree once and make the move it offers; True when something was clicked."""
    target: Locator | None = None
    for question in QUESTIONS:
        group = page.get_by_role("group", name=question)
        if await group.count():
            buttons = group.get_by_role("button", disabled=False)
            wishes = group.get_by_role("button", name=re.compile(r"^(?!Back$)"), disabled=False)
            target = await first_present(buttons.filter(has_text=ANSWERS)) or await first_present(
                wishes
            )
            break
    if target is None:
        hand = page.get_by_role("list", name=re.compile(r"^Your hand: "))
        target = await first_present(hand.get_by_role("button", disabled=False))
    if target is None:
        options = page.get_by_role("group", name="Your options")
        target = await first_present(options.get_by_role("button", name=ANSWERS, disabled=False))
    if target is None:
        return False
    with_timeout = 1500
    try:
        await target.click(timeout=with_timeout)
    except PlaywrightError:
        return False  # the table was drawn again under the pointer: look again
    return True


async def play_by_the_tree(page: Page, timeout: float = 120.0) -> int:
    over = page.get_by_role("heading", name="Match over", level=2)
    deadline = time.monotonic() + timeout
    moves = 0
    while not await over.count():
        if time.monotonic() > deadline:
            ARTEFACTS.mkdir(exist_ok=True)
            await page.screenshot(path=str(ARTEFACTS / "agent-stuck.png"), full_page=True)
            raise AssertionError("the agent's match did not end (see artefacts/agent-stuck.png)")
        if await one_move(page):
            moves += 1
            await asyncio.sleep(0.15)
        else:
            await asyncio.sleep(0.1)
    return moves


async def test_an_agent_plays_a_whole_match_by_roles_and_names(
    context: BrowserContext, gateway: Gateway
) -> None:
    page = await context.new_page()
    await page.goto(gateway.url)
    await page.get_by_role("textbox", name="Your name").fill("Agent")
    await page.get_by_role("button", name="Let's go").click()
    computer = page.get_by_role("region", name="Play the computer")
    await computer.get_by_role("button", name=re.compile(r"^Family rules \(classic\)")).click()
    await page.get_by_role("region", name="Table").wait_for()
    await page.get_by_role("list", name="Seats").wait_for()

    moves = await play_by_the_tree(page)
    assert moves >= 1

    summary = page.get_by_role("region", name="Match over")
    await summary.wait_for()
    result = summary.get_by_text(re.compile(r"^(You won!|Not this time\.)$"))
    assert await result.count() == 1
    scores = summary.get_by_role("table", name="Scores per round")
    assert await scores.get_by_role("row", name=re.compile(r"^Total")).count() == 1
    await summary.get_by_role("heading", name="Fair-deal check").wait_for()
    fairness = summary.get_by_role("list").last.get_by_role("listitem")
    await fairness.last.wait_for()
    assert "fair" in (await fairness.last.inner_text()).lower()

    await summary.get_by_role("button", name="Play again").click()
    await page.get_by_role("heading", name="Match over", level=2).wait_for(state="detached")
    await page.get_by_role("list", name=re.compile(r"^Your hand: ")).wait_for()
