"""The leaderboard page's two ladders in a real browser (Debian's Chromium, headless) against the
whole platform: bots and people never share a ladder (rating.proto, Ladder), so the page shows
either, chosen by a labelled control or by the link's ``ladder``, in English and German."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import pytest
from playwright.async_api import Browser, BrowserContext

from tests.gateway.browser import new_context
from tests.gateway.support import Gateway
from tests.gateway.test_browser import signed_in

TEXTS = {
    "en-GB": ("Ladder", "Bots and people never share a ladder", "You are not on this ladder yet"),
    "de-DE": ("Rangliste", "Bots und Menschen stehen nie", "Du stehst noch nicht"),
}


@pytest.fixture(params=list(TEXTS))
def locale(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
async def context(browser: Browser, locale: str) -> AsyncIterator[BrowserContext]:
    opened = await new_context(browser, locale=locale, viewport={"width": 1100, "height": 900})
    yield opened
    await opened.close()


async def test_the_bots_ladder_is_a_page_of_its_own(
    context: BrowserContext, gateway: Gateway, locale: str
) -> None:
    label, hint, unranked = TEXTS[locale]
    player = await signed_in(context, gateway, "Lina")
    page = player.page
    await page.goto(f"{gateway.url}/leaderboard?ladder=bots")
    ladder = page.get_by_role("combobox", name=re.compile(f"^{label}"))
    assert await ladder.input_value() == "bots"
    await page.locator("#ladder").get_by_text(hint).wait_for()
    assert await page.locator("#ladder").get_by_text("Lina").count() == 0

    await ladder.select_option("people")
    await page.locator("#ladder").get_by_text(unranked).wait_for()
    assert await page.locator("#ladder").get_by_text(hint).count() == 0
