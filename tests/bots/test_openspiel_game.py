"""The rules core as an OpenSpiel game: OpenSpiel's ISMCTSBot plays our presets through it, its
information states are the seat's view, and its resampler never changes what the seat sees.

The ``open_spiel`` package is a development dependency (pyproject.toml), so ``make test``
installs it.
"""

from __future__ import annotations

import random

import pytest

from maumau.rules import Match


@pytest.fixture(scope="module")
def openspiel_game():
    from bench import openspiel_game

    return openspiel_game


@pytest.mark.parametrize("preset", ["classic", "online", "ostfriesland", "colour"])
def test_random_rounds_through_the_adapter_end_with_one_winning_side(openspiel_game, preset):
    import pyspiel

    game = pyspiel.load_game("python_maumau", {"preset": preset, "players": 3, "seed": "7"})
    rng = random.Random(7)
    state = game.new_initial_state()
    while not state.is_terminal():
        player = state.current_player()
        assert state.information_state_string(player) == repr(state.match.view(player))
        state.apply_action(rng.choice(state.legal_actions()))
    assert sorted(state.returns()) == [-1.0, -1.0, 1.0]


def test_the_resampler_keeps_what_the_seat_sees(openspiel_game):
    game = openspiel_game.MauMauGame({"preset": "classic", "players": 4, "seed": "3"})
    state = game.new_initial_state()
    resample = openspiel_game.resampler(random.Random(0))
    for seat in range(4):
        world = resample(state, seat)
        assert world.information_state_string(seat) == state.information_state_string(seat)
        assert world.match.hands != state.match.hands


def test_ismctsbot_plays_a_legal_action_and_leaves_the_match_as_it_was(openspiel_game):
    game = openspiel_game.MauMauGame({"preset": "colour", "players": 2, "seed": "5"})
    bot = openspiel_game.ismcts_bot(game, 8, seed=5)
    match = Match.new(game.ruleset, 2, "5")
    for _ in range(6):
        seat = match.chooser if match.phase == "starter_suit" else match.turn
        before = match.view(None)
        action = openspiel_game.decide(bot, game, match)
        assert match.view(None) == before
        assert action in list(match.legal_actions(seat))
        match.apply(seat, action)


def test_a_short_matchup_against_ismctsbot_counts_every_round(openspiel_game):
    result, simulations = openspiel_game.against_ismcts("colour", 2, 0.01, 1, simulations=2)
    assert simulations == 2
    assert result.wins["strong"] + result.wins["ismcts"] == 2
