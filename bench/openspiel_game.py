"""The rules core as an OpenSpiel Python game, so OpenSpiel's own ``ISMCTSBot`` plays our presets.

A state wraps one round of a :class:`~maumau.rules.Match` (the league's single rounds: it ends
when a seat goes out, +1 to the winning side, -1 to the others). A player's information state is
the text of its seat's :class:`~maumau.rules.View`, everything the seat may see and nothing else;
the bot's resampler is :func:`~maumau.rules.determinize.determinize`, the sampler our own search
uses, so both searches draw worlds from the same distribution. Actions are numbered as they are
first met, one number per action for the whole process.

Calls and catches are made at once by the league for every seat (as the heuristic does), so a
state's current player is the seat the match waits for.
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from maumau.bots.league import ONE_ROUND, LeagueResult, play_league, report
from maumau.policies import rank
from maumau.rules import Action, Match, Ruleset
from maumau.rules.determinize import determinize

ACTIONS: dict[Action, int] = {}
NUMBERED: list[Action] = []
MAX_ACTIONS = 4096
"""A bound on distinct actions (cards x wished suits x calls, draws, seats to catch)."""

_GAME_TYPE = pyspiel.GameType(
    short_name="python_maumau",
    long_name="Mau-Mau (one round of a maumau.rules preset)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=8,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=False,
    provides_observation_tensor=False,
    parameter_specification={"preset": "colour", "players": 2, "seed": "0"},
)


def number(action: Action) -> int:
    if action not in ACTIONS:
        ACTIONS[action] = len(NUMBERED)
        NUMBERED.append(action)
    return ACTIONS[action]


class MauMauGame(pyspiel.Game):  # type: ignore[misc]
    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = {**_GAME_TYPE.parameter_specification, **(params or {})}
        self.preset, self.players = str(params["preset"]), int(params["players"])
        self.seed = str(params["seed"])
        self.ruleset = Ruleset.create(self.preset, ONE_ROUND.get(self.preset, {"target": 0}))
        info = pyspiel.GameInfo(
            num_distinct_actions=MAX_ACTIONS,
            max_chance_outcomes=0,
            num_players=self.players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=None,
            max_game_length=2000,
        )
        super().__init__(_GAME_TYPE, info, params)

    def new_initial_state(self) -> MauMauState:
        return MauMauState(self, Match.new(self.ruleset, self.players, self.seed))

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> ViewObserver:
        return ViewObserver()


class _Held:
    """The match a state holds: OpenSpiel clones a Python state by deep-copying its attributes,
    and a match copies itself (the compiled core's fast copy)."""

    __slots__ = ("match",)

    def __init__(self, match: Match) -> None:
        self.match = match

    def __deepcopy__(self, memo: dict[int, Any]) -> _Held:
        return _Held(self.match.copy())


class MauMauState(pyspiel.State):  # type: ignore[misc]
    def __init__(self, game: MauMauGame, match: Match) -> None:
        super().__init__(game)
        self.held = _Held(match)

    @property
    def match(self) -> Match:
        return self.held.match

    def mover(self) -> int:
        return self.match.chooser if self.match.phase == "starter_suit" else self.match.turn

    def current_player(self) -> int:
        return int(pyspiel.PlayerId.TERMINAL) if self.is_terminal() else self.mover()

    def _legal_actions(self, player: int) -> list[int]:
        return sorted(number(action) for action in self.match.legal_list(player))

    def _apply_action(self, action: int) -> None:
        self.match.apply_unchecked(self.mover(), NUMBERED[action])

    def _action_to_string(self, player: int, action: int) -> str:
        return str(NUMBERED[action])

    def is_terminal(self) -> bool:
        return self.match.round != 1 or self.match.phase == "over"

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self.match.seats
        winner = max(range(self.match.seats), key=lambda s: self.match.round_wins[s])
        team = self.match.team_of(winner)
        return [1.0 if seat in team else -1.0 for seat in range(self.match.seats)]

    def __str__(self) -> str:
        return repr(self.match.view(None))


class ViewObserver:
    """A player's information state: the text of its seat's view."""

    def __init__(self) -> None:
        self.tensor = None
        self.dict: dict[str, Any] = {}

    def set_from(self, state: MauMauState, player: int) -> None:
        pass

    def string_from(self, state: MauMauState, player: int) -> str:
        return repr(state.match.view(player))


pyspiel.register_game(_GAME_TYPE, MauMauGame)


def resampler(rng: random.Random) -> Any:
    """ISMCTSBot's resampler: a world ``player`` cannot tell from the state, by ``determinize``."""

    def resample(state: MauMauState, player: int) -> MauMauState:
        world = determinize(state.match.view(player), rng)
        return MauMauState(state.get_game(), world)

    return resample


def ismcts_bot(game: MauMauGame, simulations: int, seed: int) -> ismcts.ISMCTSBot:
    """OpenSpiel's ISMCTSBot with its usual random-rollout evaluator and our resampler."""
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed))
    bot = ismcts.ISMCTSBot(
        game, evaluator, uct_c=2.0, max_simulations=simulations,
        random_state=np.random.RandomState(seed),
    )  # fmt: skip
    bot.set_resampler(resampler(random.Random(seed)))
    return bot


def decide(bot: ismcts.ISMCTSBot, game: MauMauGame, match: Match) -> Action:
    """The bot's action at the state of ``match`` (a copy: the bot's search leaves it as it was)."""
    state = MauMauState(game, match.copy())
    action: int = bot.step(state)
    return NUMBERED[action]


def simulations_for(game: MauMauGame, seconds: float, seed: int = 0) -> int:
    """How many simulations ISMCTSBot runs in ``seconds`` per decision on this game, measured on
    the first decisions of a few deals: the equal time per decision of the matchup."""
    probe, spent, decisions = ismcts_bot(game, 50, seed), 0.0, 0
    for deal in range(4):
        match = Match.new(game.ruleset, game.players, f"probe/{deal}")
        state = MauMauState(game, match)
        if len(state.legal_actions()) < 2:
            continue
        started = time.perf_counter()
        probe.step(state)
        spent += time.perf_counter() - started
        decisions += 1
    return max(1, round(50 * decisions * seconds / spent)) if spent else 50


def against_ismcts(
    preset: str, rounds: int, seconds: float, seed: int, simulations: int | None = None
) -> tuple[LeagueResult, int]:
    """``strong`` against ISMCTSBot at two seats, each thinking ``seconds`` per decision (the
    bot's simulations measured to take that long, unless given); the result and the simulations.
    Both make a call, a catch or the last card at once, the heuristic's reflex."""
    game = MauMauGame({"preset": preset, "players": 2, "seed": str(seed)})
    simulations = simulations or simulations_for(game, seconds)
    bot = ismcts_bot(game, simulations, seed)

    def outsider(match: Match, seat: int) -> Action:
        view = match.view(seat)
        reflex = rank(view)[0]
        mover = match.chooser if match.phase == "starter_suit" else match.turn
        if seat != mover or reflex.score >= 95 or len(view.legal) == 1:
            return reflex.action
        return decide(bot, game, match)

    players = ["strong", "ismcts"]
    result = play_league(preset, players, rounds, seconds, seed, 10**9, {"ismcts": outsider})
    return result, simulations


def main() -> None:
    parser = argparse.ArgumentParser(description="strong against OpenSpiel's ISMCTSBot")
    parser.add_argument("--rounds", type=int, default=200, help="rounds per preset")
    parser.add_argument("--budget-ms", type=int, default=200, help="time per decision of both")
    parser.add_argument("--simulations", type=int, help="ISMCTSBot's (default: equal time)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for preset in ("classic", "online", "ostfriesland", "colour"):
        result, simulations = against_ismcts(
            preset, args.rounds, args.budget_ms / 1000, args.seed, args.simulations
        )
        print(f"ISMCTSBot: {simulations} simulations per decision")
        print(report(preset, result))


if __name__ == "__main__":
    main()
