"""Waiting for something that happens in another task, process or replica."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")


async def eventually(
    probe: Callable[[], Awaitable[T | None]], timeout: float, what: str, interval: float = 0.02
) -> T:
    """Poll ``probe`` until it returns something other than None (or False), for at most
    ``timeout`` seconds; the failure names ``what`` was awaited."""
    deadline = time.monotonic() + timeout
    while True:
        result = await probe()
        if result is not None and result is not False:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up after {timeout} s waiting for {what}")
        await asyncio.sleep(interval)
