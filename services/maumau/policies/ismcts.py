"""Single-observer information-set Monte Carlo tree search (Cowling, Powley & Whitehouse 2012).

Every iteration samples a world the searching seat cannot rule out
(:func:`~maumau.rules.determinize.determinize`) and tries each of the heuristic's best moves in
it, so the moves are compared world by world (paired: the same world and the same playout luck).
Below each root move grows a tree over what the seat can tell apart: in each world it chooses
only among the actions legal there (UCB with availability counts, so a move that is seldom
possible is not punished for it), adds one node, plays the round out with a quick heuristic
player and credits every node with the result for the seat (or team) that moved into it.

The heuristic's first choice stands unless another move won clearly more often (by
:data:`MARGIN` standard errors of the paired difference): measured in the league, a plain UCB
over every legal move at the root lost to the heuristic it was guided by (34% in colour, 2
seats), its estimates too noisy to overrule a sound habit. The search is anytime: it stops at
its iteration cap or when the clock passed in says one more iteration, as long as the longest so
far, would end past the budget (so a decision keeps within it rather than ending one iteration
after it), whichever comes first, so it is deterministic for a given seed and iteration cap.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from maumau.rules import Action, Call, Catch, Match, Play, View
from maumau.rules.determinize import determinize

EXPLORATION = 0.7
"""UCB's exploration constant; rewards lie in [0, 1]."""
WIDTH = 3
"""How many of the heuristic's best root moves the search weighs."""
MARGIN = 2.0
"""Standard errors by which a move must beat the heuristic's first choice to replace it."""
PLAYOUT_LIMIT = 300
"""Actions a playout takes at most before it scores the round by hand sizes."""


@dataclass(frozen=True)
class Choice:
    """A root move's statistics: how often the search tried it and the share it won."""

    action: Action
    visits: int
    win_rate: float


@dataclass(frozen=True)
class Outcome:
    """What a search chose and why it stopped: ``single`` (one legal move), ``cap`` or ``time``."""

    action: Action
    iterations: int
    stopped: str
    choices: tuple[Choice, ...]  # most visited first


class _Node:
    __slots__ = ("available", "children", "visits", "wins")

    def __init__(self) -> None:
        self.children: dict[Action, _Node] = {}
        self.visits = 0
        self.wins = 0.0
        self.available = 0


def search(
    view: View,
    rng: random.Random,
    budget_seconds: float,
    max_iterations: int,
    prior: Sequence[Action] = (),
    clock: Callable[[], float] = time.perf_counter,
    width: int = WIDTH,
    margin: float = MARGIN,
) -> Outcome:
    """The move the search prefers for ``view.seat``, thinking for ``budget_seconds`` by
    ``clock`` or ``max_iterations`` iterations, whichever ends first. ``prior`` is the
    heuristic's ordering of the legal moves, best first: the search weighs its ``width`` best."""
    seat = view.seat
    if seat is None or not view.legal:
        raise ValueError("the search needs a seat with something to do")
    candidates = list(prior[:width]) if prior else list(view.legal[:width])
    if len(view.legal) == 1 or len(candidates) == 1:
        return Outcome(candidates[0], 0, "single", (Choice(candidates[0], 0, 0.0),))
    roots = [_Node() for _ in candidates]
    gains = [0.0] * len(candidates)  # summed advantage over the first candidate, world by world
    squares = [0.0] * len(candidates)
    last = clock()
    deadline = last + budget_seconds
    iterations = 0
    stopped = "cap"
    longest = 0.0
    while iterations < max_iterations:
        now = clock()
        longest, last = max(longest, now - last), now
        if now + longest >= deadline:  # one more iteration as long as the longest would overrun
            stopped = "time"
            break
        world, luck = determinize(view, rng), rng.random()
        results = []
        for action, node in zip(candidates, roots, strict=True):
            trial = world.copy()
            trial.apply_unchecked(seat, action)
            results.append(_iterate(node, trial, seat, world.round, random.Random(luck)))
        for i, result in enumerate(results):
            gains[i] += result - results[0]
            squares[i] += (result - results[0]) ** 2
        iterations += 1
    choices = tuple(
        Choice(action, node.visits, node.wins / max(node.visits, 1))
        for action, node in zip(candidates, roots, strict=True)
    )
    if iterations == 0:  # no time for even one world: the heuristic's first choice
        return Outcome(candidates[0], 0, stopped, choices)
    best = max(range(len(candidates)), key=lambda i: gains[i])
    mean = gains[best] / iterations
    spread = max(squares[best] / iterations - mean * mean, 1e-9) ** 0.5
    clearly = mean > margin * spread / iterations**0.5
    chosen = candidates[best] if clearly else candidates[0]
    ordered = sorted(choices, key=lambda c: (c.action != chosen, -c.win_rate))
    return Outcome(chosen, iterations, stopped, tuple(ordered))


def _iterate(node: _Node, world: Match, seat: int, start_round: int, rng: random.Random) -> float:
    """Below a root move: select and expand in ``world`` (UCB over the moves legal in it, with
    availability counts), play out, back the result up; the root seat's reward."""
    path: list[tuple[_Node, int]] = [(node, seat)]  # node moved into, seat that moved
    while not _round_over(world, start_round):
        mover = _mover(world)
        legal = world.legal_list(mover)
        for action in legal:
            child = node.children.get(action)
            if child is not None:
                child.available += 1
        untried = [a for a in legal if a not in node.children]
        if untried:  # the playout player's move first: a tree grown along likely play
            habit = quick_action(world, mover, rng)
            action = habit if habit in untried else untried[rng.randrange(len(untried))]
            node = node.children[action] = _Node()
            node.available = 1
            world.apply_unchecked(mover, action)
            path.append((node, mover))
            break
        action = _select(node, legal)
        node = node.children[action]
        world.apply_unchecked(mover, action)
        path.append((node, mover))
    rewards = _playout(world, start_round, rng)
    for moved_into, mover in path:
        moved_into.visits += 1
        moved_into.wins += rewards[mover]
    return rewards[seat]


def _select(node: _Node, legal: list[Action]) -> Action:
    best, best_score = legal[0], -math.inf
    for action in legal:
        child = node.children[action]
        score = child.wins / child.visits + EXPLORATION * math.sqrt(
            math.log(child.available) / child.visits
        )
        if score > best_score:
            best, best_score = action, score
    return best


def _mover(match: Match) -> int:
    return match.chooser if match.phase == "starter_suit" else match.turn


def _round_over(match: Match, start_round: int) -> bool:
    return match.round != start_round or match.phase == "over"


def _playout(match: Match, start_round: int, rng: random.Random) -> list[float]:
    """Play the round out with quick players; each seat's reward: 1 if its team went out first,
    else a little credit for being close to going out when the playout limit cut it short."""
    wins_before = list(match.round_wins)
    for _ in range(PLAYOUT_LIMIT):
        if _round_over(match, start_round):
            break
        mover = _mover(match)
        match.apply_unchecked(mover, quick_action(match, mover, rng))
    seats = range(len(wins_before))
    if _round_over(match, start_round):
        won = [match.round_wins[s] > wins_before[s] for s in seats]
        return [1.0 if any(won[t] for t in match.team_of(s)) else 0.0 for s in seats]
    return [0.5 / (1 + min(len(match.hands[t]) for t in match.team_of(s))) for s in seats]


def quick_action(match: Match, seat: int, rng: random.Random) -> Action:
    """A fast playout player: calls made, cards before draws, plain cards from the longest suit
    before wilds, and a wish for the suit it holds most of."""
    actions = match.cards_first_list(seat)
    called = {a.card for a in actions if type(a) is Play and a.call}
    plays = [a for a in actions if type(a) is Play and (a.call or a.card not in called)]
    if not plays:
        return next((a for a in actions if type(a) not in (Catch, Call)), actions[0])
    wild_ranks = match.ruleset.wish_ranks
    counts: dict[str, int] = {}
    for card in match.hands[seat]:
        if card.rank not in wild_ranks:
            counts[card.suit] = counts.get(card.suit, 0) + 1
    plain = [a for a in plays if a.card.rank not in wild_ranks]
    if plain:
        best = max(counts[a.card.suit] for a in plain)
        return rng.choice([a for a in plain if counts[a.card.suit] == best])
    return max(plays, key=lambda a: counts.get(a.suit, 0) if a.suit else -1)
