"""Helpers the rule tests share: set up a position, act by text, refuse without a trace, pick
events, find deals, count cards. Written once here; the test files import them."""

import random
from collections import Counter
from collections.abc import Callable

import pytest

from maumau.rules import (
    Action,
    Card,
    Event,
    IllegalAction,
    Match,
    Ruleset,
    colour_deck,
    french_deck,
    parse_action,
    parse_cards,
)

DECK_CARDS: dict[str, Callable[[], list[Card]]] = {
    "french52": french_deck,
    "skat32": lambda: french_deck(("7", "8", "9", "10", "J", "Q", "K", "A")),
    "colour108": colour_deck,
}


def position(*hands: str, top: str, ruleset: Ruleset, draw: str = "", **setup: object) -> Match:
    """A round with ``hands`` dealt (card texts), ``top`` as discard pile (top card last) and
    ``draw`` as draw pile (top card first); further keywords go to ``Match.from_setup``."""
    return Match.from_setup(
        ruleset,
        hands=[parse_cards(hand) for hand in hands],
        draw_pile=parse_cards(draw),
        discard=parse_cards(top),
        **setup,  # type: ignore[arg-type]
    )


def act(match: Match, seat: int, text: str) -> list[Event]:
    return match.apply(seat, parse_action(text))


def legal(match: Match, seat: int) -> set[str]:
    """The text forms of every action listed as legal for ``seat``."""
    return {action.text for action in match.legal_actions(seat)}


def hand(match: Match, seat: int) -> str:
    """The hand of ``seat`` as its own view shows it, as card texts."""
    return " ".join(card.text for card in match.view(seat).hand)


def refused(match: Match, seat: int, text: str) -> str:
    """The error code that refuses ``text``, after checking it left the match unchanged."""
    before = match.copy()
    with pytest.raises(IllegalAction) as err:
        act(match, seat, text)
    assert match == before
    return err.value.code


def named(events: list[Event], kind: str) -> list[Event]:
    return [event for event in events if type(event).__name__ == kind]


def dealt_where(ruleset: Ruleset, seats: int, test: Callable[[Match], bool]) -> Match:
    """The first match dealt by ``Match.new`` (seeds 0, 1, ...) whose position passes ``test``."""
    for seed in range(5000):
        match = Match.new(ruleset, seats=seats, seed=seed)
        if test(match):
            return match
    raise AssertionError("no seed deals such a position")


def full_deck(ruleset: Ruleset, seats: int) -> Counter:
    """Every card a table of ``seats`` plays with, copies counted."""
    return Counter(DECK_CARDS[ruleset.deck]() * ruleset.decks_for(seats))


def cards_in_play(match: Match) -> Counter:
    """Every card in a hand or a pile, copies counted: equal to the deck when none was lost or
    made up (a lost and a duplicated card do not cancel out, as they would in a count)."""
    seats = len(match.view(None).hand_sizes)
    held = Counter(match.draw_pile) + Counter(match.view(None).discard)
    for seat in range(seats):
        held += Counter(match.view(seat).hand)
    return held


def acting_seats(match: Match) -> list[int]:
    """Every seat with a legal action: the seat to move, and any seat that may catch or call."""
    seats = len(match.view(None).hand_sizes)
    return [seat for seat in range(seats) if match.legal_actions(seat)]


def random_step(match: Match, rng: random.Random) -> tuple[int, Action]:
    """A random seat among those that may act, and a random legal action of it."""
    seat = rng.choice(acting_seats(match))
    return seat, rng.choice(list(match.legal_actions(seat)))


def mover(match: Match) -> int:
    """The seat the match waits for: the one naming the starter's suit, else the seat to play."""
    view = match.view(None)
    return view.chooser if view.phase == "starter_suit" else view.turn


def play_out(match: Match, limit: int = 2000) -> None:
    """Play on with each waited-for seat's first legal move until the match is over."""
    for _ in range(limit):
        if match.view(None).outcome is not None:
            return
        seat = mover(match)
        action = next(a for a in match.legal_actions(seat) if type(a).__name__ != "Catch")
        match.apply(seat, action)
    raise AssertionError("the match did not end")
