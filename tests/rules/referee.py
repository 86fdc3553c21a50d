"""A referee per preset, written from the rule texts and not by calling the rules core.

During random play it is shown the public view before a step, the step and its events, and it
says what the rule texts say about them: whether the played card may lie on the card below it,
which call each play owes, and which seats may be caught for a missed call afterwards. The rule
tests compare that with what the core lists and allows, so a one-line slip in the core at a
boundary no position test was written for still shows.
"""

from dataclasses import dataclass, field

from maumau.rules import Action, Call, Card, Event, Play, Ruleset, View
from maumau.rules.events import Called, Caught, Drew, Played, TurnStarted

WISH_RANKS = {"classic": {"J"}, "online": {"J"}, "ostfriesland": {"J"}, "colour": {"W", "W+4"}}
"""The cards that name a suit (or colour) when played, by rule text."""
DRAW_RANKS = {"classic": "7", "online": "7", "ostfriesland": "7", "colour": "+2"}
AGAIN_RANK = {"ostfriesland": "9"}
"""The card after which its player moves again, so its turn does not end (002: the 9)."""


def fits(ruleset: Ruleset, before: View, card: Card, wishing: bool) -> bool:
    """Whether ``card`` may go on the pile in the position ``before`` (rule texts 000-003)."""
    preset = ruleset.preset
    top, wished, pending = before.top, before.wished, before.pending
    if pending == "draw":  # only another draw card passes a running penalty on
        chain_limit = dict(ruleset.options).get("seven_chain_limit")
        chained = before.pending_count // 2
        return card.rank == DRAW_RANKS[preset] and (chain_limit is None or chained <= chain_limit)
    if pending == "skip":  # 002 passes an 8 on with an 8; elsewhere the seat only sits out
        return preset == "ostfriesland" and card.rank == "8"
    if pending == "draw4":
        return False
    if wishing:
        if preset == "online":
            return top.rank != "J"  # 001: never a Jack on a Jack
        if preset == "ostfriesland":
            return wished is None  # 002: 'Bube auf Bube stinkt' after a wish
        return True
    if card.rank in WISH_RANKS[preset] and preset != "ostfriesland":
        return False  # such a card is always played with a wish
    if wished is not None:
        return card.suit == wished
    return card.suit == top.suit or card.rank == top.rank


def due_call(ruleset: Ruleset, left: int, card: Card, wishing: bool) -> str | None:
    """The call a play owes that leaves ``left`` cards in hand (None: nothing to say)."""
    preset = ruleset.preset
    if preset == "classic":
        return {1: "mau", 0: "maumau"}.get(left)
    if preset == "ostfriesland":
        if card.rank == AGAIN_RANK[preset]:
            return None  # the turn goes on: the 9 ends nothing, and cannot finish
        return {1: "last", 0: "maumau" if wishing else "mau"}.get(left)
    return None  # online: calls are automatic; colour: the 'last' button, pressed on its own


@dataclass
class Referee:
    """Follows one round's calls: which seats owe one and until when, from the events alone."""

    ruleset: Ruleset
    windows: dict[int, int] = field(default_factory=dict)
    """Seats that missed a call: the turn starts still to come before the window closes (a call
    missed in one turn is catchable until the end of the next, 000 and 002)."""
    own_call: set[int] = field(default_factory=set)
    """East-Frisian seats a penalty card left with one card: 'Letzte Karte' is theirs to say."""
    pressed: set[int] = field(default_factory=set)
    """Colour seats that pressed 'last' and have taken no card since."""

    def new_round(self) -> None:
        self.windows.clear()
        self.own_call.clear()
        self.pressed.clear()

    def follow(self, before: View, events: list[Event]) -> None:
        """Take in what one step did, event by event."""
        sizes = list(before.hand_sizes)
        for event in events:
            match event:
                case Played(seat=seat, card=card, suit=suit, call=call):
                    sizes[seat] -= 1
                    due = due_call(self.ruleset, sizes[seat], card, suit is not None)
                    if due is not None and call != due:
                        self.windows[seat] = 2
                        self.own_call.discard(seat)
                case Caught(seat=seat):
                    self.windows.pop(seat, None)
                    self.own_call.discard(seat)
                case Drew(seat=seat, count=count, reason=reason):
                    sizes[seat] += count
                    if count:
                        self.pressed.discard(seat)
                    penalty = reason in ("caught", "draw")
                    if self.ruleset.preset == "ostfriesland" and penalty and sizes[seat] == 1:
                        self.windows[seat] = 2  # 002's pro tip: 'Letzte Karte' after a penalty
                        self.own_call.add(seat)
                case Called(seat=seat):
                    self.pressed.add(seat)
                    if seat in self.own_call:
                        self.own_call.discard(seat)
                        self.windows.pop(seat, None)
                case TurnStarted():
                    for seat in list(self.windows):
                        self.windows[seat] -= 1
                        if not self.windows[seat]:
                            del self.windows[seat]
                            self.own_call.discard(seat)

    def kept_drawn(self, seat: int, after: View) -> None:
        """003: a 'last' pressed before keeping a drawn card lapses with more than one card."""
        if after.hand_sizes[seat] > 1:
            self.pressed.discard(seat)

    def catchable(self, after: View) -> set[int]:
        """The seats another seat may catch now."""
        if self.ruleset.preset == "colour":
            ones = (s for s, size in enumerate(after.hand_sizes) if size == 1)
            return {s for s in ones if after.in_round[s] and s not in self.pressed}
        return set(self.windows)

    def may_call_alone(self, after: View, seat: int) -> bool:
        """Whether ``seat`` may make a call on its own now (003's button, 002 after a penalty)."""
        size = after.hand_sizes[seat]
        if self.ruleset.preset == "colour":
            if seat in self.pressed or after.phase == "over":
                return False
            own_turn = seat == after.turn and after.phase in ("play", "drawn")
            return size == 1 or (size == 2 and own_turn)
        return seat in self.own_call and size == 1

    def check_listed_plays(self, before: View, mover: View, legal: list[Action]) -> None:
        """Exactly the cards that fit are listed, each with no call and with the one it owes
        (missing a call is a move too), and no other call."""
        plays: dict[tuple[Card, bool], set[str | None]] = {}
        for action in legal:
            if isinstance(action, Play):
                plays.setdefault((action.card, action.suit is not None), set()).add(action.call)
        left = len(mover.hand) - 1
        for (card, wishing), listed in plays.items():
            due = due_call(self.ruleset, left, card, wishing)
            assert listed == {None, due}, f"{card} (wish {wishing}) with {left} left: {listed}"
        if before.phase == "starter_suit":
            assert not plays, "a play listed before the starter's suit is named"
            return
        held = [mover.drawn] if mover.drawn is not None else mover.hand
        wish_ranks = WISH_RANKS[self.ruleset.preset]
        for card in held:
            if card.rank not in wish_ranks:
                options = (False,)
            elif self.ruleset.preset == "ostfriesland":
                options = (True, False)  # 002: a Jack wishes, or goes as a plain card
            else:
                options = (True,)
            for wishing in options:
                fitting = fits(self.ruleset, before, card, wishing)
                assert fitting == ((card, wishing) in plays), (
                    f"{card} (wish {wishing}) on {before.top}"
                )

    def check_calls_alone(self, after: View, legal_of: list[list[Action]]) -> None:
        for seat, actions in enumerate(legal_of):
            listed = any(isinstance(action, Call) for action in actions)
            assert listed == self.may_call_alone(after, seat), f"seat {seat} call listed {listed}"
