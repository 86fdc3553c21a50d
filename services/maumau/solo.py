"""A solo match against the computers, played on the player's own device: the page runs this
module with the rules core and the bot levels in Pyodide, so the rules have one implementation.

A match is its record: the ruleset, the seats, the computers' level, the seed and every action
taken with its seat. The page keeps the record in its own storage; :meth:`Solo.resume` replays
it with the rules core (same seed and same actions give the same match), so a reload sits at the
same hand and turn.

What the page reads is JSON in the gateway's shapes: a seat's view as the gateway sends it (the
``View`` message through protobuf's printer: proto field names, 64-bit numbers as strings, unset
optional fields left out) and events as the live feed sends them, redacted for the player's seat.
The gateway's printer needs protobuf, which the page does not load, so the shapes are written
here and ``tests/test_solo.py`` holds them equal to the gateway's for whole random matches.

>>> solo = Solo.start({"ruleset": "classic target=0", "seats": 2, "level": "random", "seed": "s1"})
>>> view = json.loads(solo.view_json())
>>> view["seat"], len(view["hand"]), view["seats"][1]["bot_level"]
(0, 5, 'random')
"""

from __future__ import annotations

import dataclasses
import json
import random
import re
from typing import Any

from maumau.policies.levels import LEVELS, decide
from maumau.policies.tips import tips
from maumau.rules import Action, Match, Play, Ruleset, View, parse_action, redact
from maumau.rules import events as ev
from maumau.rules.errors import RulesError, translate
from maumau.rules.reasons import render_all

PLAYER = 0
"""The player's seat; the computers hold the others."""
STRONG_BUDGET_SECONDS = 0.2
"""How long a ``strong`` computer thinks in the page: the engine's default Decide budget."""
TIP_BUDGET_SECONDS, TIP_ITERATIONS = 0.1, 400
"""The search behind a tip, as the Bots service's Hint."""
MAX_ACTIONS = 20_000
"""A record longer than any match is refused rather than replayed."""


MESSAGES = {
    "en": {
        "level": "no computer level {level!r}: choose random, heuristic or strong",
        "computers": "play against 1 to 3 computers",
        "seed": "the seed is 1 to 128 letters, digits, '-' or '_'",
        "record": "the kept match cannot be read ({detail}): start a new one",
        "seat": "no seat {seat} at this table",
    },
    "de": {
        "level": "keine Computerstufe {level!r}: wähle random, heuristic oder strong",
        "computers": "spiel gegen 1 bis 3 Computer",
        "seed": "der Startwert hat 1 bis 128 Buchstaben, Ziffern, '-' oder '_'",
        "record": "die gespeicherte Partie lässt sich nicht lesen ({detail}): fang eine neue an",
        "seat": "an diesem Tisch gibt es keinen Platz {seat}",
    },
}
"""The texts of a refused record, by language; the codes are stable."""


class SoloError(ValueError):
    """A record or an action the page sent that makes no match; ``code`` is stable."""

    def __init__(self, code: str, **params: object) -> None:
        self.code = code
        self.params = params
        super().__init__(self.text("en"))

    def text(self, lang: str) -> str:
        return MESSAGES.get(lang, MESSAGES["en"])[self.code].format(**self.params)


class Solo:
    """One solo match and its record."""

    def __init__(self, ruleset: Ruleset, seats: int, level: str, seed: str, name: str) -> None:
        if level not in LEVELS:
            raise SoloError("level", level=level)
        if not 2 <= seats <= 4:
            raise SoloError("computers")
        if not re.fullmatch(r"[0-9A-Za-z_-]{1,128}", seed):
            raise SoloError("seed")
        ruleset.check_seats(seats)
        self.ruleset = ruleset
        self.level = level
        self.seed = seed
        self.name = name[:32]
        self.match, events = Match.start(ruleset, seats, seed)
        self.actions: list[tuple[int, str]] = []
        self.events = [event_json(e) for e in events]
        self.rng = random.Random()

    @classmethod
    def start(cls, record: dict[str, Any]) -> Solo:
        """A new match from a record without actions, or one replayed from its actions."""
        try:
            solo = cls(
                Ruleset.parse(str(record["ruleset"])),
                int(record["seats"]),
                str(record["level"]),
                str(record["seed"]),
                str(record.get("name", "")),
            )
        except (KeyError, TypeError, ValueError) as error:
            if isinstance(error, (SoloError, RulesError)):
                raise
            raise SoloError("record", detail=f"{type(error).__name__}: {error}") from None
        actions = record.get("actions", [])
        if not isinstance(actions, list) or len(actions) > MAX_ACTIONS:
            raise SoloError("record", detail="its actions are no list of [seat, action]")
        for step in actions:
            if not (isinstance(step, list) and len(step) == 2 and isinstance(step[0], int)):
                raise SoloError("record", detail=f"{str(step)[:40]} is no [seat, action]")
            solo.apply(step[0], str(step[1]))
        return solo

    @classmethod
    def resume(cls, record_text: str) -> Solo:
        """The match a record kept by the page (JSON) describes, replayed to where it stood."""
        try:
            record = json.loads(record_text)
        except ValueError:
            raise SoloError("record", detail="no JSON") from None
        if not isinstance(record, dict):
            raise SoloError("record", detail="no JSON object")
        return cls.start(record)

    def record(self) -> dict[str, Any]:
        return {
            "ruleset": self.ruleset.text,
            "seats": self.match.seats,
            "level": self.level,
            "seed": self.seed,
            "name": self.name,
            "actions": [list(step) for step in self.actions],
        }

    def record_json(self) -> str:
        return json.dumps(self.record(), separators=(",", ":"))

    @property
    def version(self) -> int:
        return len(self.actions) + 1

    def over(self) -> bool:
        return self.match.view(None).outcome is not None

    def apply(self, seat: int, text: str) -> list[dict[str, Any]]:
        """``seat``'s action in its text form, checked by the rules core; its events as the
        player sees them. A refused action changes nothing."""
        if not 0 <= seat < self.match.seats:
            raise SoloError("seat", seat=seat)
        action = parse_action(text)
        events = [event_json(e) for e in self.match.apply(seat, action)]
        self.actions.append((seat, action.text))
        self.events.extend(events)
        return events

    def computer_seat(self) -> int | None:
        """The computer the match waits for, if it waits for one."""
        view = self.match.view(None)
        if view.outcome is not None or not PLAYER < view.to_act < self.match.seats:
            return None
        return view.to_act

    def decide(self, seat: int) -> Action:
        view = self.match.view(seat)
        return decide(view, self.level, self.rng, STRONG_BUDGET_SECONDS)

    def player_view(self) -> View:
        return self.match.view(PLAYER)

    # ------------------------------------------------------------------ the page's calls

    def view_json(self) -> str:
        return json.dumps(view_json(self.player_view(), self.seat_info(), self.version))

    def events_json(self) -> str:
        """Every event so far, as the player saw them."""
        return json.dumps(self.events)

    def info_json(self) -> str:
        """The match as the page's table reads it from the gateway's match info."""
        preset, *options = self.ruleset.text.split(" ")
        return json.dumps(
            {
                "match_id": f"solo-{self.seed}",
                "ruleset_text": self.ruleset.text,
                "ruleset": {"preset": preset, "options": dict(o.split("=", 1) for o in options)},
                "seats": self.match.seats,
                "seat_info": self.seat_info(),
                "turn_seconds": 0,
                "ranked": False,
                "level": self.level,
            }
        )

    def act_json(self, text: str, lang: str = "en") -> str:
        """The player's action: its events and the new view, or the refusal in ``lang``."""
        try:
            events = self.apply(PLAYER, text)
        except RulesError as error:
            return refusal_json(error.code, translate(error.code, error.params, lang))
        return json.dumps({"events": events, "view": json.loads(self.view_json())})

    def computer_json(self) -> str:
        """One computer's move (its events), or ``null`` when the match waits for none."""
        seat = self.computer_seat()
        if seat is None:
            return "null"
        return json.dumps({"seat": seat, "events": self.apply(seat, self.decide(seat).text)})

    def tips_json(self, lang: str = "en") -> str:
        """The player's legal actions ranked as the Bots service's Hint ranks them."""
        view = self.player_view()
        ranked = tips(view, self.rng, TIP_BUDGET_SECONDS, TIP_ITERATIONS) if view.legal else []
        answer = [
            {"action": r.action.text, "score": r.score, "reason": render_all(r.reasons, lang)}
            for r in ranked
        ]
        return json.dumps({"version": str(self.version), "actions": answer})

    def seat_info(self) -> list[dict[str, Any]]:
        return [
            {
                "seat": seat,
                "player_id": "",
                "name": self.name if seat == PLAYER else "",
                "bot_level": "" if seat == PLAYER else self.level,
                "left": False,
            }
            for seat in range(self.match.seats)
        ]


def refusal_json(code: str, message: str) -> str:
    return json.dumps({"error": {"code": code, "message": message}})


def start_json(record_text: str, lang: str = "en") -> tuple[Solo | None, str]:
    """The page's start: the match of a record (new or kept), or the refusal as JSON."""
    try:
        return Solo.resume(record_text), "{}"
    except SoloError as error:
        return None, refusal_json(error.code, error.text(lang))
    except RulesError as error:
        return None, refusal_json(error.code, translate(error.code, error.params, lang))


# ---------------------------------------------------------------------- the gateway's shapes


def _value(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_value(v) for v in value]
    if value is None:
        return ""
    if isinstance(value, (bool, int, str)):
        return value
    return str(value.text)


def _kind(event: ev.Event) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", type(event).__name__).lower()


def event_json(event: ev.Event, viewer: int | None = PLAYER) -> dict[str, Any]:
    """A rules event as the live feed sends it to ``viewer``.

    >>> event_json(ev.Drew(1, 2, "penalty", ()))
    {'drew': {'seat': 1, 'count': 2, 'reason': 'penalty', 'cards': []}}
    """
    event = redact(event, viewer)
    fields = {f.name: _value(getattr(event, f.name)) for f in dataclasses.fields(event)}
    if isinstance(event, (ev.DirectionChanged, ev.Reshuffled)):
        return {_kind(event): next(iter(fields.values()))}
    return {_kind(event): fields}


def _action_json(action: Action) -> dict[str, Any]:
    text = action.text
    if isinstance(action, Play):
        play = {"card": action.card.text, "suit": action.suit or "", "call": action.call or ""}
        return {"play": play, "text": text}
    if text.startswith("catch:"):
        return {"catch_seat": int(text[6:]), "text": text}
    if text.startswith("call:"):
        return {"call": text[5:], "text": text}
    if text.startswith("suit:"):
        return {"name_suit": text[5:], "text": text}
    return {text: {}, "text": text}


def view_json(view: View, seats: list[dict[str, Any]], version: int) -> dict[str, Any]:
    """A seat's view as the gateway hands it to the page (``upstream.to_json`` of the engine's
    ``View`` message)."""
    shown: dict[str, Any] = {
        "match_id": "",
        "seat": -1 if view.seat is None else view.seat,
        "ruleset": view.ruleset,
        "round": view.round,
        "phase": view.phase,
        "turn": view.turn,
        "dealer": view.dealer,
        "hand": [c.text for c in view.hand],
        "hand_sizes": list(view.hand_sizes),
        "in_round": list(view.in_round),
        "top": view.top.text,
        "active_suit": view.active_suit,
        "wished": view.wished or "",
        "pending": view.pending,
        "pending_count": view.pending_count,
        "direction": view.direction,
        "draw_pile_size": view.draw_pile_size,
        "discard_size": view.discard_size,
        "drawn": view.drawn.text if view.drawn else "",
        "owing_call": list(view.owing_call),
        "declared_last": list(view.declared_last),
        "totals": list(view.totals),
        "round_wins": list(view.round_wins),
        "teams": view.teams,
        "legal": [_action_json(a) for a in view.legal],
        "version": str(version),
        "seats": seats,
        "chooser": view.chooser,
        "discard": [c.text for c in view.discard],
        "specials": list(view.specials),
        "maumaus": list(view.maumaus),
        "starter_open": view.starter_open,
        "to_act": view.to_act,
    }
    if view.outcome is not None:
        shown["outcome"] = {"winners": list(view.outcome.winners), "reason": view.outcome.reason}
    return shown
