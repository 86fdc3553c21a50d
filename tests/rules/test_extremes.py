"""Positions at the boundaries: every special card played down to two, one and no cards left, with
and without the call it owes, and every numeric option at its smallest, one and largest value.
The expectations come from the referee (``referee.py``, the rule texts), not from the core."""

import pytest

from maumau.rules import Match, Ruleset, parse_cards
from tests.rules.referee import AGAIN_RANK, due_call
from tests.rules.support import act, legal, named, play_out, position

# Per preset: the special plays (card text, wished suit or None), a plain top card of the
# special's suit, fillers that fit nothing on it, the other seats' hands and the draw pile.
SPECIALS = {
    "classic": (["7H", "8H", ("JH", "S")], "5H", ["2C", "3C"], "4S 6S", "4D 6D", "QH 10S 9S 9D"),
    "online": (["7H", "8H", ("JH", "S")], "10H", ["QC", "KC"], "QS KS", "QD KD", "AH AS AD 9S"),
    "ostfriesland": (
        ["7H", "8H", "9H", ("JH", "S"), "JH"], "10H", ["QC", "KC"], "QS KS", "QD KD", "AH AS AD 9S"
    ),
    "colour": (
        ["R+2", "Rskip", "Rrev", ("W", "B"), ("W+4", "B")], "R5", ["G1", "G2"], "Y3 Y4", "B6 B7",
        "G3 G4 Y5 Y6",
    ),
}  # fmt: skip
ACE_POWERS = ("draw", "skip")


def _cases():
    """Every special at every count left, with its call and, where one is owed, without it."""
    plays = [(p, {}, special) for p, (specials, *_) in SPECIALS.items() for special in specials]
    plays += [("classic", {"ace_power": power}, "AH") for power in ACE_POWERS]
    for preset, options, special in plays:
        card, suit = special if isinstance(special, tuple) else (special, None)
        for left in (2, 1, 0):
            owed = due_call(Ruleset.create(preset, options), left, parse_cards(card)[0], bool(suit))
            for with_call in (True, False) if owed else (True,):
                yield preset, options, special, left, with_call


@pytest.mark.parametrize(("preset", "options", "special", "left", "with_call"), list(_cases()))
def test_a_special_card_played_down_to_two_one_and_no_cards(
    preset, options, special, left, with_call
):
    ruleset = Ruleset.create(preset, options)
    _specials, top, fillers, one, two, draw = SPECIALS[preset]
    card, suit = special if isinstance(special, tuple) else (special, None)
    hand = " ".join([card, *fillers[:left]])
    match = position(hand, one, two, top=top, draw=draw, ruleset=ruleset)
    due = due_call(ruleset, left, match.hands[0][0], suit is not None)
    text = card + (f":{suit}" if suit else "") + (f"!{due}" if with_call and due else "")

    events = act(match, 0, text)

    over = named(events, "RoundOver")
    finishes = left == 0 and card[:1] != AGAIN_RANK.get(preset, "-")
    owes = due is not None and not with_call
    if finishes and not owes:
        assert over and over[0].winner == 0, f"{text} with none left must win the round"
        return
    assert not over, f"{text} with {left} left (owing {owes}) must not end the round at once"
    view = match.view(None)
    catchable = owes or (preset == "colour" and left == 1)  # colour: 'last' not yet pressed
    assert (0 in view.owing_call) == catchable
    if left == 0 and not owes:  # the 9: its player moves again, and with no cards must draw
        assert view.turn == 0 and legal(match, 0) == {"draw"}
    if left == 0 and owes:
        assert view.turn != 0, "a seat out of cards, owing its call, never has the turn"
    if owes:
        catcher = next(seat for seat in (1, 2) if "catch:0" in legal(match, seat))
        act(match, catcher, "catch:0")
        assert len(match.hands[0]) == left + ruleset.call_penalty


@pytest.mark.parametrize("size", [3, 10])
def test_the_hand_size_option_at_its_ends(size):
    match = Match.new(Ruleset.create("classic", {"hand_size": size}), seats=4, seed=3)
    assert [len(hand) for hand in match.hands] == [size] * 4


@pytest.mark.parametrize("decks", [1, 4])
def test_the_decks_option_at_its_ends(decks):
    match = Match.new(Ruleset.create("classic", {"decks": decks}), seats=2, seed=3)
    held = sum(len(hand) for hand in match.hands) + len(match.draw_pile) + len(match.discard)
    assert held == 52 * decks


@pytest.mark.parametrize(
    ("preset", "options", "rounds_at_least"),
    [
        ("classic", {"target": 0}, 1),
        ("online", {"wins": 1}, 1),
        ("ostfriesland", {"rounds": 1}, 1),
        ("colour", {"target": 0}, 1),
    ],
)
def test_the_smallest_match_is_one_round(preset, options, rounds_at_least):
    match = Match.new(Ruleset.create(preset, options), seats=3, seed=5)
    play_out(match)
    assert match.round == rounds_at_least and match.outcome is not None


@pytest.mark.parametrize(
    ("preset", "options"),
    [
        ("classic", {"target": 10_000}),
        ("online", {"wins": 100}),
        ("ostfriesland", {"rounds": 100}),
        ("colour", {"target": 10_000}),
    ],
)
def test_the_largest_match_goes_on_after_the_first_round(preset, options):
    match = Match.new(Ruleset.create(preset, options), seats=3, seed=5)
    first = match.round
    for _ in range(5000):
        if match.round > first:
            break
        view = match.view(None)
        seat = view.chooser if view.phase == "starter_suit" else view.turn
        match.apply(seat, next(a for a in match.legal_actions(seat) if "catch" not in a.text))
    assert match.round == first + 1 and match.outcome is None


@pytest.mark.parametrize(("limit", "sevens_laid"), [(0, 1), (1, 2), (7, 4)])
def test_the_seven_chain_limit_at_its_ends(limit, sevens_laid):
    """Rule text 000, variant: the chain may grow by ``limit`` seats beyond the first 7 (0: the
    first 7 cannot be answered; at the largest limit every 7 at the table stacks)."""
    ruleset = Ruleset.create("classic", {"seven_chain_limit": limit})
    match = position(
        "7H 2C",
        "7S 2D",
        "7D 2S",
        "7C 3S",
        top="5H",
        draw="QH 10S QD 10D 9S 9D 8S 8D",
        ruleset=ruleset,
    )
    act(match, 0, "7H")
    for seat in (1, 2, 3):
        seven = next((t for t in legal(match, seat) if t.startswith("7")), None)
        if seven is None:
            break
        act(match, seat, seven)
    assert sum(card.rank == "7" for card in match.discard) == sevens_laid
