"""The public face of a match beside the rules: views, the legal-action object, the silent seat's
default, copies, equality and bytes, and the refusals of actions that name no real seat."""

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from maumau.rules import (
    ACCEPT,
    DRAW,
    PASS,
    BadInput,
    Card,
    Catch,
    IllegalAction,
    Match,
    Play,
    Ruleset,
    format_cards,
    parse_action,
)
from maumau.rules.cards import ALL_CARDS
from maumau.rules.determinize import determinize
from maumau.rules.state import STATE_FIELDS
from maumau.rules.turns import below, seeded, shuffle
from tests.rules.support import act, hand, legal, position, refused

CLASSIC = Ruleset.create("classic")
OSTFRIESLAND = Ruleset.create("ostfriesland")
COLOUR = Ruleset.create("colour")


def test_a_seat_sees_its_hand_and_counts_of_the_others() -> None:
    match = position(
        "5H 9C", "KS", "2D 3D 4D", top="7C 9H", draw="QS QH", ruleset=CLASSIC, dealer=2
    )
    view = match.view(1)
    assert (view.seat, view.ruleset, view.round, view.phase) == (1, "classic", 1, "play")
    assert (view.turn, view.dealer, view.chooser) == (0, 2, -1)
    assert view.hand == tuple(match.view(1).hand) and hand(match, 1) == "KS"
    assert view.hand_sizes == (2, 1, 3)
    assert view.in_round == (True, True, True)
    assert (view.top.text, [c.text for c in view.discard]) == ("9H", ["7C", "9H"])
    assert (view.active_suit, view.wished, view.pending, view.pending_count) == ("H", None, "", 0)
    assert (view.direction, view.draw_pile_size, view.discard_size) == (1, 2, 2)
    assert (view.drawn, view.owing_call, view.declared_last) == (None, (), ())
    assert (view.totals, view.round_wins, view.teams, view.outcome) == (
        (0, 0, 0),
        (0, 0, 0),
        False,
        None,
    )
    assert view.legal == ()  # not seat 1's turn, and nothing to catch
    assert {a.text for a in match.view(0).legal} == {"5H", "5H!mau", "9C", "9C!mau"}
    spectator = match.view(None)
    assert (spectator.seat, spectator.hand, spectator.legal) == (None, (), ())
    assert spectator.hand_sizes == (2, 1, 3)


def test_a_wish_shows_as_the_suit_to_serve() -> None:
    match = position("JC 5H", "KS 2S", top="9H", draw="QS", ruleset=CLASSIC)
    act(match, 0, "JC:S")
    view = match.view(1)
    assert (view.top.text, view.wished, view.active_suit) == ("JC", "S", "S")


def test_the_seat_that_drew_sees_the_drawn_card_and_nobody_else_does() -> None:
    match = position("2C 3C", "5D", "6D", top="9H", draw="KH", ruleset=CLASSIC)
    act(match, 0, "draw")
    assert match.view(0).phase == "drawn"
    assert match.view(0).drawn.text == "KH"
    assert [match.view(seat).drawn for seat in (1, 2, None)] == [None, None, None]
    assert legal(match, 0) == {"KH", "pass"}


def test_the_legal_action_object_answers_membership_counts_and_truth() -> None:
    match = position("5H 9C 2D 3D", "KS", top="9H", ruleset=CLASSIC)
    actions = match.legal_actions(0)
    assert actions.count() == 2 and bool(actions)
    assert Play(parse_action("5H").card) in actions
    assert parse_action("2D") not in actions
    assert "5H" not in actions and None not in actions  # not actions at all
    assert repr(actions) == "<LegalActions seat=0: 5H 9C>"
    other = match.legal_actions(1)
    assert other.count() == 0 and not other and list(other) == []
    assert repr(other) == "<LegalActions seat=1: >"
    assert not match.legal_actions(7) and parse_action("draw") not in match.legal_actions(7)


def test_an_action_for_a_seat_that_is_not_at_the_table_is_bad_input() -> None:
    match = position("5H", "KS", top="9H", ruleset=CLASSIC)
    for seat in (-1, 2):
        with pytest.raises(BadInput) as err:
            match.apply(seat, DRAW)
        assert err.value.code == "bad_seat"
        assert err.value.params == {"seat": seat, "seats": 2}


def test_catching_oneself_or_a_seat_not_at_the_table_is_refused() -> None:
    match = position("5H 6H", "KS 2S", "3C 4C", top="9H", draw="QS QD", ruleset=CLASSIC)
    act(match, 0, "5H")  # forgets 'Mau'
    assert "catch:0" in legal(match, 1)
    assert refused(match, 0, "catch:0") == "catch_not_allowed"
    assert refused(match, 1, "catch:5") == "catch_not_allowed"
    with pytest.raises(IllegalAction) as err:
        match.apply(1, Catch(-1))
    assert err.value.code == "catch_not_allowed"
    assert refused(match, 1, "catch:2") == "catch_not_allowed"


def test_a_silent_seat_takes_the_penalty_keeps_the_drawn_card_or_draws() -> None:
    penalty = position("5H", "KS 2S", top="7H", ruleset=CLASSIC, pending="draw", pending_count=2)
    assert penalty.default_action(0) == ACCEPT
    stuck = position("5C", "KS", top="9H", draw="KH", ruleset=CLASSIC)
    assert stuck.default_action(0) == DRAW
    act(stuck, 0, "draw")
    assert stuck.default_action(0) == PASS
    fitting = position("2C 5H 6H", "KS", top="9H", ruleset=CLASSIC)
    assert fitting.default_action(0) == parse_action("5H")
    with pytest.raises(IllegalAction) as err:
        fitting.default_action(1)
    assert (err.value.code, err.value.params) == ("not_your_turn", {"turn": 0})


def test_a_silent_seat_in_the_colour_game_draws_rather_than_plays() -> None:
    match = position("R1 R2", "G5", top="R5", draw="B1", ruleset=COLOUR)
    assert match.default_action(0) == DRAW
    last = position("R1", "G5 G6", top="R5", draw="B1", ruleset=COLOUR)
    assert Catch(0) in last.legal_actions(1)  # a catch is never a timer's move
    with pytest.raises(IllegalAction):
        last.default_action(1)


def test_after_leaves_the_match_as_it_was() -> None:
    match = position("5H 9C", "KS", top="9H", draw="QS", ruleset=CLASSIC)
    before = match.copy()
    moved, events = match.after(0, parse_action("5H"))
    assert match == before and moved != match
    assert moved.view(None).turn == 1 and match.view(None).turn == 0
    assert [type(e).__name__ for e in events] == ["Played", "TurnStarted"]


def test_a_copy_is_independent_and_equal_until_either_moves() -> None:
    match = position("5H 9C", "KS 2S", top="9H", draw="QS QD", ruleset=CLASSIC)
    twin = match.copy()
    assert twin == match and twin is not match
    act(twin, 0, "5H!mau")
    assert twin != match
    assert hand(match, 0) == "5H 9C" and match.view(None).owing_call == ()
    assert match != "a match" and match.__eq__(object()) is NotImplemented
    with pytest.raises(TypeError):
        hash(match)


def test_a_copy_has_every_declared_field_and_shares_no_list_or_dict() -> None:
    """The copy is written out field by field for speed: it must still cover every declaration,
    and give the copy its own lists (the hands two deep) and dicts."""
    match = position("5H 6H", "KS 2S", "3C", top="9H", draw="QS QD", ruleset=CLASSIC)
    act(match, 0, "5H")  # owes 'Mau': a missed call in the state
    twin = match.copy()
    for declared in STATE_FIELDS:
        mine, theirs = getattr(match, declared.name), getattr(twin, declared.name)
        assert mine == theirs, declared.name
        if isinstance(mine, list | dict):
            assert mine is not theirs, declared.name
    assert all(a is not b for a, b in zip(match.hands, twin.hands, strict=True))
    assert match.missed and twin == match


def test_bytes_restore_every_field_mid_round() -> None:
    match = position("5H 6H", "KS 2S", "3C", top="9H", draw="QS QD", ruleset=CLASSIC)
    act(match, 0, "5H")  # owes 'Mau': a missed call in the state
    act(match, 1, "draw")
    restored = Match.from_bytes(match.to_bytes())
    assert restored == match
    assert restored.view(2) == match.view(2)
    assert legal(restored, 2) == legal(match, 2)


def test_bytes_restore_a_letzte_karte_owed_after_a_penalty_card() -> None:
    """The East-Frisian 'Letzte Karte' that a penalty card makes due is written with the match;
    bytes written before it existed (ending after the outcome) read as nobody owing it."""
    match = position("KH", "AS KC", "AC", top="10H", draw="7D 9D", ruleset=OSTFRIESLAND)
    act(match, 0, "KH")
    act(match, 1, "catch:0")
    restored = Match.from_bytes(match.to_bytes())
    assert restored == match and "call:last" in legal(restored, 0)

    earlier = Match.from_bytes(match.to_bytes()[: -(1 + match.seats)])
    assert earlier.penalty_last == [False] * 3 and "call:last" not in legal(earlier, 0)


def test_bytes_restore_a_drawn_card_and_a_wish() -> None:
    match = position("3C 4C", "5D", top="9S", draw="2S", ruleset=CLASSIC)
    act(match, 0, "draw")
    restored = Match.from_bytes(match.to_bytes())
    assert restored.view(0).drawn.text == "2S" and legal(restored, 0) == {"2S", "pass"}
    act(restored, 0, "pass")
    wished = position("JC 5H", "KS 2S", top="9H", draw="QS", ruleset=CLASSIC)
    act(wished, 0, "JC:S")
    assert Match.from_bytes(wished.to_bytes()).view(1).active_suit == "S"


def test_bytes_restore_a_finished_match() -> None:
    match = position("5H", "KS", top="9H", ruleset=Ruleset.create("classic", {"target": 0}))
    act(match, 0, "5H!maumau")
    assert match.view(None).outcome is not None
    restored = Match.from_bytes(match.to_bytes())
    assert restored == match and restored.view(None).outcome == match.view(None).outcome


def test_a_seed_deals_and_reshuffles_the_same_cards_in_every_version() -> None:
    """Fair deals: a verifier replays a finished match from its revealed seed with its own copy
    of the rules core, so the cards a seed deals (and reshuffles) are part of the contract."""
    dealt = {
        ("classic", 3): (0, "5D", ["3D 8S 3C AC 5H", "JC KH 9H QS 6C", "4D 10C 7C AD 9S"]),
        ("colour", 2): (0, "G4", ["B3 G+2 R7 Y7 Rrev W+4 R7", "Yrev B2 Yskip G8 Y3 Y1 G+2"]),
    }
    for (preset, seats), (dealer, starter, hands) in dealt.items():
        match = Match.new(Ruleset.create(preset), seats, "fair deal")
        assert (match.view(None).dealer, match.view(None).top.text) == (dealer, starter)
        assert [hand(match, seat) for seat in range(seats)] == hands
    online = Ruleset.create("online")
    pile = Match.new(online, 2, "fair deal").draw_pile
    assert format_cards(pile[-5:]) == "KH 7H 10C AC QC"  # the top five, top card last
    match = position("9S", "10S", top="9C QC QH KH KD AD", ruleset=online, seed="fair deal")
    drew = [e for e in act(match, 0, "draw") if type(e).__name__ == "Drew"]
    assert [card.text for card in drew[0].cards] == ["QH"]
    assert format_cards(match.draw_pile) == "KD 9C QC KH"


@given(st.lists(st.sampled_from(ALL_CARDS), max_size=330), st.text(max_size=8))
def test_the_core_shuffles_exactly_as_the_library_does(cards: list[Card], seed: str) -> None:
    """The core's own shuffle (the compiled one of the deal) and ``random.shuffle`` agree card
    for card on every seed, so a verifier's plain Python replays the deal."""
    ours, library = list(cards), list(cards)
    shuffle(random.Random(seed), ours)
    random.Random(seed).shuffle(library)
    assert ours == library
    ours = list(cards)
    shuffle(seeded(seed), ours)
    assert ours == library


@given(st.text(max_size=12), st.integers(1, 2**70))
def test_the_core_seeds_and_draws_exactly_as_the_library_does(seed: str, size: int) -> None:
    """The core's generator of a text seed, built without the library's constructor, draws the
    library's numbers: a dealer by lot and every shuffle stay what they always were."""
    ours, library = seeded(seed), random.Random(seed)
    assert [below(ours, n) for n in (1, 2, 3, 8, size)] == [
        library.randrange(n) for n in (1, 2, 3, 8, size)
    ]
    assert ours.getrandbits(64) == library.getrandbits(64)


def refusal(match: Match, seat: int, text: str) -> IllegalAction:
    with pytest.raises(IllegalAction) as err:
        act(match, seat, text)
    return err.value


def test_refusals_name_what_is_pending_and_what_would_fit() -> None:
    ost = Ruleset.create("ostfriesland")
    skip = position("9H 8S", "KS", top="8H", ruleset=ost, pending="skip")
    error = refusal(skip, 0, "9H")
    assert (error.code, error.params) == ("skip_pending", {"rank": "8"})
    assert str(error) == "an 8 is pending: play an 8 or sit out"
    assert refusal(skip, 0, "draw").params == {"rank": "8"}
    draw4 = position("R1 W", "G5", top="W+4", ruleset=COLOUR, wished="R", pending="draw4",
                     pending_count=4)  # fmt: skip
    error = refusal(draw4, 0, "R1")
    assert (error.code, error.params) == ("draw4_bluff_pending", {"count": 4})
    assert refusal(draw4, 0, "draw").params == {"count": 4}
    wish = position("JH 9C", "KS", top="QS JD", ruleset=ost, wished="S")
    for text in ("JH:C", "JH"):
        error = refusal(wish, 0, text)
        assert error.code == "wish_on_wish"
        assert error.params == {"card": "JH", "top": "JD", "suit": "S", "rank": "J"}
    plain = position("9C", "KS", top="5H", ruleset=CLASSIC, draw="2D")
    error = refusal(plain, 0, "9C")
    assert error.params == {"card": "9C", "top": "5H", "suit": "H", "rank": "5"}
    assert str(error) == "9C does not fit on 5H: play hearts or a 5"


def test_a_determinization_keeps_the_card_just_drawn() -> None:
    match = position("3C 4C", "5D 6D", top="9S", draw="2S KH", ruleset=CLASSIC)
    act(match, 0, "draw")
    world = determinize(match.view(0), random.Random(1))
    assert world.view(0).drawn.text == "2S"
    assert legal(world, 0) == {"2S", "pass"}


def test_the_unchecked_path_applies_a_legal_action_exactly_as_apply_does() -> None:
    """Search applies listed actions without checking them again: same events, same match."""
    match = Match.new(COLOUR, 3, "unchecked")
    for _ in range(40):
        seat = next(s for s in range(3) if match.legal_actions(s))
        for action in match.legal_actions(seat):
            checked, unchecked = match.copy(), match.copy()
            assert checked.apply(seat, action) == unchecked.apply_unchecked(seat, action)
            assert checked == unchecked
        match.apply(seat, next(iter(match.legal_actions(seat))))


def test_hands_must_leave_a_card_to_turn_up() -> None:
    skat = {"deck": "skat32", "hand_size": 8}
    with pytest.raises(BadInput) as err:
        Match.new(Ruleset.create("classic", skat), 4, "full")  # 4 x 8 = all 32 cards
    assert (err.value.code, err.value.params["name"]) == ("bad_option", "hand_size")
    assert err.value.params["reason"] == "4 hands of 8 do not fit a deck of 32"
    assert Match.new(Ruleset.create("classic", skat), 3, "fits").view(None).draw_pile_size == 7


def test_refusals_of_turn_order_calls_and_suits_name_what_they_refuse() -> None:
    """Each refusal carries the parameters its message names: the seat whose turn it is to name
    the starting suit and the card, the seat that cannot be caught, the call that is not due, the
    suit that is no suit of this deck and the ones that are."""
    jack = next(
        m for seed in range(500) if (m := Match.new(CLASSIC, seats=3, seed=seed)).top.rank == "J"
    )
    error = refusal(jack, jack.turn, "draw")
    assert error.params == {"seat": jack.dealer, "card": jack.top.text}
    assert refusal(jack, jack.turn, "suit:S").params == error.params
    with pytest.raises(BadInput) as bad:
        act(jack, jack.dealer, "suit:R")
    assert (bad.value.code, bad.value.params) == (
        "bad_suit",
        {"text": "R", "allowed": ("S", "H", "D", "C")},
    )
    match = position("8H KS JC", "AS 2C", "3C", top="10H", ruleset=CLASSIC)
    assert refusal(match, 1, "catch:2").params == {"seat": 2}
    colour = position("R5", "G2 G3", "B1 B2", top="R3", ruleset=COLOUR)
    assert refusal(colour, 1, "catch:3").params == {"seat": 3}
    assert refusal(match, 0, "8H!maumau").params == {"call": "maumau"}
    with pytest.raises(BadInput) as bad:
        act(match, 0, "JC:R")
    assert bad.value.params == {"text": "R", "allowed": ("S", "H", "D", "C")}


def test_a_sampled_world_catches_the_call_the_real_match_would() -> None:
    """A seat out of cards without its 'Mau-Mau' owes that call in a determinized world too."""
    match = position("5H", "5S 6S", "7D 8D", top="9H", draw="KC QC", ruleset=CLASSIC)
    act(match, 0, "5H")
    assert match.view(1).owing_call == (0,)
    world = determinize(match.view(1), random.Random(3))
    assert world.apply(1, Catch(0))[0] == act(match, 1, "catch:0")[0]
