"""Whole matches consistent with what one seat has seen, for search over hidden cards.

A seat sees its own hand, every other hand's size and the discard pile (all of it was played in the
open). The cards it has not seen are the deck less those; a determinization deals them at random
to the other hands and the draw pile, so a search samples only worlds the seat cannot rule out.
"""

from __future__ import annotations

import random
from collections import Counter

from .actions import Play
from .cards import Card
from .kinds import (
    DRAWN,
    STARTER_SUIT,
    Calls,
)
from .match import Match, View
from .ruleset import Ruleset


def unseen_cards(view: View, ruleset: Ruleset) -> list[Card]:
    """The cards ``view.seat`` has not seen: in other hands or the draw pile, in a fixed order."""
    deck = Counter(ruleset.deck_for(len(view.hand_sizes)))
    deck.subtract(view.hand)
    deck.subtract(view.discard)
    return sorted(deck.elements(), key=lambda card: card.code)


def determinize(view: View, rng: random.Random) -> Match:
    """A match the seat of ``view`` cannot tell apart from the real one, hidden cards at random.

    Facts the view does not carry are set to likely values; they only matter to search as
    estimates: a missed call's window closes at the end of the next turn, its word follows from
    the hand size, a pending W+4 is no bluff, and another seat that drew holds a fitting card.
    """
    if view.seat is None:
        raise ValueError("a spectator view has no seat to search for")
    ruleset = Ruleset.parse(view.ruleset)
    hidden = unseen_cards(view, ruleset)
    rng.shuffle(hidden)
    hands = []
    for seat, size in enumerate(view.hand_sizes):
        if seat == view.seat:
            hands.append(list(view.hand))
        else:
            hands.append(hidden[:size])
            del hidden[:size]
    drawn = view.drawn
    if view.phase == DRAWN and drawn is None:
        drawn = _fitting_last(ruleset, view, hands[view.turn], hidden)
    return Match.from_setup(
        ruleset,
        hands,
        draw_pile=hidden,
        discard=view.discard,
        dealer=view.dealer,
        turn=view.turn,
        starter=view.phase == STARTER_SUIT or view.starter_open,
        wished=view.wished,
        pending=view.pending,
        pending_count=view.pending_count,
        drawn=drawn,
        direction=view.direction,
        declared=view.declared_last,
        owing=_owing(ruleset, view),
        in_round=view.in_round,
        totals=view.totals,
        round_wins=view.round_wins,
        specials=view.specials or None,
        maumaus=view.maumaus or None,
        outcome=view.outcome,
        round=view.round,
        seed=f"determinized/{rng.random()}",
    )


def _owing(ruleset: Ruleset, view: View) -> dict[int, str]:
    """The calls the seats in ``view.owing_call`` likely missed, by what their hand size says."""
    if ruleset.calls in (Calls.NONE, Calls.LAST):
        return {}
    one_left = "last" if ruleset.calls is Calls.OSTFRIESLAND else "mau"
    return {seat: one_left if view.hand_sizes[seat] else "maumau" for seat in view.owing_call}


def _fitting_last(ruleset: Ruleset, view: View, hand: list[Card], hidden: list[Card]) -> Card:
    """Make a card that fits the last of ``hand``, the one just drawn (trading a card with the
    draw pile if none in the hand fits), so the sampled world is one where drawing led here."""
    candidates = list(dict.fromkeys(hand + hidden))
    probe = Match.from_setup(
        ruleset,
        [candidates if seat == view.turn else [] for seat in range(len(view.hand_sizes))],
        discard=view.discard,
        dealer=view.dealer,
        turn=view.turn,
        wished=view.wished,
        in_round=view.in_round,
        direction=view.direction,
    )
    fits = {a.card for a in probe.legal_actions(view.turn) if isinstance(a, Play)}
    card = next((c for c in candidates if c in fits), None)
    if card is None:
        raise ValueError("no unseen card could have been drawn and still be playable")
    if card in hand:
        hand.remove(card)
    else:
        hidden.remove(card)
        hidden.append(hand.pop(0))
    hand.append(card)
    return card
