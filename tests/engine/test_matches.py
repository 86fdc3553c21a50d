"""Whole matches through the engine over real gRPC and a real Redis."""

import hashlib
import random

import pytest

from maumau import fairness
from maumau.rules import Match, Ruleset
from maumau.v1 import engine_pb2, game_pb2
from tests.support.engine import (
    Client,
    acting,
    close_all,
    pick,
    play_actions,
    play_to_the_end,
    register_all,
)
from tests.support.rpc import auth

SHORT = {
    "classic": {"target": "30"},
    "online": {"wins": "1"},
    "ostfriesland": {"rounds": "1"},
    "colour": {"target": "50"},
}


@pytest.mark.parametrize("preset", ["classic", "online", "ostfriesland", "colour"])
async def test_four_clients_play_a_whole_match_each_seeing_only_its_hand(address, preset):
    clients = await register_all(address, 4)
    try:
        match = await clients[0].create(preset, 4, options=SHORT[preset], nonce="first")
        for client in clients[1:]:
            await client.join(match.match_id, nonce=f"nonce of {client.player_id}")
        await clients[0].engine.StartMatch(
            engine_pb2.StartMatchRequest(match_id=match.match_id), metadata=auth(clients[0].token)
        )
        views = await play_to_the_end(match.match_id, clients, random.Random(preset))
        for view in views:
            assert len(view.hand) == view.hand_sizes[view.seat]
        final = (
            await clients[0].engine.GetMatch(
                engine_pb2.GetMatchRequest(match_id=match.match_id), metadata=auth(clients[0].token)
            )
        ).match
        assert final.status == "over" and final.outcome.winners
    finally:
        await close_all(clients)


async def test_the_revealed_seed_reproduces_every_deal_a_seat_saw(address):
    """Provably fair deals: the commitment matches the revealed seed, and the rules core replays
    the seat's own deals from the seed and the nonces."""
    clients = await register_all(address, 2)
    try:
        match = await clients[0].create("online", 2, nonce="alice's nonce")
        await clients[1].join(match.match_id, nonce="bob's nonce")
        await clients[1].engine.StartMatch(
            engine_pb2.StartMatchRequest(match_id=match.match_id), metadata=auth(clients[1].token)
        )
        first_hand = list((await clients[0].view(match.match_id)).hand)
        await play_to_the_end(match.match_id, clients, random.Random(7))
        final = (
            await clients[0].engine.GetMatch(
                engine_pb2.GetMatchRequest(match_id=match.match_id), metadata=auth(clients[0].token)
            )
        ).match
        assert hashlib.sha256(final.server_seed.encode()).hexdigest() == match.seed_commitment
        seed = fairness.deal_seed(final.server_seed, final.nonces)
        replayed = Match.new(Ruleset.parse(final.ruleset_text), 2, seed)
        assert [
            card.text for card in replayed.hands[clients[0].seats[match.match_id]]
        ] == first_hand
    finally:
        await close_all(clients)


async def test_bot_seats_are_played_by_the_engine(address):
    client = await Client.register(address, "solo")
    try:
        match = await client.create(
            "classic", 4, bots=dict.fromkeys((1, 2, 3), game_pb2.BOT_LEVEL_RANDOM), auto_start=True,
            options={"target": "0"},
        )  # fmt: skip
        assert match.status == "playing"
        views = await play_to_the_end(match.match_id, [client], random.Random(1))
        assert views[-1].phase == "over"
    finally:
        await client.close()


async def a_started_pair(clients):
    """A started 2-seat online match of the two clients, the one to act and its view."""
    match = await clients[0].create("online", 2, auto_start=True)
    await clients[1].join(match.match_id)
    views = [await client.view(match.match_id) for client in clients]
    mover, view = next((c, v) for c, v in zip(clients, views, strict=True) if acting(v))
    return match, mover, view


async def test_a_repeated_request_id_returns_the_first_answer_and_changes_nothing(address):
    clients = await register_all(address, 2)
    try:
        match, mover, view = await a_started_pair(clients)
        action = view.legal[0]
        first = await mover.act(match.match_id, action, request_id="same-id")
        again = await mover.act(match.match_id, action, request_id="same-id")
        assert again == first
        assert (await mover.view(match.match_id)).version == first.version
    finally:
        await close_all(clients)


async def test_a_request_retried_after_the_match_moved_on_shows_the_view_as_it_is_now(address):
    """A retry that comes after other actions gets the first answer's version and events (the
    action is not applied again) and the seat's view as it is then, which the store rebuilds
    instead of keeping every view."""
    clients = await register_all(address, 2)
    try:
        match, mover, view = await a_started_pair(clients)
        rng = random.Random(3)
        action = pick(view, rng)
        first = await mover.act(match.match_id, action, request_id="once")
        # One more action: were the mover to act more often (a skip brings the turn back), its
        # kept answers would no longer hold this one.
        taken = await play_actions(match.match_id, clients, rng, 1)
        now = await mover.view(match.match_id)
        assert taken == 1 and now.version == first.version + 1
        again = await mover.act(match.match_id, action, request_id="once")
        assert again.version == first.version and list(again.events) == list(first.events)
        assert again.view == now
        assert (await mover.view(match.match_id)).version == now.version
    finally:
        await close_all(clients)


async def test_only_the_latest_answers_of_each_seat_are_kept_for_retries(redis_server):
    """A long match does not grow without bound: each seat keeps its latest
    KEPT_ANSWERS_PER_SEAT answers for retried request ids and forgets older ones, whatever the
    other seats do meanwhile."""
    import redis.asyncio

    from maumau.engine.codec import KEPT_ANSWERS_PER_SEAT
    from maumau.engine.keys import match_key
    from maumau.engine.record import MatchRecord
    from maumau.engine.store import MatchStore

    client = redis.asyncio.Redis.from_url(redis_server.url)
    store = MatchStore(client)
    record = MatchRecord("kept-answers", "online", 2, False, 0, 3, False, "c", "s")
    assert (await store.commit(record.match_id, None, record, b"", [])).status == "ok"
    version = 1
    sent: dict[int, list[tuple[str, int]]] = {0: [], 1: []}
    for n in range(KEPT_ANSWERS_PER_SEAT + 10):
        for seat, request_id in ((0, f"{n}"), (1, f"{n}a"), (1, f"{n}b")):
            current = await store.load_current(record.match_id)
            assert current is not None and current.stored.version == version
            answered = (current.answers(seat), request_id)
            committed = await store.commit(record.match_id, version, record, b"", [], answered)
            assert committed.status == "ok"
            version += 1
            sent[seat].append((request_id, version))
    fields = await client.hkeys(match_key(record.match_id))
    assert sorted(fields) == [b"a0", b"a1", b"meta", b"state", b"version"]
    for seat, request_ids in sent.items():
        current = await store.load_current(record.match_id)
        assert current is not None
        answers = current.answers(seat)
        for request_id, answered_version in request_ids[-KEPT_ANSWERS_PER_SEAT:]:
            kept = answers.answer(request_id)
            assert kept is not None and kept.version == answered_version
        for request_id, _ in request_ids[:-KEPT_ANSWERS_PER_SEAT]:
            assert answers.answer(request_id) is None
    await client.aclose()


async def test_a_new_match_event_stream_reserves_no_large_node(redis_server):
    """The embedded Redis keeps stream nodes small: a match's first events do not cost the 4 KiB
    node Redis reserves by default (the largest part of a new match's memory)."""
    import redis.asyncio

    from maumau.engine.keys import match_key
    from maumau.engine.record import MatchRecord
    from maumau.engine.store import MatchStore

    client = redis.asyncio.Redis.from_url(redis_server.url)
    store = MatchStore(client)
    record = MatchRecord("small-stream", "online", 4, False, 0, 3, False, "c", "s")
    events = [b"e" * 60 for _ in range(5)]
    assert (await store.commit(record.match_id, None, record, b"", events)).status == "ok"
    size = await client.memory_usage(f"{match_key(record.match_id)}:events", samples=0)
    assert size is not None and 300 < size < 1500, size
    await client.aclose()


async def test_a_match_that_starts_by_itself_deals_in_the_commit_that_takes_its_last_seat(
    address,
):
    """One transaction seats the last player and deals: the answer already shows the match
    playing, and no replica is left to start it afterwards."""
    clients = await register_all(address, 3)
    try:
        alone = await clients[0].create(
            "classic", 2, bots={1: game_pb2.BOT_LEVEL_RANDOM}, auto_start=True
        )
        assert (alone.status, alone.version) == ("playing", 1)
        match = await clients[1].create("online", 2, auto_start=True)
        assert (match.status, match.version) == ("lobby", 1)
        joined = await clients[2].engine.JoinMatch(
            engine_pb2.JoinMatchRequest(match_id=match.match_id, seat=-1),
            metadata=auth(clients[2].token),
        )
        assert (joined.match.status, joined.match.version) == ("playing", 2)
        assert list(joined.match.nonces) == ["", ""]
    finally:
        await close_all(clients)
