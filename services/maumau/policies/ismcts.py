"""Single-observer information-set Monte Carlo tree search (Cowling, Powley & Whitehouse 2012).

One tree over what the searching seat can tell apart: every iteration samples a world the seat
cannot rule out (:func:`~maumau.rules.determinize.determinize`), walks the tree choosing only among
the actions legal in that world (UCB with availability counts, so a move that is seldom possible is
not punished for it), adds one node, plays the round out with a quick heuristic player and credits
every node with the result for the seat (or team) that moved into it.

The heuristic guides it twice: its ranking of the root's moves is a progressive bias that fades as
visits grow, and the playouts follow its habits. The search is anytime: it stops at its iteration
cap or when the clock passed in says the budget is spent, whichever comes first, so it is
deterministic for a given seed and iteration cap.
"""

from __future__ import annotations

import math
import random
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from maumau.rules import Action, Call, Catch, Match, Play, View
from maumau.rules.determinize import determinize

EXPLORATION = 0.7
"""UCB's exploration constant; rewards lie in [0, 1]."""
BIAS = 0.5
"""Weight of the heuristic's ranking at the root, divided by visits + 1."""
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
    bias: float = BIAS,
) -> Outcome:
    """The move the search prefers for ``view.seat``, thinking for ``budget_seconds`` by
    ``clock`` or ``max_iterations`` iterations, whichever ends first. ``prior`` is the
    heuristic's ordering of the legal moves, best first, for the progressive bias."""
    seat = view.seat
    if seat is None or not view.legal:
        raise ValueError("the search needs a seat with something to do")
    if len(view.legal) == 1:
        only = view.legal[0]
        return Outcome(only, 0, "single", (Choice(only, 0, 0.0),))
    priors = {action: 1.0 - i / len(prior) for i, action in enumerate(prior)} if prior else {}
    root = _Node()
    deadline = clock() + budget_seconds
    iterations = 0
    stopped = "cap"
    while iterations < max_iterations:
        if clock() >= deadline:
            stopped = "time"
            break
        _iterate(root, determinize(view, rng), seat, rng, priors, bias)
        iterations += 1
    choices = sorted(
        (Choice(a, n.visits, n.wins / max(n.visits, 1)) for a, n in root.children.items()),
        key=lambda c: (-c.visits, -c.win_rate),
    )
    if not choices:  # no time for even one iteration: the heuristic's first choice
        first = prior[0] if prior else view.legal[0]
        return Outcome(first, 0, stopped, (Choice(first, 0, 0.0),))
    return Outcome(choices[0].action, iterations, stopped, tuple(choices))


def _iterate(
    root: _Node,
    world: Match,
    seat: int,
    rng: random.Random,
    priors: dict[Action, float],
    bias: float,
) -> None:
    """One iteration: select and expand in ``world``, play out, back the result up."""
    start_round = world.round
    path: list[tuple[_Node, int]] = []  # node moved into, seat that moved
    node = root
    while not _round_over(world, start_round):
        mover = _mover(world)
        legal = world.legal_list(mover)
        for action in legal:
            child = node.children.get(action)
            if child is not None:
                child.available += 1
        untried = [a for a in legal if a not in node.children]
        if untried:
            action = _first_untried(untried, priors if node is root else None, rng)
            child = _Node()
            child.available = 1
            node.children[action] = child
            world.apply_unchecked(mover, action)
            path.append((child, mover))
            break
        action = _select(node, legal, priors if node is root else None, bias)
        node = node.children[action]
        world.apply_unchecked(mover, action)
        path.append((node, mover))
    rewards = _playout(world, start_round, rng)
    for child, mover in path:
        child.visits += 1
        child.wins += rewards[mover]


def _first_untried(
    untried: list[Action], priors: dict[Action, float] | None, rng: random.Random
) -> Action:
    """At the root the heuristic's favourite comes first; below it any untried move."""
    if priors:
        return max(untried, key=lambda a: priors.get(a, 0.0))
    return untried[rng.randrange(len(untried))]


def _select(
    node: _Node, legal: list[Action], priors: dict[Action, float] | None, bias: float
) -> Action:
    best, best_score = legal[0], -math.inf
    for action in legal:
        child = node.children[action]
        score = child.wins / child.visits + EXPLORATION * math.sqrt(
            math.log(child.available) / child.visits
        )
        if priors:
            score += bias * priors.get(action, 0.0) / (child.visits + 1)
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
    plays = [a for a in actions if type(a) is Play and (a.call or not _has_call(actions, a))]
    if not plays:
        return next((a for a in actions if type(a) not in (Catch, Call)), actions[0])
    wild_ranks = match.ruleset.wish_ranks
    counts = Counter(c.suit for c in match.hands[seat] if c.rank not in wild_ranks)
    plain = [a for a in plays if a.card.rank not in wild_ranks]
    if plain:
        best = max(counts[a.card.suit] for a in plain)
        return rng.choice([a for a in plain if counts[a.card.suit] == best])
    return max(plays, key=lambda a: counts[a.suit] if a.suit else -1)


def _has_call(actions: list[Action], play: Play) -> bool:
    return any(type(a) is Play and a.card is play.card and a.call for a in actions)
