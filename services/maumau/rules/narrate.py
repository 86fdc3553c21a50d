"""Events told as short English sentences, for logs, demos and the terminal client.

>>> from maumau.rules.events import Drew
>>> describe(Drew(seat=2, count=2, reason="penalty"))
'seat 2 takes 2 penalty cards'
"""

from __future__ import annotations

from .errors import SUIT_NAMES
from .events import (
    Called,
    Caught,
    Challenged,
    DirectionChanged,
    Drew,
    Event,
    MatchOver,
    Passed,
    Played,
    Reshuffled,
    RoundOver,
    RoundStarted,
    Skipped,
    SuitNamed,
    TurnStarted,
)

_CALL_WORDS = {"mau": "Mau!", "maumau": "Mau Mau!", "last": "last card!"}
_DRAW_REASONS = {
    "draw": "draws {n}",
    "deal": "is dealt {n} cards",
    "penalty": "takes {n} penalty cards",
    "caught": "draws {n} for the missed call",
    "challenge": "draws {n} after the challenge",
    "ace": "draws {n} for the ace",
}


def describe(event: Event) -> str:
    """One line telling what happened (no hidden cards: pass a redacted event for a viewer)."""
    names = SUIT_NAMES["en"]
    match event:
        case RoundStarted(round=number, dealer=dealer, starter=starter):
            return f"round {number}: seat {dealer} deals, starter {starter}"
        case Drew(seat=seat, count=count, reason=reason, cards=cards):
            text = f"seat {seat} " + _DRAW_REASONS[reason].format(n=count)
            return text + (f": {' '.join(c.text for c in cards)}" if cards else "")
        case Played(seat=seat, card=card, suit=suit, call=call):
            text = f"seat {seat} plays {card}"
            if suit is not None:
                text += f" and wishes {names[suit]}"
            return text + (f" - {_CALL_WORDS[call]}" if call else "")
        case SuitNamed(seat=seat, suit=suit):
            return f"seat {seat} names {names[suit]} for the starter"
        case Called(seat=seat, word=word):
            return f"seat {seat} calls {_CALL_WORDS[word]}"
        case Skipped(seat=seat):
            return f"seat {seat} sits out"
        case DirectionChanged(direction=direction):
            return "play turns " + ("clockwise" if direction > 0 else "counter-clockwise")
        case Caught(by=by, seat=seat, word=word):
            return f"seat {by} catches seat {seat} without {_CALL_WORDS[word]}"
        case Challenged(by=by, seat=seat, bluff=bluff):
            verdict = "a bluff" if bluff else "legal"
            return f"seat {by} challenges the W+4 of seat {seat}: it was {verdict}"
        case Passed(seat=seat):
            return f"seat {seat} keeps the drawn card"
        case Reshuffled(count=count):
            return f"the discard pile is shuffled into a new draw pile of {count}"
        case TurnStarted(seat=seat):
            return f"seat {seat} to play"
        case RoundOver(round=number, winner=winner, finish=finish, points=points, totals=totals):
            how = {"out": "goes out", "mau": "finishes with Mau", "maumau": "finishes Mau-Mau"}
            return (
                f"round {number}: seat {winner} {how[finish]}; points {list(points)}, "
                f"totals {list(totals)}"
            )
        case MatchOver(winners=winners, totals=totals, reason=reason):
            who = " and ".join(f"seat {w}" for w in winners)
            return f"match over ({reason}): {who} won; totals {list(totals)}"
    raise TypeError(f"not an event: {event!r}")
