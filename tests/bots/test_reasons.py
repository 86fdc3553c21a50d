"""Hints explain themselves correctly: every reason the heuristic gives is a code whose claim holds
in the view it was given (a "longest suit" is the longest suit, a wish for the suit held most is
that suit, a stopped seat is about to go out, ...), and each reads in English and German."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from string import Formatter

import grpc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maumau.policies import rank
from maumau.policies.tips import tips
from maumau.rules import Catch, Match, NameSuit, Play, Ruleset, View, parse_cards
from maumau.rules.reasons import AGAINST, REASONS, Reason, render
from maumau.v1 import bots_pb2
from maumau.wire import action_from_pb, reasons_from_pb, reasons_to_pb, view_to_pb
from tests.bots import test_service

bots = pytest.fixture(test_service.bots.__wrapped__)  # the same real Bots server

PRESETS = ["classic", "online", "ostfriesland", "colour"]


def suit_counts(view: View, ruleset: Ruleset) -> Counter[str]:
    return Counter(c.suit for c in view.hand if c.rank not in ruleset.wish_ranks)


def most_held(view: View, ruleset: Ruleset) -> int:
    counts = suit_counts(view, ruleset)
    return max(counts[suit] for suit in ruleset.suits)


def check(view: View, action: object, reason: Reason) -> None:
    """The claim of one reason, checked against the view alone."""
    ruleset = Ruleset.parse(view.ruleset)
    counts = suit_counts(view, ruleset)
    params = dict(reason.params)
    number = {k: int(v) for k, v in params.items() if v.lstrip("-").isdigit()}
    code = reason.code
    assert code in REASONS["en"] and code in REASONS["de"], code
    if code in ("longest_suit", "shorter_suit"):
        assert isinstance(action, Play) and action.card.suit == params["suit"]
        assert number["count"] == counts[params["suit"]]
        if code == "longest_suit":
            assert number["count"] == most_held(view, ruleset)
    if code in ("wish_most", "wish_other"):
        assert isinstance(action, Play) and action.suit == params["suit"]
        assert number["count"] == counts[params["suit"]]
        if code == "wish_most":
            assert number["count"] == most_held(view, ruleset)
    if code in ("shorter_suit", "wish_other"):
        assert number["best_count"] == counts[params["best"]] == most_held(view, ruleset)
        assert number["count"] < number["best_count"]
    if code == "name_suit":
        assert isinstance(action, NameSuit) and number["count"] == counts[action.suit]
    if code == "catch_owed":
        assert isinstance(action, Catch) and number["seat"] in view.owing_call
    if code == "stop_seat":
        assert isinstance(action, Play) and number["seat"] != view.seat
        assert number["cards"] == view.hand_sizes[number["seat"]] <= 2
    if code == "last_card":
        assert len(view.hand) == 1
    if code == "with_call":
        assert isinstance(action, Play) and action.call == params["call"]
    if code == "keep_wild":
        assert isinstance(action, Play) and action.card.rank in ruleset.wish_ranks
    if code == "pass_penalty_on":
        assert view.pending and isinstance(action, Play) and action.card.rank == params["rank"]
    if code == "keep_draw_card":
        assert sum(1 for c in view.hand if c.rank == params["rank"]) == 1
    if code in ("accept_penalty", "accept_skip"):
        assert view.pending == "skip" if code == "accept_skip" else view.pending
    if code == "accept_penalty":
        assert number["count"] == view.pending_count
    if code == "draw_instead":
        fitting = {a.card for a in view.legal if isinstance(a, Play)}
        assert number["count"] == len(fitting) > 0
    if code == "draw_nothing_fits":
        assert not any(isinstance(a, Play) for a in view.legal)
    if code == "keep_drawn":
        assert view.drawn is not None
    if code == "only_move":
        assert len(view.legal) == 1
    if code == "ranked_first":
        assert number["count"] == len(view.legal) > 1
    if code in ("search_best", "search_no_better"):
        assert 0 <= number["win"] <= 100 and 0 <= number["next"] <= 100 and number["worlds"] > 0
        assert (number["win"] >= number["next"]) == (code == "search_best") or abs(
            number["win"] - number["next"]
        ) <= 1  # rounded to whole percents
    if code in ("challenge_likely", "challenge_honest"):
        assert number["cards"] == view.hand_sizes[number["seat"]]
        assert (number["cards"] >= 6) == (code == "challenge_likely")
    for lang in ("en", "de"):
        text = render(reason, lang)
        assert "{" not in text and not text.startswith(code)


@settings(max_examples=150, deadline=None)
@given(
    preset=st.sampled_from(PRESETS),
    seats=st.integers(2, 4),
    seed=st.integers(0, 10**6),
    steps=st.integers(0, 60),
)
def test_every_reason_holds_in_the_view_it_was_given(preset, seats, seed, steps):
    match = Match.new(Ruleset.create(preset), seats, seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if match.phase == "over":
            return
        seat = match.chooser if match.phase == "starter_suit" else match.turn
        match.apply(seat, rng.choice(list(match.legal_actions(seat))))
    if match.phase == "over":
        return
    for seat in range(seats):
        view = match.view(seat)
        if not view.legal:
            continue
        for ranked in rank(view):
            assert ranked.reasons
            for reason in ranked.reasons:
                check(view, ranked.action, reason)
            assert reasons_from_pb(reasons_to_pb(ranked.reasons)) == ranked.reasons


def reported_position() -> Match:
    """The reported case: seat 0 holds AS QD 6D 3C JC on a 9S."""
    return Match.from_setup(
        Ruleset.create("classic"),
        [parse_cards("AS QD 6D 3C JC"), parse_cards("2H 3H 4H")],
        draw_pile=parse_cards("KH QH 10H 9H 8C"),
        discard=parse_cards("9S"),
        turn=0,
    )


def test_the_longest_suit_is_named_correctly():
    """The reported case: with AS QD 6D 3C JC on 9S, AS is not from the longest suit
    (diamonds is), so the tip for it, the heuristic's first, does not claim it is (nor says
    against it that it is not), and only the wish for diamonds claims the suit held most."""
    match = reported_position()
    ranked = {r.action.text: r for r in rank(match.view(0))}
    assert ranked["AS"].reasons == (Reason.of("ranked_first", count=5),)
    assert ranked["AS"].reason == "the best of your 5 moves"
    wishes = {text: r.reasons for text, r in ranked.items() if text.startswith("JC:")}
    assert set(wishes) == {"JC:S", "JC:H", "JC:D", "JC:C"}
    claims = {
        text for text, reasons in wishes.items() if any(r.code == "wish_most" for r in reasons)
    }
    assert claims == {"JC:D"}
    assert "Karo, davon hältst du am meisten (2 Karten)" in render(wishes["JC:D"][-1], "de")


@settings(max_examples=60, deadline=None)
@given(
    preset=st.sampled_from(PRESETS),
    seats=st.integers(2, 4),
    seed=st.integers(0, 10**6),
    steps=st.integers(0, 60),
)
def test_the_suggested_move_is_argued_for(preset, seats, seed, steps):
    """The first tip, of the heuristic and of the search, gives no reason against its move, and
    every reason it gives holds; a single legal move says so first."""
    match = Match.new(Ruleset.create(preset), seats, seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if match.phase == "over":
            return
        seat = match.chooser if match.phase == "starter_suit" else match.turn
        match.apply(seat, rng.choice(list(match.legal_actions(seat))))
    if match.phase == "over":
        return
    view = match.view(match.chooser if match.phase == "starter_suit" else match.turn)
    for first in (rank(view)[0], tips(view, random.Random(seed), 10.0, 12)[0]):
        assert first.reasons and not {r.code for r in first.reasons} & AGAINST
        for reason in first.reasons:
            check(view, first.action, reason)
        if len(view.legal) == 1:
            assert first.reasons[0].code == "only_move"


def test_the_tip_to_play_an_only_seven_does_not_say_keep_it():
    """The reported case: 7C the only card to play; the tip said "keep your only 7 to answer a 7
    with" for playing it."""
    match = Match.from_setup(
        Ruleset.create("classic"),
        [parse_cards("7C 9D 10S"), parse_cards("2H 3H 4H")],
        draw_pile=parse_cards("KH QH 10H 7H 7S"),
        discard=parse_cards("8H 7D"),
        turn=0,
        pending="draw",
        pending_count=2,
    )
    view = match.view(0)
    first = rank(view)[0]
    assert [a.text for a in view.legal if isinstance(a, Play)] == ["7C"]
    assert first.action.text == "7C"
    assert "keep_draw_card" not in {r.code for r in first.reasons}
    suggested = tips(view, random.Random(0), 10.0, 12)[0]
    assert suggested.action == first.action
    assert not {r.code for r in suggested.reasons} & AGAINST


def test_the_search_tip_names_its_move_with_its_statistics():
    match = reported_position()
    view = match.view(0)
    first = tips(view, random.Random(3), 10.0, 60)[0]
    because = first.reasons[0]
    assert because.code in ("search_best", "search_no_better")
    assert because["worlds"] == "60"
    assert "sampled deals" in render(because, "en")
    assert "gezogenen Verteilungen" in render(because, "de")


# ---------------------------------------------------------------------- over gRPC


async def test_hint_sends_reason_codes_and_text_in_the_asked_language(bots):
    match = reported_position()
    view = view_to_pb(match.view(0), "m", 1)
    german = await bots.Hint(bots_pb2.HintRequest(view=view, lang="de"))
    english = await bots.Hint(bots_pb2.HintRequest(view=view))
    by_action = {action_from_pb(r.action).text: r for r in german.actions}
    assert "wünsche Pik: davon hältst du 1 Karte, von Karo aber 2" in by_action["JC:S"].reason
    assert reasons_from_pb(by_action["JC:S"].reasons)[-1].code == "wish_other"
    # The same reasons in both languages. Each Hint searches anew, over deals of its own: its
    # win estimates vary, and so may the move it puts first (and whether it beat the heuristic's
    # choice), so the moves either search put first are compared by their first reason's kind.
    firsts = {action_from_pb(answer.actions[0].action).text for answer in (english, german)}
    for answer in (english, german):
        assert answer.actions[0].reasons[0].code in ("search_best", "search_no_better")

    def codes(answer: bots_pb2.HintResponse) -> dict[str, list[str]]:
        return {
            action_from_pb(r.action).text: [x.code for x in r.reasons]
            for r in answer.actions
            if action_from_pb(r.action).text not in firsts
        }

    assert codes(english) == codes(german) and len(codes(english)) >= len(english.actions) - 2
    assert (
        "wish spades: you hold 1 card of it, but 2 of diamonds"
        in {action_from_pb(r.action).text: r.reason for r in english.actions}["JC:S"]
    )


async def test_hint_names_the_searchs_move_first_with_its_win_estimate(bots):
    match = reported_position()
    hint = await bots.Hint(bots_pb2.HintRequest(view=view_to_pb(match.view(0), "m", 1)))
    first = reasons_from_pb(hint.actions[0].reasons)[0]
    assert first.code in ("search_best", "search_no_better")
    assert "sampled deals" in hint.actions[0].reason
    assert hint.actions[0].score == max(a.score for a in hint.actions)


async def test_hint_in_an_unknown_language_is_refused_clearly(bots):
    match = Match.new(Ruleset.create("classic"), 2, 1)
    view = view_to_pb(match.view(match.turn), "m", 1)
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await bots.Hint(bots_pb2.HintRequest(view=view, lang="fr"))
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "no language 'fr'" in refused.value.details()


def test_every_reason_code_is_listed_in_the_proto_with_its_parameters() -> None:
    """bots.proto's Reason comment is the contract third-party clients render tips from: each
    code the bots give, with the parameters its English text fills in."""
    proto = (Path(__file__).parents[2] / "protos" / "maumau" / "v1" / "bots.proto").read_text()
    listed = {
        line.split()[1]: line.split()[2:]
        for line in proto.splitlines()
        if line.startswith("//   ") and line.split()[1].islower()
    }
    for code, text in REASONS["en"].items():
        assert code in listed, f"{code} is missing from bots.proto's list of reason codes"
        named = {field.split("_")[0] for _, field, _, _ in Formatter().parse(text) if field}
        written = {word.strip(",`") for word in listed[code]}
        assert named <= written, f"{code}: parameters {named - written} not listed in bots.proto"
