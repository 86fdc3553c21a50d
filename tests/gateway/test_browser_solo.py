"""Solo play on the device in Chromium: with Pyodide served, a match against the computers runs
in the page with the platform's own rules core and bot levels, plays to its end with the network
cut after it started, and a reload resumes it from the page's own storage at the same hand and
turn; without Pyodide the same tile plays on the server as before (docs/playing.md, "Solo on
your device")."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from playwright.async_api import Browser, BrowserContext, expect
from playwright.async_api import TimeoutError as PlaywrightTimeout

from maumau.gateway.solo_files import PYODIDE_FILES
from tests.gateway.browser import Player, new_context
from tests.gateway.support import Gateway, Platform, installed_pyodide, start_gateway
from tests.gateway.test_browser_axe import audit

pytestmark = pytest.mark.xdist_group("clients/pyodide")  # its npm folder, on one worker


@pytest.fixture(scope="module")
async def solo_gateway(services: Platform) -> AsyncIterator[Gateway]:
    started = await start_gateway(services.settings(pyodide_dir=str(installed_pyodide())))
    yield started
    await started.stop()


async def solo_player(context: BrowserContext, gateway: Gateway, requests: list[str]) -> Player:
    player = await Player.open(context, gateway.url)
    player.page.on("request", lambda request: requests.append(request.url))
    await player.sign_in("Ada")
    await player.page.wait_for_selector("#play-now .tile")
    return player


def match_calls(requests: list[str]) -> list[str]:
    return [url for url in requests if "/api/play" in url or "/api/matches/" in url]


async def test_a_solo_match_is_played_in_the_page_to_its_end_with_the_network_cut(
    context: BrowserContext, solo_gateway: Gateway
) -> None:
    requests: list[str] = []
    player = await solo_player(context, solo_gateway, requests)
    await player.play_now("classic", computers=2, level="heuristic")
    assert player.page.url.endswith("/solo")
    await player.page.locator("#solo-table[data-solo=device] .table").wait_for()
    assert await player.page.locator(".seats .seat").count() == 2
    await context.set_offline(True)
    offline_from = len(requests)
    moves = await player.play_to_end(timeout=120)
    summary = player.page.locator("#summary")
    assert "no XP" in await summary.locator("#solo-note").inner_text()
    assert await summary.locator("#fairness").count() == 0
    assert moves > 0
    assert requests[offline_from:] == [], "the page asked the network while playing"
    assert match_calls(requests) == [], "a solo match on the device never reaches the engine"
    await context.set_offline(False)
    await summary.locator("#new-match").click()
    await player.page.locator(".table").wait_for()
    assert await player.page.locator("#summary").count() == 0


async def test_a_reload_resumes_the_solo_match_at_the_same_hand_and_turn(
    context: BrowserContext, solo_gateway: Gateway
) -> None:
    requests: list[str] = []
    player = await solo_player(context, solo_gateway, requests)
    await player.play_now("colour", computers=3, level="random")
    for _ in range(4):
        await player.page.locator(".table[data-turn='0']").wait_for(timeout=20_000)
        await player.step()
    await player.page.locator(".table[data-turn='0']").wait_for(timeout=20_000)
    hand, version = await player.hand(), await player.version()
    history = await player.page.locator(".history-lines li").all_inner_texts()
    await player.page.reload()
    await player.page.locator(".table[data-turn='0']").wait_for(timeout=30_000)
    assert await player.hand() == hand
    assert await player.version() == version
    await expect(player.page.locator(".history-lines li")).to_have_text(history)
    assert match_calls(requests) == []


async def test_without_pyodide_the_computer_tile_plays_on_the_server_as_before(
    context: BrowserContext, gateway: Gateway
) -> None:
    requests: list[str] = []
    player = await solo_player(context, gateway, requests)
    await player.play_now("classic", computers=1)
    assert "/play?match=" in player.page.url
    assert not [url for url in requests if "/solo/" in url]
    assert await player.page.locator("#errors").is_hidden()
    await player.play_to_end()
    await player.page.locator("#fairness").wait_for()


async def test_the_solo_table_and_its_summary_pass_axe_and_the_front_page_leads_back(
    context: BrowserContext, solo_gateway: Gateway
) -> None:
    requests: list[str] = []
    player = await solo_player(context, solo_gateway, requests)
    await player.play_now("online", computers=1, level="random")
    await player.page.locator(".table[data-turn='0']").wait_for(timeout=20_000)
    await audit(player.page, "solo table")
    await player.page.locator("#brand").click()
    back = player.page.get_by_role("link", name="Back to the table")
    await back.click()
    await player.page.locator("#solo-table .table").wait_for()
    await player.play_to_end(timeout=120)
    await player.page.locator("#solo-note").wait_for()
    await audit(player.page, "solo summary")
    await player.page.locator("#front-page").click()
    await player.page.locator("#play-now .tile").first.wait_for()
    assert await player.page.locator("#back-to-table").count() == 0


@pytest.fixture
async def german(browser: Browser) -> AsyncIterator[BrowserContext]:
    opened = await new_context(
        browser, locale="de-DE", viewport={"width": 1280, "height": 800}, reduced_motion="reduce"
    )
    yield opened
    await opened.close()


async def test_in_german_by_keyboard_with_tips_and_a_language_switch_mid_match(
    german: BrowserContext, solo_gateway: Gateway
) -> None:
    """The tips come from the search in the page and name a move; keys play; switching the
    language rebuilds the table from the kept match, with its hand and history."""
    requests: list[str] = []
    player = await solo_player(german, solo_gateway, requests)
    page = player.page
    await page.locator("#tips").click()
    await player.play_now("classic", computers=1, level="heuristic")
    await page.locator(".table[data-turn='0']").wait_for(timeout=20_000)
    tip = page.locator("#tip strong")
    await tip.wait_for()
    await audit(page, "solo table in German with a tip")
    assert (await tip.inner_text()).startswith("Tipp: ") and len(await tip.inner_text()) > 6
    before = await player.version()
    cards = await page.locator(".hand .card-button").evaluate_all(
        "buttons => buttons.map(b => b.classList.contains('legal'))"
    )
    await page.keyboard.press(str(cards.index(True) + 1) if True in cards else "d")
    wish = page.locator(".prompt .wish").first
    with contextlib.suppress(PlaywrightTimeout):  # a jack asks for its wish first, by key too
        await wish.wait_for(timeout=1000)
        await page.keyboard.press((await wish.get_attribute("aria-keyshortcuts") or "").lower())
    await player.wait_change(before, timeout=30)  # behind the tip's search in the page's worker
    assert await player.version() != before
    await page.locator(".table[data-turn='0']").wait_for(timeout=20_000)
    hand = await player.hand()
    history = await page.locator(".history-lines li").all_inner_texts()
    await page.locator("#lang").click()
    await page.locator(".table[data-turn='0']").wait_for(timeout=20_000)
    assert await page.locator(".table-head h2").inner_text() != ""
    assert await player.hand() == hand
    await expect(page.locator(".history-lines li")).to_have_count(len(history))
    assert await page.locator(".history-lines li").all_inner_texts() != history  # in English now
    assert match_calls(requests) == []


@pytest.fixture
async def broken_gateway(services: Platform, tmp_path: Path) -> AsyncIterator[Gateway]:
    """A gateway whose Pyodide fails to start in the page, as in a browser without
    WebAssembly."""
    for name in PYODIDE_FILES:
        (tmp_path / name).write_text("")
    (tmp_path / "package.json").write_text('{"version": "0.0.0"}')
    (tmp_path / "pyodide.mjs").write_text(
        'export async function loadPyodide() { throw new Error("no WebAssembly here"); }\n'
    )
    started = await start_gateway(services.settings(pyodide_dir=str(tmp_path)))
    yield started
    await started.stop()


async def test_a_page_that_cannot_run_pyodide_plays_the_new_match_on_the_server(
    context: BrowserContext, broken_gateway: Gateway
) -> None:
    requests: list[str] = []
    player = await solo_player(context, broken_gateway, requests)
    await player.page.locator("#play-now .tile[data-preset=colour]").click()
    await player.page.wait_for_url("**/play?match=*")
    await player.page.locator(".table").wait_for()
    assert await player.page.locator("#errors").is_hidden()
    assert await player.page.evaluate("localStorage.getItem('maumau.solo')") is None
    assert [url for url in requests if url.endswith("/solo/pyodide/0.0.0/pyodide.mjs")]
