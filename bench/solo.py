"""Solo play on the device in Debian's Chromium: what loading Pyodide with the rules core costs
(bytes over the wire and time, the first time and again from the browser's cache) and how long
the computers take per move in the page, per level, beside the same code in CPython.

The page's own worker (``/solo/worker.js``) is driven as the page drives it; the player's seat
takes its first legal move each time. Needs the gateway to serve Pyodide
(``MAUMAU_GATEWAY_PYODIDE_DIR``, ``npm ci`` in ``clients/pyodide``).
"""

from __future__ import annotations

import json
import statistics
import time
from typing import Any

from bench.page_load import CHROMIUM, FLAGS

MATCHES = 3
"""Matches per level (classic, one round, 4 seats)."""
WORKER = """async ([files, task]) => {
  const worker = new Worker(files.worker, { type: "module" });
  const waiting = new Map();
  let id = 0;
  worker.onmessage = ({ data }) => { waiting.get(data.id)(data); waiting.delete(data.id); };
  const call = (name, args) => new Promise((resolve) => {
    waiting.set(++id, resolve);
    worker.postMessage({ id, call: name, args });
  }).then((data) => {
    if (data.error !== undefined) throw new Error(data.error);
    return data.result;
  });
  const started = performance.now();
  const loaded = await call("load", { pyodide: files.pyodide, zip: files.package });
  const result = { load_ms: performance.now() - started, bytes: loaded.bytes, decisions: [] };
  for (let m = 0; m < task.matches; m++) {
    const record = JSON.stringify({ ruleset: "classic target=0", seats: 4, level: task.level,
      seed: `bench-${m}`, name: "bench", actions: [] });
    let { view } = await call("start", { record, lang: "en" });
    while (view.phase !== "over") {
      const moved = await call("computer", {});
      if (moved) { result.decisions.push(moved.ms); view = moved.view; continue; }
      const mine = view.legal.filter((a) => !a.text.startsWith("catch:"));
      view = (await call("act", { action: mine[0].text, lang: "en" })).view;
    }
  }
  worker.terminate();
  return result;
}"""


def cpython_decisions(level: str) -> list[float]:
    """The same matches' computer moves in CPython (the pure modules, as in the page)."""
    from maumau import solo

    times: list[float] = []
    for m in range(MATCHES):
        record = {"ruleset": "classic target=0", "seats": 4, "level": level, "seed": f"bench-{m}"}
        game = solo.Solo.start(record)
        while not game.over():
            begun = time.perf_counter()
            moved = json.loads(game.computer_json())
            if moved:
                times.append((time.perf_counter() - begun) * 1000)
                continue
            legal = [a for a in game.player_view().legal if not a.text.startswith("catch:")]
            game.apply(solo.PLAYER, legal[0].text)
    return times


def p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def solo_figures(base: str) -> dict[str, float]:
    """Load and decision figures, or none (said so) without Chromium or Pyodide."""
    try:
        from playwright.async_api import async_playwright
    except ImportError:
        print("  solo on the device: skipped, the Python package playwright is missing")
        return {}
    figures: dict[str, float] = {}
    async with async_playwright() as playwright:
        try:
            browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        except Exception as error:  # a missing or broken browser: the figures are left out
            print(f"  solo on the device: skipped, Debian's chromium did not start ({error})")
            return {}
        try:
            context = await browser.new_context()
            page = await context.new_page()
            await page.goto(f"{base}/", wait_until="networkidle")
            files: dict[str, Any] = await page.evaluate("fetch('/api/solo').then(r => r.json())")
            if not files.get("available"):
                print("  solo on the device: skipped, the gateway serves no Pyodide")
                return {}
            for run, level in enumerate(("random", "heuristic", "strong")):
                task = {"level": level, "matches": MATCHES}
                result = await page.evaluate(WORKER, [files, task])
                if run == 0:
                    figures["solo.load.first_ms"] = result["load_ms"]
                    figures["solo.load.first_kb"] = result["bytes"] / 1024
                elif run == 1:
                    figures["solo.load.cached_ms"] = result["load_ms"]
                    figures["solo.load.cached_kb"] = result["bytes"] / 1024
                page_ms = result["decisions"]
                native_ms = cpython_decisions(level)
                figures[f"solo.decision.{level}.p50_ms"] = statistics.median(page_ms)
                figures[f"solo.decision.{level}.p95_ms"] = p(page_ms, 0.95)
                figures[f"solo.decision.{level}.cpython_p50_ms"] = statistics.median(native_ms)
            await context.close()
        finally:
            await browser.close()
    print(
        f"  solo on the device: Pyodide and the rules core {figures['solo.load.first_kb']:.0f} KB"
        f" in {figures['solo.load.first_ms']:.0f} ms the first time, "
        f"{figures['solo.load.cached_kb']:.0f} KB in {figures['solo.load.cached_ms']:.0f} ms "
        "from the cache"
    )
    for level in ("random", "heuristic", "strong"):
        print(
            f"  solo: a {level} computer's move in the page p50 "
            f"{figures[f'solo.decision.{level}.p50_ms']:.1f} ms, p95 "
            f"{figures[f'solo.decision.{level}.p95_ms']:.1f} ms (CPython, pure modules: "
            f"{figures[f'solo.decision.{level}.cpython_p50_ms']:.1f} ms)"
        )
    return figures
