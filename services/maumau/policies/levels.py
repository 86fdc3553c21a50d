"""The bot levels: pure functions from what a seat sees to an action, built on the rules core.

- ``random``: a uniformly random legal action.
- ``heuristic``: a good club player, following the strategy of the rule texts: calls at once, a
  7 answered with a 7, a Jack or wild kept as the way out, an 8 or skip aimed at a seat about to
  go out, cards played from the longest suit so the hand keeps its suits spread.
- ``strong``: determinized Monte Carlo search. It samples the hidden cards consistently with the
  view, plays every candidate action forward to the end of the round with fast heuristic players,
  and picks the action that won most often.

Every level sees only a :class:`~maumau.rules.View`: the same view a human client gets.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from dataclasses import dataclass

from maumau.rules import (
    ACCEPT,
    CHALLENGE,
    DRAW,
    Action,
    Call,
    Card,
    Catch,
    Match,
    NameSuit,
    Pass,
    Play,
    Ruleset,
    View,
    card_points,
)
from maumau.rules.determinize import determinize, unseen_cards
from maumau.rules.reasons import Reason, render_all

LEVELS = ("random", "heuristic", "strong")


@dataclass(frozen=True)
class Ranked:
    """A legal action with a score (higher is better) and its reasons, most important first,
    as codes a client renders in its own language (:mod:`maumau.rules.reasons`)."""

    action: Action
    score: float
    reasons: tuple[Reason, ...] = ()

    @property
    def reason(self) -> str:
        """The reasons in English, one line."""
        return render_all(self.reasons)


def decide(
    view: View,
    level: str,
    rng: random.Random,
    budget_seconds: float = 0.2,
    max_worlds: int = 2000,
) -> Action:
    """The action a bot of ``level`` takes in ``view``; ``strong`` thinks for ``budget_seconds``
    or ``max_worlds`` sampled worlds, whichever ends first."""
    if not view.legal:
        raise ValueError(f"seat {view.seat} has nothing to do now")
    if level == "random":
        return rng.choice(view.legal)
    if level == "heuristic":
        return rank(view)[0].action
    if level == "strong":
        return search(view, rng, budget_seconds, max_worlds)
    raise ValueError(f"no bot level {level!r}: choose one of {', '.join(LEVELS)}")


# ---------------------------------------------------------------------- heuristic


def rank(view: View) -> list[Ranked]:
    """Every legal action, best first, each with the reason a good player would give."""
    ruleset = Ruleset.parse(view.ruleset)
    context = _Context(view, ruleset)
    ranked = [context.score(action) for action in view.legal]
    return sorted(ranked, key=lambda r: -r.score)


class _Context:
    """What the heuristic weighs, computed once per decision."""

    def __init__(self, view: View, ruleset: Ruleset) -> None:
        self.view, self.ruleset = view, ruleset
        self.seats = len(view.hand_sizes)
        self.suit_counts = Counter(c.suit for c in view.hand if c.rank not in ruleset.wish_ranks)
        self.next_seat = self._next_active(view.turn)
        self.next_size = view.hand_sizes[self.next_seat]
        self.partner = (view.seat + 2) % 4 if view.teams and view.seat is not None else None
        unseen = unseen_cards(view, ruleset)
        self.unseen_draw_cards = sum(1 for c in unseen if c.rank == ruleset.draw_rank)

    def _next_active(self, seat: int) -> int:
        for step in range(1, self.seats + 1):
            other = (seat + step * self.view.direction) % self.seats
            if self.view.in_round[other]:
                return other
        return seat

    def score(self, action: Action) -> Ranked:
        view = self.view
        match action:
            case Catch(seat):
                return Ranked(action, 100, (Reason.of("catch_owed", seat=seat),))
            case Call():
                return Ranked(action, 95, (Reason.of("press_last"),))
            case NameSuit(suit):
                count = self.suit_counts[suit]
                return Ranked(action, 50 + count, (Reason.of("name_suit", suit=suit, count=count),))
            case Pass():
                return Ranked(action, 1, (Reason.of("keep_drawn"),))
            case Play():
                return self._score_play(action)
        if action == CHALLENGE:
            bluffer = (view.turn - view.direction) % self.seats
            cards = view.hand_sizes[bluffer]
            likely = cards >= 6
            code = "challenge_likely" if likely else "challenge_honest"
            return Ranked(
                action, 20 if likely else 0, (Reason.of(code, seat=bluffer, cards=cards),)
            )
        if action == ACCEPT:
            if view.pending == "skip":
                return Ranked(action, 5, (Reason.of("accept_skip"),))
            return Ranked(action, 5, (Reason.of("accept_penalty", count=view.pending_count),))
        if action == DRAW:
            fitting = {a.card for a in view.legal if type(a) is Play}
            if fitting:
                return Ranked(action, -10, (Reason.of("draw_instead", count=len(fitting)),))
            return Ranked(action, 10, (Reason.of("draw_nothing_fits"),))
        return Ranked(action, 0)

    def _best_suit(self) -> tuple[str, int]:
        """The suit held most of (the first in deck order on a tie) and how many."""
        best = max(self.ruleset.suits, key=lambda suit: self.suit_counts[suit])
        return best, self.suit_counts[best]

    def _score_play(self, play: Play) -> Ranked:
        view, rules = self.view, self.ruleset
        card = play.card
        score, reasons = 30.0, list[Reason]()
        if play.call is not None:
            score += 40
            reasons.append(Reason.of("with_call", call=play.call))
        elif self._call_due(play):
            score -= 40
        left = len(view.hand) - 1
        if left == 0:
            return Ranked(play, 1000, (Reason.of("last_card"),))
        wild = card.rank in rules.wish_ranks
        if view.pending and card.rank in (rules.draw_rank, rules.skip_rank):
            score += 60
            reasons.append(Reason.of("pass_penalty_on", rank=card.rank))
        best, best_count = self._best_suit()
        if wild:
            score -= 25 - (8 if left <= 1 else 0)
            reasons.append(Reason.of("keep_wild", rank=card.rank))
            if play.suit is not None:
                count = self.suit_counts[play.suit]
                score += count * 3
                if count == best_count:
                    reasons.append(Reason.of("wish_most", suit=play.suit, count=count))
                else:
                    reasons.append(
                        Reason.of(
                            "wish_other", suit=play.suit, count=count, best=best,
                            best_count=best_count,
                        )
                    )  # fmt: skip
        stops = card.rank == rules.skip_rank or (
            card.rank == rules.reverse_rank and sum(view.in_round) == 2
        )
        if stops:
            threat = self.next_size <= 2 and not self._partner(self.next_seat)
            score += 20 if threat else 2
            if threat:
                reasons.append(Reason.of("stop_seat", seat=self.next_seat, cards=self.next_size))
        elif card.rank == rules.reverse_rank:
            score += 2
        if card.rank == rules.draw_rank and not view.pending:
            aimed = not self._partner(self.next_seat)
            score += (12 if self.next_size <= 3 else 4) if aimed else -15
            keep = (
                self.unseen_draw_cards >= 2
                and sum(1 for c in view.hand if c.rank == rules.draw_rank) == 1
            )
            if keep:
                score -= 6
                reasons.append(Reason.of("keep_draw_card", rank=card.rank))
        if card.rank == rules.draw_four:
            score -= 10
        if not wild:
            count = self.suit_counts[card.suit]
            score += count * 2
            if count == best_count:
                reasons.append(Reason.of("longest_suit", suit=card.suit, count=count))
            else:
                reasons.append(
                    Reason.of(
                        "shorter_suit", suit=card.suit, count=count, best=best,
                        best_count=best_count,
                    )
                )  # fmt: skip
        score += _points(card, rules) / 10
        return Ranked(play, score, tuple(reasons) or (Reason.of("fits"),))

    def _call_due(self, play: Play) -> bool:
        return any(
            type(a) is Play and a.card is play.card and a.suit == play.suit and a.call
            for a in self.view.legal
        )

    def _partner(self, seat: int) -> bool:
        return seat == self.partner


def _points(card: Card, ruleset: Ruleset) -> float:
    scoring = ruleset.scoring if ruleset.scoring in ("collect", "ostfriesland") else "points"
    return float(card_points(card, scoring))


# ---------------------------------------------------------------------- strong


def search(
    view: View, rng: random.Random, budget_seconds: float, max_worlds: int = 2000, width: int = 3
) -> Action:
    """Determinized Monte Carlo over the heuristic's ``width`` best actions.

    Each sampled world plays every candidate out to the end of the round with quick players
    driven by the same random numbers (so the candidates differ only by the action itself). The
    heuristic's first choice stands unless another action won clearly more often."""
    ranked = rank(view)
    if ranked[0].score >= 95:  # a call, a catch or the last card: nothing to weigh
        return ranked[0].action
    candidates = [r.action for r in ranked[:width]]
    if len(candidates) == 1:
        return candidates[0]
    seat = view.seat
    assert seat is not None
    team = (seat % 2, seat % 2 + 2) if view.teams else (seat,)
    deadline = time.perf_counter() + budget_seconds
    gains = [0.0] * len(candidates)  # summed advantage over the first candidate
    squares = [0.0] * len(candidates)
    worlds = 0
    while worlds < max_worlds and (worlds < 4 or time.perf_counter() < deadline):
        world = determinize(view, rng)
        luck = rng.random()
        results = []
        for action in candidates:
            trial = world.copy()
            trial.apply_unchecked(seat, action)
            results.append(_rollout(trial, team, random.Random(luck)))
        for i, result in enumerate(results):
            gains[i] += result - results[0]
            squares[i] += (result - results[0]) ** 2
        worlds += 1
    best = max(range(len(candidates)), key=lambda i: gains[i])
    mean = gains[best] / worlds
    spread = max(squares[best] / worlds - mean * mean, 1e-9) ** 0.5
    clearly_better = mean > 2 * spread / worlds**0.5
    return candidates[best] if clearly_better else candidates[0]


def _rollout(match: Match, team: tuple[int, ...], rng: random.Random, limit: int = 400) -> float:
    """Play on with quick players until the round ends: 1 if ``team`` won it, else a little
    credit for being close to going out."""
    start_round = match.round
    team_wins = sum(match.round_wins[s] for s in team)
    for _ in range(limit):
        if match.round != start_round or match.phase == "over":
            return 1.0 if sum(match.round_wins[s] for s in team) > team_wins else 0.0
        seat = match.chooser if match.phase == "starter_suit" else match.turn
        match.apply_unchecked(seat, _quick(match, seat, rng))
    sizes = [len(match.hands[s]) for s in team]
    return 0.5 / (1 + min(sizes))


def _quick(match: Match, seat: int, rng: random.Random) -> Action:
    """A fast rollout player: calls made, penalties passed on, cards before draws, plain cards
    from the longest suit before wilds, and a wish for the suit it holds most of."""
    actions = list(match.legal_actions(seat))
    plays = [a for a in actions if type(a) is Play and (a.call or not _has_call(actions, a))]
    if plays:
        hand = match.hands[seat]
        wild_ranks = match.ruleset.wish_ranks
        counts = Counter(c.suit for c in hand if c.rank not in wild_ranks)
        plain = [a for a in plays if a.card.rank not in wild_ranks]
        if plain:
            best = max(counts[a.card.suit] for a in plain)
            return rng.choice([a for a in plain if counts[a.card.suit] == best])
        return max(plays, key=lambda a: counts[a.suit] if a.suit else -1)
    for action in actions:
        if type(action) not in (Catch, Call):
            return action
    return actions[0]


def _has_call(actions: list[Action], play: Play) -> bool:
    return any(type(a) is Play and a.card is play.card and a.call for a in actions)
