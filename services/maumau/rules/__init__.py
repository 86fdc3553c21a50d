"""The rules core: every Mau-Mau rule system as pure, deterministic Python with no I/O.

>>> from maumau.rules import Match, Ruleset
>>> match = Match.new(Ruleset.create("classic"), seats=4, seed=7)
>>> len(match.view(0).hand)
5
"""

from .actions import (
    ACCEPT,
    CALLS,
    CHALLENGE,
    DRAW,
    PASS,
    Accept,
    Action,
    Call,
    Catch,
    Challenge,
    Draw,
    NameSuit,
    Pass,
    Play,
    parse_action,
)
from .cards import ALL_CARDS, Card, colour_deck, format_cards, french_deck, parse_cards
from .errors import (
    BadCardText,
    BadInput,
    BadRuleset,
    BadSetup,
    BadSuit,
    IllegalAction,
    RulesError,
    translate,
)
from .events import Event, redact
from .match import LegalActions, Match, Outcome, View, card_points
from .ruleset import PRESETS, Ruleset

__all__ = [
    "ACCEPT",
    "ALL_CARDS",
    "CALLS",
    "CHALLENGE",
    "DRAW",
    "PASS",
    "PRESETS",
    "Accept",
    "Action",
    "BadCardText",
    "BadInput",
    "BadRuleset",
    "BadSetup",
    "BadSuit",
    "Call",
    "Card",
    "Catch",
    "Challenge",
    "Draw",
    "Event",
    "IllegalAction",
    "LegalActions",
    "Match",
    "NameSuit",
    "Outcome",
    "Pass",
    "Play",
    "RulesError",
    "Ruleset",
    "View",
    "card_points",
    "colour_deck",
    "format_cards",
    "french_deck",
    "parse_action",
    "parse_cards",
    "redact",
    "translate",
]
