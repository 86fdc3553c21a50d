"""Tournaments, the ranked queue and the profile in a real browser (Debian's Chromium, headless)
against the whole platform: a player registers from the page, the organizer starts the tournament
over gRPC, the player plays their table in every block from the page, and the final ranking and
the year's championship table show; a ranked match from the queue counts on the profile page and
the leaderboard."""

from __future__ import annotations

import re
import time
from collections.abc import AsyncIterator

import pytest
from playwright.async_api import Browser, BrowserContext

from maumau.v1 import game_pb2
from tests.gateway.browser import Player, new_context
from tests.gateway.support import Gateway, Platform, organizer
from tests.gateway.test_browser import screenshot, signed_in


@pytest.fixture
async def context(browser: Browser) -> AsyncIterator[BrowserContext]:
    opened = await new_context(browser, locale="en-GB", viewport={"width": 1100, "height": 900})
    yield opened
    await opened.close()


async def play_every_seat(player: Player, timeout: float = 180.0) -> int:
    """From the tournament's page: play each table the page offers until the tournament is
    over; the number of matches played."""
    page = player.page
    tournament = page.locator("#tournament")
    played = 0
    deadline = time.monotonic() + timeout
    while await tournament.get_attribute("data-status") not in ("finished", "cancelled"):
        assert time.monotonic() < deadline, "the tournament did not end in time"
        if await page.locator("#play-table").count():
            await page.locator("#play-table").click()
            await page.wait_for_selector(".table")
            await player.play_to_end(timeout=60)
            played += 1
            await page.locator("#back-to-tournament").click()
            await tournament.wait_for()
        else:
            await page.wait_for_timeout(200)
    return played


async def test_a_player_registers_plays_the_tournament_and_sees_the_ranking_and_championship(
    context: BrowserContext, gateway: Gateway, services: Platform
) -> None:
    async with organizer(services) as org:
        created = await org.create(
            "Harbour cup",
            ruleset=game_pb2.Ruleset(preset="ostfriesland"),
            rounds=2,
            change_every=1,
            max_per_table=4,
            ranked=True,
        )
        tid = created.tournament_id
        player = await signed_in(context, gateway, "Tjark")
        page = player.page
        await page.get_by_role("link", name="Tournaments").click()
        await page.locator("#tournament-list").get_by_role("link", name="Harbour cup").click()
        await page.locator("#tournament[data-status=registration]").wait_for()
        await page.locator("#register").click()
        await page.get_by_text("You are an entrant.").wait_for()
        assert await page.locator("#entrants").get_by_text("Tjark").count() == 1

        await org.add_bots(tid, ["Hinrich", "Okko", "Wiebke"])
        await org.start(tid)
        await page.locator("#play-table").wait_for(timeout=30_000)
        await screenshot(player, "tournament-playing")
        played = await play_every_seat(player)
    assert played >= 2  # one match per block (and a deciding round if the page offered one)
    assert await page.locator("#tournament").get_attribute("data-status") == "finished"
    assert await page.locator("#standings-title").inner_text() == "Final ranking"
    rows = page.locator("#standings tbody tr")
    assert await rows.count() == 4
    mine = rows.filter(has_text="Tjark (you)")
    cells = await mine.locator("td").all_inner_texts()
    assert cells[4] == "2"  # rounds played: both blocks at the player's table
    places = [
        int(p) for p in await page.locator("#standings tbody tr td:first-child").all_inner_texts()
    ]
    assert places == sorted(places) and places[0] == 1
    assert "null" not in await page.locator("#tournament").inner_text()
    await screenshot(player, "tournament-final")

    tournament = await services.tournaments.store.load(tid)
    year = tournament.tournament.to_pb().championship_year
    assert year >= 2026
    await page.locator("#championship-link").click()
    await page.locator("#championship").wait_for()
    assert await page.locator("#championship-title").inner_text() == f"Championship {year}"
    row = page.locator("#championship tbody tr").filter(has_text="Tjark")
    assert await row.count() == 1
    champion_points = int(await row.locator("td").nth(2).inner_text())
    assert champion_points > 0  # places 1-4 all earn points


async def test_a_ranked_match_from_the_queue_counts_on_the_profile_and_the_leaderboard(
    context: BrowserContext, gateway: Gateway
) -> None:
    player = await signed_in(context, gateway, "Frauke")
    page = player.page
    await player.choose_options(rankedSeats=3)
    queue = page.get_by_role("region", name="Ranked")
    await queue.get_by_role("button", name=re.compile(r"^Family rules")).click()
    await queue.locator(".waiting").wait_for()
    await page.wait_for_selector(".table", timeout=60_000)  # bots fill the table after a while
    assert await page.locator(".seats .seat").count() == 2  # the two others, around this hand
    await player.play_to_end(timeout=90)
    summary = page.locator("#summary")
    await summary.locator(".rating-change").wait_for(timeout=20_000)
    assert "Rating:" in await summary.locator(".rating-change").inner_text()

    await page.get_by_role("link", name="Profile").click()
    await page.get_by_role("heading", name="Profile: Frauke").wait_for()
    text = await page.locator("main").inner_text()
    assert "Matches played: 1" in text
    assert "{" not in text  # every text's placeholders filled
    ratings = page.locator("main table").first
    assert await ratings.locator("tbody tr").filter(has_text="Family rules (classic)").count() == 1
    recent = page.locator("main table").nth(1)
    assert await recent.locator("tbody tr").count() == 1
    await screenshot(player, "profile")

    await page.get_by_role("link", name="Leaderboard").click()
    await page.locator("#ladder table").first.wait_for()
    assert await page.locator("#ladder").get_by_text("Frauke").count() >= 1


async def test_the_tournament_pages_speak_german_and_show_refusals(
    browser: Browser, gateway: Gateway, services: Platform
) -> None:
    german = await new_context(browser, locale="de-DE")
    try:
        async with organizer(services) as org:
            created = await org.create("Deichpokal", rounds=2, change_every=1, max_per_table=4)
            await org.add_bots(created.tournament_id, ["Gesche"])
        player = await Player.open(german, gateway.url)
        await player.sign_in("Anna")
        page = player.page
        await page.wait_for_selector("#play-now .tile")
        await page.get_by_role("link", name="Turniere").click()
        await page.get_by_role("heading", name="Turniere").wait_for()
        title = await page.locator("#championship-title").inner_text()
        assert title.startswith("Meisterschaft ")
        await page.locator("#tournament-list").get_by_role("link", name="Deichpokal").click()
        facts = page.locator(".tour-facts")
        await facts.wait_for()
        assert "Anmeldung offen" in await facts.inner_text()
        await page.get_by_role("button", name="Anmelden").click()
        await page.get_by_text("Du bist Teilnehmer.").wait_for()
        assert await page.locator("#entrants tbody tr").count() == 2
        # The service refuses a second registration: the page says so in German.
        await page.evaluate(
            "fetch(location.pathname.replace('/tournament/', '/api/tournaments/') + '/register',"
            " {method: 'POST', headers: {'Content-Type': 'application/json',"
            " 'X-Maumau-Lang': 'de'}, body: '{}'}).then(r => r.json())"
            ".then(b => { window.refusal = b.error.message; })"
        )
        await page.wait_for_function("window.refusal !== undefined")
        assert (await page.evaluate("window.refusal")).startswith("Gerade nicht möglich")
        await page.get_by_role("button", name="Abmelden").click()
        await page.get_by_role("button", name="Anmelden").wait_for()
        assert await page.locator("#entrants tbody tr").count() == 1
    finally:
        await german.close()
