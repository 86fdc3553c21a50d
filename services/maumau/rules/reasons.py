"""Reasons for a move, as stable codes with parameters, rendered in English or German.

The bots' hints explain each ranked action with :class:`Reason` values; a client receives the
codes and parameters (``maumau.v1.Reason``) and renders them in its own language, as it does with
the rules core's errors. Every claim a reason makes is checked against the view it was given by
the bots' property tests (a "longest suit" names the longest suit, and so on).

>>> reason = Reason.of("shorter_suit", suit="S", count=1, best="D", best_count=2)
>>> render(reason, "en")
'spades is not your longest suit (1 card; diamonds has 2)'
>>> render(reason, "de")
'Pik ist nicht deine längste Farbe (1 Karte; Karo hat 2)'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Final

from maumau.rules.errors import SUIT_NAMES

REASONS: Final[dict[str, dict[str, str]]] = {
    "en": {
        "last_card": "your last card: go out",
        "with_call": "makes the {call_word} call that is due",
        "catch_owed": "catch seat {seat}: it owes a call",
        "press_last": "press 'last' at once, before anyone else does",
        "name_suit": "name {suit_name}: you hold {count_cards} of it",
        "keep_drawn": "keep the drawn card",
        "challenge_likely": "challenge: seat {seat} still holds {cards_cards}, so a bluff is "
        "likely",
        "challenge_honest": "a W+4 from seat {seat} with {cards_cards} is usually honest",
        "accept_penalty": "nothing answers it: take {count_cards}",
        "accept_skip": "nothing answers it: sit out",
        "draw_nothing_fits": "no card fits: draw",
        "draw_instead": "drawing, although {count_cards} of yours would fit",
        "pass_penalty_on": "pass the penalty on with your {rank} instead of taking it",
        "keep_wild": "a {rank} is your way out: spend it only when stuck",
        "wish_most": "wish {suit_name}, the suit you hold most of ({count_cards})",
        "wish_other": "wish {suit_name}: you hold {count_cards} of it, but {best_count} of "
        "{best_name}",
        "stop_seat": "stop seat {seat}, about to go out ({cards_cards} left)",
        "keep_draw_card": "keep your only {rank} to answer a {rank} with",
        "longest_suit": "play from your longest suit ({suit_name}, {count_cards})",
        "shorter_suit": "{suit_name} is not your longest suit ({count_cards}; {best_name} has "
        "{best_count})",
        "fits": "it fits",
        "only_move": "your only legal move",
        "ranked_first": "the best of your {count} moves",
        "search_best": "won {win}% of {worlds} sampled deals; the next best move {next}%",
        "search_no_better": "no other move won clearly more often in {worlds} sampled deals "
        "({next}% against {win}%)",
    },
    "de": {
        "last_card": "deine letzte Karte: geh raus",
        "with_call": "mit der fälligen Ansage {call_word}",
        "catch_owed": "erwische Platz {seat}: er schuldet eine Ansage",
        "press_last": "drück sofort 'Letzte Karte', bevor es ein anderer tut",
        "name_suit": "wünsche {suit_name}: du hältst {count_cards} davon",
        "keep_drawn": "behalte die gezogene Karte",
        "challenge_likely": "anzweifeln: Platz {seat} hält noch {cards_cards}, ein Bluff ist "
        "wahrscheinlich",
        "challenge_honest": "eine W+4 von Platz {seat} mit {cards_cards} ist meist ehrlich",
        "accept_penalty": "nichts pariert sie: nimm {count_cards}",
        "accept_skip": "nichts pariert es: setze aus",
        "draw_nothing_fits": "keine Karte passt: ziehen",
        "draw_instead": "ziehen, obwohl {count_cards} von dir passen würden",
        "pass_penalty_on": "gib die Strafe mit deiner {rank} weiter, statt sie zu nehmen",
        "keep_wild": "eine {rank} ist dein Ausweg: spiele sie nur, wenn nichts anderes geht",
        "wish_most": "wünsche {suit_name}, davon hältst du am meisten ({count_cards})",
        "wish_other": "wünsche {suit_name}: davon hältst du {count_cards}, von {best_name} aber "
        "{best_count}",
        "stop_seat": "halte Platz {seat} auf, der fast draußen ist (noch {cards_cards})",
        "keep_draw_card": "behalte deine einzige {rank}, um eine {rank} zu beantworten",
        "longest_suit": "spiele aus deiner längsten Farbe ({suit_name}, {count_cards})",
        "shorter_suit": "{suit_name} ist nicht deine längste Farbe ({count_cards}; {best_name} "
        "hat {best_count})",
        "fits": "sie passt",
        "only_move": "dein einziger möglicher Zug",
        "ranked_first": "der beste deiner {count} Züge",
        "search_best": "gewann {win} % von {worlds} gezogenen Verteilungen; der nächstbeste Zug "
        "{next} %",
        "search_no_better": "kein anderer Zug gewann in {worlds} gezogenen Verteilungen deutlich "
        "öfter ({next} % gegen {win} %)",
    },
}
"""Every reason code's text per language; ``{x_cards}`` is the number ``x`` with "card(s)"."""

AGAINST: Final = frozenset(
    {"keep_wild", "keep_draw_card", "shorter_suit", "wish_other", "draw_instead",
     "challenge_honest"}
)  # fmt: skip
"""The codes that weigh against the move they are given for: they explain why a move ranks low,
so a tip never gives them for the move it suggests."""

_CARDS: Final = {"en": ("card", "cards"), "de": ("Karte", "Karten")}
_CALLS: Final = {
    "en": {"mau": "'Mau'", "maumau": "'Mau-Mau'", "last": "'Last card'"},
    "de": {"mau": "'Mau'", "maumau": "'Mau-Mau'", "last": "'Letzte Karte'"},
}


@dataclass(frozen=True, slots=True)
class Reason:
    """One reason: a code of :data:`REASONS` and its parameters (as text, like the wire)."""

    code: str
    params: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(cls, code: str, **params: object) -> Reason:
        return cls(code, tuple(sorted((name, str(value)) for name, value in params.items())))

    def __getitem__(self, name: str) -> str:
        return dict(self.params)[name]

    @property
    def text(self) -> str:
        """The reason in English."""
        return render(self, "en")


def render(reason: Reason | tuple[str, Mapping[str, str]], lang: str = "en") -> str:
    """A reason in ``lang`` ('en' or 'de'); an unknown code shows as itself with its
    parameters, so a newer server never breaks an older client."""
    code, params = (reason.code, dict(reason.params)) if isinstance(reason, Reason) else reason
    lang = lang if lang in REASONS else "en"
    names = SUIT_NAMES[lang]
    singular, plural = _CARDS[lang]
    values: dict[str, str] = dict(params)
    for name, value in params.items():
        if name in ("suit", "best"):
            values[f"{name}_name"] = names.get(value, value)
        if value.isdigit():
            values[f"{name}_cards"] = f"{value} {singular if value == '1' else plural}"
        if name == "call":
            values["call_word"] = _CALLS[lang].get(value, value)
    try:
        return REASONS[lang][code].format(**values)
    except (KeyError, IndexError):
        shown = " ".join(f"{k}={v}" for k, v in sorted(params.items()))
        return f"{code} {shown}".strip()


def render_all(reasons: Iterable[Reason], lang: str = "en") -> str:
    """Several reasons as one line, most important first."""
    return "; ".join(render(reason, lang) for reason in reasons)
