"""Rule outcomes that hold after every step of random play, in every preset and table size.

Each example plays random legal actions from a seeded match. Before every step the test notes
what any seat could see (the spectator's view, the mover's hand); after it, it checks the step
against the rule texts, worked out here independently of the rules core: whose turn follows,
which way play runs, who sits out, whether a draw-four was a bluff, that no card was lost or
made up, and that no view or event shows a seat a card of another seat.
"""

import random
from collections import Counter
from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st

from maumau.rules import (
    CHALLENGE,
    Accept,
    Action,
    Call,
    Card,
    Catch,
    Challenge,
    Draw,
    Event,
    Match,
    NameSuit,
    Pass,
    Play,
    Ruleset,
    View,
    redact,
)
from maumau.rules.events import (
    Challenged,
    DirectionChanged,
    Drew,
    Played,
    Reshuffled,
    RoundOver,
    RoundStarted,
    Skipped,
)
from tests.rules.support import cards_in_play, full_deck, random_step

TABLES = [
    ("classic", 2), ("classic", 3), ("classic", 7), ("online", 2), ("online", 4),
    ("ostfriesland", 2), ("ostfriesland", 5), ("colour", 2), ("colour", 3), ("colour", 5),
]  # fmt: skip
VARIANTS = [
    (Ruleset.create("classic", {"deck": "skat32", "ace_power": "draw"}), 3),
    (Ruleset.create("classic", {"ace_power": "skip", "seven_chain_limit": 1}), 2),
    (Ruleset.create("colour", {"teams": True}), 4),
]
tables = st.sampled_from([(Ruleset.create(preset), seats) for preset, seats in TABLES] + VARIANTS)


@dataclass(frozen=True)
class Powers:
    """The card ranks with an effect on whose turn follows, as the rule texts name them."""

    skip: str
    skip_passes_on: bool
    """The skipped seat may pass the skip on with a card of the same rank (East Frisia)."""
    again: str | None = None
    reverse: str | None = None
    ace_again: bool = False
    """Classic ace power 'skip': every other seat sits out, so the ace's player moves again."""


def powers_of(ruleset: Ruleset) -> Powers:
    options = dict(ruleset.options)
    match ruleset.preset:
        case "ostfriesland":
            return Powers(skip="8", skip_passes_on=True, again="9")
        case "colour":
            return Powers(skip="skip", skip_passes_on=False, reverse="rev")
        case _:
            return Powers(
                skip="8", skip_passes_on=False, ace_again=options.get("ace_power") == "skip"
            )


def next_seat(seat: int, direction: int, in_round: tuple[bool, ...]) -> int:
    """The seat after ``seat`` in the direction of play, passing over seats not dealt in."""
    seats = len(in_round)
    other = (seat + direction) % seats
    while not in_round[other]:
        other = (other + direction) % seats
    return other


def fits(card: Card, top: Card, active_suit: str) -> bool:
    """Whether a colour card may go on ``top``: a plain wild always, else colour or symbol."""
    return card.rank == "W" or card.suit == active_suit or card.rank == top.rank


@dataclass(frozen=True)
class Before:
    """What the test noted before a step."""

    table: View
    """The spectator's view: every public fact."""
    mover_hand: tuple[Card, ...]


def check_turn_order(before: Before, seat: int, action: Action, after: View, events, powers):
    """Whose turn follows a step, worked out from the rule texts; the direction flips only on a
    reverse; the skipped seat is the one after the skip's player (at two seats: the other)."""
    table = before.table
    played = [event for event in events if isinstance(event, Played)]
    reverse = bool(played) and played[0].card.rank == powers.reverse
    turned = [event.direction for event in events if isinstance(event, DirectionChanged)]
    if reverse:
        assert after.direction == -table.direction, "a reverse must flip the direction"
        assert turned == [after.direction]
    else:
        assert after.direction == table.direction, "only a reverse turns the direction"
        assert turned == []
    direction, in_round = after.direction, table.in_round
    following = next_seat(seat, direction, in_round)
    skipped = [event.seat for event in events if isinstance(event, Skipped)]
    sits_out = after.pending == "skip" and not powers.skip_passes_on
    match action:
        case Play(card=card):
            if sits_out:
                # Out of cards owing its call, with a card that skips every other seat: the next
                # person's turn, which closes the call's window, is one it sits out but may catch.
                assert after.hand_sizes[seat] == 0 and skipped == []
                assert card.rank == powers.skip or (card.rank == "A" and powers.ace_again)
                expected = following
            elif card.rank == powers.skip and not powers.skip_passes_on:
                assert skipped == [following], "the seat after the skip's player sits out"
                expected = next_seat(following, direction, in_round)
            elif card.rank == powers.again or (card.rank == "A" and powers.ace_again):
                expected = seat
            else:
                assert skipped == []
                expected = following
        case Accept():
            assert skipped == ([seat] if table.pending == "skip" else [])
            ace_sat_out = table.pending == "skip" and powers.ace_again and table.top.rank == "A"
            # Every other seat sits out the ace: play goes back to its player.
            expected = next_seat(seat, -direction, in_round) if ace_sat_out else following
        case Draw():
            if after.phase == "drawn":
                assert after.turn == seat
                return
            expected = following
        case Pass():
            expected = following
        case Challenge():
            bluff = next(event.bluff for event in events if isinstance(event, Challenged))
            expected = seat if bluff else following
        case Catch() | Call() | NameSuit():
            expected = table.turn
    assert after.turn == expected, (
        f"{action.text} by seat {seat}: turn {after.turn}, not {expected}"
    )


def check_draw_four(match: Match, before: Before, seat: int, action: Action, after: View):
    """A draw-four is a bluff exactly when another card of the hand (other draw-fours aside)
    fitted; the next seat's challenge must find the same."""
    if not isinstance(action, Play) or action.card.text != "W+4":
        return
    table = before.table
    rest = list(before.mover_hand)
    rest.remove(action.card)
    fitted = any(card.text != "W+4" and fits(card, table.top, table.active_suit) for card in rest)
    challenger = after.turn
    _, events = match.after(challenger, CHALLENGE)
    verdict = [event for event in events if isinstance(event, Challenged)]
    assert [(v.by, v.seat, v.bluff) for v in verdict] == [(challenger, seat, fitted)]


def check_nothing_hidden_is_shown(match: Match, events: list[Event], seats: int):
    """No view or event shows one seat (or a spectator) a card of another seat's hand."""
    sizes = match.view(None).hand_sizes
    for viewer in (*range(seats), None):
        view = match.view(viewer)
        own = Counter(view.hand)
        if viewer is None:
            assert view.hand == () and view.drawn is None and view.legal == ()
        else:
            assert len(view.hand) == sizes[viewer]
            if view.drawn is not None:
                assert viewer == view.turn and view.drawn in own, "drawn card of another seat"
            for action in view.legal:
                if isinstance(action, Play):
                    assert action.card in own, "a listed play of a card not in the hand"
        for event in events:
            seen = redact(event, viewer)
            if isinstance(seen, Drew):
                if seen.seat == viewer:
                    assert seen == event and len(seen.cards) == seen.count
                else:
                    assert seen.cards == () and seen.count == event.count


def check_calls_and_piles(before: Before, seat: int, action: Action, after: View, events):
    """A 'last' call lapses when its seat takes cards or keeps a drawn card with two in hand;
    the discard pile is shuffled only when the draw pile ran out and there is something to
    shuffle."""
    took = {event.seat for event in events if isinstance(event, Drew) and event.count}
    for taker in took:
        assert taker not in after.declared_last, "a 'last' call survived taking cards"
    if isinstance(action, Pass) and after.hand_sizes[seat] > 1:
        assert seat not in after.declared_last, "a 'last' call survived keeping a drawn card"
    for event in events:
        if isinstance(event, Reshuffled):
            assert event.count > 0, "a reshuffle of nothing"
    if any(isinstance(event, Reshuffled) for event in events):
        assert before.table.draw_pile_size < sum(e.count for e in events if isinstance(e, Drew))


@given(table=tables, seed=st.integers(0, 2**32), steps=st.integers(1, 400))
def test_every_step_of_random_play_follows_the_rules(table, seed, steps):
    ruleset, seats = table
    match = Match.new(ruleset, seats, seed)
    powers = powers_of(ruleset)
    deck = full_deck(ruleset, seats)
    rng = random.Random(seed)
    for _ in range(steps):
        if match.view(None).outcome is not None:
            break
        seat, action = random_step(match, rng)
        before = Before(match.view(None), match.view(seat).hand)
        events = match.apply(seat, action)
        after = match.view(None)
        assert cards_in_play(match) == deck, "a card was lost or made up"
        check_nothing_hidden_is_shown(match, events, seats)
        if any(isinstance(event, (RoundOver, RoundStarted)) for event in events):
            continue
        check_turn_order(before, seat, action, after, events, powers)
        check_draw_four(match, before, seat, action, after)
        check_calls_and_piles(before, seat, action, after, events)
