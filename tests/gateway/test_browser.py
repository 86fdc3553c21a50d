"""The web client in a real browser (Debian's Chromium, headless) against the whole platform:
solo matches in every rule system, a room shared by invite link, tips, German, a phone, the
keyboard, and a check that no card of another seat's hand ever reaches the page."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator

import pytest
from playwright.async_api import Browser, BrowserContext, expect

from maumau.v1 import game_pb2
from tests.gateway.browser import ARTEFACTS, Capture, Player, new_context
from tests.gateway.support import Gateway, Platform

PRESETS = ("classic", "online", "ostfriesland", "colour")


@pytest.fixture
async def context(browser: Browser) -> AsyncIterator[BrowserContext]:
    opened = await new_context(browser, locale="en-GB", viewport={"width": 1100, "height": 900})
    yield opened
    await opened.close()


async def screenshot(player: Player, name: str) -> None:
    ARTEFACTS.mkdir(exist_ok=True)
    await player.page.screenshot(path=str(ARTEFACTS / f"{name}.png"), full_page=True)


async def signed_in(context: BrowserContext, gateway: Gateway, name: str) -> Player:
    player = await Player.open(context, gateway.url)
    await player.sign_in(name)
    await player.page.wait_for_selector("#play-now .tile")
    return player


@pytest.mark.parametrize("preset", PRESETS)
async def test_a_solo_match_against_three_computers_is_played_to_the_end_by_clicking(
    context: BrowserContext, gateway: Gateway, preset: str
) -> None:
    player = await signed_in(context, gateway, "Ada")
    if preset == "classic":
        await screenshot(player, "lobby")
    await player.play_now(preset, computers=3)
    assert await player.page.locator(".seats .seat").count() == 3  # around the hand at the bottom
    await player.step()
    await screenshot(player, f"round-{preset}")
    moves = await player.play_to_end()
    summary = player.page.locator("#summary")
    await summary.locator("#fairness").wait_for()
    fairness = await summary.locator("#fairness li").all_inner_texts()
    assert fairness[-1] == "Verified in your browser: the deal was fair."
    assert "Your own random nonce went into the deal." in fairness
    assert any(line.startswith("Every card you saw matches the replay") for line in fairness)
    await summary.locator(".xp p").first.wait_for(timeout=15000)
    assert "XP earned" in await summary.locator(".xp").inner_text()
    await screenshot(player, f"summary-{preset}")
    assert moves > 0


async def test_no_card_of_another_seat_reaches_the_page(
    context: BrowserContext, gateway: Gateway, services: Platform
) -> None:
    """Every WebSocket frame and HTTP body of a 4-seat match, held against the engine's own
    unredacted record: the page only ever learns its own cards and the open ones."""
    page = await context.new_page()
    capture = Capture()
    capture.attach(page)
    player = Player(page, gateway.url)
    await page.goto(gateway.url)
    await player.sign_in("Ada")
    await page.wait_for_selector("#play-now .tile")
    await player.play_now("classic", computers=3)
    match_id = player.page.url.split("match=")[1]
    await player.play_to_end()
    await player.page.locator("#fairness").wait_for()
    await capture.settle()
    stored = await services.engine.matches.store.read_events(match_id, "0", None, count=10_000)
    truth = {entry_id: game_pb2.Event.FromString(data) for entry_id, data in stored}
    mine: set[str] = set()
    others: set[str] = set()
    for event in truth.values():
        if event.WhichOneof("kind") == "drew":
            (mine if event.drew.seat == 0 else others).update(event.drew.cards)
    assert others, "the other seats were dealt cards"

    frames = [f for f in capture.frames if f.get("topic") == f"match:{match_id}"]
    assert len([f for f in frames if f["type"] == "event"]) >= len(truth) - 1
    for frame in frames:
        if frame["type"] != "event":
            continue
        event = frame["event"]
        if "drew" in event and event["drew"]["seat"] != 0:
            assert event["drew"]["cards"] == [], frame
        if "drew" in event and event["drew"]["seat"] == 0:
            assert set(event["drew"]["cards"]) <= mine
    views = []
    for url, body in capture.bodies:
        if "/api/" not in url:
            continue
        data = json.loads(body)
        views += [data] if "hand" in data else [data["view"]] if "view" in data else []
        for tip in data.get("actions", []):
            assert tip["action"].split(":")[0].split("!")[0] in mine | {
                "draw",
                "pass",
                "accept",
                "challenge",
                "catch",
                "call",
                "suit",
            }
    assert views
    for view in views:
        assert view["seat"] == 0
        assert set(view["hand"]) <= mine
        assert view["drawn"] in mine | {""}
    cookie = (await context.cookies())[0]["value"]
    assert all(cookie not in body for _, body in capture.bodies)
    assert all(cookie not in json.dumps(frame) for frame in capture.frames)
    assert await player.page.evaluate("document.cookie") == ""


async def test_a_room_through_its_invite_link_keeps_a_seat_and_hand_across_a_closed_tab(
    browser: Browser, gateway: Gateway
) -> None:
    host_context = await new_context(browser, locale="en-GB")
    guest_context = await new_context(browser, locale="en-GB")
    try:
        host = await signed_in(host_context, gateway, "Host")
        await host.choose_options(roomSeats=2)
        await host.page.locator("#create-room .tile[data-preset=classic]").click()
        link = await host.page.locator("#invite-link").input_value()
        assert "/room/" in link

        guest = await Player.open(guest_context, gateway.url, link.split(gateway.url)[1])
        await guest.sign_in("Guest")
        await guest.page.wait_for_selector(".table")
        await host.page.wait_for_selector(".table")
        assert await guest.page.locator(".room-seats li").count() == 2

        async def guest_to_move() -> bool:
            table = guest.page.locator(".table")
            return await table.get_attribute("data-turn") == await table.get_attribute("data-seat")

        moves = 0
        while moves < 4 or not await guest_to_move():
            assert not await host.over(), "the round ended before the tab was closed"
            moved = await host.step() or await guest.step()
            moves += moved
            if not moved:
                await asyncio.sleep(0.05)
        # A move of the guest's may still be on its way (its answer brings the drawn card): the
        # hand to compare is the one drawn once no move is in flight.
        await guest.page.locator(".table:not(.busy)").wait_for()
        seat = await guest.page.locator(".table").get_attribute("data-seat")
        hand = await guest.hand()
        await guest.page.close()

        guest = await Player.open(guest_context, gateway.url, link.split(gateway.url)[1])
        await guest.page.wait_for_selector(".table")
        assert await guest.page.locator(".table").get_attribute("data-seat") == seat
        assert await guest.hand() == hand

        while not (await host.over() and await guest.over()):
            if not (await host.step() or await guest.step()):
                await asyncio.sleep(0.05)
        assert await host.page.locator("#summary .scores").count() == 1
        await host.page.locator("#next-match").wait_for(timeout=15000)
        tally = await host.page.locator(".room-seats").inner_text()
        assert "1 won" in tally
    finally:
        await host_context.close()
        await guest_context.close()


async def test_tips_switch_on_and_off(context: BrowserContext, gateway: Gateway) -> None:
    player = await signed_in(context, gateway, "Ada")
    await player.play_now("colour", computers=1)
    tips = player.page.locator("#tips")
    await tips.click()
    assert await tips.get_attribute("aria-pressed") == "true"
    while await player.page.locator(".card-button.legal, .table .actions .action").count() == 0:
        await asyncio.sleep(0.05)
    tip = player.page.locator(".tip strong")
    await tip.wait_for(timeout=5000)
    assert (await tip.inner_text()).startswith("Tip: ")
    await tips.click()
    assert await tips.get_attribute("aria-pressed") == "false"
    await player.page.locator(".tip").wait_for(state="detached", timeout=5000)


async def test_the_page_speaks_german(browser: Browser, gateway: Gateway) -> None:
    context = await new_context(browser, locale="de-DE")
    try:
        player = await Player.open(context, gateway.url)
        await player.sign_in("Anna")
        await player.page.wait_for_selector("#play-now .tile")
        assert await player.page.locator("#play-now h2").inner_text() == "Gegen den Computer"
        assert await player.page.evaluate("document.documentElement.lang") == "de"
        await player.play_now("ostfriesland", computers=2)
        assert "Runde 1" in await player.page.locator(".table h2").inner_text()
        # A refusal of the engine, in German: a card played out of place.
        await player.page.evaluate(
            "fetch('/api/matches/' + location.search.split('=')[1] + '/act', {method: 'POST',"
            " headers: {'Content-Type': 'application/json', 'X-Maumau-Lang': 'de'},"
            " body: JSON.stringify({request_id: 'x', action: 'QQ'})})"
            ".then(r => r.json()).then(b => { window.refusal = b.error.message; })"
        )
        await player.page.wait_for_function("window.refusal !== undefined")
        assert "ist kein Zug" in await player.page.evaluate("window.refusal")
        await player.page.locator("#lang").click()
        assert await player.page.locator("#lang").inner_text() == "Deutsch"
        await player.page.reload()
        await player.page.wait_for_selector(".table")
        assert "Round 1" in await player.page.locator(".table h2").inner_text()
    finally:
        await context.close()


async def test_a_phone_plays_by_touch_without_sideways_scrolling(
    browser: Browser, gateway: Gateway
) -> None:
    context = await new_context(
        browser, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    try:
        player = await Player.open(context, gateway.url)
        await player.sign_in("Phone")
        await player.page.wait_for_selector("#play-now .tile")
        await player.play_now("online", computers=3)
        moves = 0
        deadline = asyncio.get_running_loop().time() + 60
        while moves < 3 and not await player.over():
            if asyncio.get_running_loop().time() > deadline:
                await screenshot(player, "phone-stuck")
                raise AssertionError("no move possible by touch (see artefacts/phone-stuck.png)")
            moves += await player.step(tap=True)
            await asyncio.sleep(0.05)
        assert moves == 3 or await player.over()
        width = await player.page.evaluate(
            "document.documentElement.scrollWidth <= window.innerWidth"
        )
        assert width, "the table is wider than the phone"
        await screenshot(player, "phone")
    finally:
        await context.close()


async def test_moves_by_keyboard_alone(context: BrowserContext, gateway: Gateway) -> None:
    player = await Player.open(context, gateway.url)
    page = player.page
    await page.locator("input[name=name]").focus()
    await page.keyboard.type("Keys")
    await page.keyboard.press("Enter")
    await page.wait_for_selector("#play-now .tile")
    for _ in range(20):  # Tab to the first tile of "Play the computer", then press it
        if await page.evaluate("document.activeElement.closest('#play-now .tile') !== null"):
            break
        await page.keyboard.press("Tab")
    await page.keyboard.press("Enter")
    await page.wait_for_selector(".table")
    moves, stuck = 0, False
    deadline = asyncio.get_running_loop().time() + 120  # bots' turns take long on a busy machine
    while asyncio.get_running_loop().time() < deadline:
        if moves == 3 or await player.over():
            break
        if not await page.locator(".legal, .action").count():
            await page.wait_for_timeout(100)  # not our move yet: nothing to reach by keyboard
            continue
        focused = await page.evaluate(
            "(() => { const e = document.activeElement; return e ?"
            " (e.classList.contains('legal') || e.classList.contains('action')) : false })()"
        )
        if focused:
            before = await player.version()
            await page.keyboard.press("Enter")
            if await page.locator(".prompt.wishes").count():
                await page.keyboard.press("Enter")  # the first suit has the focus
            await player.wait_change(before)
            moves += 1
        elif stuck:  # an arrow left the focus where it was: Tab on to the other controls
            stuck = False
            await page.keyboard.press("Tab")
        elif await page.evaluate(
            "(() => { const e = document.activeElement;"
            " return Boolean(e && e.closest('.hand li') && e.closest('li').nextElementSibling) })()"
        ):
            before_key = await page.evaluate("document.activeElement?.dataset?.focusKey ?? ''")
            await page.keyboard.press("ArrowRight")  # the hand is one stop: arrows go through it
            stuck = before_key == await page.evaluate(
                "document.activeElement?.dataset?.focusKey ?? ''"
            )
        elif await page.evaluate(
            "(() => document.activeElement?.closest('.hand li') !== null"
            " && document.querySelector('.hand .legal') !== null)()"
        ):
            await page.keyboard.press("Home")  # the hand's stop kept its last card: sweep again
        else:
            await page.keyboard.press("Tab")
    assert moves == 3 or await player.over()
    # The live region is emptied for a moment before each announcement, so that a repeated
    # one is read again: what it said is there once the moment has passed.
    await expect(page.locator("#announcer")).to_have_text(re.compile(r"\S"))
