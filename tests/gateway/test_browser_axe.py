"""An axe-core audit (the axe-playwright-python package, which ships axe-core) of every screen
of the web client in Chromium: the sign-in form, the front page, the table (with the wish, the
drawn card and a turn to sit out asked on it, and a phone's), the summary, profile and
tournaments, in English and German. No serious or critical violation may be found."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from axe_playwright_python.async_playwright import Axe
from playwright.async_api import Browser, BrowserContext, Page

from tests.gateway.browser import (
    FakeMatch,
    Player,
    action,
    fake_view,
    match_of,
    new_context,
    play,
    robot,
    start_solo,
)
from tests.gateway.support import Gateway

BLOCKING = ("serious", "critical")


@pytest.fixture(params=["en-GB", "de-DE"])
async def context(
    request: pytest.FixtureRequest, browser: Browser
) -> AsyncIterator[BrowserContext]:
    opened = await new_context(
        browser,
        locale=request.param,
        viewport={"width": 1280, "height": 800},
        reduced_motion="reduce",
    )
    yield opened
    await opened.close()


def findings(response: dict[str, Any]) -> list[str]:
    """Each serious or critical violation with the elements it was found on."""
    return [
        f"{v['id']} ({v['impact']}): {v['help']} - "
        + "; ".join(f"{', '.join(node['target'])} {node['html'][:160]}" for node in v["nodes"][:5])
        for v in response["violations"]
        if v["impact"] in BLOCKING
    ]


async def audit(page: Page, screen: str) -> None:
    await page.wait_for_timeout(300)  # fade-ins over
    results = await Axe().run(page)
    found = findings(results.response)
    assert not found, f"{screen}:\n" + "\n".join(found)


async def signed_in(context: BrowserContext, gateway: Gateway, name: str) -> Page:
    player = await Player.open(context, gateway.url)
    await audit(player.page, "the sign-in form")
    await player.sign_in(name)
    await player.page.locator("#play-now .tile").first.wait_for()
    return player.page


async def test_the_front_page_profile_and_tournaments(
    context: BrowserContext, gateway: Gateway
) -> None:
    page = await signed_in(context, gateway, "Axel")
    await audit(page, "the front page")
    await page.locator("#more summary").click()
    await audit(page, "the front page with more options")
    for path in ("/profile", "/leaderboard", "/tournaments", "/nowhere"):
        await page.goto(gateway.url + path)
        await page.locator("main h1").first.wait_for()
        await audit(page, path)


async def test_the_table_and_the_summary(context: BrowserContext, gateway: Gateway) -> None:
    page = await signed_in(context, gateway, "Axel")
    # a match of points (its summary shows the totals), to a low target so it ends in a round
    # or two rather than the default 100's many
    match_id = await start_solo(page, "classic", {"target": "20"}, computers=3)
    await page.locator(".table .hand").wait_for()
    await audit(page, "the table")
    await robot(page, match_of(page))
    await page.locator("#summary #fairness").wait_for(timeout=30_000)
    await audit(page, f"the summary of {match_id}")
    await page.goto(gateway.url + "/profile")
    await page.locator("main table").first.wait_for()
    await audit(page, "the profile with a match")


async def test_the_table_asking_a_wish_the_drawn_card_and_a_skip(
    context: BrowserContext, gateway: Gateway
) -> None:
    wish = fake_view(hand=["JD", "9S", "KS"], top="9H")
    wish["legal"] = [*(play("JD", suit) for suit in "SHDC"), action("draw")]
    page = await FakeMatch(wish).open(context, gateway.url)
    await page.locator("#tips").click()
    await page.locator(".hand .card-button.legal").first.click()
    await page.locator(".prompt .wish").first.wait_for()
    await audit(page, "the table asking a wish, with tips")
    await page.close()
    drawn = fake_view(hand=["KS", "9H"], top="9C", phase="drawn", drawn="9H")
    drawn["legal"] = [play("9H"), action("pass")]
    page = await FakeMatch(drawn).open(context, gateway.url)
    await audit(page, "the table asking about the drawn card")
    await page.close()
    skip = fake_view(hand=["KS", "9H"], top="8C", pending="skip", ruleset="online")
    skip["legal"] = [action("accept")]
    page = await FakeMatch(skip).open(context, gateway.url)
    await audit(page, "the table asking to sit out")
    await page.close()
    colour = fake_view(
        hand=["R7", "Gskip", "W+4", "B+2"], top="R3", active_suit="R", ruleset="colour", seats=8
    )
    colour["legal"] = [play("R7"), *(play("W+4", c) for c in "RGBY"), action("draw")]
    page = await FakeMatch(colour).open(context, gateway.url)
    await audit(page, "an 8-seat colour table")


async def test_a_phone_table(browser: Browser, gateway: Gateway) -> None:
    context = await new_context(
        browser,
        locale="en-GB",
        viewport={"width": 390, "height": 844},
        is_mobile=True,
        has_touch=True,
    )
    try:
        view = fake_view(hand=["7H", "KS", "9H", "QD", "AC", "8S", "10H"], seats=8)
        view["legal"] = [play("7H"), play("9H"), action("draw")]
        page = await FakeMatch(view).open(context, gateway.url)
        await audit(page, "a phone table")
        await page.get_by_role("button", name="Menu").click()
        await audit(page, "a phone's open menu")
    finally:
        await context.close()
