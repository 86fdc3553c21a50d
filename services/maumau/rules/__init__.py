"""The rules core: every Mau-Mau rule system as pure, deterministic Python with no I/O.

:class:`Match` is the public face; behind it one module per concern: ``legal`` (checking and
listing actions), ``turns`` (applying them, dealing and scoring rounds), ``calls`` (calls and
catches), ``scoring``, ``observer`` (what one seat sees), ``codec`` (bytes), ``state`` (every
field declared once) and ``variants`` (what each preset changes, behind a few hooks). Values:
``cards``, ``actions``, ``events``, ``kinds`` (the enumerations), ``ruleset``, ``errors``.

>>> from maumau.rules import Match, Ruleset
>>> match = Match.new(Ruleset.create("classic"), seats=4, seed=7)
>>> len(match.view(0).hand)
5

Installing the platform compiles these modules to C with mypyc (``build_support.py``) into the
folder ``_native``, which this package then searches first (``searchpath``), so the compiled
modules are the ones imported; :data:`COMPILED` tells which run. The pure modules stay the
source of truth and run where no compiler was at hand, where ``MAUMAU_PURE_PYTHON=1`` is set, or
where a module was edited after compiling (the folder records the digest of the sources it was
built from).
"""

from typing import Final

from .searchpath import search_compiled_first

search_compiled_first(__path__, __file__, __name__)

# The imports below come after the choice of the compiled or the pure modules (E402 allowed).
from . import match as _match
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
from .kinds import (
    AcePower,
    AfterDraw,
    Calls,
    DrawWhen,
    Finish,
    JackRule,
    Outcome,
    Pending,
    Phase,
    Reason,
    Scoring,
    Starter,
)
from .legal import LegalActions
from .match import Match
from .observer import View
from .ruleset import PRESETS, Ruleset
from .scoring import card_points
from .variants import VARIANTS, Variant, find_variant

COMPILED: Final = not (_match.__file__ or ".py").endswith(".py")
"""Whether the compiled modules run (else the pure ones)."""

__all__ = [
    "ACCEPT",
    "ALL_CARDS",
    "CALLS",
    "CHALLENGE",
    "COMPILED",
    "DRAW",
    "PASS",
    "PRESETS",
    "VARIANTS",
    "Accept",
    "AcePower",
    "Action",
    "AfterDraw",
    "BadCardText",
    "BadInput",
    "BadRuleset",
    "BadSetup",
    "BadSuit",
    "Call",
    "Calls",
    "Card",
    "Catch",
    "Challenge",
    "Draw",
    "DrawWhen",
    "Event",
    "Finish",
    "IllegalAction",
    "JackRule",
    "LegalActions",
    "Match",
    "NameSuit",
    "Outcome",
    "Pass",
    "Pending",
    "Phase",
    "Play",
    "Reason",
    "RulesError",
    "Ruleset",
    "Scoring",
    "Starter",
    "Variant",
    "View",
    "card_points",
    "colour_deck",
    "find_variant",
    "format_cards",
    "french_deck",
    "parse_action",
    "parse_cards",
    "redact",
    "translate",
]
