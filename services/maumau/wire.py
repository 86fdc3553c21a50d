"""Translation between the rules core's values and the ``maumau.v1`` messages: one place, used by
every service and by the Python SDK.

Each message has its two functions here (``view_to_pb`` and ``view_from_pb``, ...): a rules value
survives the trip through its message unchanged, which ``tests/wire/test_mapping.py`` checks field
by field against the protos' descriptors."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any, cast

from maumau.rules import (
    ACCEPT,
    CALLS,
    CHALLENGE,
    DRAW,
    PASS,
    Action,
    BadInput,
    Call,
    Card,
    Catch,
    NameSuit,
    Outcome,
    Play,
    Ruleset,
    View,
    parse_action,
)
from maumau.rules import events as ev
from maumau.rules.cards import COLOURS, FRENCH_SUITS
from maumau.rules.reasons import Reason
from maumau.rules.ruleset import format_option_value, parse_option_value
from maumau.v1 import bots_pb2 as bots_pb
from maumau.v1 import game_pb2 as pb

_SIMPLE: dict[str, Action] = {"draw": DRAW, "pass": PASS, "accept": ACCEPT, "challenge": CHALLENGE}
_SUITS = FRENCH_SUITS + COLOURS


def ruleset_from_pb(message: pb.Ruleset) -> Ruleset:
    """The ruleset a client asked for; option values arrive as text, as in ``Ruleset.parse``."""
    options = {name: parse_option_value(value) for name, value in message.options.items()}
    return Ruleset.create(message.preset, options)


def ruleset_to_pb(ruleset: Ruleset) -> pb.Ruleset:
    options = {name: format_option_value(value) for name, value in ruleset.options}
    return pb.Ruleset(preset=ruleset.preset, options=options)


def action_from_pb(message: pb.Action) -> Action:
    """The action a client sent, structured or as text, or both for the same action (a legal
    action of a view sent back); malformed input, or a text naming another action than the
    structured kind, raises BadInput."""
    kind = message.WhichOneof("kind")
    if kind is None:
        if not message.text:
            raise BadInput("bad_action_text", text="")
        return parse_action(message.text)
    action = _structured(message, kind)
    text = message.text
    if text and text != action.text and parse_action(text) != action:
        raise BadInput("action_text_differs", text=text, action=action.text)
    return action


def _structured(message: pb.Action, kind: str) -> Action:
    """The action of the message's structured kind."""
    if kind == "play":
        play = message.play
        return Play(Card.parse(play.card), _suit(play.suit) or None, _call(play.call) or None)
    if kind in _SIMPLE:
        return _SIMPLE[kind]
    if kind == "catch_seat":
        return Catch(message.catch_seat)
    if kind == "call":
        word = _call(message.call)
        if not word:
            raise BadInput("bad_action_text", text="call:")
        return Call(word)
    suit = _suit(message.name_suit)
    if not suit:
        raise BadInput("bad_suit", text="", allowed=_SUITS)
    return NameSuit(suit)


def _suit(text: str) -> str:
    """A suit or colour letter ('' for none); the match checks it fits its deck."""
    letter = text.strip().upper()
    if text and letter not in _SUITS:
        raise BadInput("bad_suit", text=text, allowed=_SUITS)
    return letter


def _call(text: str) -> str:
    """A call word ('' for none)."""
    word = text.strip().lower()
    if text and word not in CALLS:
        raise BadInput("bad_action_text", text=f"call:{text}")
    return word


def action_to_pb(action: Action) -> pb.Action:
    match action:
        case Play(card, suit, call):
            return pb.Action(
                play=pb.Play(card=card.text, suit=suit or "", call=call or ""), text=action.text
            )
        case Catch(seat):
            return pb.Action(catch_seat=seat, text=action.text)
        case Call(word):
            return pb.Action(call=word, text=action.text)
        case NameSuit(suit):
            return pb.Action(name_suit=suit, text=action.text)
    simple: dict[str, Any] = {action.text: pb.Empty()}
    return pb.Action(**simple, text=action.text)


def event_to_pb(event: ev.Event) -> pb.Event:
    """The stored (unredacted) form of a rules event."""
    match event:
        case ev.RoundStarted(round_no, dealer, starter, seats):
            return pb.Event(
                round_started=pb.RoundStarted(
                    round=round_no, dealer=dealer, starter=starter.text, seats=seats
                )
            )
        case ev.Drew(seat, count, reason, cards):
            return pb.Event(
                drew=pb.Drew(seat=seat, count=count, reason=reason, cards=[c.text for c in cards])
            )
        case ev.Played(seat, card, suit, call):
            return pb.Event(
                played=pb.Played(seat=seat, card=card.text, suit=suit or "", call=call or "")
            )
        case ev.SuitNamed(seat, suit):
            return pb.Event(suit_named=pb.SuitNamed(seat=seat, suit=suit))
        case ev.Called(seat, word):
            return pb.Event(called=pb.Called(seat=seat, word=word))
        case ev.Skipped(seat):
            return pb.Event(skipped=pb.SeatOnly(seat=seat))
        case ev.DirectionChanged(direction):
            return pb.Event(direction_changed=direction)
        case ev.Caught(by, seat, word):
            return pb.Event(caught=pb.Caught(by=by, seat=seat, word=word))
        case ev.Challenged(by, seat, bluff):
            return pb.Event(challenged=pb.Challenged(by=by, seat=seat, bluff=bluff))
        case ev.Passed(seat):
            return pb.Event(passed=pb.SeatOnly(seat=seat))
        case ev.Reshuffled(count):
            return pb.Event(reshuffled=count)
        case ev.TurnStarted(seat):
            return pb.Event(turn_started=pb.SeatOnly(seat=seat))
        case ev.RoundOver(round_no, winner, finish, points, totals):
            return pb.Event(
                round_over=pb.RoundOver(
                    round=round_no, winner=winner, finish=finish, points=points, totals=totals
                )
            )
        case ev.MatchOver(winners, totals, reason):
            return pb.Event(match_over=pb.MatchOver(winners=winners, totals=totals, reason=reason))
    raise TypeError(f"not an event: {event!r}")


def event_from_pb(message: pb.Event) -> ev.Event | None:
    """The rules core's event of a message (the inverse of :func:`event_to_pb`); None for the
    engine's own events (seats joining, the seed, timeouts), which no rules event stands for."""
    match message.WhichOneof("kind"):
        case "round_started":
            m = message.round_started
            return ev.RoundStarted(m.round, m.dealer, Card.parse(m.starter), tuple(m.seats))
        case "drew":
            d = message.drew
            return ev.Drew(d.seat, d.count, d.reason, tuple(map(Card.parse, d.cards)))
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
            ch = message.challenged
            return ev.Challenged(ch.by, ch.seat, ch.bluff)
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


def redact_pb(event: pb.Event, viewer: int | None) -> pb.Event:
    """``event`` as ``viewer`` may see it: only a seat's own drawn cards are shown to it."""
    if event.WhichOneof("kind") == "drew" and event.drew.cards and event.drew.seat != viewer:
        hidden = pb.Event()
        hidden.CopyFrom(event)
        del hidden.drew.cards[:]
        return hidden
    return event


@functools.lru_cache(maxsize=1024)
def _legal_pb(action: Action) -> pb.Action:
    """``action_to_pb`` remembered for the legal actions of views (the same few recur in every
    view; the message is shared: the view copies it)."""
    return action_to_pb(action)


def outcome_to_pb(outcome: Outcome) -> pb.Outcome:
    return pb.Outcome(winners=outcome.winners, reason=outcome.reason)


def outcome_from_pb(message: pb.Outcome) -> Outcome:
    """How a match ended; a reason the rules core does not know raises ValueError."""
    return Outcome(tuple(message.winners), message.reason)


def view_to_pb(view: View, match_id: str, version: int) -> pb.View:
    """A seat's view as its message; ``match_id``, ``version`` (and the ``seats`` the engine
    adds) are all the message carries beyond the rules core's view."""
    return pb.View(
        match_id=match_id,
        seat=-1 if view.seat is None else view.seat,
        ruleset=view.ruleset,
        round=view.round,
        phase=view.phase,
        turn=view.turn,
        chooser=view.chooser,
        to_act=view.to_act,
        dealer=view.dealer,
        hand=[c.text for c in view.hand],
        hand_sizes=view.hand_sizes,
        in_round=view.in_round,
        top=view.top.text,
        discard=[c.text for c in view.discard],
        active_suit=view.active_suit,
        wished=view.wished or "",
        pending=view.pending,
        pending_count=view.pending_count,
        direction=view.direction,
        draw_pile_size=view.draw_pile_size,
        discard_size=view.discard_size,
        drawn=view.drawn.text if view.drawn else "",
        owing_call=view.owing_call,
        declared_last=view.declared_last,
        totals=view.totals,
        round_wins=view.round_wins,
        teams=view.teams,
        legal=[_legal_pb(a) for a in view.legal],
        outcome=outcome_to_pb(view.outcome) if view.outcome else None,
        version=version,
        specials=view.specials,
        maumaus=view.maumaus,
        starter_open=view.starter_open,
    )


def view_from_pb(message: pb.View) -> View:
    """The rules core's view from its message: what a bot receives; malformed cards or actions
    raise BadInput."""
    return View(
        seat=None if message.seat < 0 else message.seat,
        ruleset=Ruleset.parse(message.ruleset).text if message.ruleset else "",
        round=message.round,
        phase=message.phase,
        turn=message.turn,
        chooser=message.chooser,
        to_act=message.to_act if message.HasField("to_act") else _to_act(message),
        dealer=message.dealer,
        hand=tuple(map(Card.parse, message.hand)),
        hand_sizes=tuple(message.hand_sizes),
        in_round=tuple(message.in_round),
        top=Card.parse(message.top),
        discard=tuple(map(Card.parse, message.discard)),
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
        legal=tuple(map(action_from_pb, message.legal)),
        outcome=outcome_from_pb(message.outcome) if message.HasField("outcome") else None,
        specials=tuple(message.specials),
        maumaus=tuple(message.maumaus),
        starter_open=message.starter_open,
    )


def _to_act(message: pb.View) -> int:
    """The seat a view without ``to_act`` waits for (one from a server older than the field)."""
    if message.phase == "over":
        return -1
    return message.chooser if message.phase == "starter_suit" else message.turn


def reasons_to_pb(reasons: Iterable[Reason]) -> list[bots_pb.Reason]:
    """A hint's reasons as ``maumau.v1.Reason`` messages (code and text parameters)."""
    return [bots_pb.Reason(code=r.code, params=dict(r.params)) for r in reasons]


def reasons_from_pb(messages: Iterable[bots_pb.Reason]) -> tuple[Reason, ...]:
    """The reasons of a ``RankedAction`` or ``DecideResponse`` as rules-core values."""
    return tuple(Reason.of(m.code, **dict(m.params)) for m in messages)


def bot_level_to_pb(level: str) -> pb.BotLevel:
    """The enum value of a bot level's name ("strong"); "" is BOT_LEVEL_UNSPECIFIED;
    ValueError names the levels for any other text.

    >>> bot_level_to_pb("strong") == pb.BOT_LEVEL_STRONG
    True
    """
    if not level:
        return pb.BOT_LEVEL_UNSPECIFIED
    try:
        return cast(pb.BotLevel, pb.BotLevel.Value(f"BOT_LEVEL_{level.upper()}"))
    except ValueError:
        raise ValueError(f"no bot level {level!r}: choose one of {', '.join(BOT_LEVELS)}") from None


def bot_level_from_pb(level: int) -> str:
    """The name of a bot level ("strong"); "" for BOT_LEVEL_UNSPECIFIED; ValueError for a
    number the proto does not define (a newer client's level).

    >>> bot_level_from_pb(pb.BOT_LEVEL_HEURISTIC)
    'heuristic'
    """
    try:
        return _BOT_LEVEL_NAMES[level]
    except KeyError:
        raise ValueError(f"no bot level {level}: choose one of {', '.join(BOT_LEVELS)}") from None


BOT_LEVELS = tuple(
    name.removeprefix("BOT_LEVEL_").lower()
    for name in pb.BotLevel.keys()  # noqa: SIM118 (an enum wrapper, not a dict)
    if name != "BOT_LEVEL_UNSPECIFIED"
)
"""Every bot level's name, in the proto's order: ("random", "heuristic", "strong")."""

_BOT_LEVEL_NAMES: dict[int, str] = {
    pb.BOT_LEVEL_UNSPECIFIED: "",
    **{bot_level_to_pb(name): name for name in BOT_LEVELS},
}
"""Level names by enum value, looked up once: every seat of every result is decoded with it."""
