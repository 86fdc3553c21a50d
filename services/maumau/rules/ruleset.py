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
from dataclasses import dataclass, replace
from typing import Final

from .cards import COLOURS, FRENCH_SUITS
from .errors import BadRuleset


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
    jack_rule: str = "free"
    """'free': a Jack goes on anything; 'not_on_jack': never on a Jack; 'no_wish_on_wish':
    after a wish no Jack may wish again, but a Jack of the wished suit goes as a plain card."""
    draw_four: str | None = None
    """The wild draw-4 card, open to a challenge."""
    ace_power: str = "none"
    """Classic variant: 'draw' (every other seat draws 1) or 'skip' (every other seat sits out)."""
    draw_when: str = "stuck"
    """'stuck': draw only when no card fits; 'any': a seat may always draw."""
    after_draw: str = "play_drawn"
    """'play_drawn': a fitting drawn card may be played at once, or the seat passes;
    'end_turn': drawing ends the turn."""
    starter: str = "none"
    """'dealer_wish': a Jack starter lets the dealer name the suit; 'starting_seat': the starter
    works for the starting seat (a Jack lets it name the suit, a 7 or 8 it may take up or ignore);
    'wild_colour': a wild starter lets the starting seat name the colour; 'none': no effect."""
    calls: str = "none"
    """'mau' (classic), 'ostfriesland', 'last' (the colour button) or 'none' (automatic)."""
    call_penalty: int = 2
    scoring: str = "points"
    """'points' (penalty points, lowest wins), 'wins' (rounds won), 'ostfriesland' (points with
    the Mau-Mau doubling), 'collect' (the winner's side collects the others' card points)."""
    target: int = 100
    """The total that ends the match; 0 plays a casual single round without scoring."""
    rounds: int = 0
    """A fixed number of rounds per match (East-Frisian tables); 0 when ``target`` decides."""
    teams: bool = False
    """Four seats in two teams, 0+2 and 1+3 (colour)."""

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

    @staticmethod
    def create(preset: str, options: Mapping[str, object] | None = None) -> Ruleset:
        """The preset with ``options`` applied; unknown names and values out of range are errors."""
        base = PRESETS.get(preset)
        if base is None:
            raise BadRuleset("unknown_preset", name=preset, allowed=tuple(PRESETS))
        options = dict(options or {})
        allowed = PRESET_OPTIONS[preset]
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
    "ace_power": ("none", "draw", "skip"),
}
_RANGES: Final[dict[str, tuple[int, int]]] = {
    "hand_size": (3, 10),
    "decks": (1, 4),
    "target": (0, 10_000),
    "rounds": (1, 100),
    "wins": (1, 100),
    "seven_chain_limit": (0, 7),
}
_FLAGS: Final = ("sevens", "teams")


def _check_option(name: str, value: object) -> dict[str, object]:
    """The Ruleset fields that option ``name`` sets to ``value``, once checked."""
    if name in _CHOICES:
        if value not in _CHOICES[name]:
            raise BadRuleset(
                "bad_option", name=name, reason=f"choose one of {', '.join(_CHOICES[name])}"
            )
        return {name: value}
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
    jack_rule="free",
    draw_when="stuck",
    after_draw="play_drawn",
    starter="dealer_wish",
    calls="mau",
    call_penalty=2,
    scoring="points",
    target=100,
)
"""Family rules (rule text 000). Readings chosen where the text is silent:
a starter 7 or 8 has no effect (only the Jack starter is named); a seat may draw only when no card
fits, and a fitting drawn card may be played at once or kept (pass); a missed call may be caught
until the end of the next turn played, and a seat that went out without 'Mau Mau' wins when that
window closes uncaught (or loses the win if another seat goes out properly first); the ace power
'skip' lets the ace's player move again; ``target=0`` is the casual game of one unscored round.
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
    jack_rule="not_on_jack",
    draw_when="any",
    after_draw="play_drawn",
    starter="none",
    calls="none",
    scoring="wins",
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
    jack_rule="no_wish_on_wish",
    draw_when="stuck",
    after_draw="end_turn",
    starter="starting_seat",
    calls="ostfriesland",
    call_penalty=1,
    scoring="ostfriesland",
    target=0,
    rounds=5,
)
"""East-Frisian tournament rules (rule text 002). Readings chosen: a seat may draw only when it
cannot play (the text's 'should he not be able to play'), and drawing ends the turn; a Jack may be
played without a wish only where it fits like a plain card; the 'Letzte Karte' call is owed by a
play that ends the turn with one card (a 9 does not end it), 'Mau' by a finishing plain card and
'Mau-Mau' by a finishing wishing Jack; a penalty card received when caught creates no new call; a
starter 7 or 8 lets the starting seat stack on it or play on as if it were plain. A match is one
table of ``rounds`` rounds (default 5, as tables change every 5 rounds); the lowest total wins,
then the most Mau-Mau finishes, then a deciding round among the tied."""

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
    draw_when="any",
    after_draw="play_drawn",
    starter="wild_colour",
    calls="last",
    call_penalty=2,
    scoring="collect",
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

PRESET_OPTIONS: Final[dict[str, tuple[str, ...]]] = {
    "classic": ("deck", "decks", "hand_size", "target", "ace_power", "seven_chain_limit", "sevens"),
    "online": ("wins",),
    "ostfriesland": ("rounds",),
    "colour": ("target", "teams"),
}
