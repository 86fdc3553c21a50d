"""Rulesets are data: a preset name plus options, validated when created.

>>> ruleset = Ruleset.create("classic", {"deck": "skat32", "target": 50})
>>> ruleset.text
'classic deck=skat32 target=50'

A preset fixes the mechanics of its rule text; options change only what its text names as a variant.
Where a text is ambiguous, the reading chosen is written in the preset's entry of :data:`PRESETS`.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Final

from .cards import COLOURS, DECKS, FRENCH_SUITS, Card
from .errors import BadRuleset
from .kinds import AcePower, AfterDraw, Calls, DrawWhen, JackRule, Scoring, Starter
from .variants import Variant, find_variant


@dataclass(frozen=True, slots=True)
class Ruleset:
    """Every mechanic the rules core switches on; build one with :meth:`create`."""

    preset: str
    options: tuple[tuple[str, object], ...] = ()
    """The options given at creation, sorted by name: the ruleset's text form and identity."""
    deck: str = "french52"
    decks: int = 1
    """Copies of the deck shuffled together; 0 means one deck, two from 7 seats on (classic)."""
    hand_size: int = 5
    min_seats: int = 2
    max_seats: int = 8
    draw_rank: str | None = "7"
    """The rank whose play makes the next seat draw two (stackable), or None."""
    chain_limit: int | None = None
    """How many further draw cards may be stacked on the first one; None: no limit."""
    skip_rank: str = "8"
    skip_stackable: bool = False
    """Whether the skipped seat may pass the skip on with a card of the same rank."""
    again_rank: str | None = None
    """A rank after which the same seat plays again (the East-Frisian 9)."""
    again_may_finish: bool = True
    reverse_rank: str | None = None
    wish_ranks: tuple[str, ...] = ("J",)
    """The ranks that name a suit when played (Jacks, or the colour game's wilds)."""
    draw_four: str | None = None
    """The wild draw-4 card, open to a challenge."""
    ace_power: AcePower = AcePower.NONE
    """Classic variant: every other seat draws one card, or sits out (see :class:`AcePower`)."""
    call_penalty: int = 2
    target: int = 100
    """The total that ends the match; 0 plays a casual single round without scoring."""
    rounds: int = 0
    """A fixed number of rounds per match (East-Frisian tables); 0 when ``target`` decides."""
    teams: bool = False
    """Four seats in two teams, 0+2 and 1+3 (colour)."""
    variant: Variant = field(init=False, repr=False, compare=False)
    """The preset's behaviour bound to these options, chosen once here so play never compares
    preset names."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "variant", find_variant(self.preset)(self))

    # The mechanics a preset fixes (no option changes them) are its variant's class metadata,
    # read through here, so they are written in one place.

    @property
    def jack_rule(self) -> JackRule:
        return self.variant.jack_rule

    @property
    def starter(self) -> Starter:
        return self.variant.starter

    @property
    def calls(self) -> Calls:
        return self.variant.calls

    @property
    def scoring(self) -> Scoring:
        return self.variant.scoring

    @property
    def draw_when(self) -> DrawWhen:
        return self.variant.draw_when

    @property
    def after_draw(self) -> AfterDraw:
        return self.variant.after_draw

    @property
    def suits(self) -> tuple[str, ...]:
        return COLOURS if self.deck == "colour108" else FRENCH_SUITS

    @property
    def text(self) -> str:
        """The preset and its options: ``Ruleset.parse(r.text) == r``."""
        return " ".join(
            [self.preset, *(f"{name}={format_option_value(value)}" for name, value in self.options)]
        )

    def decks_for(self, seats: int) -> int:
        if self.decks:
            return self.decks
        return 2 if seats >= 7 else 1

    def deck_for(self, seats: int) -> list[Card]:
        """Every card a table of ``seats`` plays with, copies included, in a fixed order."""
        return list(DECKS[self.deck]) * self.decks_for(seats)

    def check_seats(self, seats: int) -> None:
        """Raise :class:`BadRuleset` (code ``bad_option``) unless ``seats`` can play this ruleset:
        the preset's seat range, four seats for teams, and the hands fitting the deck."""
        if not self.min_seats <= seats <= self.max_seats:
            raise BadRuleset(
                "bad_option",
                name="seats",
                reason=f"{self.preset} is for {self.min_seats} to {self.max_seats} seats",
            )
        if self.teams and seats != 4:
            raise BadRuleset("bad_option", name="teams", reason="teams need exactly 4 seats")
        deck_size = len(DECKS[self.deck]) * self.decks_for(seats)
        if seats * self.hand_size >= deck_size:
            raise BadRuleset(
                "bad_option",
                name="hand_size",
                reason=f"{seats} hands of {self.hand_size} do not fit a deck of {deck_size}",
            )

    @staticmethod
    def create(preset: str, options: Mapping[str, object] | None = None) -> Ruleset:
        """The preset with ``options`` applied; unknown names and values out of range are errors."""
        base = PRESETS.get(preset)
        if base is None:
            raise BadRuleset("unknown_preset", name=preset, allowed=tuple(PRESETS))
        options = dict(options or {})
        allowed = find_variant(preset).options
        changes: dict[str, object] = {}
        for name, value in sorted(options.items()):
            if name not in allowed:
                raise BadRuleset(
                    "bad_option",
                    name=name,
                    reason=f"not an option of {preset}; choose from {', '.join(allowed)}",
                )
            changes.update(_check_option(name, value))
        return replace(base, options=tuple(sorted(options.items())), **changes)  # type: ignore[arg-type]

    @staticmethod
    @functools.lru_cache(maxsize=256)
    def parse(text: str) -> Ruleset:
        """The ruleset written ``preset name=value ...`` (the inverse of :attr:`text`); cached,
        as every match read back from bytes names its ruleset this way."""
        preset, *pairs = text.split()
        options: dict[str, object] = {}
        for pair in pairs:
            name, _, value = pair.partition("=")
            options[name] = parse_option_value(value)
        return Ruleset.create(preset, options)


def format_option_value(value: object) -> str:
    """An option value as text: ``true``/``false`` for flags, digits for numbers."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def parse_option_value(text: str) -> object:
    """An option value from text, the inverse of :func:`format_option_value`."""
    if text in ("true", "false"):
        return text == "true"
    if text.lstrip("-").isdigit():
        return int(text)
    return text


_CHOICES: Final[dict[str, tuple[str, ...]]] = {
    "deck": ("french52", "skat32"),
    "ace_power": tuple(AcePower),
}
_RANGES: Final[dict[str, tuple[int, int]]] = {
    "hand_size": (3, 10),
    "decks": (1, 4),
    "target": (0, 10_000),
    "rounds": (1, 100),
    "wins": (1, 100),
    "seven_chain_limit": (0, 7),
}
_FLAGS: Final[tuple[str, ...]] = ("sevens", "teams")


def _check_option(name: str, value: object) -> dict[str, object]:
    """The Ruleset fields that option ``name`` sets to ``value``, once checked."""
    if name in _CHOICES:
        if value not in _CHOICES[name]:
            raise BadRuleset(
                "bad_option", name=name, reason=f"choose one of {', '.join(_CHOICES[name])}"
            )
        return {name: AcePower(value) if name == "ace_power" else value}
    if name in _FLAGS:
        if not isinstance(value, bool):
            raise BadRuleset("bad_option", name=name, reason="must be true or false")
        return {"draw_rank": "7" if value else None} if name == "sevens" else {name: value}
    low, high = _RANGES[name]
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise BadRuleset(
            "bad_option", name=name, reason=f"must be a whole number from {low} to {high}"
        )
    if name == "seven_chain_limit":
        return {"chain_limit": value}
    if name == "wins":
        return {"target": value}
    return {name: value}


CLASSIC: Final = Ruleset(
    preset="classic",
    deck="french52",
    decks=0,
    hand_size=5,
    min_seats=2,
    max_seats=8,
    draw_rank="7",
    skip_rank="8",
    wish_ranks=("J",),
    call_penalty=2,
    target=100,
)
"""Family rules (rule text 000). Readings chosen where the text is silent:
a starter 7 or 8 has no effect (only the Jack starter is named); a seat may draw only when no card
fits, and a fitting drawn card may be played at once or kept (pass); a missed call may be caught
until the end of the next turn played, and a seat that went out without 'Mau Mau' wins when that
window closes uncaught (or loses the win if another seat goes out properly first), and wins at
once when play would come back to it, never drawing with no cards; where a last card's effect
skips every other seat (an 8 at two seats, the ace power 'skip'), the next seat still gets the
turn it sits out, to catch the call or accept the skip (pending 'skip'; an 8 does not pass it on);
a call other than the due one is refused; the ace power 'skip' lets the ace's player move again,
and with the ace power 'draw' a seat out of cards draws nothing; ``target=0`` is the casual game
of one unscored round.
In a deciding round after a tie only the tied seats are dealt in; its winner wins the match."""

ONLINE: Final = Ruleset(
    preset="online",
    deck="skat32",
    decks=1,
    hand_size=5,
    min_seats=2,
    max_seats=4,
    draw_rank="7",
    skip_rank="8",
    wish_ranks=("J",),
    target=1,
)
"""The online room game (rule text 001): calls are automatic, the starter has no effect (a Jack
starter asks for its own suit), a Jack never goes on a Jack. ``wins`` sets how many round wins
take the match (default 1; rooms keep their own tally across matches)."""

OSTFRIESLAND: Final = Ruleset(
    preset="ostfriesland",
    deck="skat32",
    decks=3,
    hand_size=6,
    min_seats=2,
    max_seats=8,
    draw_rank="7",
    skip_rank="8",
    skip_stackable=True,
    again_rank="9",
    again_may_finish=False,
    wish_ranks=("J",),
    call_penalty=1,
    target=0,
    rounds=5,
)
"""East-Frisian tournament rules (rule text 002). Readings chosen: a seat may draw only when it
cannot play (the text's 'should he not be able to play'), and drawing ends the turn; a Jack may be
played without a wish only where it fits like a plain card; the 'Letzte Karte' call is owed by a
play that ends the turn with one card (a 9 does not end it), 'Mau' by a finishing plain card and
'Mau-Mau' by a finishing wishing Jack; a wrong word where a call is due counts as no call (the play
stands and the due call is owed, catchable for one card), a word where none is due is refused; a
penalty card that leaves a seat with one card (a catch after going out, or the draw a 9 forces as
the last card) makes 'Letzte Karte' due at once, said as an action of its own ('call last') and
catchable until the end of the next turn; a starter 7 or 8 lets the starting seat stack on it or
play on as if it were plain. A match is one table of ``rounds`` rounds (default 5, as tables change
every 5 rounds); the lowest total wins, then the most Mau-Mau finishes, then a deciding round among
the tied."""

COLOUR: Final = Ruleset(
    preset="colour",
    deck="colour108",
    decks=1,
    hand_size=7,
    min_seats=2,
    max_seats=8,
    draw_rank="+2",
    skip_rank="skip",
    reverse_rank="rev",
    wish_ranks=("W", "W+4"),
    draw_four="W+4",
    call_penalty=2,
    target=100,
)
"""The UNO-like colour game (rule text 003). Readings chosen: a W+4 is legal only when no other card
of the hand is playable (other W+4 cards aside); a challenger of a legal W+4 draws 6 and loses
the turn, a caught bluffer draws 4 and the challenger then plays its turn as usual; a W+4 cannot be
answered by a draw-2; a reverse with two seats only changes direction; a wild starter lets the
starting seat name the colour, other starters have no effect; the 'last' call may be made with
one card left at any time, or with two on one's own turn, and is caught until it is made; the
winner's side collects the card points of the other side's hands."""

PRESETS: Final[dict[str, Ruleset]] = {r.preset: r for r in (CLASSIC, ONLINE, OSTFRIESLAND, COLOUR)}
