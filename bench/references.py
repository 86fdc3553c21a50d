# The engines are optional (bench extra) and ship no type information.
# mypy: disable-error-code="import-untyped, import-not-found"
"""Reference card-game engines, driven by uniformly random legal play.

These numbers put the throughput of our own rules core into context: RLCard's UNO
(pure Python) and OpenSpiel's Crazy Eights (C++ with Python bindings), both with
four players. Each driver is as lean as a fair Python driver would be (methods
bound to locals, ``random.Random`` choices, no per-move allocation of our own), so
the references are not handicapped by the harness.

Seconds are CPU seconds of this process, as for the rules core, so other work on the machine
does not count.

Both libraries come with the ``bench`` extra and are imported lazily, so the rest
of the benchmark still runs without them.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

NUM_PLAYERS = 4
_MISSING = "{} not installed: run make bench, which installs the bench extra"


def rlcard_uno_games_per_second(min_seconds: float = 3.0, seed: int = 0) -> dict[str, float]:
    """Play 4-player RLCard UNO games with random legal moves for at least ``min_seconds``.

    Configuration: the game object ``rlcard.games.uno.game.UnoGame`` is built directly
    with ``num_players=4`` (and the default ``allow_step_back=False``, so ``step`` does
    not deep-copy the state). The RL environment is deliberately not used:
    ``rlcard.make("uno", {"game_num_players": 4})`` silently plays 2-player games,
    because ``Env.__init__`` only passes game config on for blackjack and the hold'em
    variants, and ``UnoGame`` defaults to 2 players. The player count is asserted on
    ``num_players`` and on the dealt ``players`` list.

    The deck shuffles and the random colour of a flipped or drawn wild card come from
    the game's own ``np_random``, seeded with ``seed``; the players' choices come from
    ``random.Random(seed)``.

    A move is one ``game.step(action)`` call: playing a card (a wild card's action
    includes its colour) or ``"draw"``, which RLCard offers only when nothing else is
    legal (it draws one card, auto-plays it if it fits, else passes the turn).
    ``step`` returns the next player's state including its ``legal_actions``; the
    driver uses that list instead of calling ``get_legal_actions()`` a second time.
    Games are only completed, never cut off, so the run may exceed ``min_seconds``
    by one game.

    Returns ``games_per_s``, ``moves_per_s``, ``games`` and ``moves``.
    """
    try:
        import numpy as np
        from rlcard.games.uno.game import UnoGame
    except ImportError as exc:
        raise RuntimeError(_MISSING.format("rlcard")) from exc

    game = UnoGame(num_players=NUM_PLAYERS)
    game.np_random = np.random.RandomState(seed)  # shared with dealer and round
    choice = random.Random(seed).choice
    init_game = game.init_game
    step = game.step
    is_over = game.is_over

    state, _ = init_game()
    assert game.get_num_players() == NUM_PLAYERS, game.get_num_players()
    assert len(game.players) == NUM_PLAYERS, len(game.players)

    games = 0
    moves = 0
    clock = time.process_time  # CPU time: a fair clock on a machine busy with other work
    start = clock()
    while True:
        while not is_over():
            state, _ = step(choice(state["legal_actions"]))
            moves += 1
        games += 1
        elapsed = clock() - start
        if elapsed >= min_seconds:
            break
        state, _ = init_game()
    return {
        "games_per_s": games / elapsed,
        "moves_per_s": moves / elapsed,
        "games": games,
        "moves": moves,
    }


def openspiel_crazy_eights_moves_per_second(
    min_seconds: float = 3.0, seed: int = 0
) -> dict[str, float]:
    """Play 4-player OpenSpiel Crazy Eights games with random legal moves.

    Configuration: ``pyspiel.load_game("crazy_eights", {"players": 4})``. The
    parameter is called ``players`` (``num_players`` is rejected) and defaults to 5;
    the other parameters keep their defaults (``max_draw_cards=5``, ``max_turns=100``,
    ``reshuffle=False``, ``use_special_cards=False``). The player count is asserted on
    ``game.num_players()``.

    Chance nodes (choosing the dealer, dealing, and the card drawn after a player's
    ``Draw`` move) are sampled from ``chance_outcomes()`` with ``random.Random(seed)``
    and are not counted. With at most 5 players the game uses one deck, so every chance
    node is uniform (each remaining card, or each player as dealer, has the same
    probability) and a plain ``choice`` over the outcomes samples them exactly; an
    untimed first game asserts this. A weighted ``random.choices`` would be just as
    exact but halves the measured throughput, which would measure the driver rather
    than the engine. Every other action is a player move:
    ``Play``, ``Draw``, ``Pass`` and ``Nominate suit`` (the separate decision after
    playing an eight). Games are played to a terminal state, never cut off, so the
    run may exceed ``min_seconds`` by one game.

    Returns ``games_per_s``, ``player_moves_per_s``, ``games`` and ``player_moves``.
    """
    try:
        import pyspiel
    except ImportError as exc:
        raise RuntimeError(_MISSING.format("open_spiel")) from exc

    game = pyspiel.load_game("crazy_eights", {"players": NUM_PLAYERS})
    assert game.num_players() == NUM_PLAYERS, game.num_players()
    choice = random.Random(seed).choice
    _assert_uniform_chance(game, choice)
    new_initial_state = game.new_initial_state

    games = 0
    player_moves = 0
    clock = time.process_time  # CPU time: a fair clock on a machine busy with other work
    start = clock()
    while True:
        state = new_initial_state()
        is_terminal = state.is_terminal
        is_chance_node = state.is_chance_node
        chance_outcomes = state.chance_outcomes
        legal_actions = state.legal_actions
        apply_action = state.apply_action
        while not is_terminal():
            if is_chance_node():
                apply_action(choice(chance_outcomes())[0])
            else:
                apply_action(choice(legal_actions()))
                player_moves += 1
        games += 1
        elapsed = clock() - start
        if elapsed >= min_seconds:
            break
    return {
        "games_per_s": games / elapsed,
        "player_moves_per_s": player_moves / elapsed,
        "games": games,
        "player_moves": player_moves,
    }


def _assert_uniform_chance(game: Any, choice: Callable[[Sequence[Any]], Any]) -> None:
    """Play one untimed game, asserting that every chance node is uniform."""
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            uniform = 1.0 / len(outcomes)
            assert all(math.isclose(p, uniform) for _, p in outcomes), outcomes
            state.apply_action(choice(outcomes)[0])
        else:
            state.apply_action(choice(state.legal_actions()))


def main() -> None:
    """Print the throughput of both reference engines."""
    for name, run in (
        ("RLCard UNO, 4 players", rlcard_uno_games_per_second),
        ("OpenSpiel crazy_eights, 4 players", openspiel_crazy_eights_moves_per_second),
    ):
        try:
            result = run()
        except RuntimeError as exc:
            print(f"{name}: skipped ({exc})")
            continue
        figures = ", ".join(
            f"{key} {value:,.0f}" if isinstance(value, int) else f"{key} {value:,.1f}"
            for key, value in result.items()
        )
        print(f"{name}: {figures}")


if __name__ == "__main__":
    main()
