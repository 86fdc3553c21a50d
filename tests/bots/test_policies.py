"""The bot levels choose well-formed, legal and sensible actions from a seat's view alone."""

import random

import pytest

from maumau.policies import decide, rank
from maumau.rules import Match, Ruleset, parse_action, parse_cards

PRESETS = ["classic", "online", "ostfriesland", "colour"]


def position(preset: str, seats: int, seed: int, steps: int) -> Match:
    match = Match.new(Ruleset.create(preset), seats, seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if match.phase == "over":
            break
        seat = match.chooser if match.phase == "starter_suit" else match.turn
        match.apply(seat, rng.choice(list(match.legal_actions(seat))))
    return match


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("level", ["random", "heuristic", "strong"])
def test_every_level_picks_a_legal_action_in_many_positions(preset, level):
    rng = random.Random(1)
    for seed in range(12):
        match = position(preset, 3, seed, steps=seed * 3)
        if match.phase == "over":
            continue
        seat = match.chooser if match.phase == "starter_suit" else match.turn
        action = decide(match.view(seat), level, rng, budget_seconds=0.005)
        assert action in list(match.legal_actions(seat))


def table(preset: str, hands: list[str], discard: str, **setup) -> Match:
    return Match.from_setup(
        Ruleset.create(preset),
        [parse_cards(hand) for hand in hands],
        draw_pile=parse_cards("KH QH 10H 9D 8C"),  # 9H lies on the discard pile
        discard=parse_cards(discard),
        **setup,
    )


def test_heuristic_answers_a_seven_with_a_seven():
    """Rule text 000, strategy: pass a pending 7 on instead of taking the cards."""
    match = table("classic", ["2C", "7S 3D 4D", "5C"], "9H 7H", turn=1, pending="draw",
                  pending_count=2)  # fmt: skip
    assert decide(match.view(1), "heuristic", random.Random()) == parse_action("7S")


def test_heuristic_keeps_the_jack_while_another_card_fits():
    """Rule text 000, strategy: a Jack is the way out of a bad suit; keep it for later."""
    match = table("classic", ["2C", "JS 3H 4D", "5C"], "9H", turn=1)
    assert decide(match.view(1), "heuristic", random.Random()) == parse_action("3H")


def test_heuristic_makes_its_calls():
    """Rule text 000: a play that leaves one card carries 'Mau'."""
    match = table("classic", ["2C", "3H 4D", "5C"], "9H", turn=1)
    assert decide(match.view(1), "heuristic", random.Random()) == parse_action("3H!mau")


def test_heuristic_catches_a_missed_call_at_once():
    match = table("classic", ["2C 9C", "3H 4D", "5C 6C"], "9H", turn=1)
    match.apply(1, parse_action("3H"))  # leaves one card without 'Mau'
    assert decide(match.view(0), "heuristic", random.Random()) == parse_action("catch:1")


def test_heuristic_aims_an_eight_at_a_seat_about_to_go_out():
    """Rule text 000, strategy: skip the seat that has one or two cards left."""
    match = table("classic", ["2C", "8H 3H 4H", "5C"], "9H", turn=1)
    assert decide(match.view(1), "heuristic", random.Random()).card.rank == "8"


def test_every_hint_has_a_reason_and_covers_every_legal_action():
    match = position("colour", 4, 3, 10)
    seat = match.turn
    ranked = rank(match.view(seat))
    assert {r.action for r in ranked} == set(match.legal_actions(seat))
    assert all(r.reason for r in ranked if r.action.text not in ("accept", "pass"))
    assert [r.score for r in ranked] == sorted((r.score for r in ranked), reverse=True)
