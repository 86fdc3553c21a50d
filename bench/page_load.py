"""The front page's first load in Debian's Chromium: bytes over the wire and paint figures.

A fresh browser (no cache) opens the gateway's front page and waits until the network is idle.
Bytes are what the Resource Timing API says was transferred (compressed bodies and headers) for
the page and every file it loaded. First contentful paint comes from the Paint Timing API; total
blocking time, as Lighthouse counts it, is the sum over long tasks (Long Tasks API, observed from
the first script on) of what each spent beyond 50 ms. The median of RUNS loads is reported.
"""

from __future__ import annotations

import statistics
from typing import Any

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
RUNS = 5
OBSERVE_LONG_TASKS = """
window.__longTasks = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) window.__longTasks.push(entry.duration);
}).observe({ type: "longtask", buffered: true });
"""
MEASURE = """() => {
  const navigation = performance.getEntriesByType("navigation")[0];
  const files = performance.getEntriesByType("resource");
  const paint = performance.getEntriesByName("first-contentful-paint")[0];
  return {
    bytes: navigation.transferSize + files.reduce((sum, file) => sum + file.transferSize, 0),
    files: files.length + 1,
    fcp: paint ? paint.startTime : -1,
    tbt: window.__longTasks.reduce((sum, ms) => sum + Math.max(0, ms - 50), 0),
  };
}"""


async def first_load(base: str) -> dict[str, float]:
    """The front page's first-load figures, or none (said so) without Playwright or Chromium."""
    try:
        from playwright.async_api import async_playwright
    except ImportError:
        print("  first load: skipped, the Python package playwright is missing")
        return {}
    loads: list[dict[str, Any]] = []
    async with async_playwright() as playwright:
        try:
            browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        except Exception as error:  # a missing or broken browser: the figure is left out
            print(f"  first load: skipped, Debian's chromium did not start ({error})")
            return {}
        try:
            for _ in range(RUNS):
                context = await browser.new_context(viewport={"width": 1280, "height": 800})
                page = await context.new_page()
                await page.add_init_script(OBSERVE_LONG_TASKS)
                await page.goto(f"{base}/", wait_until="networkidle")
                loads.append(await page.evaluate(MEASURE))
                await context.close()
        finally:
            await browser.close()
    figures = {
        "gateway.first_load.kb": statistics.median(load["bytes"] for load in loads) / 1024,
        "gateway.first_load.files": statistics.median(load["files"] for load in loads),
        "gateway.first_load.fcp_ms": statistics.median(load["fcp"] for load in loads),
        "gateway.first_load.tbt_ms": statistics.median(load["tbt"] for load in loads),
    }
    print(
        f"  front page first load (median of {RUNS}, fresh browser): "
        f"{figures['gateway.first_load.kb']:.1f} KB in {figures['gateway.first_load.files']:.0f} "
        f"files (goal <= 150 KB), first contentful paint "
        f"{figures['gateway.first_load.fcp_ms']:.0f} ms, total blocking time "
        f"{figures['gateway.first_load.tbt_ms']:.0f} ms"
    )
    return figures
