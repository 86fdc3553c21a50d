"""The fair-deal replay of the web client (clients/web/replay.js), run in Debian's Chromium: its
port of Python's Mersenne Twister gives CPython's numbers, and a real match's every seen card
replays from the revealed seed, while a tampered seed or card is named as a mismatch in words."""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import time
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from playwright.async_api import Browser, Page

from maumau.rules import Ruleset
from tests.gateway.browser import new_context
from tests.gateway.support import Gateway
from tests.gateway.test_api import client

OPERATIONS: list[tuple[str, int]] = [
    ("bits", 32),
    ("bits", 1),
    ("shuffle", 52),
    ("randrange", 7),
    ("bits", 17),
    ("shuffle", 108),
    ("randrange", 1),
    ("randrange", 1000),
    ("shuffle", 700),  # more draws than the state holds: the twister refills mid-shuffle
    ("bits", 31),
]
"""Calls made in this order on each seeded generator, in CPython and in the browser."""

RUN_IN_PAGE = """async ([seeds, operations]) => {
  const { PythonRandom } = await import("/static/replay.js");
  const results = [];
  for (const seed of seeds) {
    const rng = await PythonRandom.fromString(seed);
    results.push(operations.map(([op, n]) => {
      if (op === "bits") return rng.getrandbits(n);
      if (op === "randrange") return rng.randrange(n);
      return rng.shuffle([...Array(n).keys()]);
    }));
  }
  return results;
}"""


def in_cpython(seed: str) -> list[Any]:
    rng = random.Random(seed)
    results: list[Any] = []
    for op, n in OPERATIONS:
        if op == "bits":
            results.append(rng.getrandbits(n))
        elif op == "randrange":
            results.append(rng.randrange(n))
        else:
            items = list(range(n))
            rng.shuffle(items)
            results.append(items)
    return results


def seeds() -> list[str]:
    """Seeds of every shape the rules core uses and some it never does: empty, short, unicode
    (multi-byte UTF-8), long (a key longer than the twister's 624 words), deal seeds as the
    engine makes them with their round, reshuffle and dealer suffixes."""
    rng = random.Random(20240601)
    found = ["", "0", "a", "7", "ü", "Mau-Mau 🂡", "x" * 3000, "\x00leading"]
    for index in range(120):
        deal_seed = rng.randbytes(32).hex()
        found += [
            f"{deal_seed}/dealer",
            f"{deal_seed}/{index % 9 + 1}",
            f"{deal_seed}/{index % 3 + 1}/reshuffle/{index % 5 + 1}",
        ]
    found += [
        "".join(chr(rng.randrange(32, 0x2FFF)) for _ in range(rng.randrange(1, 80)))
        for _ in range(40)
    ]
    return found


@pytest.fixture
async def page(browser: Browser, gateway: Gateway) -> AsyncIterator[Page]:
    context = await new_context(browser, locale="en-GB")
    opened = await context.new_page()
    await opened.goto(gateway.url)
    yield opened
    await context.close()


async def test_the_browsers_mersenne_twister_gives_cpythons_numbers(page: Page) -> None:
    cases = seeds()
    got = await page.evaluate(RUN_IN_PAGE, [cases, OPERATIONS])
    assert len(got) == len(cases)
    for seed, numbers in zip(cases, got, strict=True):
        assert numbers == in_cpython(seed), f"seed {seed[:40]!r}"


async def played_match(gateway: Gateway, preset_text: dict[str, Any]) -> dict[str, Any]:
    """A solo match against three computers, played to its end through the gateway with this
    seat drawing whenever it may (so the draw pile runs out and is reshuffled), and what the
    page would have: every event frame, the nonce sent, the deck constants."""
    session = await client(gateway, "Replayer")
    nonce = "n" + random.randbytes(8).hex()
    try:
        body = {"ruleset": preset_text, "computers": 3, "level": "random", "nonce": nonce}
        async with session.post("/api/play", json=body) as response:
            answer = await response.json()
            assert response.status == 200, answer
        match_id = answer["match"]["match_id"]
        events: list[dict[str, Any]] = []
        async with session.ws_connect("/ws", origin=gateway.url) as ws:
            await ws.send_json({"op": "follow", "match_id": match_id})
            reader = asyncio.create_task(read_events(ws, events))
            deadline = time.monotonic() + 180  # by time: bots move slower on a busy machine
            for index in itertools.count():
                if reader.done() or time.monotonic() > deadline:
                    break
                async with session.get(f"/api/matches/{match_id}/view") as response:
                    if response.status == 429:  # looked too often: wait as the gateway says
                        await asyncio.sleep(float(response.headers["Retry-After"]))
                        continue
                    view = await response.json()
                    assert response.status == 200, view
                if view["phase"] == "over":
                    break
                legal = [a["text"] for a in view["legal"]]
                if not legal:
                    await asyncio.sleep(0.02)
                    continue
                action = next((a for a in ("draw", "pass", "accept") if a in legal), legal[0])
                move = {"request_id": f"m{index}", "action": action}
                async with session.post(f"/api/matches/{match_id}/act", json=move) as response:
                    await response.read()
            await asyncio.wait_for(reader, 20)
        async with session.get(
            "/api/deck", params={"ruleset": view["ruleset"], "seats": "4"}
        ) as response:
            deal = await response.json()
            assert response.status == 200, deal
    finally:
        await session.close()
    return {"events": events, "nonce": nonce, "deal": deal, "seat": view["seat"]}


async def read_events(ws: aiohttp.ClientWebSocketResponse, events: list[dict[str, Any]]) -> None:
    async for message in ws:
        frame = json.loads(message.data)
        if frame["type"] == "event":
            events.append(frame["event"])
            if "seed_revealed" in frame["event"]:
                return


CHECK_IN_PAGE = """async ([match, language]) => {
  const { setLanguage } = await import("/static/i18n.js");
  const { checkFairness } = await import("/static/table.js");
  setLanguage(language);
  const find = (kind) => match.events.find((e) => kind in e)[kind];
  return checkFairness({
    started: find("match_started"), seed: find("seed_revealed"), seat: match.seat,
    nonce: match.nonce, events: match.events, seats: 4, deal: match.deal,
  });
}"""


def kinds(match: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [event[kind] for event in match["events"] if kind in event]


async def test_every_card_seen_replays_and_a_tampered_seed_or_card_is_named(
    page: Page, gateway: Gateway
) -> None:
    for _ in range(6):  # until a match had its draw pile reshuffled
        match = await played_match(
            gateway, {"preset": "classic", "options": {"deck": "skat32", "target": "0"}}
        )
        if kinds(match, "reshuffled"):
            break
    assert kinds(match, "reshuffled"), "no match ran out of its draw pile"
    mine = [d for d in kinds(match, "drew") if d["seat"] == match["seat"]]
    drawn = [d for d in mine if d["reason"] != "deal"]
    assert drawn, "this seat drew no card"

    honest = await page.evaluate(CHECK_IN_PAGE, [match, "en"])
    assert honest["ok"] is True, honest["lines"]
    replayed = [line for line in honest["lines"] if line.startswith("Every card you saw matches")]
    seen = sum(len(d["cards"]) for d in mine) + len(kinds(match, "round_started"))
    assert replayed == [
        f"Every card you saw matches the replay from the seed: {seen} cards (your hands, your "
        "draws and the starting cards)."
    ]

    tampered_seed = json.loads(json.dumps(match))
    kinds(tampered_seed, "seed_revealed")[0]["deal_seed"] = "f" * 64
    answer = await page.evaluate(CHECK_IN_PAGE, [tampered_seed, "en"])
    assert answer["ok"] is False
    assert "The deal seed does NOT recompute!" in answer["lines"]
    assert any("does NOT match the replay from the seed" in line for line in answer["lines"])
    assert answer["lines"][-1] == "Warning: the deal could NOT be verified."

    tampered_card = json.loads(json.dumps(match))
    last_draw = [
        d
        for d in kinds(tampered_card, "drew")
        if d["seat"] == match["seat"] and d["cards"] and d["reason"] != "deal"
    ][-1]
    real = last_draw["cards"][0]
    last_draw["cards"][0] = "7H" if real != "7H" else "8H"
    answer = await page.evaluate(CHECK_IN_PAGE, [tampered_card, "de"])
    assert answer["ok"] is False
    mismatch = [line for line in answer["lines"] if "das Nachspielen aus dem Seed ergibt" in line]
    assert len(mismatch) == 1 and mismatch[0].startswith("Runde ")
    assert answer["lines"][-1] == "Achtung: Das Geben ließ sich NICHT bestätigen."


async def test_the_deck_constants_are_the_rules_cores(gateway: Gateway) -> None:
    """What the page replays with: the deck in its order before shuffling (copies included for
    a table of that size) and the hand size; a ruleset or table size that cannot be played is
    INVALID_ARGUMENT in the page's language."""
    ruleset = Ruleset.parse("classic deck=skat32")
    async with aiohttp.ClientSession(base_url=gateway.url) as session:
        query = {"ruleset": "classic deck=skat32", "seats": "4"}
        async with session.get("/api/deck", params=query) as response:
            assert response.status == 200
            answer = await response.json()
        assert answer == {
            "ruleset": ruleset.text,
            "seats": 4,
            "hand_size": ruleset.hand_size,
            "deck": [card.text for card in ruleset.deck_for(4)],
        }
        eight = {"ruleset": "classic", "seats": "8"}
        async with session.get("/api/deck", params=eight) as response:
            assert len((await response.json())["deck"]) == 2 * 52  # two decks from 7 seats on
        refused = {}
        for ruleset_text, seats in (("skat", "4"), ("classic", "1"), ("classic", "x"), ("", "4")):
            params = {"ruleset": ruleset_text, "seats": seats}
            headers = {"X-Maumau-Lang": "de"}
            async with session.get("/api/deck", params=params, headers=headers) as response:
                assert response.status == 400
                refused[ruleset_text, seats] = (await response.json())["error"]
    assert refused["skat", "4"]["code"] == "unknown_preset"
    assert "kein Regelwerk 'skat'" in refused["skat", "4"]["message"]
    assert refused["classic", "1"]["code"] == "bad_option"
    assert refused["classic", "x"]["code"] == "seats"
    assert refused["", "4"]["code"] == "unknown_preset"
