"""The named choices of the rules core, as string enumerations.

Each member equals its text (``Phase.OVER == "over"``), so views, bytes and protos carry the same
words as before, while code and type checkers see a closed set instead of any string.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Final


class Phase(StrEnum):
    """What the match waits for."""

    PLAYING = "play"
    """The seat to move plays, draws or takes a pending penalty."""
    DRAWN = "drawn"
    """The seat that drew may play the drawn card or pass."""
    STARTER_SUIT = "starter_suit"
    """A suit is to be named for the starting card (by the dealer or the starting seat)."""
    OVER = "over"
    """The match is over."""


class Pending(StrEnum):
    """An effect the seat to move must answer; ``NONE`` is the empty text, so it is falsy."""

    NONE = ""
    DRAW = "draw"
    """A 7 or draw-2 chain: stack another or take the cards."""
    SKIP = "skip"
    """A stackable 8 (East-Frisian): pass it on with an 8 or sit out."""
    DRAW4 = "draw4"
    """A W+4: take four cards or challenge it."""


class Scoring(StrEnum):
    """How rounds are scored and the match is won."""

    POINTS = "points"
    """Penalty points for the cards left in hand; the lowest total wins."""
    WINS = "wins"
    """Rounds won; the first to the target wins."""
    OSTFRIESLAND = "ostfriesland"
    """Points with the Mau-Mau doubling, over a fixed number of rounds."""
    COLLECT = "collect"
    """The winner's side collects the card points of the other hands."""


class Calls(StrEnum):
    """Which calls a seat owes and how a missed one is caught."""

    NONE = "none"
    """Calls are automatic."""
    MAU = "mau"
    """'Mau' with one card left, 'Mau Mau' when going out."""
    OSTFRIESLAND = "ostfriesland"
    """'Letzte Karte', then 'Mau' or 'Mau-Mau' by how the seat goes out."""
    LAST = "last"
    """The colour game's 'last' button, which may be pressed at any time it is due."""


class JackRule(StrEnum):
    """What a wishing card may go on."""

    FREE = "free"
    """A wishing card goes on anything."""
    NOT_ON_JACK = "not_on_jack"
    """Never a Jack on a Jack."""
    NO_WISH_ON_WISH = "no_wish_on_wish"
    """After a wish no Jack may wish again; a Jack of the wished suit goes as a plain card."""


class Starter(StrEnum):
    """What the turned-up starting card does."""

    NONE = "none"
    DEALER_WISH = "dealer_wish"
    """A Jack lets the dealer name the suit."""
    STARTING_SEAT = "starting_seat"
    """The starter works for the starting seat: a Jack lets it name the suit, a 7 or 8 it may take
    up or ignore."""
    WILD_COLOUR = "wild_colour"
    """A wild lets the starting seat name the colour."""


class DrawWhen(StrEnum):
    STUCK = "stuck"
    """Draw only when no card fits."""
    ANY = "any"
    """A seat may always draw."""


class AfterDraw(StrEnum):
    PLAY_DRAWN = "play_drawn"
    """A fitting drawn card may be played at once, or the seat passes."""
    END_TURN = "end_turn"
    """Drawing ends the turn."""


class AcePower(StrEnum):
    """The classic ace variant."""

    NONE = "none"
    DRAW = "draw"
    """Every other seat draws one card."""
    SKIP = "skip"
    """Every other seat sits out: the ace's player moves again."""


class Finish(StrEnum):
    """How the winner of a round went out."""

    OUT = "out"
    MAU = "mau"
    MAUMAU = "maumau"
    """The East-Frisian finish with a wishing Jack: the others' points double."""


class Reason(StrEnum):
    """Why a match ended."""

    TARGET = "target"
    """A total reached the target."""
    ROUNDS = "rounds"
    """All rounds of the table were played."""
    WINS = "wins"
    """A seat won enough rounds."""
    SINGLE = "single"
    """A casual one-round match."""
    TIE_BREAK = "tie_break"
    """A deciding round among the tied."""
    ABANDONED = "abandoned"
    """Nobody moved for too long. The rules core never ends a match this way: the engine records
    it for matches left idle, so the reason is part of the outcome's closed set."""


@dataclass(frozen=True, slots=True, init=False)
class Outcome:
    """How a match ended: ``winners`` (a team's seats in team play) and why."""

    winners: tuple[int, ...]
    reason: Reason

    def __init__(self, winners: Iterable[int], reason: Reason | str) -> None:
        """Any seats and a reason or its text (what the codec and setups hand in)."""
        object.__setattr__(self, "winners", tuple(winners))
        object.__setattr__(self, "reason", Reason(reason))


# Members as module constants: reading ``Phase.OVER`` goes through the enum class's attribute
# lookup, several times slower than a global, and the hot paths compare phases on every step.
PLAYING: Final = Phase.PLAYING
DRAWN: Final = Phase.DRAWN
STARTER_SUIT: Final = Phase.STARTER_SUIT
OVER: Final = Phase.OVER
NO_PENDING: Final = Pending.NONE
DRAW_PENDING: Final = Pending.DRAW
SKIP_PENDING: Final = Pending.SKIP
DRAW4_PENDING: Final = Pending.DRAW4

# What a card does under a ruleset, as bits of one small number per card (the variant's
# ``marks``, by card code): the hot paths test a bit instead of comparing rank texts.
WISHES: Final = 1
"""Played with a wish (a Jack, a wild): a rank of ``wish_ranks``."""
DRAWS: Final = 2
"""The draw rank (a 7 or draw-2): the next seat draws two, stackable."""
DRAWS_FOUR: Final = 4
"""The challengeable wild draw-4."""
SKIPS: Final = 8
"""The skip rank."""
REVERSES: Final = 16
"""The reverse rank."""
AGAIN: Final = 32
"""The rank after which the same seat plays again (the East-Frisian 9)."""
