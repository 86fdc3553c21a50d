"""One platform and gateway for the gateway tests (the services keep no state between tests
but Redis, and every test registers players of its own)."""

from collections.abc import AsyncIterator

import pytest
from playwright.async_api import Browser, BrowserContext, async_playwright

from maumau.common.redis_server import EmbeddedRedis
from tests.gateway.browser import CHROMIUM, FLAGS, new_context
from tests.gateway.support import Gateway, Platform, platform, start_gateway
from tests.support.programs import require


@pytest.fixture(scope="package")
async def services(redis_server: EmbeddedRedis) -> AsyncIterator[Platform]:
    async with platform(redis_server.url) as started:
        yield started


@pytest.fixture(scope="package")
async def gateway(services: Platform) -> AsyncIterator[Gateway]:
    started = await start_gateway(services.settings())
    yield started
    await started.stop()


@pytest.fixture(scope="session")
async def browser() -> AsyncIterator[Browser]:
    """Debian's Chromium, headless, driven by Playwright; each launch gets a fresh
    user-data-dir of its own (Playwright makes one in a temp folder and removes it)."""
    require("chromedriver", "chromium-driver")  # the package pulls in chromium itself
    chromium = require("chromium", "chromium")
    assert chromium == CHROMIUM, f"Debian's chromium is expected at {CHROMIUM}"
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield launched
        await launched.close()


@pytest.fixture
async def context(browser: Browser) -> AsyncIterator[BrowserContext]:
    """A desktop page's context in English, motion reduced (a module may define its own)."""
    opened = await new_context(
        browser, locale="en-GB", viewport={"width": 1280, "height": 800}, reduced_motion="reduce"
    )
    yield opened
    await opened.close()
