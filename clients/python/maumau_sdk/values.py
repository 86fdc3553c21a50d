"""Typed values of the SDK: views, match facts, events and action results.

Cards and actions are the rules core's own immutable values (:class:`maumau.rules.Card`,
:data:`maumau.rules.Action`), so their text forms round-trip:

>>> action = to_action("JD:S!mau")
>>> action.text
'JD:S!mau'
>>> action_to_pb(action).play.suit
'S'

A :class:`View` is the rules core's own view as ``maumau.wire`` decodes it, with the match id,
version and seats the message carries beside it; events decode to the rules core's events
(:attr:`Event.rules_event`) the same way.

Every value keeps the protobuf message it came from in ``pb``, for fields added to the protocol
after this SDK was written.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from operator import attrgetter
from typing import TYPE_CHECKING

from maumau import wire
from maumau.rules import Action, Outcome, parse_action
from maumau.rules import View as RulesView
from maumau.rules import events as ev
from maumau.rules.narrate import describe as describe_rules_event
from maumau.v1 import engine_pb2, game_pb2
from maumau.wire import action_from_pb as action_from_pb
from maumau.wire import event_from_pb as event_from_pb

if TYPE_CHECKING:
    # Type checkers read a View as the rules core's, so each of its fields is typed here as
    # there; at run time a View holds one (``View.rules``) and reads the fields through it.
    from maumau.rules import View as _RulesFields
else:
    _RulesFields = object

ActionLike = Action | str | game_pb2.Action
"""What :meth:`Seat.act` accepts: a rules-core action, its text ("7H", "JD:S!mau", "draw",
"catch:2", "suit:H") or a ``maumau.v1.Action`` message."""

# ---------------------------------------------------------------------- actions


def to_action(action: ActionLike) -> Action:
    """The rules-core action for text, a message or an action; bad text raises ``BadInput``."""
    if isinstance(action, str):
        return parse_action(action)
    if isinstance(action, game_pb2.Action):
        return action_from_pb(action)
    return action


def action_to_pb(action: ActionLike) -> game_pb2.Action:
    """The ``maumau.v1.Action`` message for an action, structured and with its text."""
    if isinstance(action, game_pb2.Action):
        return action
    return wire.action_to_pb(to_action(action))


# ---------------------------------------------------------------------- match facts


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """Who sits at a seat: a player (``player_id`` set) or a bot (``bot_level`` set)."""

    seat: int
    player_id: str
    name: str
    bot_level: str
    left: bool

    @property
    def is_bot(self) -> bool:
        return bool(self.bot_level)

    @classmethod
    def from_pb(cls, message: game_pb2.SeatInfo) -> SeatInfo:
        level = bot_level_name(message.bot_level)
        return cls(message.seat, message.player_id, message.name, level, message.left)


def bot_level_name(level: int) -> str:
    """A BotLevel's name ("strong"), "" for none, "level N" for one newer than this SDK."""
    try:
        return wire.bot_level_from_pb(level)
    except ValueError:
        return f"level {level}"


@dataclass(frozen=True, slots=True)
class MatchInfo:
    """The public facts of a match. ``server_seed`` is revealed once ``status`` is "over"."""

    match_id: str
    ruleset: str
    """The ruleset's text form, e.g. "classic target=0"."""
    preset: str
    options: Mapping[str, str]
    seats: int
    seat_info: tuple[SeatInfo, ...]
    status: str
    """'lobby', 'playing' or 'over'."""
    ranked: bool
    turn_seconds: int
    seed_commitment: str
    server_seed: str
    nonces: tuple[str, ...]
    version: int
    outcome: Outcome | None
    pb: engine_pb2.MatchInfo = field(repr=False, compare=False)

    @classmethod
    def from_pb(cls, message: engine_pb2.MatchInfo) -> MatchInfo:
        return cls(
            match_id=message.match_id,
            ruleset=message.ruleset_text,
            preset=message.ruleset.preset,
            options=dict(message.ruleset.options),
            seats=message.seats,
            seat_info=tuple(SeatInfo.from_pb(s) for s in message.seat_info),
            status=message.status,
            ranked=message.ranked,
            turn_seconds=message.turn_seconds,
            seed_commitment=message.seed_commitment,
            server_seed=message.server_seed,
            nonces=tuple(message.nonces),
            version=message.version,
            outcome=wire.outcome_from_pb(message.outcome) if message.HasField("outcome") else None,
            pb=message,
        )


class View(_RulesFields):
    """What one seat may see: its own hand, everyone's card counts, the table and its legal
    actions. A spectator's view has ``seat == -1`` and no hand.

    It is the rules core's :class:`maumau.rules.View` (``rules``), as ``maumau.wire`` decodes it
    from the ``maumau.v1.View`` message, plus what the message carries beside it: ``match_id``,
    ``version`` and ``seats``. Every field of the rules core's view reads here by its own name
    (``view.hand``, ``view.legal``, ``view.specials``, ...), so a field added there is here too.
    Where a rules-core ``View`` itself is wanted (the rules core's own functions and bots), pass
    ``view.rules``: type checkers take this class for one, but it only holds one.

    >>> from maumau.rules import Match, Ruleset
    >>> match = Match.new(Ruleset.create("classic"), 2, 7)
    >>> view = View.from_pb(wire.view_to_pb(match.view(0), "m1", 3))
    >>> view.rules == match.view(0), view.match_id, view.version, view.seat
    (True, 'm1', 3, 0)
    >>> len(view.hand), view.hand_sizes, view.specials
    (5, (5, 5), (0, 0))
    """

    __slots__ = ("match_id", "pb", "rules", "seats", "version")

    rules: RulesView
    """The rules core's view of this seat, every field of it."""
    match_id: str
    version: int
    """The match version this view reflects."""
    seats: tuple[SeatInfo, ...]
    """Who sits at each seat."""
    pb: game_pb2.View

    def __init__(
        self,
        rules: RulesView,
        match_id: str,
        version: int,
        seats: tuple[SeatInfo, ...],
        pb: game_pb2.View,
    ) -> None:
        object.__setattr__(self, "rules", rules)
        object.__setattr__(self, "match_id", match_id)
        object.__setattr__(self, "version", version)
        object.__setattr__(self, "seats", seats)
        object.__setattr__(self, "pb", pb)

    def __setattr__(self, name: str, value: object) -> None:
        raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")

    def _key(self) -> tuple[object, ...]:
        return (self.rules, self.match_id, self.version, self.seats)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, View):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (
            f"View(match_id={self.match_id!r}, version={self.version!r}, seats={self.seats!r}, "
            f"rules={self.rules!r})"
        )

    @property
    def seat(self) -> int:
        """This view's seat, -1 for a spectator's (where the rules core's view says None)."""
        seat = self.rules.seat
        return -1 if seat is None else seat

    @property
    def due(self) -> int:
        """The seat the match waits for, ``to_act``: the chooser of a starter suit, else the
        turn; -1 once the match is over."""
        return self.to_act

    @property
    def my_turn(self) -> bool:
        """Whether the match waits for this seat."""
        return self.seat >= 0 and self.seat == self.to_act

    @property
    def over(self) -> bool:
        return self.phase == "over"

    @classmethod
    def from_pb(cls, message: game_pb2.View, seats: tuple[SeatInfo, ...] = ()) -> View:
        """The view of a message; ``seats`` fills in seat facts a message left out (the views in
        answers to ``Act`` carry none). Malformed cards or actions raise ``BadInput``."""
        return cls(
            wire.view_from_pb(message),
            message.match_id,
            message.version,
            tuple(SeatInfo.from_pb(s) for s in message.seats) or seats,
            message,
        )


def _rules_field(name: str) -> property:
    return property(attrgetter(f"rules.{name}"), doc=f"The rules core's ``View.{name}``.")


for _field in dataclasses.fields(RulesView):
    if not hasattr(View, _field.name):  # ``seat``: the message's -1 for a spectator
        setattr(View, _field.name, _rules_field(_field.name))
del _field


# ---------------------------------------------------------------------- events

ENGINE_EVENTS = frozenset(
    {"seat_joined", "match_started", "timed_out", "handed_to_bot", "left", "seed_revealed"}
)
"""Event kinds of the engine itself (the others are the rules core's events)."""


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened. ``id`` is its stream position ("" for events in an ``Act``
    answer); ``kind`` names the oneof field of ``pb`` that is set, e.g. "played" or "drew"."""

    id: str
    kind: str
    pb: game_pb2.Event = field(compare=False)

    @classmethod
    def from_pb(cls, message: game_pb2.Event, event_id: str = "") -> Event:
        return cls(event_id, message.WhichOneof("kind") or "", message)

    @property
    def data(self) -> object:
        """The message of the kind that is set (e.g. a ``Played``), or its number."""
        return getattr(self.pb, self.kind) if self.kind else None

    @property
    def rules_event(self) -> ev.Event | None:
        """The rules core's event this stands for; None for the engine's own events."""
        return event_from_pb(self.pb)

    def describe(self) -> str:
        """One English line telling what happened (the rules core's narration)."""
        rules = self.rules_event
        if rules is not None:
            return describe_rules_event(rules)
        data = self.data
        match self.kind:
            case "seat_joined":
                return f"{data.name or 'a player'} takes seat {data.seat}"  # type: ignore[attr-defined]
            case "match_started":
                return "the match starts"
            case "timed_out":
                return f"seat {data.seat} ran out of time"  # type: ignore[attr-defined]
            case "handed_to_bot":
                return f"a bot plays seat {data.seat} from now on"  # type: ignore[attr-defined]
            case "left":
                return f"seat {data.seat} left the match"  # type: ignore[attr-defined]
            case "seed_revealed":
                return "the server seed is revealed"
        return self.kind


@dataclass(frozen=True, slots=True)
class ActResult:
    """The answer to an action: the match version after it, what it caused (as this seat may
    see it) and this seat's view after it."""

    version: int
    events: tuple[Event, ...]
    view: View
    request_id: str
