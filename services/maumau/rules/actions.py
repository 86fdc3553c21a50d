"""Actions a seat can take, as small immutable values with a text form that round-trips.

>>> parse_action("JD:S!mau")
Play(card=Card.parse('JD'), suit='S', call='mau')
>>> parse_action("JD:S!mau").text
'JD:S!mau'
>>> parse_action("catch:2").text
'catch:2'

Actions never name the acting seat: the seat is passed beside the action (and in the services it
comes from the caller's seat token).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Final

from .cards import COLOURS, FRENCH_SUITS, Card
from .errors import BadCardText, BadInput

CALLS: Final[tuple[str, ...]] = ("mau", "maumau", "last")
"""Words a seat may call: 'Mau' (one card left), 'Mau Mau' (finished), 'last' ('Letzte Karte',
or the colour game's 'last' button)."""


@dataclass(frozen=True, slots=True)
class Play:
    """Play ``card``; ``suit`` names the wished suit or colour, ``call`` is the call it carries."""

    card: Card
    suit: str | None = None
    call: str | None = None

    @property
    def text(self) -> str:
        text = self.card.text
        if self.suit is not None:
            text += ":" + self.suit
        if self.call is not None:
            text += "!" + self.call
        return text


@dataclass(frozen=True, slots=True)
class Draw:
    """Draw one card from the draw pile."""

    text: ClassVar[str] = "draw"


@dataclass(frozen=True, slots=True)
class Pass:
    """End the turn after drawing, keeping the drawn card."""

    text: ClassVar[str] = "pass"


@dataclass(frozen=True, slots=True)
class Accept:
    """Take the pending penalty cards, or sit out a pending skip."""

    text: ClassVar[str] = "accept"


@dataclass(frozen=True, slots=True)
class Challenge:
    """Challenge the W+4 just played on this seat."""

    text: ClassVar[str] = "challenge"


@dataclass(frozen=True, slots=True)
class Catch:
    """Catch ``seat`` missing a call it owed; the caught seat draws penalty cards."""

    seat: int

    @property
    def text(self) -> str:
        return f"catch:{self.seat}"


@dataclass(frozen=True, slots=True)
class Call:
    """Make a call on its own, outside a play (the colour game's 'last' button)."""

    word: str

    @property
    def text(self) -> str:
        return f"call:{self.word}"


@dataclass(frozen=True, slots=True)
class NameSuit:
    """Name the suit or colour that a Jack or wild turned up as starter asks for."""

    suit: str

    @property
    def text(self) -> str:
        return f"suit:{self.suit}"


Action = Play | Draw | Pass | Accept | Challenge | Catch | Call | NameSuit

DRAW: Final = Draw()
PASS: Final = Pass()
ACCEPT: Final = Accept()
CHALLENGE: Final = Challenge()

CALL_LAST: Final = Call("last")
CATCHES: Final = tuple(Catch(seat) for seat in range(8))
"""The catch of every seat a table can have (8 at most), built once for the legal-action lists."""

_WORDS: Final[dict[str, Action]] = {
    "draw": DRAW,
    "pass": PASS,
    "accept": ACCEPT,
    "challenge": CHALLENGE,
}
_SUITS: Final = frozenset(FRENCH_SUITS + COLOURS)


def parse_action(text: str) -> Action:
    """The action written ``text``; raises :class:`BadInput` with code ``bad_action_text``."""
    word = text.strip()
    simple = _WORDS.get(word.lower())
    if simple is not None:
        return simple
    head, _, arg = word.partition(":")
    kind = head.lower()
    if kind == "catch" and arg.isdigit():
        return Catch(int(arg))
    if kind == "call" and arg.lower() in CALLS:
        return Call(arg.lower())
    if kind == "suit" and arg.upper() in _SUITS:
        return NameSuit(arg.upper())
    card_text, _, call = word.partition("!")
    card_text, _, suit = card_text.rpartition(":") if ":" in card_text else (card_text, "", "")
    try:
        card = Card.parse(card_text)
    except BadCardText:
        raise BadInput("bad_action_text", text=text) from None
    if (suit and suit.upper() not in _SUITS) or (call and call.lower() not in CALLS):
        raise BadInput("bad_action_text", text=text)
    return Play(card, suit.upper() or None, call.lower() or None)
