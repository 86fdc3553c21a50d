"""Passwords as NIST SP 800-63B (section 3.1.1.2) asks: at least 8 characters, no rules on what
they hold, any Unicode (compared after NFKC), refused when on a list of common passwords, stored
as argon2id hashes (RFC 9106) through argon2-cffi.

The parameters (:class:`Cost`) are chosen so one hash costs 50-150 ms of one core on the machine
the platform is developed on: time cost 3, 32 MiB, one lane took about 90 ms of CPU there
(``make bench``: ``accounts``). Hashing runs in threads, at most :attr:`Hasher.concurrency` at
once per process, so a burst of sign-ins queues instead of taking every core and memory.

The common passwords: ``common-passwords.txt`` beside this module holds every entry of at least 8
characters (8,359, most common first) of the list Django 5.2 ships
(``django/contrib/auth/common-passwords.txt.gz``: the 20,000 most common passwords by Royce
Williams, lowercased; BSD-licensed). Shorter ones are refused for their length anyway. A password
is compared case-folded, as the list is lowercase.
"""

from __future__ import annotations

import asyncio
import functools
import time
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import prometheus_client
from argon2 import PasswordHasher, Type
from argon2.exceptions import InvalidHashError, VerificationError

MIN_LENGTH = 8
MAX_LENGTH = 256
"""Longer text is refused before it is hashed (argon2 takes any length, its caller should not)."""

COMMON_PASSWORDS = Path(__file__).with_name("common-passwords.txt")

HASH_SECONDS = prometheus_client.Histogram(
    "maumau_accounts_password_hash_seconds",
    "Time from asking for a password hash (or its check) to its answer, waiting included.",
    buckets=(0.025, 0.05, 0.1, 0.15, 0.25, 0.5, 1.0, 2.5, 5.0),
)


class BadPassword(ValueError):
    """A password that cannot be set; ``code`` names why (maumau.accounts.errors)."""

    def __init__(self, code: str, **params: object) -> None:
        super().__init__(code)
        self.code = code
        self.params = params


def normalised(password: str) -> str:
    """The password as it is hashed: NFKC, so the same text typed on any keyboard matches."""
    return unicodedata.normalize("NFKC", password)


def check_password(password: str) -> str:
    """The password to hash; BadPassword says why not (too short or long, a common one).

    >>> check_password("correct horse battery staple")
    'correct horse battery staple'
    >>> [_why(p) for p in ("short", "x" * 300, "password1", "PassWord1", "mau-mau at the table")]
    ['password_length', 'password_length', 'password_common', 'password_common', 'ok']
    """
    text = normalised(password)
    if not MIN_LENGTH <= len(text) <= MAX_LENGTH:
        raise BadPassword("password_length", least=MIN_LENGTH, most=MAX_LENGTH)
    if text.casefold() in common_passwords():
        raise BadPassword("password_common")
    return text


def _why(password: str) -> str:
    try:
        check_password(password)
    except BadPassword as error:
        return error.code
    return "ok"


@functools.cache
def common_passwords() -> frozenset[str]:
    return frozenset(COMMON_PASSWORDS.read_text(encoding="utf-8").splitlines())


@dataclass(frozen=True)
class Cost:
    """argon2id's parameters: iterations, memory in KiB, lanes."""

    time_cost: int = 3
    memory_kib: int = 32 * 1024
    parallelism: int = 1


class Hasher:
    """argon2id hashing and checking off the event loop, ``concurrency`` at a time."""

    def __init__(self, cost: Cost = Cost(), concurrency: int = 2) -> None:
        self.cost = cost
        self.concurrency = concurrency
        self._hasher = PasswordHasher(
            time_cost=cost.time_cost,
            memory_cost=cost.memory_kib,
            parallelism=cost.parallelism,
            type=Type.ID,
        )
        self._slots = asyncio.Semaphore(concurrency)
        self._dummy = self._hasher.hash("a password nobody has: for unknown names")

    async def hash(self, password: str) -> str:
        """The PHC string of ``password`` (checked already), salt included."""
        started = time.perf_counter()
        async with self._slots:
            hashed = await asyncio.to_thread(self._hasher.hash, password)
        HASH_SECONDS.observe(time.perf_counter() - started)
        return hashed

    async def verify(self, stored: str | None, password: str) -> bool:
        """Whether ``password`` matches the stored hash; with none stored (an unknown name, an
        account without a password) a dummy hash of the same cost is checked, so the answer
        takes as long either way."""
        text = normalised(password)[:MAX_LENGTH]
        started = time.perf_counter()
        async with self._slots:
            verified = await asyncio.to_thread(self._verify, stored, text)
        HASH_SECONDS.observe(time.perf_counter() - started)
        return verified

    def _verify(self, stored: str | None, password: str) -> bool:
        try:
            self._hasher.verify(stored or self._dummy, password)
        except (VerificationError, InvalidHashError):
            return False
        return stored is not None

    def needs_rehash(self, stored: str) -> bool:
        """Whether a stored hash was made with other parameters (rehash it at the next sign-in)."""
        try:
            return bool(self._hasher.check_needs_rehash(stored))
        except InvalidHashError:
            return True
