"""A match: rounds of one ruleset at one table, with every rule of the four rule systems.

A :class:`Match` knows everything (every hand, the draw pile order); a :class:`View` is what one
seat may see. ``apply`` checks an action and changes the match in place, returning the events it
caused; ``apply_unchecked`` is the fast path for search, trusting its action.

>>> match = Match.new(Ruleset.create("online"), seats=2, seed="demo")
>>> seat = match.turn
>>> action = next(iter(match.legal_actions(seat)))
>>> events = match.apply(seat, action)
>>> Match.from_bytes(match.to_bytes()) == match
True
"""

from __future__ import annotations

import json
import random
import zlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from .actions import (
    ACCEPT,
    CHALLENGE,
    DRAW,
    PASS,
    Accept,
    Action,
    Call,
    Catch,
    Challenge,
    Draw,
    NameSuit,
    Pass,
    Play,
)
from .cards import ALL_CARDS, DECKS, Card
from .errors import BadInput, BadSetup, IllegalAction
from .events import (
    Called,
    Caught,
    Challenged,
    DirectionChanged,
    Drew,
    Event,
    MatchOver,
    Passed,
    Played,
    Reshuffled,
    RoundOver,
    RoundStarted,
    Skipped,
    SuitNamed,
    TurnStarted,
)
from .ruleset import Ruleset

PLAYING, DRAWN, STARTER_SUIT, OVER = "play", "drawn", "starter_suit", "over"
"""Phases: a seat to play; the seat that drew may play the drawn card or pass; a suit is to be
named for the starter; the match is over."""

_CLASSIC_POINTS = {"A": 10, "K": 10, "Q": 10, "J": 10}
_OSTFRIESLAND_POINTS = {"10": 5, "Q": 5, "K": 5, "A": 5, "7": 10, "8": 10, "9": 10, "J": 20}
_COLOUR_POINTS = {"skip": 20, "rev": 20, "+2": 20, "W": 50, "W+4": 50}


def card_points(card: Card, scoring: str) -> int:
    """What ``card`` left in a hand counts under a scoring system."""
    if scoring == "ostfriesland":
        return _OSTFRIESLAND_POINTS.get(card.rank, 0)
    if scoring == "collect":
        return _COLOUR_POINTS.get(card.rank) or int(card.rank)
    return _CLASSIC_POINTS.get(card.rank) or int(card.rank)


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a match ended: ``winners`` (a team's seats in team play) and why (see MatchOver)."""

    winners: tuple[int, ...]
    reason: str


@dataclass(frozen=True, slots=True)
class View:
    """What one seat may see (``seat`` None: a spectator, who sees no hand at all)."""

    seat: int | None
    ruleset: str
    round: int
    phase: str
    turn: int
    chooser: int
    """The seat naming the starter's suit, in phase 'starter_suit'."""
    dealer: int
    hand: tuple[Card, ...]
    hand_sizes: tuple[int, ...]
    in_round: tuple[bool, ...]
    top: Card
    discard: tuple[Card, ...]
    """The whole discard pile, top card last: every card in it was played in the open."""
    active_suit: str
    wished: str | None
    pending: str
    """'' for none, 'draw' (a 7 or draw-2 chain), 'skip' (an 8 to pass on), 'draw4'."""
    pending_count: int
    direction: int
    draw_pile_size: int
    discard_size: int
    drawn: Card | None
    """The card this seat just drew and may still play (own view only)."""
    owing_call: tuple[int, ...]
    """Seats that missed a call and may be caught now."""
    declared_last: tuple[int, ...]
    totals: tuple[int, ...]
    round_wins: tuple[int, ...]
    teams: bool
    legal: tuple[Action, ...]
    outcome: Outcome | None


class LegalActions:
    """The legal actions of one seat, computed lazily: iterate it, test ``in``, ``count()`` it."""

    __slots__ = ("_match", "_seat")

    def __init__(self, match: Match, seat: int) -> None:
        self._match = match
        self._seat = seat

    def __iter__(self) -> Iterator[Action]:
        return iter(self._match._legal(self._seat))

    def __contains__(self, action: object) -> bool:
        try:
            self._match._check(self._seat, action)  # type: ignore[arg-type]
        except (IllegalAction, BadInput, TypeError):
            return False
        return True

    def __bool__(self) -> bool:
        return bool(self._match._legal(self._seat))

    def count(self) -> int:
        return len(self._match._legal(self._seat))

    def __repr__(self) -> str:
        return f"<LegalActions seat={self._seat}: {' '.join(a.text for a in self)}>"


class Match:
    """The whole state of a match; see the module docstring."""

    __slots__ = (
        "bluff",
        "bluffer",
        "chain",
        "chooser",
        "dealer",
        "deciding",
        "declared",
        "direction",
        "discard",
        "draw_pile",
        "drawn",
        "hands",
        "in_round",
        "maumaus",
        "missed",
        "out_seat",
        "outcome",
        "pending",
        "pending_count",
        "pending_optional",
        "phase",
        "reshuffles",
        "round",
        "round_wins",
        "ruleset",
        "seats",
        "seed",
        "specials",
        "totals",
        "turn",
        "turn_no",
        "wish_jack",
        "wished",
    )

    ruleset: Ruleset
    seats: int
    seed: str
    round: int
    dealer: int
    totals: list[int]
    round_wins: list[int]
    maumaus: list[int]
    specials: list[int]
    """Penalty special cards played per seat (7s, draw-2s, draw-4s), for experience points."""
    in_round: list[bool]
    deciding: bool
    hands: list[list[Card]]
    draw_pile: list[Card]
    """The draw pile; its top card is the last element."""
    discard: list[Card]
    """The discard pile; its top card is the last element."""
    turn: int
    turn_no: int
    direction: int
    wished: str | None
    wish_jack: bool
    pending: str
    pending_count: int
    pending_optional: bool
    chain: int
    bluff: bool
    bluffer: int
    drawn: Card | None
    phase: str
    chooser: int
    missed: dict[int, tuple[str, int]]
    """Seats that missed a call: seat -> (the call, the turn number whose end closes the window)."""
    declared: list[bool]
    out_seat: int | None
    """The first seat that went out without its finishing call: it wins if not caught in time."""
    reshuffles: int
    outcome: Outcome | None

    # ------------------------------------------------------------------ creation

    @classmethod
    def new(cls, ruleset: Ruleset, seats: int, seed: str | int) -> Match:
        """A match with the first round dealt from ``seed``; see :meth:`start` for its events."""
        return cls.start(ruleset, seats, seed)[0]

    @classmethod
    def start(cls, ruleset: Ruleset, seats: int, seed: str | int) -> tuple[Match, list[Event]]:
        """A new match and the events of its first deal; the first dealer is drawn by lot."""
        match = cls._blank(ruleset, seats, str(seed))
        match.dealer = (random.Random(f"{match.seed}/dealer").randrange(seats) - 1) % seats
        events: list[Event] = []
        match._start_round(events)
        return match, events

    @classmethod
    def from_setup(
        cls,
        ruleset: Ruleset,
        hands: Sequence[Iterable[Card]],
        *,
        draw_pile: Iterable[Card] = (),
        discard: Iterable[Card],
        dealer: int | None = None,
        turn: int | None = None,
        wished: str | None = None,
        pending: str = "",
        pending_count: int = 0,
        totals: Sequence[int] | None = None,
        round: int = 1,
        seed: str = "setup",
    ) -> Match:
        """A round from an explicit setup, for tests, puzzles and replays.

        ``draw_pile`` is listed top first, ``discard`` with its top card last. Cards not listed are
        out of play. ``turn`` defaults to the seat left of ``dealer`` (default: the last seat).
        """
        seats = len(hands)
        match = cls._blank(ruleset, seats, seed)
        match.hands = [list(hand) for hand in hands]
        match.draw_pile = list(draw_pile)[::-1]
        match.discard = list(discard)
        if not match.discard:
            raise BadSetup("the discard pile needs a top card")
        match.dealer = seats - 1 if dealer is None else dealer
        match.turn = (match.dealer + 1) % seats if turn is None else turn
        if not (0 <= match.dealer < seats and 0 <= match.turn < seats):
            raise BadSetup("dealer and turn must be seats of the table")
        suits = ruleset.suits
        if wished is not None and wished not in suits:
            raise BadSetup(f"wished suit {wished} is not one of {', '.join(suits)}")
        if pending not in ("", "draw", "skip", "draw4"):
            raise BadSetup("pending is one of '', draw, skip, draw4")
        deck_cards = set(DECKS[ruleset.deck]())
        stray = [c.text for hand in match.hands for c in hand if c not in deck_cards]
        stray += [c.text for c in match.draw_pile + match.discard if c not in deck_cards]
        if stray:
            raise BadSetup(f"{' '.join(stray)} not in the {ruleset.deck} deck")
        match.wished = wished
        match.wish_jack = wished is not None and match.discard[-1].rank in ruleset.wish_ranks
        match.pending, match.pending_count = pending, pending_count
        match.chain = pending_count // 2 if pending == "draw" else 0
        if totals is not None:
            match.totals = list(totals)
        match.round = round
        match.turn_no = 1
        return match

    @classmethod
    def _blank(cls, ruleset: Ruleset, seats: int, seed: str) -> Match:
        if not ruleset.min_seats <= seats <= ruleset.max_seats:
            raise BadInput(
                "bad_option",
                name="seats",
                reason=f"{ruleset.preset} is for {ruleset.min_seats} to {ruleset.max_seats} seats",
            )
        if ruleset.teams and seats != 4:
            raise BadInput("bad_option", name="teams", reason="teams need exactly 4 seats")
        deck_size = len(DECKS[ruleset.deck]()) * ruleset.decks_for(seats)
        if seats * ruleset.hand_size >= deck_size:
            raise BadInput(
                "bad_option",
                name="hand_size",
                reason=f"{seats} hands of {ruleset.hand_size} do not fit a deck of {deck_size}",
            )
        match = cls.__new__(cls)
        match.ruleset, match.seats, match.seed = ruleset, seats, seed
        match.round, match.dealer, match.turn, match.turn_no = 1, 0, 0, 0
        match.totals, match.round_wins = [0] * seats, [0] * seats
        match.maumaus, match.specials = [0] * seats, [0] * seats
        match.in_round, match.deciding = [True] * seats, False
        match.hands = [[] for _ in range(seats)]
        match.draw_pile, match.discard = [], []
        match.outcome = None
        match._reset_round_state()
        return match

    def _reset_round_state(self) -> None:
        self.direction = 1
        self.wished, self.wish_jack = None, False
        self.pending, self.pending_count, self.pending_optional, self.chain = "", 0, False, 0
        self.bluff, self.bluffer = False, -1
        self.drawn, self.phase, self.chooser = None, PLAYING, -1
        self.missed = {}
        self.declared = [False] * self.seats
        self.out_seat = None
        self.reshuffles = 0

    # ------------------------------------------------------------------ inspection

    @property
    def top(self) -> Card:
        return self.discard[-1]

    @property
    def active_suit(self) -> str:
        """The suit a plain card must match: the wished one, else the top card's."""
        return self.wished if self.wished is not None else self.discard[-1].suit

    def team_of(self, seat: int) -> tuple[int, ...]:
        """The seats that win together with ``seat``: its team, or the seat alone."""
        if self.ruleset.teams:
            return (seat % 2, seat % 2 + 2)
        return (seat,)

    def legal_actions(self, seat: int) -> LegalActions:
        return LegalActions(self, seat)

    def view(self, seat: int | None) -> View:
        """What ``seat`` may see; None gives the spectator view with no hand at all."""
        return View(
            seat=seat,
            ruleset=self.ruleset.text,
            round=self.round,
            phase=self.phase,
            turn=self.turn,
            chooser=self.chooser,
            dealer=self.dealer,
            hand=tuple(self.hands[seat]) if seat is not None else (),
            hand_sizes=tuple(len(hand) for hand in self.hands),
            in_round=tuple(self.in_round),
            top=self.discard[-1],
            discard=tuple(self.discard),
            active_suit=self.active_suit,
            wished=self.wished,
            pending="" if self.pending_optional else self.pending,
            pending_count=0 if self.pending_optional else self.pending_count,
            direction=self.direction,
            draw_pile_size=len(self.draw_pile),
            discard_size=len(self.discard),
            drawn=self.drawn if seat == self.turn else None,
            owing_call=tuple(s for s in range(self.seats) if self._catchable(s)),
            declared_last=tuple(s for s in range(self.seats) if self.declared[s]),
            totals=tuple(self.totals),
            round_wins=tuple(self.round_wins),
            teams=self.ruleset.teams,
            legal=tuple(self._legal(seat)) if seat is not None else (),
            outcome=self.outcome,
        )

    def copy(self) -> Match:
        other = Match.__new__(Match)
        for name in Match.__slots__:
            setattr(other, name, getattr(self, name))
        other.hands = [list(hand) for hand in self.hands]
        other.draw_pile, other.discard = list(self.draw_pile), list(self.discard)
        other.totals, other.round_wins = list(self.totals), list(self.round_wins)
        other.maumaus, other.specials = list(self.maumaus), list(self.specials)
        other.in_round, other.declared = list(self.in_round), list(self.declared)
        other.missed = dict(self.missed)
        return other

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Match):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in Match.__slots__)

    __hash__ = None  # type: ignore[assignment]

    # ------------------------------------------------------------------ acting

    def apply(self, seat: int, action: Action) -> list[Event]:
        """Check ``action`` for ``seat`` and apply it; an illegal one raises and changes nothing."""
        self._check(seat, action)
        events: list[Event] = []
        self._do(seat, action, events)
        return events

    def apply_unchecked(self, seat: int, action: Action) -> list[Event]:
        """Apply an action known to be legal (taken from :meth:`legal_actions`), skipping checks."""
        events: list[Event] = []
        self._do(seat, action, events)
        return events

    def default_action(self, seat: int) -> Action:
        """What a silent seat does when its turn timer runs out: take a pending penalty or skip,
        keep a drawn card, or draw; where it may not draw (a card fits), its first fitting play;
        for a starter to name, the first suit."""
        legal = [a for a in self._legal(seat) if type(a) not in (Catch, Call)]
        if not legal:
            raise IllegalAction("not_your_turn", turn=self.turn)
        for preferred in (ACCEPT, PASS, DRAW):
            if preferred in legal:
                return preferred
        return legal[0]

    def after(self, seat: int, action: Action) -> tuple[Match, list[Event]]:
        """The match after ``action`` and the events it caused, leaving this match unchanged."""
        other = self.copy()
        return other, other.apply(seat, action)

    # ------------------------------------------------------------------ rule checks

    def _refusal(self, card: Card, wishing: bool) -> str | None:
        """Why ``card`` may not be played now (an error code), or None when it may."""
        rules = self.ruleset
        top = self.discard[-1]
        pending = self.pending
        if pending:
            if pending == "draw":
                stacks = card.rank == rules.draw_rank and (
                    rules.chain_limit is None or self.chain <= rules.chain_limit
                )
            else:
                stacks = pending == "skip" and card.rank == rules.skip_rank
            if stacks:
                return None
            if not self.pending_optional:
                return "draw4_bluff_pending" if pending == "draw4" else f"{pending}_pending"
        if card.rank in rules.wish_ranks:
            if rules.jack_rule == "not_on_jack" and top.rank == "J":
                return "jack_on_jack"
            if wishing:
                if rules.jack_rule == "no_wish_on_wish" and self.wish_jack:
                    return "wish_on_wish"
                return None
        if self.wished is not None:
            if card.suit == self.wished:
                return None
            return (
                "wish_on_wish"
                if rules.jack_rule == "no_wish_on_wish" and card.rank == "J"
                else "card_does_not_match"
            )
        if card.suit == top.suit or card.rank == top.rank:
            return None
        return "card_does_not_match"

    def _wish_options(self, card: Card) -> tuple[bool, ...]:
        """Whether ``card`` is played with a wish: (True,), (False,) or both (East-Frisian Jack)."""
        rules = self.ruleset
        if card.rank not in rules.wish_ranks:
            return (False,)
        if rules.jack_rule == "no_wish_on_wish":
            return (True, False)
        return (True,)

    def _playable(self, card: Card) -> bool:
        return any(self._refusal(card, wishing) is None for wishing in self._wish_options(card))

    def _can_play(self, seat: int) -> bool:
        return any(self._playable(card) for card in self.hands[seat])

    def _due_call(self, seat: int, card: Card, wishing: bool) -> str | None:
        """The call owed by playing ``card`` now, or None."""
        calls = self.ruleset.calls
        left = len(self.hands[seat]) - 1
        if calls == "mau":
            return "maumau" if left == 0 else "mau" if left == 1 else None
        if calls == "ostfriesland" and card.rank != self.ruleset.again_rank:
            return ("maumau" if wishing else "mau") if left == 0 else "last" if left == 1 else None
        return None

    def _catchable(self, seat: int) -> bool:
        if self.ruleset.calls == "last":
            return (
                self.in_round[seat]
                and len(self.hands[seat]) == 1
                and not self.declared[seat]
                and self.phase != OVER
            )
        return seat in self.missed

    def _last_call_due(self, seat: int) -> bool:
        if self.ruleset.calls != "last" or self.declared[seat] or self.phase == OVER:
            return False
        size = len(self.hands[seat])
        return size == 1 or (size == 2 and seat == self.turn and self.phase in (PLAYING, DRAWN))

    def _check(self, seat: int, action: Action) -> None:
        """Raise the error that forbids ``action`` for ``seat`` now; return when it is legal."""
        if not 0 <= seat < self.seats:
            raise BadInput("bad_seat", seat=seat, seats=self.seats)
        if self.phase == OVER:
            raise IllegalAction("match_over")
        match action:
            case Catch(target):
                if target == seat or not 0 <= target < self.seats or not self._catchable(target):
                    raise IllegalAction("catch_not_allowed", seat=target)
                return
            case Call(word):
                if word != "last" or not self._last_call_due(seat):
                    raise IllegalAction("call_not_due", call=word)
                return
            case NameSuit(suit):
                if self.phase != STARTER_SUIT:
                    raise IllegalAction("starter_suit_not_due")
                if seat != self.chooser:
                    raise IllegalAction(
                        "starter_suit_needed", seat=self.chooser, card=self.top.text
                    )
                if suit not in self.ruleset.suits:
                    raise BadInput("bad_suit", text=suit, allowed=self.ruleset.suits)
                return
        if self.phase == STARTER_SUIT:
            raise IllegalAction("starter_suit_needed", seat=self.chooser, card=self.top.text)
        if seat != self.turn:
            raise IllegalAction("not_your_turn", turn=self.turn)
        match action:
            case Play():
                self._check_play(seat, action)
            case Draw():
                self._check_draw(seat)
            case Pass():
                if self.phase != DRAWN:
                    raise IllegalAction("pass_not_allowed")
            case Accept():
                if not self.pending or self.pending_optional:
                    raise IllegalAction("nothing_to_accept")
            case Challenge():
                if self.pending != "draw4":
                    raise IllegalAction("challenge_not_allowed")
            case _:
                raise BadInput("bad_action_text", text=repr(action))

    def _check_play(self, seat: int, play: Play) -> None:
        card = play.card
        if card not in self.hands[seat]:
            raise IllegalAction("card_not_in_hand", card=card.text)
        if self.phase == DRAWN and card is not self.drawn:
            raise IllegalAction("only_drawn_card", card=str(self.drawn))
        wishing = play.suit is not None
        options = self._wish_options(card)
        suits = self.ruleset.suits
        if wishing and True not in options:
            raise IllegalAction("wish_not_allowed", card=card.text)
        if not wishing and False not in options:
            raise IllegalAction("wish_needed", card=card.text, allowed=suits, example=suits[0])
        if wishing and play.suit not in suits:
            raise BadInput("bad_suit", text=play.suit, allowed=suits)
        code = self._refusal(card, wishing)
        if code is not None:
            raise self._explain(code, card)
        if play.call is not None and play.call != self._due_call(seat, card, wishing):
            raise IllegalAction("call_not_due", call=play.call)

    def _explain(self, code: str, card: Card) -> IllegalAction:
        rules = self.ruleset
        top = self.discard[-1]
        if code == "draw_pending":
            return IllegalAction(code, rank=rules.draw_rank, count=self.pending_count)
        if code == "skip_pending":
            return IllegalAction(code, rank=rules.skip_rank)
        if code == "draw4_bluff_pending":
            return IllegalAction(code, count=self.pending_count)
        if code in ("wish_on_wish", "card_does_not_match"):
            return IllegalAction(
                code, card=card.text, top=top.text, suit=self.active_suit, rank=top.rank
            )
        return IllegalAction(code)

    def _check_draw(self, seat: int) -> None:
        if self.phase == DRAWN:
            raise IllegalAction("only_drawn_card", card=str(self.drawn))
        if self.pending and not self.pending_optional:
            raise self._explain(
                "draw4_bluff_pending" if self.pending == "draw4" else f"{self.pending}_pending",
                self.discard[-1],
            )
        if self.ruleset.draw_when == "stuck" and self._can_play(seat):
            raise IllegalAction("draw_not_allowed")

    # ------------------------------------------------------------------ legal action listing

    def _legal(self, seat: int) -> list[Action]:
        """Every legal action of ``seat``, built in one pass: this is the hot path of search.
        The seat's own moves come first, calls and catches (which any seat may make) last."""
        if self.phase == OVER or not 0 <= seat < self.seats:
            return []
        actions = self._moves(seat)
        calls = self.ruleset.calls
        if calls == "last":
            actions += [Catch(t) for t in range(self.seats) if t != seat and self._catchable(t)]
            if self._last_call_due(seat):
                actions.append(Call("last"))
        elif self.missed:
            actions += [Catch(target) for target in self.missed if target != seat]
        return actions

    def _moves(self, seat: int) -> list[Action]:
        """The moves of the seat the match waits for (nothing for any other seat)."""
        actions: list[Action] = []
        if self.phase == STARTER_SUIT:
            if seat == self.chooser:
                actions += [NameSuit(suit) for suit in self.ruleset.suits]
            return actions
        if seat != self.turn:
            return actions
        if self.phase == DRAWN:
            if self.drawn is not None:
                self._add_plays(seat, (self.drawn,), actions)
            actions.append(PASS)
            return actions
        can_play = self._add_plays(seat, self.hands[seat], actions)
        if self.pending and not self.pending_optional:
            actions.append(ACCEPT)
            if self.pending == "draw4":
                actions.append(CHALLENGE)
        elif not can_play or self.ruleset.draw_when == "any":
            actions.append(DRAW)
        return actions

    def _add_plays(self, seat: int, cards: Iterable[Card], actions: list[Action]) -> bool:
        """Append the legal plays of ``cards`` to ``actions``; True if there was any."""
        rules = self.ruleset
        top = self.discard[-1]
        plain_only = not self.pending and self.wished is None
        found = False
        seen: set[Card] = set()
        for card in cards:
            if card in seen:
                continue
            seen.add(card)
            if plain_only and card.rank not in rules.wish_ranks:
                if card.suit != top.suit and card.rank != top.rank:
                    continue
                options: tuple[bool, ...] = (False,)
            else:
                options = tuple(
                    w for w in self._wish_options(card) if self._refusal(card, w) is None
                )
            for wishing in options:
                found = True
                call = self._due_call(seat, card, wishing)
                for suit in rules.suits if wishing else (None,):
                    actions.append(_play(card, suit, call))
                    if call is not None:
                        actions.append(_play(card, suit, None))
        return found

    # ------------------------------------------------------------------ applying

    def _do(self, seat: int, action: Action, events: list[Event]) -> None:
        match action:
            case Play():
                self._play(seat, action, events)
            case Draw():
                self._draw_turn(seat, events)
            case Pass():
                events.append(Passed(seat))
                self.drawn, self.phase = None, PLAYING
                if len(self.hands[seat]) > 1:  # a 'last' pressed before keeping the card lapses
                    self.declared[seat] = False
                self._next_turn(events)
            case Accept():
                self._accept(seat, events)
            case Challenge():
                self._challenge(seat, events)
            case Catch(target):
                self._catch(seat, target, events)
            case Call(word):
                self.declared[seat] = True
                events.append(Called(seat, word))
            case NameSuit(suit):
                self.wished = suit
                self.wish_jack = self.discard[-1].rank in self.ruleset.wish_ranks
                self.phase = PLAYING
                events.append(SuitNamed(seat, suit))

    def _play(self, seat: int, play: Play, events: list[Event]) -> None:
        rules = self.ruleset
        card, hand = play.card, self.hands[seat]
        wishing = play.suit is not None
        due = self._due_call(seat, card, wishing)
        if card.rank == rules.draw_four:
            self.bluff = any(
                other.rank != rules.draw_four and self._playable(other) for other in hand
            )
            self.bluffer = seat
        stacks = (self.pending == "draw" and card.rank == rules.draw_rank) or (
            self.pending == "skip" and card.rank == rules.skip_rank
        )
        hand.remove(card)
        self.discard.append(card)
        self.drawn, self.phase = None, PLAYING
        self.wished, self.wish_jack = play.suit, wishing
        events.append(Played(seat, card, play.suit, play.call))
        if card.rank == rules.draw_rank or card.rank == rules.draw_four:
            self.specials[seat] += 1
        if due is not None and play.call != due:
            self.missed[seat] = (due, self.turn_no + 1)
        if not stacks:
            self.pending, self.pending_count, self.pending_optional, self.chain = "", 0, False, 0
        if not hand and (rules.again_may_finish or card.rank != rules.again_rank):
            if due is None or play.call == due:
                self._end_round(seat, self._finish(seat, due), events)
                return
            if self.out_seat is None:
                self.out_seat = seat
        self._card_effect(seat, card, events)

    def _card_effect(self, seat: int, card: Card, events: list[Event]) -> None:
        rules = self.ruleset
        rank = card.rank
        if rank == rules.draw_rank:
            self.pending, self.pending_optional = "draw", False
            self.pending_count += 2
            self.chain += 1
        elif rank == rules.draw_four:
            self.pending, self.pending_count = "draw4", 4
        elif rank == rules.skip_rank:
            if rules.skip_stackable:
                self.pending, self.pending_optional = "skip", False
            else:
                self._next_turn(events, skip=True)
                return
        elif rank == rules.reverse_rank:
            self.direction = -self.direction
            events.append(DirectionChanged(self.direction))
        elif rank == rules.again_rank or (rank == "A" and rules.ace_power == "skip"):
            return
        elif rank == "A" and rules.ace_power == "draw":
            for other in self._seats_from(seat):
                self._give(other, 1, "ace", events)
        self._next_turn(events)

    def _draw_turn(self, seat: int, events: list[Event]) -> None:
        if self.pending_optional:  # the starter's effect was not taken up: it lapses
            self.pending, self.pending_count, self.pending_optional, self.chain = "", 0, False, 0
        drawn = self._give(seat, 1, "draw", events)
        if drawn and self.ruleset.after_draw == "play_drawn" and self._playable(drawn[0]):
            self.drawn, self.phase = drawn[0], DRAWN
            return
        self._next_turn(events)

    def _accept(self, seat: int, events: list[Event]) -> None:
        if self.pending == "skip":
            events.append(Skipped(seat))
        else:
            self._give(seat, self.pending_count, "penalty", events)
        self.pending, self.pending_count, self.chain = "", 0, 0
        self._next_turn(events)

    def _challenge(self, seat: int, events: list[Event]) -> None:
        events.append(Challenged(seat, self.bluffer, self.bluff))
        self.pending, self.pending_count = "", 0
        if self.bluff:
            self._give(self.bluffer, 4, "challenge", events)
            return
        self._give(seat, 6, "challenge", events)
        self._next_turn(events)

    def _catch(self, seat: int, target: int, events: list[Event]) -> None:
        word = self.missed.pop(target, ("last", 0))[0]
        events.append(Caught(seat, target, word))
        self._give(target, self.ruleset.call_penalty, "caught", events)
        if self.out_seat == target:
            self.out_seat = next((s for s in self.missed if not self.hands[s]), None)

    def _give(self, seat: int, count: int, reason: str, events: list[Event]) -> list[Card]:
        """Move up to ``count`` cards from the draw pile to ``seat``, reshuffling as needed."""
        cards: list[Card] = []
        pile = self.draw_pile
        for _ in range(count):
            if not pile:
                self._reshuffle(events)
                if not pile:
                    break
            cards.append(pile.pop())
        self.hands[seat] += cards
        self.declared[seat] = False
        events.append(Drew(seat, len(cards), reason, tuple(cards)))
        return cards

    def _reshuffle(self, events: list[Event]) -> None:
        if len(self.discard) < 2:
            return
        self.reshuffles += 1
        pile = self.discard[:-1]
        del self.discard[:-1]
        random.Random(f"{self.seed}/{self.round}/reshuffle/{self.reshuffles}").shuffle(pile)
        self.draw_pile[:0] = pile
        events.append(Reshuffled(len(pile)))

    # ------------------------------------------------------------------ turns and rounds

    def _seats_from(self, seat: int) -> list[int]:
        """The other seats dealt in, in playing order after ``seat``."""
        order = []
        other = seat
        for _ in range(self.seats - 1):
            other = (other + self.direction) % self.seats
            if self.in_round[other]:
                order.append(other)
        return order

    def _finish(self, seat: int, due: str | None) -> str:
        """How ``seat`` went out: 'mau' or 'maumau' in the East-Frisian rules, else 'out'."""
        return due if self.ruleset.calls == "ostfriesland" and due else "out"

    def _next_turn(self, events: list[Event], skip: bool = False) -> None:
        """End the turn and start the next seat's (passing over one seat for a skip).

        A skipped seat plays no turn, so call windows stay open through the turn after it; a
        seat that went out uncaught wins when its window closes or play comes back to it."""
        if self._close_windows(events):
            return
        self._move_on()
        if skip:
            events.append(Skipped(self.turn))
            self._move_on()
        if self.out_seat == self.turn:
            self._end_round(self.turn, self._finish(self.turn, self.missed[self.turn][0]), events)
            return
        events.append(TurnStarted(self.turn))

    def _close_windows(self, events: list[Event]) -> bool:
        """Count the turn that ends now; a seat out of cards whose window closes wins the round
        (True then)."""
        self.turn_no += 1
        for seat, (word, closes) in list(self.missed.items()):
            if self.turn_no > closes:
                del self.missed[seat]
                if seat == self.out_seat:
                    self._end_round(seat, self._finish(seat, word), events)
                    return True
        return False

    def _move_on(self) -> None:
        seat = self.turn
        while True:
            seat = (seat + self.direction) % self.seats
            if self.in_round[seat]:
                break
        self.turn = seat

    def _start_round(self, events: list[Event]) -> None:
        rules = self.ruleset
        self._reset_round_state()
        active = [s for s in range(self.seats) if self.in_round[s]]
        self.dealer = next(
            s
            for s in ((self.dealer + i) % self.seats for i in range(1, self.seats + 1))
            if self.in_round[s]
        )
        deck = DECKS[rules.deck]() * rules.decks_for(self.seats)
        random.Random(f"{self.seed}/{self.round}").shuffle(deck)
        self.draw_pile = deck
        self.hands = [[] for _ in range(self.seats)]
        order = [*self._seats_from(self.dealer), self.dealer]
        for _ in range(rules.hand_size):
            for seat in order:
                self.hands[seat].append(deck.pop())
        starter = deck.pop()
        self.discard = [starter]
        self.turn = order[0]
        self.turn_no += 1
        events.append(RoundStarted(self.round, self.dealer, starter, tuple(active)))
        for seat in order:
            events.append(Drew(seat, rules.hand_size, "deal", tuple(self.hands[seat])))
        if starter.rank in rules.wish_ranks and rules.starter != "none":
            self.phase = STARTER_SUIT
            self.chooser = self.dealer if rules.starter == "dealer_wish" else self.turn
        elif rules.starter == "starting_seat" and starter.rank in (
            rules.draw_rank,
            rules.skip_rank,
        ):
            self.pending = "draw" if starter.rank == rules.draw_rank else "skip"
            self.pending_count = 2 if self.pending == "draw" else 0
            self.chain = 1 if self.pending == "draw" else 0
            self.pending_optional = True
        events.append(TurnStarted(self.turn))

    def _end_round(self, winner: int, finish: str, events: list[Event]) -> None:
        rules = self.ruleset
        points = [0] * self.seats
        if rules.scoring == "wins":
            points[winner] = 1
        elif rules.scoring == "collect":
            team = self.team_of(winner)
            gained = sum(
                card_points(card, "collect")
                for seat in range(self.seats)
                if seat not in team
                for card in self.hands[seat]
            )
            for seat in team:
                points[seat] = gained
        else:
            for seat in range(self.seats):
                if seat != winner and self.in_round[seat]:
                    points[seat] = sum(
                        card_points(card, rules.scoring) for card in self.hands[seat]
                    )
            if finish == "maumau":
                points = [2 * p for p in points]
                points[winner] = -40
                self.maumaus[winner] += 1
        for seat in range(self.seats):
            self.totals[seat] += points[seat]
        self.round_wins[winner] += 1
        events.append(RoundOver(self.round, winner, finish, tuple(points), tuple(self.totals)))
        self.outcome = self._match_result(winner)
        if self.outcome is not None:
            self.phase = OVER
            events.append(MatchOver(self.outcome.winners, tuple(self.totals), self.outcome.reason))
            return
        self.round += 1
        self._start_round(events)

    def _match_result(self, winner: int) -> Outcome | None:
        """The outcome if the match ends with this round, else None (setting up any tie-break)."""
        rules = self.ruleset
        if self.deciding:
            return Outcome(self.team_of(winner), "tie_break")
        if rules.scoring in ("wins", "collect"):
            if self.totals[winner] >= rules.target:
                return Outcome(
                    self.team_of(winner), "wins" if rules.scoring == "wins" else "target"
                )
            return None
        if rules.scoring == "points" and rules.target == 0:
            return Outcome((winner,), "single")
        if rules.rounds:
            if self.round < rules.rounds:
                return None
            reason = "rounds"
        elif max(self.totals) >= rules.target:
            reason = "target"
        else:
            return None
        best = min(self.totals)
        tied = [s for s in range(self.seats) if self.totals[s] == best]
        if len(tied) > 1 and rules.scoring == "ostfriesland":
            most = max(self.maumaus[s] for s in tied)
            tied = [s for s in tied if self.maumaus[s] == most]
        if len(tied) == 1:
            return Outcome((tied[0],), reason)
        self.deciding = True
        self.in_round = [s in tied for s in range(self.seats)]
        return None

    # ------------------------------------------------------------------ bytes

    def to_bytes(self) -> bytes:
        """The whole match as compact bytes; :meth:`from_bytes` restores it exactly."""
        state: dict[str, Any] = {
            "v": 1,
            "r": self.ruleset.text,
            "n": self.seats,
            "s": self.seed,
            "hands": [_codes(hand) for hand in self.hands],
            "draw": _codes(self.draw_pile),
            "disc": _codes(self.discard),
            "drawn": self.drawn.code if self.drawn is not None else -1,
            "missed": [[seat, word, closes] for seat, (word, closes) in self.missed.items()],
            "outcome": [list(self.outcome.winners), self.outcome.reason] if self.outcome else None,
        }
        for name in _PLAIN_FIELDS:
            state[name] = getattr(self, name)
        return zlib.compress(json.dumps(state, separators=(",", ":")).encode(), 6)

    @classmethod
    def from_bytes(cls, data: bytes) -> Match:
        state = json.loads(zlib.decompress(data))
        match = cls.__new__(cls)
        match.ruleset = Ruleset.parse(state["r"])
        match.seats, match.seed = state["n"], state["s"]
        match.hands = [_cards(codes) for codes in state["hands"]]
        match.draw_pile, match.discard = _cards(state["draw"]), _cards(state["disc"])
        match.drawn = ALL_CARDS[state["drawn"]] if state["drawn"] >= 0 else None
        match.missed = {seat: (word, closes) for seat, word, closes in state["missed"]}
        outcome = state["outcome"]
        match.outcome = Outcome(tuple(outcome[0]), outcome[1]) if outcome else None
        for name in _PLAIN_FIELDS:
            setattr(match, name, state[name])
        return match


_PLAYS: dict[tuple[Card, str | None, str | None], Play] = {}


def _play(card: Card, suit: str | None, call: str | None) -> Play:
    """The interned Play value: legal action lists are rebuilt on every step of a search."""
    key = (card, suit, call)
    play = _PLAYS.get(key)
    if play is None:
        play = _PLAYS[key] = Play(card, suit, call)
    return play


_PLAIN_FIELDS = (
    "round",
    "dealer",
    "totals",
    "round_wins",
    "maumaus",
    "specials",
    "in_round",
    "deciding",
    "turn",
    "turn_no",
    "direction",
    "wished",
    "wish_jack",
    "pending",
    "pending_count",
    "pending_optional",
    "chain",
    "bluff",
    "bluffer",
    "phase",
    "chooser",
    "declared",
    "out_seat",
    "reshuffles",
)


def _codes(cards: Iterable[Card]) -> str:
    return bytes(card.code + 32 for card in cards).decode("latin-1")


def _cards(text: str) -> list[Card]:
    return [ALL_CARDS[ord(char) - 32] for char in text]
