"""Properties that hold in every position of every preset, checked over random play.

Each example plays random legal actions from a seeded match and checks, after every step: only
legal actions are accepted and a refused one changes nothing; the match survives a trip through
bytes. The rule outcomes of each step (turn order, redaction, conservation of the cards) are
checked in test_rule_properties.py.
"""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maumau.rules import (
    ALL_CARDS,
    DRAW,
    PASS,
    Catch,
    IllegalAction,
    Match,
    NameSuit,
    Play,
    RulesError,
    Ruleset,
)
from maumau.rules.determinize import determinize
from maumau.rules.events import Drew, RoundStarted, TurnStarted
from tests.rules.support import cards_in_play, full_deck, mover, random_step

TABLES = [
    ("classic", 2), ("classic", 4), ("classic", 7), ("online", 2), ("online", 4),
    ("ostfriesland", 3), ("ostfriesland", 8), ("colour", 2), ("colour", 4),
]  # fmt: skip
VARIANTS = [
    Ruleset.create("classic", {"deck": "skat32", "ace_power": "draw", "seven_chain_limit": 1}),
    Ruleset.create("classic", {"ace_power": "skip", "hand_size": 7, "sevens": False}),
    Ruleset.create("colour", {"teams": True}),
]

tables = st.sampled_from(TABLES).map(lambda t: (Ruleset.create(t[0]), t[1])) | st.sampled_from(
    VARIANTS
).map(lambda r: (r, 4))


def random_illegal_candidates(match: Match, rng: random.Random) -> list:
    """A few actions of every kind, mostly illegal, to probe the checked path."""
    suits = match.ruleset.suits
    seats = len(match.view(None).hand_sizes)
    cards = [rng.choice(ALL_CARDS) for _ in range(3)] + [
        c for hand in match.hands for c in hand[:2]
    ]
    actions = [Play(card, rng.choice((None, *suits))) for card in cards]
    return [*actions, DRAW, PASS, Catch(rng.randrange(seats)), NameSuit(rng.choice(suits))]


@given(table=tables, seed=st.integers(0, 2**32), steps=st.integers(1, 300))
def test_random_play_accepts_exactly_the_listed_actions(table, seed, steps):
    ruleset, seats = table
    match = Match.new(ruleset, seats, seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if match.view(None).outcome is not None:
            break
        for seat in range(seats):
            listed = match.legal_list(seat)
            assert listed == list(match.legal_actions(seat))
            plays = [type(action) is Play for action in listed]
            assert plays == sorted(plays, reverse=True), "a seat's plays come first"
            assert match.cards_first_list(seat) == (listed[: plays.count(True)] or listed)
            for probe in random_illegal_candidates(match, rng):
                legal = probe in list(match.legal_actions(seat))
                assert (probe in match.legal_actions(seat)) == legal
                before = match.copy()
                try:
                    match.copy().apply(seat, probe)
                except RulesError:
                    assert not legal, f"{probe.text} listed as legal for seat {seat} but refused"
                else:
                    assert legal, f"{probe.text} accepted for seat {seat} but not listed"
                assert match == before
        match.apply(*random_step(match, rng))
        assert Match.from_bytes(match.to_bytes()) == match


@given(table=tables, seed=st.integers(0, 2**32))
def test_every_position_of_random_play_comes_back_from_its_bytes(table, seed):
    """The bytes round trip alone, cheap enough to run where the property above is left out
    (`make mutate`): each field of the state, in every position random play reaches."""
    ruleset, seats = table
    match = Match.new(ruleset, seats, seed)
    rng = random.Random(seed)
    for _ in range(400):
        restored = Match.from_bytes(match.to_bytes())
        assert restored == match
        assert restored.view(None) == match.view(None)
        if match.view(None).outcome is not None:
            break
        match.apply(*random_step(match, rng))


@given(table=tables, seed=st.integers(0, 2**32))
def test_same_seed_and_actions_replay_the_same_match(table, seed):
    ruleset, seats = table
    match = Match.new(ruleset, seats, seed)
    rng = random.Random(seed)
    trace = []
    for _ in range(200):
        if match.view(None).outcome is not None:
            break
        seat, action = random_step(match, rng)
        trace.append((seat, action, match.apply(seat, action)))
    replay = Match.new(ruleset, seats, seed)
    for seat, action, events in trace:
        assert replay.apply(seat, action) == events
    assert replay == match


@settings(max_examples=12)
@given(table=tables, seed=st.integers(0, 2**32))
def test_every_round_ends(table, seed):
    ruleset, seats = table
    match = Match.new(ruleset, seats, seed)
    rng = random.Random(seed)
    for _ in range(30_000):
        if match.view(None).round > 1 or match.view(None).outcome is not None:
            return
        match.apply(*random_step(match, rng))
    pytest.fail("the first round did not end within 30,000 random actions")


@pytest.mark.parametrize(("preset", "seats", "size"), [
    ("classic", 4, 52), ("classic", 7, 104), ("online", 4, 32),
    ("ostfriesland", 8, 96), ("colour", 4, 108),
])  # fmt: skip
def test_decks_hold_the_cards_the_rule_texts_name(preset, seats, size):
    """Rule texts 000-003: 52 cards (two decks from 7 seats), 32, three Skat decks, 108."""
    ruleset = Ruleset.create(preset)
    match = Match.new(ruleset, seats, seed=1)
    assert sum(cards_in_play(match).values()) == size
    assert cards_in_play(match) == full_deck(ruleset, seats)


def test_a_refused_action_explains_itself_and_changes_nothing():
    match = Match.new(Ruleset.create("classic"), 3, seed=5)
    before = match.copy()
    other = (match.turn + 1) % 3
    with pytest.raises(IllegalAction) as refused:
        match.apply(other, DRAW)
    assert refused.value.code == "not_your_turn"
    assert f"seat {match.turn}" in str(refused.value)
    assert match == before


@pytest.mark.parametrize(("preset", "seats"), TABLES)
def test_every_seat_is_dealt_a_full_hand_and_the_deal_is_told(preset, seats):
    """Rule texts 000-003: everyone, the dealer included, starts with the preset's hand size."""
    match, events = Match.start(Ruleset.create(preset), seats, seed=3)
    size = match.ruleset.hand_size
    assert [len(hand) for hand in match.hands] == [size] * seats
    assert events[0] == RoundStarted(1, match.view(None).dealer, match.view(None).top,
                                     tuple(range(seats)))  # fmt: skip
    assert events[-1] == TurnStarted(match.view(None).turn)
    dealt = {event.seat: event.cards for event in events if isinstance(event, Drew)}
    assert dealt == {seat: tuple(match.hands[seat]) for seat in range(seats)}


@given(table=tables, seed=st.integers(0, 2**32))
def test_a_silent_seat_always_has_a_legal_default_action(table, seed):
    """The engine's turn timer plays ``default_action``: it must be legal in every position."""
    ruleset, seats = table
    match = Match.new(ruleset, seats, seed)
    rng = random.Random(seed)
    for _ in range(150):
        if match.view(None).outcome is not None:
            break
        seat = mover(match)
        assert match.default_action(seat) in list(match.legal_actions(seat))
        match.apply(*random_step(match, rng))


@given(table=tables, seed=st.integers(0, 2**32), steps=st.integers(0, 120))
def test_a_determinization_agrees_with_everything_the_seat_saw(table, seed, steps):
    """Search samples hidden cards: the sampled world must match the seat's view exactly and
    hold exactly the deck, so a bot never plans with a card it could know is elsewhere."""
    ruleset, seats = table
    match = Match.new(ruleset, seats, seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if match.view(None).outcome is not None:
            return
        match.apply(*random_step(match, rng))
    seat = mover(match)
    view = match.view(seat)
    world = determinize(view, random.Random(seed))
    assert cards_in_play(world) == full_deck(ruleset, seats)
    seen = world.view(seat)
    for name in ("hand", "hand_sizes", "discard", "turn", "phase", "pending", "pending_count",
                 "wished", "active_suit", "direction", "totals", "drawn", "legal"):  # fmt: skip
        assert getattr(seen, name) == getattr(view, name), name
