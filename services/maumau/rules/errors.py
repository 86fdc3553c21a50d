"""Errors of the rules core: each has a stable ``code`` and ``params`` so clients can translate it.

The English message is built from :data:`MESSAGES`; :func:`translate` renders it in German
(or English) from the code and parameters alone, which is all a remote client receives.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

MESSAGES: Final[dict[str, dict[str, str]]] = {
    "en": {
        "bad_card_text": "'{text}' is not a card: write rank and suit like 10H or JD, or a colour "
        "card like R7, Gskip, Brev, Y+2, W, W+4",
        "bad_suit": "'{text}' is not a suit here: choose one of {allowed}",
        "bad_action_text": "'{text}' is not an action: try a card like 7H, JD:S, W+4:R, or draw, "
        "pass, accept, challenge, catch:2, call:last, suit:H",
        "action_text_differs": "the action's text '{text}' names another action than its kind "
        "({action}): send one of them, or both for the same action",
        "bad_option": "option {name}: {reason}",
        "unknown_preset": "no rule system '{name}': choose one of {allowed}",
        "bad_setup": "this setup is not playable: {reason}",
        "bad_seat": "there is no seat {seat} at this table of {seats}",
        "round_over": "the round is over: no more actions until the next round starts",
        "match_over": "the match is over",
        "not_your_turn": "it is seat {turn}'s turn, not yours",
        "card_not_in_hand": "{card} is not in your hand",
        "card_does_not_match": "{card} does not fit on {top}: play {suit_name} or a {rank}",
        "draw_pending": "a {rank} is pending: play a {rank} or take {count} cards",
        "skip_pending": "an {rank} is pending: play an {rank} or sit out",
        "sit_out_pending": "you sit out this turn: accept it (a missed call may still be caught)",
        "wish_needed": "{card} names a suit: add one of {allowed}, like {card}:{example}",
        "wish_not_allowed": "{card} names no suit here",
        "jack_on_jack": "a Jack may not be played on a Jack",
        "wish_on_wish": "a wish is standing: play {suit_name}; a Jack of {suit_name} goes only "
        "as a plain card without a new wish",
        "draw_not_allowed": "you may draw only when no card of yours fits",
        "only_drawn_card": "after drawing, only the drawn card {card} may be played, or pass",
        "pass_not_allowed": "you may pass only after drawing",
        "nothing_to_accept": "there is no penalty or skip for you to take",
        "challenge_not_allowed": "you may challenge only a W+4 played on you",
        "catch_not_allowed": "seat {seat} owes no call you could catch",
        "call_not_due": "no '{call}' call is due from you now",
        "starter_suit_needed": "seat {seat} names the suit for the starter {card} first",
        "starter_suit_not_due": "no suit is to be named for the starter",
        "draw4_bluff_pending": "a W+4 is pending: challenge it or take {count} cards",
    },
    "de": {
        "bad_card_text": "'{text}' ist keine Karte: Rang und Farbe wie 10H oder JD, oder eine "
        "Farbkarte wie R7, Gskip, Brev, Y+2, W, W+4",
        "bad_suit": "'{text}' ist hier keine Farbe: wähle eine von {allowed}",
        "bad_action_text": "'{text}' ist kein Zug: zum Beispiel 7H, JD:S, W+4:R, oder draw, pass, "
        "accept, challenge, catch:2, call:last, suit:H",
        "action_text_differs": "der Text des Zugs '{text}' nennt einen anderen Zug als seine Art "
        "({action}): schicke eines von beiden, oder beide für denselben Zug",
        "bad_option": "Option {name}: {reason}",
        "unknown_preset": "kein Regelwerk '{name}': wähle eines von {allowed}",
        "bad_setup": "dieser Aufbau ist nicht spielbar: {reason}",
        "bad_seat": "an diesem Tisch mit {seats} Plätzen gibt es keinen Platz {seat}",
        "round_over": "die Runde ist vorbei: erst in der nächsten Runde geht es weiter",
        "match_over": "die Partie ist vorbei",
        "not_your_turn": "Platz {turn} ist am Zug, nicht du",
        "card_not_in_hand": "{card} ist nicht auf deiner Hand",
        "card_does_not_match": "{card} passt nicht auf {top}: spiele {suit_name} oder eine {rank}",
        "draw_pending": "eine {rank} liegt an: lege eine {rank} oder nimm {count} Karten",
        "skip_pending": "eine {rank} liegt an: lege eine {rank} oder setze aus",
        "sit_out_pending": "du setzt diesen Zug aus: nimm es an (eine vergessene Ansage kannst "
        "du noch melden)",
        "wish_needed": "{card} wünscht eine Farbe: hänge eine von {allowed} an, etwa "
        "{card}:{example}",
        "wish_not_allowed": "{card} wünscht hier keine Farbe",
        "jack_on_jack": "Bube auf Bube ist nicht erlaubt",
        "wish_on_wish": "ein Wunsch steht: bediene {suit_name}; ein Bube in {suit_name} geht nur "
        "als einfache Karte ohne neuen Wunsch",
        "draw_not_allowed": "du darfst nur ziehen, wenn keine deiner Karten passt",
        "only_drawn_card": "nach dem Ziehen darf nur die gezogene {card} gespielt werden, "
        "oder passe",
        "pass_not_allowed": "passen geht erst nach dem Ziehen",
        "nothing_to_accept": "für dich liegt keine Strafe und kein Aussetzen an",
        "challenge_not_allowed": "anzweifeln kannst du nur eine gegen dich gespielte W+4",
        "catch_not_allowed": "Platz {seat} schuldet keine Ansage, die du melden könntest",
        "call_not_due": "von dir ist gerade keine Ansage '{call}' fällig",
        "starter_suit_needed": "Platz {seat} wünscht zuerst die Farbe für die Startkarte {card}",
        "starter_suit_not_due": "für die Startkarte ist keine Farbe zu wünschen",
        "draw4_bluff_pending": "eine W+4 liegt an: zweifle sie an oder nimm {count} Karten",
    },
}

SUIT_NAMES: Final[dict[str, dict[str, str]]] = {
    "en": {
        "S": "spades",
        "H": "hearts",
        "D": "diamonds",
        "C": "clubs",
        "R": "red",
        "G": "green",
        "B": "blue",
        "Y": "yellow",
    },
    "de": {
        "S": "Pik",
        "H": "Herz",
        "D": "Karo",
        "C": "Kreuz",
        "R": "Rot",
        "G": "Grün",
        "B": "Blau",
        "Y": "Gelb",
    },
}


def translate(code: str, params: Mapping[str, object], lang: str = "en") -> str:
    """The message for an error code in ``lang`` ('en' or 'de'), filled from its parameters."""
    templates = MESSAGES.get(lang, MESSAGES["en"])
    names = SUIT_NAMES.get(lang, SUIT_NAMES["en"])
    values = {key: _show(value) for key, value in params.items()}
    if "suit" in params:
        values["suit_name"] = names.get(str(params["suit"]), str(params["suit"]))
    try:
        return templates[code].format(**values)
    except (KeyError, IndexError):
        return f"{code} {values}"


def _show(value: object) -> str:
    if isinstance(value, tuple | list):
        return ", ".join(str(item) for item in value)
    return str(value)


class RulesError(ValueError):
    """Base of every error the rules core raises; ``code`` and ``params`` are stable for clients."""

    def __init__(self, code: str, **params: object) -> None:
        self.code = code
        self.params = params
        self.message = translate(code, params)
        super().__init__(self.message)


class BadInput(RulesError):
    """Malformed input: text that is no card, suit or action, or an option out of range."""


class BadCardText(BadInput):
    def __init__(self, text: str) -> None:
        super().__init__("bad_card_text", text=text)


class BadSuit(BadInput):
    def __init__(self, text: str, allowed: tuple[str, ...]) -> None:
        super().__init__("bad_suit", text=text, allowed=allowed)


class BadRuleset(BadInput):
    """An unknown preset or option, or an option value out of range."""


class BadSetup(BadInput):
    """An explicit setup that cannot be played (for example a card the deck does not hold)."""

    def __init__(self, reason: str) -> None:
        super().__init__("bad_setup", reason=reason)


class IllegalAction(RulesError):
    """A well-formed action the rules forbid now; the match is left exactly as it was."""
