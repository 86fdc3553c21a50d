"""Driving the web client in Debian's Chromium through Playwright (never a downloaded browser).

A test plays as a person does: it reads what the page shows (raised cards, labelled buttons)
and clicks, taps or presses keys. Nothing here knows the rules: a raised card or an offered
button is legal because the page, from the engine's view, says so.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, BrowserContext, Page
from playwright.async_api import Error as PlaywrightError

CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTEFACTS = Path(__file__).parent / "artefacts"
"""Screenshots of every run (git-ignored)."""


@dataclass
class Capture:
    """Every WebSocket frame and HTTP body one page receives."""

    frames: list[dict[str, Any]] = field(default_factory=list)
    bodies: list[tuple[str, str]] = field(default_factory=list)
    pending: set[asyncio.Task[None]] = field(default_factory=set)

    def attach(self, page: Page) -> None:
        def on_socket(ws: Any) -> None:
            ws.on("framereceived", lambda payload: self.frames.append(json.loads(payload)))

        def on_response(response: Any) -> None:
            async def read() -> None:
                with contextlib.suppress(PlaywrightError):
                    self.bodies.append((response.url, await response.text()))

            task = asyncio.ensure_future(read())
            self.pending.add(task)
            task.add_done_callback(self.pending.discard)

        page.on("websocket", on_socket)
        page.on("response", on_response)

    async def settle(self) -> None:
        while self.pending:
            await asyncio.gather(*list(self.pending))


class Player:
    """One tab of the web client."""

    def __init__(self, page: Page, base: str) -> None:
        self.page = page
        self.base = base

    @classmethod
    async def open(cls, context: BrowserContext, base: str, path: str = "/") -> Player:
        page = await context.new_page()
        player = cls(page, base)
        await page.goto(base + path)
        return player

    async def sign_in(self, name: str) -> None:
        await self.page.fill("input[name=name]", name)
        await self.page.click("form button[type=submit]")

    async def choose_options(self, **choices: str | int) -> None:
        """Set options under "More options" of the front page (kept in the browser)."""
        more = self.page.locator("#more")
        if await more.get_attribute("open") is None:
            await more.locator("summary").click()
        for name, value in choices.items():
            await more.locator(f"select[name={name}]").select_option(str(value))

    async def play_now(self, preset: str, computers: int = 3, level: str = "heuristic") -> None:
        """One click on the rule system's tile under "Play the computer", with the number of
        computers and their level set under "More options" first."""
        await self.page.wait_for_selector("#play-now .tile")
        await self.choose_options(computers=computers, level=level)
        await self.page.locator(f"#play-now .tile[data-preset={preset}]").click()
        await self.page.wait_for_selector(".table")

    async def version(self) -> str:
        value = await self.page.locator(".table").first.get_attribute("data-version", timeout=2000)
        return value or ""

    async def over(self) -> bool:
        return await self.page.locator("#summary").count() > 0

    async def hand(self) -> list[str]:
        return await self.page.locator(".hand .card-button").evaluate_all(
            "buttons => buttons.map(b => b.dataset.card)"
        )

    async def step(self, tap: bool = False) -> bool:
        """Make one move if the page offers one; True when a move was sent."""
        page = self.page
        try:
            if await self.over():
                return False
            before = await self.version()
            if await page.locator(".table.busy").count():
                return False  # a move is on its way
            for selector in (
                ".prompt .wish",
                ".prompt button.primary",
                ".card-button.legal",
                ".table .actions .action",
            ):
                target = page.locator(selector).first
                if await target.count():
                    await (target.tap(timeout=1500) if tap else target.click(timeout=1500))
                    picking = await page.locator(".prompt.wishes").count()
                    if selector != ".card-button.legal" or not picking:
                        await self.wait_change(before)
                    return True
        except PlaywrightError:
            return False  # the table was redrawn under the pointer: look again
        return False

    async def wait_change(self, before: str, timeout: float = 5.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with contextlib.suppress(PlaywrightError):
                if await self.over() or await self.version() != before:
                    return
            await asyncio.sleep(0.05)

    async def play_to_end(self, timeout: float = 40.0, tap: bool = False) -> int:
        """Play until the match summary shows; the number of moves made."""
        moves = 0
        deadline = time.monotonic() + timeout
        while not await self.over():
            if time.monotonic() > deadline:
                ARTEFACTS.mkdir(exist_ok=True)
                await self.page.screenshot(path=str(ARTEFACTS / "stuck.png"), full_page=True)
                raise AssertionError("the match did not end in time (see artefacts/stuck.png)")
            if await self.step(tap=tap):
                moves += 1
            else:
                await asyncio.sleep(0.05)
        return moves


async def new_context(browser: Browser, **options: Any) -> BrowserContext:
    """A fresh context (its own cookies and storage), as a new browser profile."""
    return await browser.new_context(**options)
