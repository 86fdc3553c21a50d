"""What the Bots service accepts as a view: the shape a view of the rules core can have, checked
field by field, so a malformed view is refused with the field named instead of failing deep in a
policy."""

from __future__ import annotations

from maumau.common.errors import invalid
from maumau.rules import View
from maumau.v1 import game_pb2
from maumau.wire import view_from_pb

MAX_SEATS = 8
MAX_CARDS = 1000
"""More cards than any deck of any ruleset holds (three 108-card decks and then some)."""

PHASES = ("play", "drawn", "starter_suit", "over")
PENDING = ("", "draw", "skip", "draw4")


def checked_view(message: game_pb2.View) -> View:
    """The rules core's view of ``message``; INVALID_ARGUMENT naming the field when it cannot
    be one (a blank ruleset, a seat or turn outside ``hand_sizes``, counts out of range, ...)."""
    if not message.ruleset.strip():
        raise invalid("view.ruleset is required (e.g. 'classic')")
    seats = len(message.hand_sizes)
    if not 2 <= seats <= MAX_SEATS:
        raise invalid(f"view.hand_sizes must list 2 to {MAX_SEATS} seats, not {seats}")
    for size in message.hand_sizes:
        if not 0 <= size <= MAX_CARDS:
            raise invalid(f"view.hand_sizes: {size} is not a hand size (0 to {MAX_CARDS})")
    if not message.HasField("seat") or not 0 <= message.seat < seats:
        raise invalid(f"view.seat must be a seat of view.hand_sizes (0 to {seats - 1})")
    for name in ("turn", "dealer", "chooser", "to_act"):
        if message.HasField(name) and not -1 <= getattr(message, name) < seats:
            raise invalid(f"view.{name} must be a seat of view.hand_sizes (0 to {seats - 1})")
    for name in ("in_round", "totals", "round_wins", "specials", "maumaus"):
        if len(getattr(message, name)) not in (0, seats):
            raise invalid(f"view.{name} must have one entry per seat ({seats}) or none")
    for name in ("owing_call", "declared_last"):
        if any(not 0 <= seat < seats for seat in getattr(message, name)):
            raise invalid(f"view.{name} may list seats 0 to {seats - 1} only")
    if message.HasField("outcome") and any(
        not 0 <= seat < seats for seat in message.outcome.winners
    ):
        raise invalid(f"view.outcome.winners may list seats 0 to {seats - 1} only")
    if len(message.hand) != message.hand_sizes[message.seat]:
        raise invalid("view.hand must hold as many cards as view.hand_sizes says for view.seat")
    for name in ("discard", "legal"):
        if len(getattr(message, name)) > MAX_CARDS:
            raise invalid(f"view.{name} holds more than {MAX_CARDS} entries")
    for name in ("pending_count", "draw_pile_size", "discard_size", "round"):
        if not 0 <= getattr(message, name) <= MAX_CARDS:
            raise invalid(f"view.{name} must be from 0 to {MAX_CARDS}")
    if message.phase not in PHASES:
        raise invalid(f"view.phase must be one of {', '.join(PHASES)}")
    if message.pending not in PENDING:
        raise invalid("view.pending must be '', 'draw', 'skip' or 'draw4'")
    if message.direction not in (-1, 1):
        raise invalid("view.direction must be 1 (clockwise) or -1")
    if not message.top:
        raise invalid("view.top is required: the open card")
    return view_from_pb(message)
