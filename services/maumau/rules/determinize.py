"""Whole matches consistent with what one seat has seen, for search over hidden cards.

A seat sees its own hand, every other hand's size and the discard pile (all of it was played in the
open). The cards it has not seen are the deck less those; a determinization deals them at random
to the other hands and the draw pile, so a search samples only worlds the seat cannot rule out.
"""

from __future__ import annotations

import random
from collections import Counter

from .cards import DECKS, Card
from .match import Match, View
from .ruleset import Ruleset


def unseen_cards(view: View, ruleset: Ruleset) -> list[Card]:
    """The cards ``view.seat`` has not seen: in other hands or the draw pile, in a fixed order."""
    deck = Counter(DECKS[ruleset.deck]() * ruleset.decks_for(len(view.hand_sizes)))
    deck.subtract(view.hand)
    deck.subtract(view.discard)
    return sorted(deck.elements(), key=lambda card: card.code)


def determinize(view: View, rng: random.Random) -> Match:
    """A match the seat of ``view`` cannot tell apart from the real one, hidden cards at random.

    Public facts the view does not carry (which turn a missed-call window closes on, the number
    of reshuffles) are set to the likeliest values; they only matter to search as estimates.
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
    match = Match.from_setup(
        ruleset,
        hands,
        draw_pile=hidden,
        discard=view.discard,
        dealer=view.dealer,
        turn=view.turn,
        wished=view.wished,
        pending=view.pending,
        pending_count=view.pending_count,
        totals=view.totals,
        round=view.round,
        seed=f"determinized/{rng.random()}",
    )
    match.phase, match.chooser, match.direction = view.phase, view.chooser, view.direction
    match.drawn = view.drawn
    match.in_round = list(view.in_round)
    match.round_wins = list(view.round_wins)
    match.declared = [seat in view.declared_last for seat in range(len(view.hand_sizes))]
    match.missed = {seat: ("mau", match.turn_no + 1) for seat in view.owing_call}
    match.out_seat = next((s for s in view.owing_call if view.hand_sizes[s] == 0), None)
    match.outcome = view.outcome
    return match
