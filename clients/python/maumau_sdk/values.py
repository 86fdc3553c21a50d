"""Typed values of the SDK: views, match facts, events and action results.

Cards and actions are the rules core's own immutable values (:class:`maumau.rules.Card`,
:data:`maumau.rules.Action`), so their text forms round-trip:

>>> action = to_action("JD:S!mau")
>>> action.text
'JD:S!mau'
>>> action_to_pb(action).play.suit
'S'

Every value keeps the protobuf message it came from in ``pb``, for fields added to the protocol
after this SDK was written.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from maumau import wire
from maumau.rules import (
    Action,
    Card,
    parse_action,
)
from maumau.rules import events as ev
from maumau.rules.narrate import describe as describe_rules_event
from maumau.v1 import engine_pb2, game_pb2
from maumau.wire import action_from_pb as action_from_pb

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
class Outcome:
    """How a match ended: the winning seats (a team wins together) and why."""

    winners: tuple[int, ...]
    reason: str
    """'target', 'rounds', 'wins', 'single', 'tie_break' or 'abandoned'."""

    @classmethod
    def from_pb(cls, message: game_pb2.Outcome) -> Outcome:
        return cls(tuple(message.winners), message.reason)


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
            outcome=Outcome.from_pb(message.outcome) if message.HasField("outcome") else None,
            pb=message,
        )


@dataclass(frozen=True, slots=True)
class View:
    """What one seat may see: its own hand, everyone's card counts, the table and its legal
    actions. A spectator's view has ``seat == -1`` and no hand."""

    match_id: str
    seat: int
    ruleset: str
    round: int
    phase: str
    """'play', 'drawn' (the seat that drew may play that card or pass), 'starter_suit' (a suit is
    to be named for the starter) or 'over'."""
    turn: int
    dealer: int
    hand: tuple[Card, ...]
    hand_sizes: tuple[int, ...]
    in_round: tuple[bool, ...]
    top: Card
    active_suit: str
    """The suit or colour a plain card must match now."""
    wished: str | None
    pending: str
    """'' (nothing), 'draw' (a 7 or draw-2 chain), 'skip' (an 8 to pass on) or 'draw4'."""
    pending_count: int
    direction: int
    draw_pile_size: int
    discard_size: int
    drawn: Card | None
    """The card this seat just drew and may still play."""
    owing_call: tuple[int, ...]
    declared_last: tuple[int, ...]
    totals: tuple[int, ...]
    round_wins: tuple[int, ...]
    teams: bool
    legal: tuple[Action, ...]
    """Every legal action of this seat now (catches may be legal out of turn)."""
    outcome: Outcome | None
    version: int
    seats: tuple[SeatInfo, ...]
    chooser: int
    discard: tuple[Card, ...]
    """The whole discard pile, top card last (every card in it was played openly)."""
    pb: game_pb2.View = field(repr=False, compare=False)

    @property
    def due(self) -> int:
        """The seat the match waits for: the chooser of a starter suit, else the turn."""
        return self.chooser if self.phase == "starter_suit" else self.turn

    @property
    def my_turn(self) -> bool:
        """Whether the match waits for this seat."""
        return self.phase != "over" and self.seat == self.due

    @property
    def over(self) -> bool:
        return self.phase == "over"

    @classmethod
    def from_pb(cls, message: game_pb2.View, seats: tuple[SeatInfo, ...] = ()) -> View:
        """The view of a message; ``seats`` fills in seat facts a message left out (the views in
        answers to ``Act`` carry none)."""
        return cls(
            match_id=message.match_id,
            seat=message.seat,
            ruleset=message.ruleset,
            round=message.round,
            phase=message.phase,
            turn=message.turn,
            dealer=message.dealer,
            hand=tuple(Card.parse(c) for c in message.hand),
            hand_sizes=tuple(message.hand_sizes),
            in_round=tuple(message.in_round),
            top=Card.parse(message.top),
            active_suit=message.active_suit,
            wished=message.wished or None,
            pending=message.pending,
            pending_count=message.pending_count,
            direction=message.direction,
            draw_pile_size=message.draw_pile_size,
            discard_size=message.discard_size,
            drawn=Card.parse(message.drawn) if message.drawn else None,
            owing_call=tuple(message.owing_call),
            declared_last=tuple(message.declared_last),
            totals=tuple(message.totals),
            round_wins=tuple(message.round_wins),
            teams=message.teams,
            legal=tuple(action_from_pb(a) for a in message.legal),
            outcome=Outcome.from_pb(message.outcome) if message.HasField("outcome") else None,
            version=message.version,
            seats=tuple(SeatInfo.from_pb(s) for s in message.seats) or seats,
            chooser=message.chooser,
            discard=tuple(Card.parse(c) for c in getattr(message, "discard", ())),
            pb=message,
        )


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


def event_from_pb(message: game_pb2.Event) -> ev.Event | None:
    """The rules core's event for a message (the inverse of the engine's conversion); None for
    the engine's own events (seats joining, the seed, timeouts)."""
    kind = message.WhichOneof("kind")
    match kind:
        case "round_started":
            m = message.round_started
            return ev.RoundStarted(m.round, m.dealer, Card.parse(m.starter), tuple(m.seats))
        case "drew":
            d = message.drew
            return ev.Drew(d.seat, d.count, d.reason, tuple(Card.parse(c) for c in d.cards))
        case "played":
            p = message.played
            return ev.Played(p.seat, Card.parse(p.card), p.suit or None, p.call or None)
        case "suit_named":
            return ev.SuitNamed(message.suit_named.seat, message.suit_named.suit)
        case "called":
            return ev.Called(message.called.seat, message.called.word)
        case "skipped":
            return ev.Skipped(message.skipped.seat)
        case "direction_changed":
            return ev.DirectionChanged(message.direction_changed)
        case "caught":
            c = message.caught
            return ev.Caught(c.by, c.seat, c.word)
        case "challenged":
            c2 = message.challenged
            return ev.Challenged(c2.by, c2.seat, c2.bluff)
        case "passed":
            return ev.Passed(message.passed.seat)
        case "reshuffled":
            return ev.Reshuffled(message.reshuffled)
        case "turn_started":
            return ev.TurnStarted(message.turn_started.seat)
        case "round_over":
            r = message.round_over
            return ev.RoundOver(r.round, r.winner, r.finish, tuple(r.points), tuple(r.totals))
        case "match_over":
            o = message.match_over
            return ev.MatchOver(tuple(o.winners), tuple(o.totals), o.reason)
    return None


@dataclass(frozen=True, slots=True)
class ActResult:
    """The answer to an action: the match version after it, what it caused (as this seat may
    see it) and this seat's view after it."""

    version: int
    events: tuple[Event, ...]
    view: View
    request_id: str
