"""The four rule systems as variants: what differs between presets, behind a few hooks.

A :class:`Variant` subclass per preset carries the preset's mechanics as class-level metadata and
overrides the hooks where its rule text differs: what may go on what, the calls a seat owes, what
the starting card does, what a played card does, and how rounds are scored and the match won.
The ruleset picks its variant once (:attr:`Ruleset.variant`), so play never compares preset names.

>>> from maumau.rules import Ruleset
>>> find_variant("ostfriesland").scoring
<Scoring.OSTFRIESLAND: 'ostfriesland'>
>>> Ruleset.create("classic").variant
<Classic variant of 'classic'>
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Final

from . import calls, scoring, turns
from .actions import CALL_LAST, CATCHES, Action
from .cards import ALL_CARDS, Card
from .errors import BadRuleset
from .events import DirectionChanged, Event
from .kinds import (
    AGAIN,
    DRAW4_PENDING,
    DRAW_PENDING,
    DRAWS,
    DRAWS_FOUR,
    OVER,
    REVERSES,
    SKIP_PENDING,
    SKIPS,
    STARTER_SUIT,
    WISHES,
    AcePower,
    AfterDraw,
    Calls,
    DrawWhen,
    Finish,
    JackRule,
    Outcome,
    Reason,
    Scoring,
    Starter,
)

if TYPE_CHECKING:
    from .ruleset import Ruleset
    from .state import MatchState

_NO_WISH: Final[tuple[bool, ...]] = (False,)
_WISH: Final[tuple[bool, ...]] = (True,)
_WISH_OR_PLAIN: Final[tuple[bool, ...]] = (True, False)


class Variant:
    """The rules every preset shares; a subclass overrides what its rule text changes."""

    name: ClassVar[str] = ""
    rule_text: ClassVar[str] = ""
    """The number of the rule text the preset implements."""
    options: ClassVar[tuple[str, ...]] = ()
    """The ruleset options the preset accepts (see :meth:`Ruleset.create`)."""
    jack_rule: ClassVar[JackRule] = JackRule.FREE
    starter: ClassVar[Starter] = Starter.NONE
    calls: ClassVar[Calls] = Calls.NONE
    scoring: ClassVar[Scoring] = Scoring.POINTS
    draw_when: ClassVar[DrawWhen] = DrawWhen.STUCK
    after_draw: ClassVar[AfterDraw] = AfterDraw.PLAY_DRAWN

    __slots__ = ("marks", "may_always_draw", "plays_drawn", "rules", "suits")

    def __init__(self, rules: Ruleset) -> None:
        self.rules = rules
        self.may_always_draw = self.draw_when is DrawWhen.ANY
        self.plays_drawn = self.after_draw is AfterDraw.PLAY_DRAWN
        self.suits = rules.suits
        # What every card does under these rules, by card code: the hot paths test its bits.
        self.marks = bytes(card_marks(rules, card) for card in ALL_CARDS)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} variant of {self.rules.text!r}>"

    # ------------------------------------------------------------------ what may go on what

    def wish_options(self, card: Card) -> tuple[bool, ...]:
        """Whether ``card`` is played with a wish: (True,), (False,) or both."""
        return _WISH if self.marks[card.code] & WISHES else _NO_WISH

    def fits(self, m: MatchState, card: Card, wishing: bool) -> str | None:
        """Why ``card`` may not go on the pile when nothing is pending (an error code), or None.
        A wishing card goes on anything; others serve the wished suit, else suit or rank."""
        if wishing:
            return None
        return _serves(m, card)

    # ------------------------------------------------------------------ calls and catches

    def due_call(self, m: MatchState, seat: int, card: Card, wishing: bool) -> str | None:
        """The call owed by ``seat`` playing ``card`` now, or None (calls are automatic)."""
        return None

    def finish(self, due: str | None) -> Finish:
        """How a seat went out that owed ``due`` with its last card."""
        return Finish.OUT

    def catchable(self, m: MatchState, seat: int) -> bool:
        """Whether another seat may catch ``seat`` now."""
        return seat in m.missed

    def call_actions(self, m: MatchState, seat: int, actions: list[Action]) -> None:
        """Append the catches and calls ``seat`` may make now, whoever's turn it is."""
        if m.missed:
            for target in m.missed:
                if target != seat:
                    actions.append(CATCHES[target])

    def may_call(self, m: MatchState, seat: int, word: str) -> bool:
        """Whether ``seat`` may make the call ``word`` on its own, outside a play."""
        return False

    def call_refused(self, due: str | None, call: str | None) -> bool:
        """Whether a play carrying ``call`` is refused where ``due`` is the call it owes: here any
        other word than the due one (a play without a call always stands, owing the call)."""
        return call is not None and call != due

    def after_penalty(self, m: MatchState, seat: int) -> None:
        """What ``seat`` owes after a card given outside a play of its own (a catch, a draw)."""

    def after_sitting_out(self, m: MatchState, seat: int, events: list[Event]) -> None:
        """Pass the turn on after ``seat`` has sat out a skip."""
        turns.next_turn(m, events)

    # ------------------------------------------------------------------ the starting card

    def turn_up(self, m: MatchState) -> None:
        """Apply the rule of the starting card just turned up (the top of the discard pile)."""

    # ------------------------------------------------------------------ what a card does

    def card_effect(self, m: MatchState, seat: int, card: Card, events: list[Event]) -> None:
        """Apply what ``card``, just played by ``seat``, does, and pass the turn on as it says."""
        marks = self.marks[card.code]
        if marks & DRAWS:
            m.pending, m.pending_optional = DRAW_PENDING, False
            m.pending_count += 2
            m.chain += 1
        elif marks & DRAWS_FOUR:
            m.pending, m.pending_count = DRAW4_PENDING, 4
        elif marks & SKIPS:
            if self.rules.skip_stackable:
                m.pending, m.pending_optional = SKIP_PENDING, False
            else:
                turns.next_turn(m, events, skip=True)
                return
        elif marks & REVERSES:
            m.direction = -m.direction
            events.append(DirectionChanged(m.direction))
        elif marks & AGAIN:
            return
        turns.next_turn(m, events)

    # ------------------------------------------------------------------ scoring

    def round_points(self, m: MatchState, winner: int, finish: Finish) -> list[int]:
        """Points per seat for the round ``winner`` has just won: the losers' cards count."""
        return scoring.hand_points(m, winner, self.scoring)

    def match_result(self, m: MatchState, winner: int) -> Outcome | None:
        """The outcome if the match ends with this round (outside a deciding round), else None;
        a tie for the lowest total sets up a deciding round."""
        if self.rules.target == 0:
            return Outcome((winner,), Reason.SINGLE)
        if max(m.totals) < self.rules.target:
            return None
        return scoring.lowest_total(m, Reason.TARGET, ())


def card_marks(rules: Ruleset, card: Card) -> int:
    """What ``card`` does under ``rules``, as bits of :mod:`.kinds` (WISHES, DRAWS, ...)."""
    rank = card.rank
    marks = WISHES if rank in rules.wish_ranks else 0
    for bit, special in (
        (DRAWS, rules.draw_rank),
        (DRAWS_FOUR, rules.draw_four),
        (SKIPS, rules.skip_rank),
        (REVERSES, rules.reverse_rank),
        (AGAIN, rules.again_rank),
    ):
        if rank == special:
            marks |= bit
    return marks


def _serves(m: MatchState, card: Card) -> str | None:
    """Why a plain card does not go on the pile: it must serve the wish, else suit or rank."""
    if m.wished is not None:
        return None if card.suit == m.wished else "card_does_not_match"
    top = m.discard[-1]
    if card.suit == top.suit or card.rank == top.rank:
        return None
    return "card_does_not_match"


def _ask_for_suit(m: MatchState, chooser: int) -> None:
    m.phase = STARTER_SUIT
    m.chooser = chooser


class Classic(Variant):
    """Family rules: 'Mau' and 'Mau Mau' calls, a Jack starter lets the dealer wish, penalty
    points with a target; the ace powers are an option. Readings: see ``ruleset.CLASSIC``."""

    name = "classic"
    rule_text = "000"
    options = ("deck", "decks", "hand_size", "target", "ace_power", "seven_chain_limit", "sevens")
    starter = Starter.DEALER_WISH
    calls = Calls.MAU

    def due_call(self, m: MatchState, seat: int, card: Card, wishing: bool) -> str | None:
        left = len(m.hands[seat]) - 1
        return "maumau" if left == 0 else "mau" if left == 1 else None

    def turn_up(self, m: MatchState) -> None:
        if m.discard[-1].rank in self.rules.wish_ranks:
            _ask_for_suit(m, m.dealer)

    def card_effect(self, m: MatchState, seat: int, card: Card, events: list[Event]) -> None:
        if card.rank == "A":
            power = self.rules.ace_power
            if power is AcePower.SKIP:
                if m.out_seat == seat:  # out owing its call: the next seat sits out, may catch
                    turns.sit_out_turn(m, events)
                return
            if power is AcePower.DRAW:
                for other in turns.seats_from(m, seat):
                    if m.hands[other]:  # a seat out of cards, owing its call, draws nothing
                        turns.give(m, other, 1, "ace", events)
                turns.next_turn(m, events)
                return
        super().card_effect(m, seat, card, events)

    def after_sitting_out(self, m: MatchState, seat: int, events: list[Event]) -> None:
        """After the ace that skips everyone else, play goes back to the ace's player (the seat
        that sat out had that turn only to catch a missed call); after an 8, to the next seat."""
        if m.discard[-1].rank == "A" and self.rules.ace_power is AcePower.SKIP:
            turns.back_to(m, turns.seat_before(m, seat), events)
            return
        turns.next_turn(m, events)


class Online(Variant):
    """The online room game: automatic calls, no starter effect, never a Jack on a Jack, the
    first to ``target`` round wins takes the match."""

    name = "online"
    rule_text = "001"
    options = ("wins",)
    jack_rule = JackRule.NOT_ON_JACK
    scoring = Scoring.WINS
    draw_when = DrawWhen.ANY

    def fits(self, m: MatchState, card: Card, wishing: bool) -> str | None:
        if self.marks[card.code] & WISHES and m.discard[-1].rank == "J":
            return "jack_on_jack"
        return super().fits(m, card, wishing)

    def round_points(self, m: MatchState, winner: int, finish: Finish) -> list[int]:
        points = [0] * m.seats
        points[winner] = 1
        return points

    def match_result(self, m: MatchState, winner: int) -> Outcome | None:
        if m.totals[winner] >= self.rules.target:
            return Outcome(scoring.team_of(m, winner), Reason.WINS)
        return None


class Ostfriesland(Variant):
    """East-Frisian tournament rules: a Jack may go as a plain card, no wish on a wish, three
    calls, the starter works for the starting seat, drawing ends the turn, and a table of a fixed
    number of rounds scored with the Mau-Mau doubling."""

    name = "ostfriesland"
    rule_text = "002"
    options = ("rounds",)
    jack_rule = JackRule.NO_WISH_ON_WISH
    starter = Starter.STARTING_SEAT
    calls = Calls.OSTFRIESLAND
    scoring = Scoring.OSTFRIESLAND
    after_draw = AfterDraw.END_TURN

    def wish_options(self, card: Card) -> tuple[bool, ...]:
        return _WISH_OR_PLAIN if self.marks[card.code] & WISHES else _NO_WISH

    def fits(self, m: MatchState, card: Card, wishing: bool) -> str | None:
        if wishing:
            return "wish_on_wish" if m.wish_jack else None
        if m.wished is not None and card.suit != m.wished and card.rank == "J":
            return "wish_on_wish"
        return _serves(m, card)

    def due_call(self, m: MatchState, seat: int, card: Card, wishing: bool) -> str | None:
        if self.marks[card.code] & AGAIN:
            return None
        left = len(m.hands[seat]) - 1
        return ("maumau" if wishing else "mau") if left == 0 else "last" if left == 1 else None

    def finish(self, due: str | None) -> Finish:
        return Finish(due) if due else Finish.OUT

    def call_refused(self, due: str | None, call: str | None) -> bool:
        """A wrong word where a call is due counts as no call (the play stands, the due call is
        owed and catchable): the text punishes a wrong call, it does not forbid the move."""
        return call is not None and due is None

    def after_penalty(self, m: MatchState, seat: int) -> None:
        """A penalty card that leaves ``seat`` with one card (a catch after going out, or the draw
        a 9 forces when it was the last card) makes 'Letzte Karte' due at once: the seat may say
        it on its own and is catchable until the end of the next turn."""
        if len(m.hands[seat]) == 1 and m.phase is not OVER:
            m.missed[seat] = ("last", m.turn_no + 1)
            m.penalty_last[seat] = True

    def call_actions(self, m: MatchState, seat: int, actions: list[Action]) -> None:
        super().call_actions(m, seat, actions)
        if self.may_call(m, seat, "last"):
            actions.append(CALL_LAST)

    def may_call(self, m: MatchState, seat: int, word: str) -> bool:
        return word == "last" and m.penalty_last[seat] and len(m.hands[seat]) == 1

    def turn_up(self, m: MatchState) -> None:
        rules = self.rules
        rank = m.discard[-1].rank
        if rank in rules.wish_ranks:
            _ask_for_suit(m, m.turn)
        elif rank == rules.draw_rank:
            m.pending, m.pending_count, m.chain = DRAW_PENDING, 2, 1
            m.pending_optional = True
        elif rank == rules.skip_rank:
            m.pending, m.pending_count, m.chain = SKIP_PENDING, 0, 0
            m.pending_optional = True

    def round_points(self, m: MatchState, winner: int, finish: Finish) -> list[int]:
        points = super().round_points(m, winner, finish)
        if finish is Finish.MAUMAU:
            points = [2 * p for p in points]
            points[winner] = -40
            m.maumaus[winner] += 1
        return points

    def match_result(self, m: MatchState, winner: int) -> Outcome | None:
        if m.round < self.rules.rounds:
            return None
        return scoring.lowest_total(m, Reason.ROUNDS, m.maumaus)


class Colour(Variant):
    """The UNO-like colour game: wilds name the colour, a challengeable W+4, reverses, the 'last'
    button, and the winner's side collects the others' card points up to ``target``."""

    name = "colour"
    rule_text = "003"
    options = ("target", "teams")
    starter = Starter.WILD_COLOUR
    calls = Calls.LAST
    scoring = Scoring.COLLECT
    draw_when = DrawWhen.ANY

    def catchable(self, m: MatchState, seat: int) -> bool:
        return calls.owes_last(m, seat)

    def call_actions(self, m: MatchState, seat: int, actions: list[Action]) -> None:
        hands = m.hands
        for target in range(m.seats):  # the hand size first: the test that fails most often
            if len(hands[target]) == 1 and target != seat and calls.owes_last(m, target):
                actions.append(CATCHES[target])
        if calls.may_press_last(m, seat):
            actions.append(CALL_LAST)

    def may_call(self, m: MatchState, seat: int, word: str) -> bool:
        return word == "last" and calls.may_press_last(m, seat)

    def turn_up(self, m: MatchState) -> None:
        if m.discard[-1].rank in self.rules.wish_ranks:
            _ask_for_suit(m, m.turn)

    def round_points(self, m: MatchState, winner: int, finish: Finish) -> list[int]:
        return scoring.collected_points(m, winner)

    def match_result(self, m: MatchState, winner: int) -> Outcome | None:
        if m.totals[winner] >= self.rules.target:
            return Outcome(scoring.team_of(m, winner), Reason.TARGET)
        return None


VARIANTS: Final[dict[str, type[Variant]]] = {
    variant.name: variant for variant in (Classic, Online, Ostfriesland, Colour)
}
"""Every variant by preset name: the one registry."""


def find_variant(name: str) -> type[Variant]:
    """The variant class of preset ``name``; an unknown name raises :class:`BadRuleset`."""
    variant = VARIANTS.get(name)
    if variant is None:
        raise BadRuleset("unknown_preset", name=name, allowed=tuple(VARIANTS))
    return variant
