"""Cards, suits and decks of both card families the platform plays with.

French cards are written rank + suit (``"10H"``, ``"JD"``, ``"AS"``); colour cards colour + symbol
(``"R7"``, ``"Gskip"``, ``"Brev"``, ``"Y+2"``) and the wilds ``"W"`` and ``"W+4"``. Every card is
an interned immutable value, so cards compare by identity, hash fast, and parse back from their
text form:

>>> Card.parse("10H").text
'10H'
>>> Card.parse("Y+2") is Card.parse("Y+2")
True
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import ClassVar, Final

from .errors import BadCardText

FRENCH_SUITS: Final[tuple[str, ...]] = ("S", "H", "D", "C")
COLOURS: Final[tuple[str, ...]] = ("R", "G", "B", "Y")
FRENCH_RANKS: Final[tuple[str, ...]] = (
    "2",
    "3",
    "4",
    "5",
    "6",
    "7",
    "8",
    "9",
    "10",
    "J",
    "Q",
    "K",
    "A",
)
SKAT_RANKS: Final = FRENCH_RANKS[5:]
COLOUR_SYMBOLS: Final[tuple[str, ...]] = (
    "0",
    "1",
    "2",
    "3",
    "4",
    "5",
    "6",
    "7",
    "8",
    "9",
    "skip",
    "rev",
    "+2",
)
WILD = "W"
WILD_DRAW_FOUR = "W+4"


class Card:
    """One card. ``suit`` is the French suit or the colour ('' for wilds), ``rank`` its rank.

    Cards are created once at import; use :meth:`parse` or :data:`ALL_CARDS`, never the constructor.
    """

    __slots__ = ("code", "rank", "suit", "text")
    _by_text: ClassVar[dict[str, Card]] = {}

    code: int
    rank: str
    suit: str
    text: str

    def __init__(self, code: int, rank: str, suit: str, text: str) -> None:
        object.__setattr__(self, "code", code)  # pragma: no mutate
        object.__setattr__(self, "rank", rank)  # pragma: no mutate
        object.__setattr__(self, "suit", suit)  # pragma: no mutate
        object.__setattr__(self, "text", text)  # pragma: no mutate

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("cards are immutable")

    def __repr__(self) -> str:
        return f"Card.parse({self.text!r})"

    def __str__(self) -> str:
        return self.text

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (Card.parse, (self.text,))

    @property
    def is_wild(self) -> bool:
        """A colour wild (``W`` or ``W+4``): it carries no colour of its own."""
        return self.suit == ""

    @staticmethod
    def parse(text: str) -> Card:
        """The card written ``text``; raises :class:`BadCardText` for anything else."""
        card = Card._by_text.get(text)
        if card is None:
            card = Card._by_text.get(
                text.strip().upper().replace("SKIP", "skip").replace("REV", "rev")
            )
            if card is None:
                raise BadCardText(text)
        return card


def _make_cards() -> tuple[Card, ...]:
    # Runs once at import, before mutmut switches a mutant on. # pragma: no mutate start
    kinds = [(rank, suit, rank + suit) for suit in FRENCH_SUITS for rank in FRENCH_RANKS]
    kinds += [(symbol, colour, colour + symbol) for colour in COLOURS for symbol in COLOUR_SYMBOLS]
    kinds += [(WILD, "", WILD), (WILD_DRAW_FOUR, "", WILD_DRAW_FOUR)]
    cards = tuple(Card(code, rank, suit, text) for code, (rank, suit, text) in enumerate(kinds))
    Card._by_text.update((card.text, card) for card in cards)
    # pragma: no mutate end
    return cards


ALL_CARDS: Final = _make_cards()
"""Every distinct card, indexed by its ``code`` (used for compact serialization)."""


def parse_cards(texts: str | Iterable[str]) -> list[Card]:
    """Cards from a space-separated string or a list of texts: ``parse_cards("7H JD W+4")``."""
    if isinstance(texts, str):
        texts = texts.split()
    return [Card.parse(text) for text in texts]


def format_cards(cards: Iterable[Card]) -> str:
    """The space-separated text form of some cards, the inverse of :func:`parse_cards`."""
    return " ".join(card.text for card in cards)


def french_deck(ranks: Sequence[str] = FRENCH_RANKS) -> list[Card]:
    """One French deck in a fixed order: 52 cards, or 32 with ``SKAT_RANKS``."""
    return [Card.parse(rank + suit) for suit in FRENCH_SUITS for rank in ranks]


def colour_deck() -> list[Card]:
    """The 108-card colour deck: per colour one 0 and two of every other symbol; 4 W and 4 W+4."""
    deck = []
    for colour in COLOURS:
        deck.append(Card.parse(colour + "0"))
        for symbol in COLOUR_SYMBOLS[1:]:
            deck += [Card.parse(colour + symbol)] * 2
    return deck + [Card.parse(WILD)] * 4 + [Card.parse(WILD_DRAW_FOUR)] * 4


DECKS: Final[dict[str, tuple[Card, ...]]] = {
    "french52": tuple(french_deck()),
    "skat32": tuple(french_deck(SKAT_RANKS)),
    "colour108": tuple(colour_deck()),
}
"""Every deck by name, in its fixed order; a ruleset also names how many copies are shuffled
together. Built once: every round deals from a copy."""
