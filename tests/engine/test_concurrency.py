"""Several engine replicas on one Redis, and many clients racing for the same turn.

The platform promises (docs/architecture.md, "Services are stateless; Redis holds every match"):
any replica serves any match, two replicas never lose or double a move, and a repeated request id
returns the first answer and changes nothing.
"""

from __future__ import annotations

import asyncio
import random
import re

import grpc

from maumau import wire
from maumau.common.redis_client import DEFAULT_SHARDS
from maumau.common.results import results_stream_of
from maumau.engine.app import EngineApp
from maumau.engine.keys import ACTIVE
from maumau.engine.matches import due_seat
from maumau.engine.store import MatchStore
from maumau.rules import Match
from maumau.rules.errors import MESSAGES
from maumau.v1 import engine_pb2, game_pb2
from tests.support.engine import (
    Client,
    acted,
    close_all,
    due,
    follow,
    kinds,
    pick,
    play_until,
    stored_events,
    stored_version,
    twin,
)
from tests.support.polling import eventually
from tests.support.rpc import auth

# Every refusal the rules core can give, as a pattern of its English message.
REFUSALS = [
    re.compile(re.sub(r"\\\{\w+\\\}", ".+", re.escape(text))) for text in MESSAGES["en"].values()
]


def stream_position(entry_id: str) -> tuple[int, int]:
    millis, _, sequence = entry_id.partition("-")
    return int(millis), int(sequence)


def addresses(engines: list[EngineApp]) -> list[str]:
    return [f"127.0.0.1:{app.port}" for app in engines]


async def seated_table(
    engines: list[EngineApp], seats: int = 4, **fields: object
) -> tuple[str, list[Client]]:
    """``seats`` players, spread evenly over the replicas (two per replica for four seats),
    each joining and the last one starting the match through its own replica."""
    spread = [addresses(engines)[i * len(engines) // seats] for i in range(seats)]
    clients = [await Client.register(address, f"player {i}") for i, address in enumerate(spread)]
    match = await clients[0].create("classic", seats, nonce="nonce 0", **fields)
    for i, client in enumerate(clients[1:], 1):
        await client.join(match.match_id, nonce=f"nonce {i}")
    await clients[-1].engine.StartMatch(
        engine_pb2.StartMatchRequest(match_id=match.match_id), metadata=auth(clients[-1].token)
    )
    return match.match_id, clients


async def test_two_replicas_play_a_whole_match_and_the_stream_holds_every_event_once(
    two_engines, redis_server
):
    """Any replica serves any match: four clients, two on each of two replicas, play a match to
    the end. Every acknowledged action has its own version (consecutive, none twice), the stored
    stream holds each answer's events exactly once, in order, after the lobby and the deal, and a
    Follow stream opened on the other replica delivers exactly the stored stream. The match counts
    as active while it is played, and its result goes to the rating service's stream."""
    b = addresses(two_engines)[1]
    match_id, clients = await seated_table(two_engines, options={"target": "30"})
    try:
        # Seat 0 plays through replica a but follows the match through replica b.
        client = two_engines[0].matches.store.redis
        assert await client.sismember(ACTIVE, match_id), "a match being played is not counted"
        follower = asyncio.create_task(
            follow(b, clients[0].seat_tokens[match_id], match_id, timeout=25)
        )
        answers = await play_until(match_id, clients, random.Random(11), stop=lambda _: False)
        followed = await follower
        assert not await client.sismember(ACTIVE, match_id), "a finished match is still active"
        results = await client.xrange(results_stream_of(match_id, DEFAULT_SHARDS))
        assert match_id.encode() in {fields[b"match_id"] for _, fields in results}
        stored = await stored_events(client, match_id)
        events = [game_pb2.Event.FromString(data) for _, data in stored]
        ids = [entry_id for entry_id, _ in stored]
        positions = [stream_position(i) for i in ids]
        assert positions == sorted(set(positions)), "stream ids are not strictly increasing"

        # Versions: create 1, three joins 2-4, the deal 5, then one per acknowledged action.
        versions = [answer.version for answer in answers]
        assert versions == list(range(6, 6 + len(answers)))
        assert await stored_version(client, match_id) == versions[-1]
        assert answers[-1].view.phase == "over"

        acknowledged = [(answer.view.seat, event) for answer in answers for event in answer.events]
        prefix = events[: len(events) - len(acknowledged)]
        assert kinds(prefix[:5]) == ["seat_joined"] * 4 + ["match_started"]
        assert "played" not in kinds(prefix), "a move is stored that no client was told of"
        tail = events[len(prefix) :]
        assert [
            wire.redact_pb(e, seat) for e, (seat, _) in zip(tail, acknowledged, strict=True)
        ] == [event for _, event in acknowledged]
        assert kinds(events).count("seed_revealed") == 1 and events[-1].HasField("seed_revealed")

        # The follower on the other replica saw exactly the stored stream, as seat 0 may see it.
        assert [item.id for item in followed] == ids
        assert [item.event for item in followed] == [wire.redact_pb(e, 0) for e in events]
    finally:
        await close_all(clients)


async def test_fifty_conflicting_actions_for_one_turn_apply_exactly_one(two_engines, redis_server):
    """Two replicas never lose or double a move: for three turns in a row, 50 actions race for
    the turn at once (the due seat with each of its legal actions under distinct request ids,
    the other seats with moves that are never theirs to make, through both replicas). Exactly one
    is applied, the version rises by one, every other caller gets FAILED_PRECONDITION with the
    rules' readable reason, and the stream grows by exactly the winner's events."""
    a, b = addresses(two_engines)
    match_id, clients = await seated_table(two_engines)
    twins = [await twin(client, b if i < 2 else a) for i, client in enumerate(clients)]
    client = two_engines[0].matches.store.redis
    try:
        for turn in range(3):
            views = [await c.view(match_id) for c in clients]
            while views[0].phase == "starter_suit":  # name the starter's suit first
                chooser = due(views[0])
                await clients[chooser].act(match_id, views[chooser].legal[0])
                views = [await c.view(match_id) for c in clients]
            mover = due(views[0])
            mover_view = views[mover]
            assert mover_view.legal, "the due seat has no legal action"
            foreign_card = mover_view.hand[0]  # a card no other seat holds

            calls = []
            for i in range(50):
                seat = i % 4
                via = (clients if (i // 4) % 2 == 0 else twins)[seat]
                if seat == mover:
                    action = mover_view.legal[(i // 4) % len(mover_view.legal)]
                elif i % 3:
                    action = game_pb2.Action(play=game_pb2.Play(card=foreign_card))
                else:
                    action = game_pb2.Action(text="pass")
                calls.append(via.act(match_id, action, request_id=f"turn {turn} call {i}"))

            before_version = await stored_version(client, match_id)
            before_events = len(await stored_events(client, match_id))
            results = await asyncio.gather(*calls, return_exceptions=True)

            applied = [r for r in results if isinstance(r, engine_pb2.ActResponse)]
            refused = [r for r in results if not isinstance(r, engine_pb2.ActResponse)]
            assert len(applied) == 1, f"turn {turn}: {len(applied)} actions applied"
            for error in refused:
                assert isinstance(error, grpc.aio.AioRpcError), repr(error)
                assert error.code() == grpc.StatusCode.FAILED_PRECONDITION, error
                assert any(p.fullmatch(error.details() or "") for p in REFUSALS), error.details()
                trailer = dict(error.trailing_metadata() or ())
                assert trailer.get("maumau-error-code") in MESSAGES["en"], trailer
            winner = applied[0]
            assert winner.view.seat == mover
            assert winner.version == before_version + 1
            assert await stored_version(client, match_id) == before_version + 1

            stored = await stored_events(client, match_id)
            assert len(stored) == before_events + len(winner.events)
            new = [game_pb2.Event.FromString(data) for _, data in stored[before_events:]]
            assert [wire.redact_pb(e, mover) for e in new] == list(winner.events)
            assert sum(acted(event, mover) for event in new) == 1
    finally:
        await close_all([*clients, *twins])


async def test_one_request_id_retried_in_parallel_is_applied_once(two_engines):
    """A repeated request id returns the first answer and changes nothing, even when the
    retries race each other: ten parallel Acts with one request id, over both replicas, all get
    the identical answer, the version rises by one and the stream grows by that answer only."""
    a, b = addresses(two_engines)
    match_id, clients = await seated_table(two_engines, seats=2)
    twins = [await twin(client, b if i == 0 else a) for i, client in enumerate(clients)]
    client = two_engines[0].matches.store.redis
    try:
        for n in range(3):
            views = [await c.view(match_id) for c in clients]
            mover = due(views[0])
            action = views[mover].legal[0]
            before_version = await stored_version(client, match_id)
            before_events = len(await stored_events(client, match_id))
            answers = await asyncio.gather(
                *(
                    (clients if i % 2 else twins)[mover].act(
                        match_id, action, request_id=f"the same id {n}"
                    )
                    for i in range(10)
                )
            )
            assert all(answer == answers[0] for answer in answers)
            assert answers[0].version == before_version + 1
            assert await stored_version(client, match_id) == before_version + 1
            stored = await stored_events(client, match_id)
            assert len(stored) == before_events + len(answers[0].events)
            # A later retry still gets the same answer.
            again = await clients[mover].act(match_id, action, request_id=f"the same id {n}")
            assert again == answers[0]
    finally:
        await close_all([*clients, *twins])


async def test_conflicting_actions_do_not_hold_up_the_bot_that_is_due(two_engines):
    """No timer is lost, not even to a lost race: the seat before a bot sends all its legal
    actions at once (so the racers that lose computed states where someone else is due, with a
    one-hour turn timer). Whichever wins, when the bot is due after it the bot moves at once:
    a losing racer's deadline must not push the bot's back by the turn timer."""
    a, b = addresses(two_engines)
    clients = [await Client.register(address, f"player {i}") for i, address in enumerate([a, b])]
    try:
        match = await clients[0].create(
            "online",
            3,
            bots={1: game_pb2.BOT_LEVEL_RANDOM},
            turn_seconds=3600,
            options={"wins": "3"},
        )
        match_id = match.match_id
        await clients[1].join(match_id)
        await clients[1].engine.StartMatch(
            engine_pb2.StartMatchRequest(match_id=match_id), metadata=auth(clients[1].token)
        )
        first, third = clients
        twins = [await twin(first, b), await twin(first, a)]
        client = two_engines[0].matches.store.redis
        rng = random.Random(3)
        races = 0
        for _ in range(800):
            if races >= 12:
                break
            view = await first.view(match_id)
            if view.phase == "over":
                break
            if due(view) != 0:
                other = await third.view(match_id)
                if due(other) == other.seat:
                    await third.act(match_id, pick(other, rng))
                else:
                    await asyncio.sleep(0.01)  # the bot's turn
                continue
            races += 1
            legal = list(view.legal)
            before = await stored_version(client, match_id)
            outcomes = await asyncio.gather(
                *(
                    twins[i % 2].act(match_id, legal[i % len(legal)], request_id=f"{races}/{i}")
                    for i in range(30)
                ),
                return_exceptions=True,
            )
            applied = [o for o in outcomes if isinstance(o, engine_pb2.ActResponse)]
            assert applied, "no racer's action was applied"
            # Each applied racer got a version of its own after the race began (the bot, or
            # a racer again once the turn came back, may take the versions in between).
            versions = sorted(a.version for a in applied)
            assert len(set(versions)) == len(versions) and versions[0] == before + 1, versions
            for error in outcomes:
                if isinstance(error, engine_pb2.ActResponse):
                    continue
                assert isinstance(error, grpc.aio.AioRpcError), repr(error)
                assert error.code() == grpc.StatusCode.FAILED_PRECONDITION, error
                assert any(p.fullmatch(error.details() or "") for p in REFUSALS), error.details()
            stored = await MatchStore(client).load(match_id)
            assert stored is not None
            if stored.record.status != "playing" or due_seat(Match.from_bytes(stored.state)) != 1:
                continue
            moved = stored.version

            async def bot_moved(moved: int = moved) -> bool:
                return await stored_version(client, match_id) > moved

            await eventually(bot_moved, 5, "the bot to move after the race")
        assert races >= 3
    finally:
        await close_all([*clients, *twins])
