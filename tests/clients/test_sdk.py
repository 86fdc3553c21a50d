"""The Python SDK against a real engine: whole matches, resumed event streams, safe retries and
readable errors."""

from __future__ import annotations

import asyncio
import importlib.util
import random
from pathlib import Path

import grpc
import pytest

from maumau import wire
from maumau.common.redis_server import free_port
from maumau.rules import Action, Match, Play, Ruleset, parse_action
from maumau.rules.cards import french_deck
from maumau_sdk import (
    MauMauError,
    Platform,
    RetryPolicy,
    Seat,
    View,
    action_from_pb,
    action_to_pb,
    event_from_pb,
    verify_match,
)
from tests.support.engine import start_engine

EXAMPLE = Path(__file__).parents[2] / "clients" / "python" / "examples" / "random_bot.py"


def choose(view: View, rng: random.Random) -> Action:
    """A random legal action, a card first when one fits (as a person plays)."""
    plays = [a for a in view.legal if isinstance(a, Play)]
    # Catches and calls are left out: a bot may make them first, and the two would race.
    moves = [a for a in view.legal if not a.text.startswith(("catch", "call"))]
    return rng.choice(plays or moves)


async def play_out(seat: Seat, seed: int) -> View:
    rng = random.Random(seed)
    return await seat.play(lambda view: choose(view, rng))


# ---------------------------------------------------------------------- whole matches


async def test_a_player_plays_a_whole_match_against_bots_and_verifies_the_deal(platform):
    """Provably fair deals (docs/fairness.md): the revealed seed matches the commitment, and the
    match replays from it with the rules core, every deal and draw as the seat saw it."""
    player = await platform.register("Ada")
    seat = await player.create_match(
        "classic", 4, bots={1: "random", 2: "random", 3: "random"}, options={"target": 30}
    )
    assert seat.match.status == "playing" and seat.seat == 0
    assert seat.match.seat_info[1].is_bot and seat.match.options == {"target": "30"}
    events = []

    async def follow() -> None:
        async for event in seat.events():  # ends by itself once the seed is revealed
            events.append(event)

    following = asyncio.create_task(follow())
    final = await play_out(seat, 1)
    await asyncio.wait_for(following, 10)

    assert final.over and final.outcome is not None
    assert final.outcome.reason in ("target", "tie_break")
    assert events[-1].kind == "seed_revealed"
    info = await seat.info()
    assert info.status == "over" and info.outcome == final.outcome
    report = verify_match(
        info, events, seat.seat, commitment=seat.match.seed_commitment, nonce=seat.nonce
    )
    assert report.ok, report.problem
    assert report.rounds_replayed >= 1 and report.steps > 10
    # The rules core's narration reads each event back.
    assert any("plays" in event.describe() for event in events)


async def test_two_players_join_by_match_id_and_a_spectator_sees_no_cards(platform, address):
    host = await platform.register("Host")
    seat0 = await host.create_match("online", 2, options={"wins": 1})
    assert seat0.match.status == "lobby"
    async with Platform.connect(address) as other:
        guest = await other.register("Guest")
        seat1 = await guest.join(seat0.match_id)
        assert seat1.seat == 1 and seat1.match.status == "playing"  # auto_start
        watcher = host.watch(seat0.match_id)
        assert (await watcher.view()).hand == ()
        finals = await asyncio.gather(play_out(seat0, 2), play_out(seat1, 3))
        assert finals[0].outcome == finals[1].outcome
        seen = [event async for event in watcher.events()]
    drawn = [event.pb.drew for event in seen if event.kind == "drew"]
    assert drawn and all(not d.cards for d in drawn)
    assert [m.match_id for m in await host.matches()][:1] == [seat0.match_id]


async def test_the_readme_example_bot_plays_a_match(address, capsys):
    spec = importlib.util.spec_from_file_location("random_bot", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    await module.main(address)
    assert "winners: seats" in capsys.readouterr().out


# ---------------------------------------------------------------------- resuming


async def collect_while_playing(seat: Seat, disturb, at: tuple[int, ...]) -> tuple[list, int]:
    """Follow the match while the seat plays it out; call ``disturb`` after the events counted
    in ``at``. Returns the event ids seen and how often the stream resumed."""
    playing = asyncio.create_task(play_out(seat, 4))
    stream = seat.events()
    ids = []

    async def follow() -> None:
        async for event in stream:
            ids.append(event.id)
            if len(ids) in at:
                await disturb()

    await asyncio.wait_for(asyncio.gather(follow(), playing), 20)
    return ids, stream.resumed


async def test_events_resume_after_the_connection_is_replaced_without_gaps_or_repeats(
    platform,
):
    player = await platform.register("Ada")
    # A round of three five-card hands takes more than 13 actions (30 events) to go out.
    seat = await player.create_match("classic", 3, bots=["random"] * 2, options={"target": 0})
    ids, resumed = await collect_while_playing(seat, platform.reconnect, at=(4, 12, 20))
    everything = [event.id async for event in seat.events()]
    assert len(ids) > 20 and resumed >= 3
    assert ids == everything  # nothing missed, nothing twice
    assert len(set(ids)) == len(ids)


async def test_events_and_actions_survive_an_engine_replica_restart(redis_server):
    """State lives in Redis: a replica going away mid-match loses nothing, the SDK reconnects to
    the next one on the same address, resumes its stream and goes on acting."""
    port = free_port()
    replicas = [(await start_engine(redis_server.url, port=port))]

    async def restart() -> None:
        app, client = replicas[-1]
        await app.stop(0)
        await client.aclose()
        replicas.append(await start_engine(redis_server.url, port=port))

    rng, turns = random.Random(5), 0

    async def decide(view: View) -> Action:
        # Restart while the match waits for us: no bot move is half done on the old replica.
        nonlocal turns
        turns += 1
        if turns in (1, 2):  # the bot needs five turns to go out: we get two at least
            resumed = stream.resumed
            await restart()
            while stream.resumed == resumed:  # the follower noticed and is back
                await asyncio.sleep(0.01)
        return choose(view, rng)

    try:
        async with Platform.connect(f"127.0.0.1:{port}") as platform:
            player = await platform.register("Ada")
            seat = await player.create_match("classic", 2, bots=["random"], options={"target": 0})
            stream = seat.events()
            ids: list[str] = []

            async def follow() -> None:
                async for event in stream:
                    ids.append(event.id)

            await asyncio.wait_for(asyncio.gather(follow(), seat.play(decide)), 20)
            assert turns >= 2 and stream.resumed >= 2
            assert ids == [event.id async for event in seat.events()]
            assert (await seat.info()).status == "over"
    finally:
        app, client = replicas[-1]
        await app.stop(0)
        await client.aclose()


# ---------------------------------------------------------------------- retries


class LoseTheFirstAnswer(grpc.aio.UnaryUnaryClientInterceptor):
    """Lets the first Act reach the engine, then reports UNAVAILABLE as if its answer was lost
    on the way back."""

    def __init__(self) -> None:
        self.request_ids: list[str] = []

    async def intercept_unary_unary(self, continuation, client_call_details, request):
        call = await continuation(client_call_details, request)
        if client_call_details.method.endswith(b"/Act"):
            self.request_ids.append(request.request_id)
            if len(self.request_ids) == 1:
                await call  # the engine applied it
                raise grpc.aio.AioRpcError(
                    grpc.StatusCode.UNAVAILABLE,
                    grpc.aio.Metadata(),
                    grpc.aio.Metadata(),
                    details="connection reset before the answer arrived",
                )
        return call


async def my_turn(seat: Seat) -> View:
    turns = seat.turns()
    try:
        return await anext(turns)
    finally:
        await turns.aclose()


async def test_an_action_whose_answer_was_lost_is_retried_with_its_request_id_and_applied_once(
    address,
):
    lose = LoseTheFirstAnswer()
    retry = RetryPolicy(first_delay=0.01)
    async with Platform.connect(address, interceptors=[lose], retry=retry) as platform:
        player = await platform.register("Ada")
        seat = await player.create_match("online", 2, bots=["random"])
        view = await my_turn(seat)
        result = await seat.act(view.legal[0])
    assert len(lose.request_ids) == 2 and len(set(lose.request_ids)) == 1
    assert result.request_id == lose.request_ids[0]
    assert result.version == view.version + 1  # applied once, not twice
    # A retry shows the seat's view as it is now: the bot may have moved since.
    assert result.view.version >= result.version


async def test_a_repeated_request_id_returns_the_first_answer(platform, address):
    player = await platform.register("Ada")
    seat = await player.create_match("online", 2, bots=["random"])
    view = await my_turn(seat)
    first = await seat.act(view.legal[0], request_id="the same id")
    again = await seat.act(view.legal[0], request_id="the same id")
    assert again.version == first.version
    assert [e.pb for e in again.events] == [e.pb for e in first.events]
    # The seat's view as it is now (the engine's documented contract): the bot may have moved.
    assert again.view.version >= first.view.version
    # The same id with another action is a mistake, not a retry (engine.proto, Act).
    with pytest.raises(MauMauError) as refused:
        await seat.act("draw" if view.legal[0].text != "draw" else "pass", request_id="the same id")
    assert refused.value.status == grpc.StatusCode.FAILED_PRECONDITION
    assert "request id already used for another action" in str(refused.value)


# ---------------------------------------------------------------------- errors


async def test_a_refused_move_carries_the_rules_code_and_reads_in_english_and_german(platform):
    player = await platform.register("Ada")
    seat = await player.create_match("classic", 2, bots=["random"], options={"target": 0})
    view = await my_turn(seat)
    while view.phase != "play":  # a Jack turned up as starter: name its suit first
        await seat.act(view.legal[0])
        view = await my_turn(seat)
    missing = next(card for card in french_deck() if card not in view.hand)
    with pytest.raises(MauMauError) as refused:
        await seat.act(missing.text)
    error = refused.value
    assert error.status == grpc.StatusCode.FAILED_PRECONDITION
    assert error.code == "card_not_in_hand" and error.params == {"card": missing.text}
    assert error.message("en") == f"{missing.text} is not in your hand"
    assert error.message("de") == f"{missing.text} ist nicht auf deiner Hand"
    assert (await seat.view()).version == view.version  # an error never changes the match


async def test_play_drops_an_action_the_match_moved_on_from_and_decides_again(platform):
    """As when a bot catches a missed call between the view and the action: the action decided
    on the old view is refused by the rules, and play() asks ``decide`` again on the new one."""
    player = await platform.register("Ada")
    seat = await player.create_match("classic", 2, bots=["random"], options={"target": 0})
    twin = Seat(player, seat.match, seat.seat, seat.token)  # the same seat, acting elsewhere
    rng, decided, moved_on = random.Random(3), [], []

    async def decide(view: View) -> Action:
        decided.append(view.version)
        action = choose(view, rng)
        if not moved_on and isinstance(action, Play):
            await twin.act(action)  # the card is played before this action arrives
            moved_on.append(len(decided))
        return action

    final = await asyncio.wait_for(seat.play(decide), 20)
    assert final.over and moved_on, "no card was played"
    # The refused card was dropped and the next decision came on a later view.
    [first] = moved_on
    assert len(decided) > first and decided[first] > decided[first - 1]


async def test_play_raises_an_action_refused_on_a_current_view(platform):
    player = await platform.register("Ada")
    seat = await player.create_match("classic", 2, bots=["random"], options={"target": 0})

    def decide(view: View) -> str:
        if view.phase == "starter_suit":  # a Jack turned up: its suit is named first
            return view.legal[0].text
        return next(card for card in french_deck() if card not in view.hand).text

    with pytest.raises(MauMauError) as refused:
        await asyncio.wait_for(seat.play(decide), 20)
    assert refused.value.code == "card_not_in_hand"


async def test_input_that_is_no_action_or_no_preset_is_refused_with_its_code(platform):
    player = await platform.register("Ada")
    with pytest.raises(MauMauError) as no_preset:
        await player.create_match("skat", 2, bots=["random"])
    assert no_preset.value.status == grpc.StatusCode.INVALID_ARGUMENT
    assert no_preset.value.code == "unknown_preset"
    assert no_preset.value.message("de").startswith("kein Regelwerk 'skat'")
    seat = await player.create_match("online", 2, bots=["random"])
    with pytest.raises(MauMauError) as no_action:
        await seat.act("QZ")
    assert no_action.value.code == "bad_action_text"
    assert no_action.value.message("de").startswith("'QZ' ist kein Zug")


async def test_refusals_of_the_services_fall_back_to_their_details(platform):
    player = await platform.register("Ada")
    with pytest.raises(MauMauError) as unknown:
        await player.join("no-such-match")
    assert unknown.value.status == grpc.StatusCode.NOT_FOUND and unknown.value.code is None
    assert "no-such-match" in unknown.value.message("de")
    assert str(unknown.value).startswith("NOT_FOUND: ")


async def test_nobody_answering_at_the_address_is_said_plainly():
    with pytest.raises(MauMauError) as nobody:
        async with Platform.connect(f"127.0.0.1:{free_port()}", timeout=0.3):
            pass
    assert nobody.value.status == grpc.StatusCode.UNAVAILABLE
    assert "no Mau-Mau platform answers" in nobody.value.message()


# ---------------------------------------------------------------------- values


def test_actions_round_trip_through_text_and_messages():
    for text in (
        "7H",
        "JD:S!mau",
        "W+4:R!last",
        "draw",
        "pass",
        "accept",
        "challenge",
        "catch:2",
        "call:last",
        "suit:H",
    ):
        action = parse_action(text)
        message = action_to_pb(text)
        assert message.text == text and action_from_pb(message) == action
        assert action_from_pb(wire.action_to_pb(action)) == action


def test_events_read_back_into_the_rules_cores_events():
    match, events = Match.start(Ruleset.create("colour", {"target": 0}), 4, "events")
    rng = random.Random(5)
    while match.phase != "over":
        seat = rng.choice([s for s in range(4) if match.legal_actions(s)])
        events += match.apply(seat, rng.choice(list(match.legal_actions(seat))))
    assert [event_from_pb(wire.event_to_pb(e)) for e in events] == events
