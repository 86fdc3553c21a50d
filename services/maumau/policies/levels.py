"""The bot levels: pure functions from what a seat sees to an action, built on the rules core.

- ``random``: a uniformly random legal action.
- ``heuristic``: a good club player, following the strategy of the rule texts: calls at once, a
  7 answered with a 7, a Jack or wild kept as the way out, an 8 or skip aimed at a seat about to
  go out, cards played from the longest suit so the hand keeps its suits spread.
- ``strong``: information-set Monte Carlo tree search (:mod:`maumau.policies.ismcts`): a tree over
  what the seat can tell apart, grown in worlds sampled consistently with the view, guided by the
  heuristic's ranking and played out by quick heuristic players.

Every level sees only a :class:`~maumau.rules.View`: the same view a human client gets.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

from maumau.policies import ismcts
from maumau.rules import (
    ACCEPT,
    CHALLENGE,
    DRAW,
    Action,
    Call,
    Card,
    Catch,
    NameSuit,
    Pass,
    Play,
    Ruleset,
    View,
    card_points,
)
from maumau.rules.determinize import unseen_cards
from maumau.rules.reasons import AGAINST, Reason, render_all

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
    or ``max_worlds`` search iterations (one sampled world each), whichever ends first."""
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
    ranked = sorted((context.score(action) for action in view.legal), key=lambda r: -r.score)
    return [arguing_for(ranked[0], len(ranked)), *ranked[1:]] if ranked else []


def arguing_for(first: Ranked, moves: int) -> Ranked:
    """The move a tip suggests with only the reasons that argue for it (one that weighs against
    it explains a lower rank elsewhere, never the suggestion), first saying when it is the only
    move of ``moves``."""
    reasons = tuple(r for r in first.reasons if r.code not in AGAINST)
    if moves == 1:
        reasons = (Reason.of("only_move"), *reasons)
    return Ranked(first.action, first.score, reasons or (Reason.of("ranked_first", count=moves),))


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


def search(view: View, rng: random.Random, budget_seconds: float, max_worlds: int = 2000) -> Action:
    """Information-set Monte Carlo tree search (:mod:`maumau.policies.ismcts`) guided by the
    heuristic's ranking; a call, a catch or the last card is played at once, nothing to weigh."""
    ranked = rank(view)
    if ranked[0].score >= 95:
        return ranked[0].action
    prior = [r.action for r in ranked]
    return ismcts.search(view, rng, budget_seconds, max_worlds, prior).action
