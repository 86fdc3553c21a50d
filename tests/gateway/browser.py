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


LOOK = """() => {
  const table = document.querySelector(".table");
  const offered = [".prompt .wish", ".prompt button.primary", ".card-button.legal",
    ".table .actions .action"].find((selector) => document.querySelector(selector));
  return {
    over: document.querySelector("#summary") !== null,
    version: table === null ? null : table.getAttribute("data-version") || "",
    busy: document.querySelector(".table.busy") !== null,
    target: offered === undefined ? null : offered,
  };
}"""
"""What a glance at the table sees, in one round trip: whether the match is over, the table's
version (null before it is drawn), whether a move is on its way, and the first thing offered
to press (a wish, the prompt's button, a raised card, an action), in that order."""


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
            seen = await page.evaluate(LOOK)  # one round trip for what a glance at the page sees
            if seen["over"] or seen["version"] is None or seen["busy"]:
                return False  # over, not drawn yet, or a move is on its way
            selector = seen["target"]
            if selector is None:
                return False
            target = page.locator(selector).first
            await (target.tap(timeout=1500) if tap else target.click(timeout=1500))
            picking = await page.locator(".prompt.wishes").count()
            if selector != ".card-button.legal" or not picking:
                await self.wait_change(seen["version"])
            return True
        except PlaywrightError:
            return False  # the table was redrawn under the pointer: look again

    async def wait_change(self, before: str, timeout: float = 5.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with contextlib.suppress(PlaywrightError):
                seen = await self.page.evaluate(LOOK)
                if seen["over"] or seen["version"] not in (None, before):
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


# ---------------------------------------------------------------- moves by the gateway's API

ROBOT = """async ([match, limit]) => {
  const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  let moves = 0;
  let phase = "";
  for (let i = 0; i < 3000 && moves < limit; i++) {
    const response = await fetch(`/api/matches/${match}/view`);
    if (response.status === 429) { await pause(500); continue; }
    const view = await response.json();
    phase = view.phase;
    if (phase === "over") break;
    const mine = (view.legal || [])
      .filter((a) => !a.text.startsWith("catch:") && a.text !== "call:last");
    if (!mine.length) { await pause(150); continue; }
    const request_id = crypto.randomUUID().replaceAll("-", "");
    await fetch(`/api/matches/${match}/act`, { method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ request_id, action: mine[0].text }) });
    moves += 1;
    await pause(150);
  }
  return { moves, phase };
}"""
"""Moves for the page's seat through the gateway's JSON commands (its first legal move each
time, a play with its due call before anything else), as a second tab of the same player
would make them: the page under test only watches them arrive."""


async def robot(page: Page, match_id: str, limit: int = 10_000) -> dict[str, Any]:
    """Make up to ``limit`` moves for the page's seat (all of them: until the match is over)."""
    answer: dict[str, Any] = await page.evaluate(ROBOT, [match_id, limit])
    return answer


def match_of(page: Page) -> str:
    """The match id of a page at /play?match=ID."""
    return page.url.split("match=")[1].split("&")[0]


START_SOLO = """async ([preset, options, computers, level]) => {
  const response = await fetch("/api/play", { method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ ruleset: { preset, options }, computers, level }) });
  return (await response.json()).match.match_id;
}"""


async def start_solo(
    page: Page,
    preset: str,
    options: dict[str, str] | None = None,
    computers: int = 1,
    level: str = "random",
) -> str:
    """A match against computers, started through the gateway's command and opened at
    /play?match=ID (whatever the front page looks like); its id."""
    match_id: str = await page.evaluate(START_SOLO, [preset, options or {}, computers, level])
    origin = await page.evaluate("location.origin")
    await page.goto(f"{origin}/play?match={match_id}")
    return match_id


# ---------------------------------------------------------------- a table without the platform

PLAYER = {"player_id": "p-ada", "name": "Ada"}


def fake_view(**changes: Any) -> dict[str, Any]:
    """A view of seat 0 of a 4-seat classic match as the gateway sends it, with ``changes``."""
    seats = int(changes.pop("seats", 4))
    view: dict[str, Any] = {
        "match_id": "fake",
        "seat": 0,
        "ruleset": "classic",
        "round": 1,
        "phase": "play",
        "turn": 0,
        "dealer": seats - 1,
        "hand": ["7H", "KS"],
        "hand_sizes": [2] + [5] * (seats - 1),
        "in_round": [True] * seats,
        "top": "9H",
        "active_suit": "H",
        "wished": "",
        "pending": "",
        "pending_count": 0,
        "direction": 1,
        "draw_pile_size": 20,
        "discard_size": 2,
        "drawn": "",
        "owing_call": [],
        "declared_last": [],
        "totals": [0] * seats,
        "round_wins": [0] * seats,
        "teams": False,
        "legal": [],
        "version": "7",
        "seats": [{"seat": 0, "player_id": "p-ada", "name": "Ada", "bot_level": "", "left": False}]
        + [
            {"seat": s, "player_id": "", "name": "bot", "bot_level": "heuristic", "left": False}
            for s in range(1, seats)
        ],
        "chooser": -1,
        "discard": ["4H", "9H"],
        "specials": [0] * seats,
        "maumaus": [0] * seats,
        "starter_open": False,
    }
    view.update(changes)
    view["hand_sizes"][0] = len(view["hand"])
    view.setdefault("to_act", view["chooser"] if view["phase"] == "starter_suit" else view["turn"])
    return view


def play(card: str, suit: str = "", call: str = "") -> dict[str, Any]:
    """A legal play as the view lists it."""
    text = card + (f":{suit}" if suit else "") + (f"!{call}" if call else "")
    return {"play": {"card": card, "suit": suit, "call": call}, "text": text}


def action(text: str) -> dict[str, Any]:
    return {"text": text}


@dataclass
class FakeMatch:
    """The gateway's answers for one match, served to the page by Playwright's routing: the
    view the test sets, every move the page sends kept in ``acts`` (answered with the view after
    it: ``after(text)``, by default the same table with nothing left to do). The page gets no
    live events; its WebSocket is opened against nothing."""

    view: dict[str, Any]
    acts: list[str] = field(default_factory=list)
    after: Any = None
    ruleset: dict[str, Any] = field(default_factory=lambda: {"preset": "classic", "options": {}})

    def info(self) -> dict[str, Any]:
        seats = len(self.view["hand_sizes"])
        return {
            "match_id": "fake",
            "ruleset": self.ruleset,
            "ruleset_text": self.view["ruleset"],
            "seats": seats,
            "seat_info": self.view["seats"],
            "status": "playing",
            "ranked": False,
            "turn_seconds": 120,
            "seed_commitment": "0" * 64,
            "server_seed": "",
            "nonces": [""] * seats,
            "version": self.view["version"],
        }

    async def attach(self, page: Page) -> None:
        async def answer(route: Any) -> None:
            request = route.request
            path = request.url.split("://", 1)[1].split("/", 1)[1].split("?")[0]
            body: Any
            if path == "api/session":
                body = PLAYER
            elif path == "api/matches/fake":
                body = self.info()
            elif path == "api/matches/fake/view":
                body = self.view
            elif path == "api/matches/fake/act":
                text = json.loads(request.post_data or "{}")["action"]
                self.acts.append(text)
                version = str(int(self.view["version"]) + 1)
                idle = {**self.view, "legal": [], "turn": 1, "to_act": 1}
                following = self.after(text) if self.after else idle
                self.view = {**following, "version": version}
                body = {"version": version, "view": self.view}
            elif path == "api/matches/fake/tips":
                body = {"version": self.view["version"], "actions": []}
            elif path == "api/matches":
                body = {"matches": []}
            else:
                await route.continue_()
                return
            await route.fulfill(status=200, content_type="application/json", body=json.dumps(body))

        await page.route("**/api/**", answer)
        await page.route_web_socket(lambda url: "/ws" in url, self.connected)

    def connected(self, socket: Any) -> None:
        self.socket = socket

    def send_event(self, event: dict[str, Any]) -> None:
        """A live event of the match, as the gateway's socket frames it."""
        self.events_sent = getattr(self, "events_sent", 0) + 1
        frame = {"type": "event", "topic": "match:fake", "id": f"1-{self.events_sent}"}
        self.socket.send(json.dumps({**frame, "event": event}))

    async def open(self, context: BrowserContext, base: str) -> Page:
        page = await context.new_page()
        await self.attach(page)
        await page.goto(f"{base}/play?match=fake")
        await page.locator(".table").wait_for()
        await page.wait_for_timeout(400)  # the match's earlier events (none) have come
        return page
