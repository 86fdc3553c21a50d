"""glibc's mmap threshold, fixed at a service's start: each case in a fresh interpreter, whose
malloc has seen nothing of the test run's."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from maumau.common.memory import is_glibc

pytestmark = pytest.mark.skipif(not is_glibc(), reason="glibc's malloc only")

# Frees an 8 MiB mapped block (glibc then raises its threshold to 8 MiB unless it is fixed),
# allocates 512 KiB and prints what keep_large_blocks_mapped() said and how many bytes more
# malloc has mapped: the whole block when it is mapped, nothing when it came from the heap.
PROBE = """
import ctypes
from maumau.common.memory import keep_large_blocks_mapped

class Info(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd",
        "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]

libc = ctypes.CDLL(None)
libc.mallinfo2.restype = Info
fixed = keep_large_blocks_mapped() if FIX else None
freed = bytearray(8 << 20)
del freed
before = libc.mallinfo2().hblkhd
block = bytearray(512 << 10)
print(fixed, libc.mallinfo2().hblkhd - before)
"""


def probe(fix: bool, **env: str) -> tuple[str, int]:
    environment = {k: v for k, v in os.environ.items() if k != "MALLOC_MMAP_THRESHOLD_"}
    result = subprocess.run(
        [sys.executable, "-c", f"FIX = {fix}\n{PROBE}"],
        env={**environment, **env},
        capture_output=True,
        text=True,
        check=True,
    )
    said, mapped = result.stdout.split()
    return said, int(mapped)


def test_without_the_fix_a_large_block_comes_from_the_heap_after_a_larger_one_was_freed() -> None:
    assert probe(fix=False) == ("None", 0)


def test_with_the_fix_large_blocks_stay_mapped() -> None:
    said, mapped = probe(fix=True)
    assert said == "True"
    assert mapped >= 512 << 10


def test_an_operators_own_threshold_is_left_as_it_is() -> None:
    said, mapped = probe(fix=True, MALLOC_MMAP_THRESHOLD_=str(4 << 20))
    assert (said, mapped) == ("False", 0)
