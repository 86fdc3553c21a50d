"""The queue through the gRPC API (issue 5, "Queue"): tickets are seated at real engine matches,
a player has one live ticket, tickets are cancelled and expire, bots fill after the wait."""

from __future__ import annotations

import asyncio
import json

import grpc
import pytest
import redis.asyncio
from prometheus_client import REGISTRY

from maumau.common.errors import ERROR_CODE_KEY, ERROR_PARAMS_KEY
from maumau.engine.app import EngineApp
from maumau.v1 import engine_pb2, game_pb2
from tests.matchmaking.support import Engine, Player, StartMatchmaker, party_of
from tests.support.polling import eventually
from tests.support.rpc import auth


def address_of(app: object) -> str:
    return f"127.0.0.1:{app.port}"  # type: ignore[attr-defined]


def sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


async def test_players_are_seated_at_one_match_and_their_seat_tokens_play_it(
    matchmakers: StartMatchmaker, engine: EngineApp
) -> None:
    app = await matchmakers()
    tables_before = sample("matchmaking_tables_formed_total", seats="3")
    players = [Player.connect(f"q-{n}", address_of(app)) for n in "abc"]
    tickets = [await p.enqueue("classic", seat_counts=[3]) for p in players]
    assert all(t.state == "searching" for t in tickets)
    assert tickets[0].queue == "classic casual"
    ends = [(await p.follow(t.ticket_id))[-1] for p, t in zip(players, tickets, strict=True)]
    assert {t.state for t in ends} == {"seated"}
    assert len({t.match_id for t in ends}) == 1
    assert sorted(t.seat for t in ends) == [0, 1, 2]
    assert all(t.table_seats == 3 and t.bot_seats == 0 for t in ends)

    watcher = Engine(address_of(engine))
    info = await watcher.match(ends[0].seat_token)
    assert info.status == "playing" and info.ruleset_text == "classic" and info.seats == 3
    by_seat = {s.seat: s.player_id for s in info.seat_info}
    for player, end in zip(players, ends, strict=True):
        assert by_seat[end.seat] == player.player_id
        view = (
            await watcher.stub.GetView(
                engine_pb2.GetViewRequest(match_id=end.match_id), metadata=auth(end.seat_token)
            )
        ).view
        assert view.seat == end.seat and len(view.hand) > 0
    assert sample("matchmaking_tables_formed_total", seats="3") == tables_before + 1
    await watcher.close()
    for player in players:
        await player.close()


async def test_a_player_has_one_live_ticket_counting_parties(
    matchmakers: StartMatchmaker, redis_client: redis.asyncio.Redis
) -> None:
    app = await matchmakers()
    leader, member = (Player.connect(f"live-{n}", address_of(app)) for n in "ab")
    await party_of(redis_client, leader, member)
    ticket = await leader.enqueue("online", seat_counts=[4], party=[member.player_id])
    for player in (leader, member):
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await player.enqueue("classic")
        assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        trailing = dict(refused.value.trailing_metadata() or ())
        assert trailing[ERROR_CODE_KEY] == "live_ticket"
        assert json.loads(trailing[ERROR_PARAMS_KEY])["ticket_id"] == ticket.ticket_id
    # The member follows the party's ticket and finds it as their latest.
    assert (await member.get()).ticket_id == ticket.ticket_id
    cancelled = await member.cancel(ticket.ticket_id)
    assert cancelled.state == "cancelled" and member.player_id in cancelled.reason
    again = await leader.enqueue("classic")
    assert again.state == "searching" and (await leader.get()).ticket_id == again.ticket_id
    await leader.cancel(again.ticket_id)
    for player in (leader, member):
        await player.close()


async def test_an_enqueue_retried_with_its_request_id_answers_the_ticket_it_queued(
    matchmakers: StartMatchmaker, redis_client: redis.asyncio.Redis
) -> None:
    """A client whose Enqueue timed out cannot know whether it queued; the retry says."""
    app = await matchmakers()
    player, other = (Player.connect(f"retry-{n}", address_of(app)) for n in "ab")
    retries = [player.enqueue("classic", seat_counts=[4], request_id="r-1") for _ in range(5)]
    answers = await asyncio.gather(*retries)  # at once: the first may still be queueing
    assert {t.ticket_id for t in answers} == {answers[0].ticket_id}
    first = answers[0]
    assert (await player.get()).ticket_id == first.ticket_id
    waiting = await redis_client.zrange(f"mm:{{{first.ticket_id.split('.')[0]}}}:waiting", 0, -1)
    assert waiting == [first.ticket_id.encode()]  # one ticket queued, not five

    # Another id is another ticket: refused while the first is live.
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await player.enqueue("classic", seat_counts=[4], request_id="r-2")
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    # Someone else's request id is theirs alone.
    theirs = await other.enqueue("classic", seat_counts=[4], request_id="r-1")
    assert theirs.ticket_id != first.ticket_id
    # The ticket ended: a retry answers it as it is now, and queues nothing new.
    await player.cancel(first.ticket_id)
    again = await player.enqueue("classic", seat_counts=[4], request_id="r-1")
    assert again.ticket_id == first.ticket_id and again.state == "cancelled"
    with pytest.raises(grpc.aio.AioRpcError) as too_long:
        await player.enqueue("classic", request_id="x" * 129)
    assert too_long.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "request_id" in (too_long.value.details() or "")
    assert (await player.get(first.ticket_id)).state == "cancelled"
    await other.cancel(theirs.ticket_id)
    for each in (player, other):
        await each.close()


async def test_cancel_ends_the_stream_and_only_the_party_may_cancel(
    matchmakers: StartMatchmaker,
) -> None:
    app = await matchmakers()
    owner, stranger = (Player.connect(f"cancel-{n}", address_of(app)) for n in "ab")
    ticket = await owner.enqueue("ostfriesland", seat_counts=[8])
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await stranger.cancel(ticket.ticket_id)
    assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
    stream = owner.follow(ticket.ticket_id)
    cancelled = await owner.cancel(ticket.ticket_id)
    states = [t.state for t in await stream]
    assert states[-1] == "cancelled" and cancelled.state == "cancelled"
    assert (await owner.cancel(ticket.ticket_id)).state == "cancelled"  # unchanged, no error
    await owner.close()
    await stranger.close()


async def test_a_ticket_expires_after_its_wait(matchmakers: StartMatchmaker) -> None:
    app = await matchmakers(ticket_ttl_seconds=5.0)
    player = Player.connect("expiring", address_of(app))
    ticket = await player.enqueue("colour", max_wait_seconds=0.3)
    assert ticket.request.max_wait_seconds == pytest.approx(0.3)
    states = await player.follow(ticket.ticket_id, timeout=5)
    assert [t.state for t in states] == ["searching", "expired"]
    assert 0.3 <= states[-1].waited_seconds < 2
    long = await player.enqueue("colour", max_wait_seconds=1000)
    assert long.request.max_wait_seconds == pytest.approx(5.0)  # the service's limit
    await player.cancel(long.ticket_id)
    await player.close()


async def test_bots_fill_the_empty_seats_after_the_tickets_wait(
    matchmakers: StartMatchmaker, engine: EngineApp
) -> None:
    app = await matchmakers(smaller_after_seconds=60)
    bots_before = sample("matchmaking_bot_seats_filled_total")
    patient = Player.connect("bots-no", address_of(app))
    hurried = Player.connect("bots-yes", address_of(app))
    no_bots = await patient.enqueue("classic target=50", seat_counts=[4])
    with_bots = await hurried.enqueue(
        "online", seat_counts=[4], allow_bots=True, bots_after_seconds=0.4
    )
    (*_, seated) = await hurried.follow(with_bots.ticket_id)
    assert seated.state == "seated" and seated.waited_seconds >= 0.4
    assert seated.table_seats == 4 and seated.bot_seats == 3
    watcher = Engine(address_of(engine))
    info = await watcher.match(seated.seat_token)
    assert sorted(s.bot_level for s in info.seat_info) == [0, *[game_pb2.BOT_LEVEL_RANDOM] * 3]
    assert sample("matchmaking_bot_seats_filled_total") == bots_before + 3
    assert (await patient.get(no_bots.ticket_id)).state == "searching"  # it waits for people
    await patient.cancel(no_bots.ticket_id)
    await watcher.close()
    await patient.close()
    await hurried.close()


async def test_queue_depth_is_measured_per_queue(matchmakers: StartMatchmaker) -> None:
    app = await matchmakers()
    players = [Player.connect(f"depth-{n}", address_of(app)) for n in range(3)]
    tickets = [await p.enqueue("ostfriesland rounds=3", seat_counts=[8]) for p in players]

    async def depth() -> bool:
        return sample("matchmaking_queue_depth", queue="ostfriesland rounds=3 casual") == 3

    await eventually(depth, 5, "a queue depth of 3")
    for player, ticket in zip(players, tickets, strict=True):
        await player.cancel(ticket.ticket_id)
        await player.close()


@pytest.mark.parametrize(
    ("fields", "says"),
    [
        ({"seat_counts": [9]}, "seat count 9"),
        ({"ruleset_text": "online", "seat_counts": [5]}, "not played at 5 seats"),
        ({"seat_counts": [2, 3], "preferred_seats": 4}, "preferred_seats 4"),
        ({"seat_counts": [2], "party": ["x", "y"]}, "party of 3"),
        ({"ruleset_text": "colour teams=true", "party": ["x", "y"]}, "team"),
        ({"ruleset_text": "classic bogus=1"}, "bogus"),
        ({"bots_after_seconds": -1}, "bots_after_seconds"),
    ],
)
async def test_malformed_tickets_are_refused(
    matchmakers: StartMatchmaker, fields: dict[str, object], says: str
) -> None:
    app = await matchmakers()
    player = Player.connect("malformed", address_of(app))
    rules = str(fields.pop("ruleset_text", "classic"))
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await player.enqueue(rules, **fields)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert says in (refused.value.details() or "")
    await player.close()


async def test_calls_need_a_player_token(matchmakers: StartMatchmaker) -> None:
    app = await matchmakers()
    player = Player.connect("tokenless", address_of(app))
    player.token = "not-a-token"
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await player.enqueue()
    assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
    await player.close()
