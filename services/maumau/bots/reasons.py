"""The reasons of ``Hint`` in the asker's language.

The policies explain each ranked action in short English phrases, joined by "; ". Each phrase
has a pattern here and its words in English and German, with suit letters and calls named; a
phrase without a pattern stays as the policies wrote it (a test plays random matches and finds
none), so a new phrase shows up in English rather than not at all.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from maumau.rules.errors import SUIT_NAMES

LANGUAGES = ("en", "de")

PHRASES: tuple[tuple[re.Pattern[str], Mapping[str, str]], ...] = tuple(
    (re.compile(f"^{pattern}$"), words)
    for pattern, words in (
        (
            r"catch seat (?P<seat>\d+): it owes a call",
            {
                "en": "catch seat {seat}: it owes a call",
                "de": "Platz {seat} erwischen: er schuldet eine Ansage",
            },
        ),
        (
            r"press 'last' at once, before anyone else does",
            {
                "en": "press “last” at once, before anyone else does",
                "de": "sofort „letzte“ drücken, bevor es ein anderer tut",
            },
        ),
        (
            r"you hold most (?P<suit>\w)",
            {"en": "you hold most {suit}", "de": "du hast am meisten {suit}"},
        ),
        (
            r"keep the drawn card",
            {"en": "keep the drawn card", "de": "die gezogene Karte behalten"},
        ),
        (
            r"challenge: a long hand makes a bluff likely",
            {
                "en": "challenge: a long hand makes a bluff likely",
                "de": "anzweifeln: bei so vielen Karten ist ein Bluff wahrscheinlich",
            },
        ),
        (
            r"challenge: a W\+4 is usually honest",
            {
                "en": "challenge: a W+4 is usually honest",
                "de": "anzweifeln: eine W+4 ist meist ehrlich",
            },
        ),
        (
            r"nothing answers it: take the cards or sit out",
            {
                "en": "nothing answers it: take the cards or sit out",
                "de": "nichts hält dagegen: Karten nehmen oder aussetzen",
            },
        ),
        (r"no card fits: draw", {"en": "no card fits: draw", "de": "keine Karte passt: ziehen"}),
        (
            r"with the '(?P<call>\w+)' call",
            {"en": "with the {call} call", "de": "mit der Ansage {call}"},
        ),
        (
            r"your last card: go out",
            {"en": "your last card: go out", "de": "deine letzte Karte: raus damit"},
        ),
        (
            r"pass the penalty on instead of taking it",
            {
                "en": "pass the penalty on instead of taking it",
                "de": "die Strafe weitergeben, statt sie zu nehmen",
            },
        ),
        (
            r"a Jack or wild is your way out: spend it only when stuck",
            {
                "en": "a Jack or wild is your way out: spend it only when stuck",
                "de": "ein Bube oder eine Farbwahl ist dein Ausweg: nur spielen, wenn nichts "
                "anderes geht",
            },
        ),
        (
            r"wish (?P<suit>\w), your longest suit",
            {"en": "wish {suit}, your longest suit", "de": "{suit} wünschen, deine längste Farbe"},
        ),
        (
            r"stop seat (?P<seat>\d+), who is about to go out",
            {
                "en": "stop seat {seat}, who is about to go out",
                "de": "Platz {seat} bremsen, der fast fertig ist",
            },
        ),
        (
            r"keep one 7 to answer a 7 with",
            {
                "en": "keep one 7 to answer a 7 with",
                "de": "eine 7 behalten, um auf eine 7 zu antworten",
            },
        ),
        (
            r"play from your longest suit \((?P<suit>\w)\)",
            {
                "en": "play from your longest suit ({suit})",
                "de": "aus deiner längsten Farbe spielen ({suit})",
            },
        ),
        (r"it fits", {"en": "it fits", "de": "sie passt"}),
    )
)

CALLS: Mapping[str, Mapping[str, str]] = {
    "en": {"mau": "“Mau”", "maumau": "“Mau-Mau”", "last": "“Last card”"},
    "de": {"mau": "„Mau“", "maumau": "„Mau-Mau“", "last": "„Letzte Karte“"},
}


def phrase(text: str, lang: str) -> str | None:
    """One phrase in ``lang``, or None when no pattern knows it."""
    for pattern, words in PHRASES:
        found = pattern.match(text)
        if found is None:
            continue
        values = found.groupdict()
        if "suit" in values:
            values["suit"] = SUIT_NAMES[lang].get(values["suit"], values["suit"])
        if "call" in values:
            values["call"] = CALLS[lang].get(values["call"], values["call"])
        return words[lang].format(**values)
    return None


def translate_reason(reason: str, lang: str) -> str:
    """A reason of the policies in ``lang`` ('en' or 'de'); '' (the default) keeps it as it is."""
    if lang not in LANGUAGES or not reason:
        return reason
    return "; ".join(phrase(part, lang) or part for part in reason.split("; "))
