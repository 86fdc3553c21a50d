""" "Learn with tips" as the online rules describe it (issue 29): switched on, tips accompany the
player's next three confirmed decisions (a play, a draw or a pass; taking a penalty is a draw,
sitting a skip out a pass), explain which cards fit and what a suit or colour wish asks, and are
off after the third, after a reload, and whenever the switch is pressed again."""

from __future__ import annotations

import asyncio
import json
import re
import time

from playwright.async_api import Browser, BrowserContext, Locator, Page, Request, expect

from tests.gateway.browser import FakeMatch, Player, action, fake_view, new_context, play
from tests.gateway.support import Gateway

NOT_DECISIONS = ("catch:", "call:", "suit:", "challenge")
"""Moves that are no play, draw or pass: the tips do not count them."""


def tip_of(page: Page) -> Locator:
    return page.get_by_role("complementary", name="Tip")


def tips_switch(page: Page) -> Locator:
    return page.get_by_role("button", name="Learn with tips")


async def my_decision(page: Page, timeout: float = 20.0) -> bool:
    """Wait until the page offers this seat a move; False once the match is over."""
    deadline = time.monotonic() + timeout
    offered = ".card-button.legal, .table .actions .action, .prompt button"
    while time.monotonic() < deadline:
        if await page.locator("#summary").count():
            return False
        if await page.locator(".table.busy").count() == 0 and await page.locator(offered).count():
            return True
        await asyncio.sleep(0.05)
    raise AssertionError("the page offered no move in time")


async def test_tips_accompany_three_decisions_then_none_and_a_reload_has_them_off(
    context: BrowserContext, gateway: Gateway
) -> None:
    player = await Player.open(context, gateway.url)
    await player.sign_in("Tia")
    page = player.page
    await player.play_now("classic", computers=1, level="random")
    decisions: list[str] = []

    def sent(request: Request) -> None:
        if request.method == "POST" and request.url.endswith("/act"):
            text = json.loads(request.post_data or "{}")["action"]
            if not text.startswith(NOT_DECISIONS):
                decisions.append(text)

    page.on("request", sent)
    assert await my_decision(page)
    await expect(tip_of(page)).to_have_count(0)  # off until switched on
    await tips_switch(page).click()
    await expect(tips_switch(page)).to_have_attribute("aria-pressed", "true")
    while len(decisions) < 3:
        assert await my_decision(page), "the match ended before three decisions"
        left = 3 - len(decisions)
        tip = tip_of(page)
        await expect(tip).to_contain_text(f"{left} of 3 decisions left")
        await expect(tip.locator("strong")).to_have_text(re.compile(r"^Tip: \S"), timeout=10_000)
        await expect(tip).to_contain_text(re.compile(r"The raised cards fit|No card of yours"))
        await player.step()
    await expect(tips_switch(page)).to_have_attribute("aria-pressed", "false")
    page.remove_listener("request", sent)
    if await my_decision(page):
        await page.wait_for_timeout(500)  # a tip would be asked for by now
        await expect(tip_of(page)).to_have_count(0)
    await tips_switch(page).click()  # on again: three more
    await expect(tips_switch(page)).to_have_attribute("aria-pressed", "true")
    await page.reload()
    await page.locator(".table, #summary").first.wait_for()
    await expect(tips_switch(page)).to_have_attribute("aria-pressed", "false")
    if await my_decision(page):
        await page.wait_for_timeout(500)
        await expect(tip_of(page)).to_have_count(0)


async def test_taking_a_penalty_counts_as_a_decision(
    context: BrowserContext, gateway: Gateway
) -> None:
    view = fake_view(hand=["KS", "9C"], top="7H", pending="draw", pending_count=2)
    view["legal"] = [action("accept")]
    fake = FakeMatch(view, after=lambda text: {**view, "pending": "", "legal": [action("draw")]})
    page = await fake.open(context, gateway.url)
    await tips_switch(page).click()
    await expect(tip_of(page)).to_contain_text("3 of 3 decisions left")
    await page.get_by_role("button", name="Take 2 cards").click()
    await expect(tip_of(page)).to_contain_text("2 of 3 decisions left")


async def test_the_tip_explains_the_wish_on_the_pile(
    context: BrowserContext, gateway: Gateway
) -> None:
    view = fake_view(hand=["KC", "JD", "9S"], top="JH", active_suit="C", wished="C")
    view["legal"] = [play("KC"), *(play("JD", suit) for suit in "SHDC"), action("draw")]
    page = await FakeMatch(view).open(context, gateway.url)
    await tips_switch(page).click()
    await expect(tip_of(page)).to_contain_text("Clubs is wished: a card of that suit fits")


async def test_the_tip_explains_the_wish_a_card_makes(
    context: BrowserContext, gateway: Gateway
) -> None:
    view = fake_view(hand=["JD", "9S", "KS", "7H"], top="9H")
    view["legal"] = [*(play("JD", suit) for suit in "SHDC"), play("7H"), action("draw")]
    page = await FakeMatch(view).open(context, gateway.url)
    await tips_switch(page).click()
    tip = tip_of(page)
    await expect(tip).to_contain_text(
        "With the Jack of diamonds you wish the suit the next player must serve."
    )
    await expect(tip).to_contain_text("You hold most of spades")


async def test_the_wish_tips_speak_german(browser: Browser, gateway: Gateway) -> None:
    context = await new_context(browser, locale="de-DE", reduced_motion="reduce")
    try:
        view = fake_view(hand=["G7", "B7"], top="R3", active_suit="G", wished="G", ruleset="colour")
        view["legal"] = [action("draw")]
        page = await FakeMatch(view).open(context, gateway.url)
        await page.get_by_role("button", name="Mit Tipps lernen").click()
        await expect(page.get_by_role("complementary", name="Tipp")).to_contain_text(
            "Grün ist gewünscht: eine Karte dieser Farbe passt, oder eine Farbwahlkarte."
        )
    finally:
        await context.close()
