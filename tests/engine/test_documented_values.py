"""Every word a string field of the protos may hold is listed in its comment with its meaning, so
a client can be written from the protos alone: a view's phase and pending effect, how a match
ended, why a seat drew, how a round was won, a match's, ticket's, room's or tournament's status.

The words come from the code that sends them (the rules core's enumerations, the services'
states), and over real gRPC from matches of every preset played to the end: whatever the engine
sends in those fields is documented. "Listed with its meaning" reads as the comments write it:
the word in quotes followed by its meaning in parentheses, or in a column of its own.
"""

from __future__ import annotations

import random
import re

import pytest

from maumau.engine.record import Status
from maumau.matchmaking import rooms, tickets
from maumau.rules import CALLS
from maumau.rules.kinds import Finish, Pending, Phase, Reason
from maumau.rules.variants import VARIANTS
from maumau.tournaments.state import STATUSES
from maumau.v1 import engine_pb2
from tests.support.engine import Follower, close_all, play_to_the_end, seated_table
from tests.support.protos import comment
from tests.support.rpc import auth

DREW_REASONS = ("deal", "draw", "penalty", "caught", "challenge", "ace")
"""Why the rules core hands a seat cards (``turns.give`` and the deal)."""

WORDS: dict[tuple[str, str, str], tuple[str, ...]] = {
    ("game.proto", "Ruleset", "preset"): tuple(VARIANTS),
    ("game.proto", "Play", "call"): CALLS,
    ("game.proto", "View", "phase"): tuple(Phase),
    ("game.proto", "View", "pending"): tuple(Pending),
    ("game.proto", "Outcome", "reason"): tuple(Reason),
    ("game.proto", "Drew", "reason"): DREW_REASONS,
    ("game.proto", "RoundOver", "finish"): tuple(Finish),
    ("engine.proto", "MatchInfo", "status"): tuple(Status),
    ("matchmaking.proto", "Ticket", "state"): (
        tickets.SEARCHING,
        tickets.SEATED,
        tickets.CANCELLED,
        tickets.EXPIRED,
    ),
    ("matchmaking.proto", "Room", "status"): (rooms.OPEN, rooms.STARTING_STATUS, rooms.PLAYING),
    ("tournaments.proto", "Tournament", "status"): STATUSES,
}
"""Each field of an enumerated string and the words it may hold."""

ONE_ROUND = {
    "classic": {"target": "0"},
    "online": {"wins": "1"},
    "ostfriesland": {"rounds": "1"},
    "colour": {"target": "0"},
}


def undocumented(text: str, words: tuple[str, ...] | set[str]) -> list[str]:
    """The words ``text`` does not list with a meaning: '"word" (meaning' or '"word"  meaning'."""
    return [
        word
        for word in sorted(words)
        if not re.search(rf'"{re.escape(word)}"(\s*\(|\s{{2,}}\S)', text)
    ]


@pytest.mark.parametrize("where", list(WORDS), ids=lambda where: ".".join(where[1:]))
def test_every_word_of_a_field_is_listed_with_its_meaning(where: tuple[str, str, str]) -> None:
    assert undocumented(comment(*where), WORDS[where]) == []


def test_a_word_left_without_its_meaning_is_named() -> None:
    """The check itself: the words listed bare, as the comments once listed Outcome.reason."""
    bare = 'Why: "target", "rounds", "wins", "single" (a casual one-round match)'
    assert undocumented(bare, {"target", "rounds", "wins", "single"}) == [
        "rounds",
        "target",
        "wins",
    ]


@pytest.mark.parametrize("preset", list(ONE_ROUND))
async def test_every_word_the_engine_sends_is_documented(address, preset):
    """game.proto and engine.proto: the words of a match of ``preset`` played to the end over
    real gRPC (views, the events a seat follows, the match's facts) are each listed with their
    meaning in the field's comment."""
    seats = 4 if preset in ("ostfriesland", "colour") else 3
    clients, match_id = await seated_table(address, preset, seats, ONE_ROUND[preset])
    try:
        seen: dict[tuple[str, str, str], set[str]] = {where: set() for where in WORDS}
        info = (
            await clients[0].engine.GetMatch(
                engine_pb2.GetMatchRequest(match_id=match_id), metadata=auth(clients[0].token)
            )
        ).match
        seen["engine.proto", "MatchInfo", "status"].add(info.status)
        views = await play_to_the_end(match_id, clients, random.Random(preset))
        for view in views:
            seen["game.proto", "View", "phase"].add(view.phase)
            seen["game.proto", "View", "pending"].add(view.pending)
            if view.HasField("outcome"):
                seen["game.proto", "Outcome", "reason"].add(view.outcome.reason)
        follower = Follower(clients[0].channel, clients[0].seat_tokens[match_id], match_id)
        for item in await follower.rest():
            event = item.event
            if event.HasField("drew"):
                seen["game.proto", "Drew", "reason"].add(event.drew.reason)
            elif event.HasField("played") and event.played.call:
                seen["game.proto", "Play", "call"].add(event.played.call)
            elif event.HasField("round_over"):
                seen["game.proto", "RoundOver", "finish"].add(event.round_over.finish)
            elif event.HasField("match_over"):
                seen["game.proto", "Outcome", "reason"].add(event.match_over.reason)
        info = (
            await clients[0].engine.GetMatch(
                engine_pb2.GetMatchRequest(match_id=match_id), metadata=auth(clients[0].token)
            )
        ).match
        seen["engine.proto", "MatchInfo", "status"].add(info.status)
        assert seen["game.proto", "Outcome", "reason"], "the match ended without a reason"
        for where, words in seen.items():
            assert undocumented(comment(*where), words) == [], where
    finally:
        await close_all(clients)
