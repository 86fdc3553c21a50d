"""The engine's API as clients use it: following a match, redaction, leaving, the lobby calls.

Real gRPC servers on 127.0.0.1:0 over the shared real redis-server; the truth each answer is
checked against is read from Redis with the engine's own store and the rules core.
"""

import asyncio
import hashlib
import itertools
import random
from collections.abc import Awaitable

import grpc
import pytest

from maumau import fairness
from maumau.rules import Match, Ruleset
from maumau.v1 import engine_pb2, game_pb2
from tests.support.engine import (
    SECRET,
    Client,
    Follower,
    acting,
    cancel_all,
    close_all,
    due_client,
    pick,
    play_actions,
    play_to_the_end,
    raw_events,
    register_all,
    seated_table,
    service_token,
    start_match,
    stored_match,
)
from tests.support.rpc import auth

ONE_ROUND = {
    "classic": {"target": "0"},
    "online": {"wins": "1"},
    "ostfriesland": {"rounds": "1"},
    "colour": {"target": "0"},
}


def as_seen_by(event: game_pb2.Event, seat: int | None) -> game_pb2.Event:
    """What docs/architecture.md ("Services are stateless; Redis holds every match") says a
    viewer may see of a stored event: a seat sees its own drawn cards, everyone else (and every
    spectator) only how many were drawn."""
    seen = game_pb2.Event()
    seen.CopyFrom(event)
    if seen.WhichOneof("kind") == "drew" and seen.drew.seat != seat:
        del seen.drew.cards[:]
    return seen


async def expect_status(call: Awaitable[object], code: grpc.StatusCode) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    assert caught.value.code() == code, caught.value
    return caught.value


# ---------------------------------------------------------------- 1. following a match


async def test_a_follower_that_reconnects_gets_exactly_the_events_it_missed(address, engine):
    """docs/architecture.md, "Services are stateless; Redis holds every match": 'Clients follow
    a match with a server-streaming call that reads the match's Redis stream from a given
    position ... a reconnecting client resumes from the last event it saw': after hanging up,
    Follow with after_event_id = the last id seen delivers exactly the events missed (no gap, no
    repeat), then live ones, and ends after SeedRevealed."""
    store = engine.matches.store
    clients, match_id = await seated_table(address, "classic", 4, ONE_ROUND["classic"])
    me, others = clients[0], clients[1:]
    seat, token = me.seats[match_id], me.seat_tokens[match_id]
    rng = random.Random(5)
    steady = Follower(me.channel, token)  # never hangs up: what the reconnecting one must match
    first = Follower(me.channel, token)
    followers = [steady, first]
    try:
        while acting(view := await me.view(match_id)):  # a drawn card or a 9 keeps me due
            await me.act(match_id, pick(view, rng))  # so that the others play while I am gone
        seen = await first.take(8)
        await first.cancel()  # what was already buffered but not read is lost, as in a crash

        taken = await play_actions(match_id, others, rng, 30)  # until it is my turn again
        assert taken > 0
        stored = await raw_events(store, match_id)
        ids = [entry_id for entry_id, _ in stored]
        missed = stored[ids.index(seen[-1].id) + 1 :]
        assert len(missed) >= taken  # every action leaves at least one event

        again = Follower(me.channel, token, after=seen[-1].id)
        followers.append(again)
        caught_up = await again.take(len(missed))
        assert [(e.id, e.event) for e in caught_up] == [
            (entry_id, as_seen_by(event, seat)) for entry_id, event in missed
        ]
        with pytest.raises(TimeoutError):
            await again.next(timeout=0.3)  # nothing repeated, nothing invented

        await play_to_the_end(match_id, clients, rng)
        live = await again.rest()
        assert again.ended
        assert live, "the live events after catching up"
        assert live[-1].event.WhichOneof("kind") == "seed_revealed"

        whole = seen + caught_up + live
        assert (
            [e.id for e in whole]
            == [e.id for e in await steady.rest()]
            == [entry_id for entry_id, _ in await raw_events(store, match_id)]
        )

        # Resuming after the last event of a finished match ends at once, not after a timeout.
        late = Follower(me.channel, token, after=whole[-1].id)
        followers.append(late)
        assert await late.rest(timeout=3) == []
        assert late.ended
    finally:
        await cancel_all(followers)
        await close_all(clients)


# ---------------------------------------------------------------- 2. redaction


@pytest.mark.parametrize(
    ("preset", "seats"), [("classic", 4), ("online", 3), ("ostfriesland", 3), ("colour", 4)]
)
async def test_no_seat_ever_sees_a_card_of_another_seat(address, engine, preset, seats):
    """docs/architecture.md, "Who may do what": 'A token for one seat can neither act for nor see
    the hand of another', and "Services are stateless; Redis holds every match": 'a seat sees its
    own drawn cards; everyone else sees only counts; spectators see no hand at all': over a whole
    match, every view's hand is exactly the seat's true hand in Redis, every
    Drew of another seat in Follow streams and Act answers carries a count only, and a spectator
    sees no hand and no drawn card."""
    store = engine.matches.store
    clients, match_id = await seated_table(address, preset, seats, ONE_ROUND[preset])
    spectator = await Client.register(address, "spectator")
    seat_of = {id(c): c.seats[match_id] for c in clients}
    followers = [Follower(c.channel, c.seat_tokens[match_id]) for c in clients]
    followers.append(Follower(spectator.channel, spectator.token, match_id=match_id))
    rng = random.Random(preset)
    try:
        for _ in range(5000):
            stored, match = await stored_match(store, match_id)
            views = [await c.view(match_id) for c in clients]
            for client, view in zip(clients, views, strict=True):
                seat = seat_of[id(client)]
                assert view.seat == seat and view.version == stored.version
                assert list(view.hand) == [card.text for card in match.hands[seat]]
                assert list(view.hand_sizes) == [len(hand) for hand in match.hands]
                assert not view.drawn or view.drawn in view.hand
                plays = [a.play.card for a in view.legal if a.WhichOneof("kind") == "play"]
                assert set(plays) <= set(view.hand)
            watched = (
                await spectator.engine.GetView(
                    engine_pb2.GetViewRequest(match_id=match_id), metadata=auth(spectator.token)
                )
            ).view
            assert watched.seat == -1 and watched.version == stored.version
            assert not watched.hand and not watched.drawn and not watched.legal
            assert list(watched.hand_sizes) == [len(hand) for hand in match.hands]
            if views[0].phase == "over":
                break
            mover = next(c for c, v in zip(clients, views, strict=True) if acting(v))
            answer = await mover.act(match_id, pick(views[clients.index(mover)], rng))
            for event in answer.events:
                if event.WhichOneof("kind") == "drew" and event.drew.seat != seat_of[id(mover)]:
                    assert not event.drew.cards and event.drew.count > 0
            _, after = await stored_match(store, match_id)
            mine = after.hands[seat_of[id(mover)]]
            assert list(answer.view.hand) == [card.text for card in mine]
        else:
            raise AssertionError("the match did not end")

        stored_stream = await raw_events(store, match_id)
        others_drew = [
            e for _, e in stored_stream if e.WhichOneof("kind") == "drew" and e.drew.cards
        ]
        assert others_drew, "Redis holds the drawn cards; the streams must hide them"
        viewers = [*(seat_of[id(c)] for c in clients), None]
        for viewer, follower in zip(viewers, followers, strict=True):
            streamed = await follower.rest()
            assert [(e.id, e.event) for e in streamed] == [
                (entry_id, as_seen_by(event, viewer)) for entry_id, event in stored_stream
            ]
            for e in streamed:
                if e.event.WhichOneof("kind") == "drew":
                    own = e.event.drew.seat == viewer
                    assert len(e.event.drew.cards) == (e.event.drew.count if own else 0)
    finally:
        await cancel_all(followers)
        await close_all([*clients, spectator])


# ---------------------------------------------------------------- 4. leaving


async def test_leaving_during_play_hands_the_seat_to_a_bot(address, engine):
    """engine.proto, Leave: 'Leave the match for good: a bot plays your seat from now on': the
    events Left and HandedToBot follow, the leaver's seat token can no longer act, see or follow
    the seat (PERMISSION_DENIED), its open stream stops showing the seat's cards, and the match
    still finishes."""
    store = engine.matches.store
    clients, match_id = await seated_table(address, "online", 3, {"wins": "2"})
    stayers, leaver = clients[:2], clients[2]
    seat = leaver.seats[match_id]
    watcher = Follower(stayers[0].channel, stayers[0].seat_tokens[match_id])
    own_stream = Follower(leaver.channel, leaver.seat_tokens[match_id])
    try:
        opened = await own_stream.take(1)  # the stream is open before the seat is left
        await play_actions(match_id, clients, random.Random(3), 3)
        info = (
            await leaver.engine.Leave(
                engine_pb2.LeaveRequest(match_id=match_id),
                metadata=auth(leaver.seat_tokens[match_id]),
            )
        ).match
        assert (
            info.seat_info[seat].left
            and info.seat_info[seat].bot_level == game_pb2.BOT_LEVEL_RANDOM
        )
        assert info.seat_info[seat].player_id == leaver.player_id

        error = await expect_status(leaver.act(match_id, "draw"), grpc.StatusCode.PERMISSION_DENIED)
        assert "you left this match" in error.details()
        await expect_status(leaver.view(match_id), grpc.StatusCode.PERMISSION_DENIED)
        refused = Follower(leaver.channel, leaver.seat_tokens[match_id])
        assert await refused.next() is None and refused.error is not None
        assert refused.error.code() == grpc.StatusCode.PERMISSION_DENIED
        error = await expect_status(leaver.join(match_id), grpc.StatusCode.FAILED_PRECONDITION)
        assert "left this match" in error.details()

        views = await play_to_the_end(match_id, stayers, random.Random(4))
        assert views[-1].phase == "over"
        final = (
            await stayers[0].engine.GetMatch(
                engine_pb2.GetMatchRequest(match_id=match_id), metadata=auth(stayers[0].token)
            )
        ).match
        assert final.status == "over" and final.outcome.winners

        seen = [e.event for e in await watcher.rest()]
        at = seen.index(game_pb2.Event(left=game_pb2.SeatOnly(seat=seat)))
        assert seen[at + 1] == game_pb2.Event(handed_to_bot=game_pb2.SeatOnly(seat=seat))

        # The bot's cards are not the leaver's to see: its open stream shows counts only.
        stream = opened + await own_stream.rest()
        left_at = next(i for i, e in enumerate(stream) if e.event.WhichOneof("kind") == "left")
        before = [e.event.drew for e in stream[:left_at] if e.event.WhichOneof("kind") == "drew"]
        after = [e.event.drew for e in stream[left_at:] if e.event.WhichOneof("kind") == "drew"]
        assert any(d.seat == seat and d.cards for d in before)
        assert any(d.seat == seat and d.reason == "deal" for d in after), "a later round's deal"
        assert all(not d.cards for d in after)
        stored = await raw_events(store, match_id)
        assert any(e.WhichOneof("kind") == "drew" and e.drew.seat == seat for _, e in stored)
    finally:
        await cancel_all([watcher, own_stream])
        await close_all(clients)


async def test_leaving_in_the_lobby_frees_the_seat(address, engine):
    """engine.proto, Leave and JoinMatch: a player who leaves before the deal gives the seat up;
    another player takes it, the old seat token no longer works, and the old stream does not show
    the new player's cards, while the new player's own stream does."""
    host, leaver, newcomer = await register_all(address, 3)
    followers: list[Follower] = []
    try:
        match = await host.create("classic", 3, options={"target": "0"})
        seat = await leaver.join(match.match_id, seat=1)
        old_stream = Follower(leaver.channel, leaver.seat_tokens[match.match_id])
        followers.append(old_stream)
        await old_stream.take(2)  # both SeatJoined: the stream is open before the seat is left
        info = (
            await leaver.engine.Leave(
                engine_pb2.LeaveRequest(match_id=match.match_id),
                metadata=auth(leaver.seat_tokens[match.match_id]),
            )
        ).match
        assert info.status == "lobby"
        assert info.seat_info[seat].player_id == "" and not info.seat_info[seat].left
        await expect_status(leaver.act(match.match_id, "draw"), grpc.StatusCode.PERMISSION_DENIED)

        assert await newcomer.join(match.match_id, seat=seat) == seat
        new_stream = Follower(newcomer.channel, newcomer.seat_tokens[match.match_id])
        followers.append(new_stream)
        await leaver.join(match.match_id)  # back at the table, on the last free seat
        assert leaver.seats[match.match_id] == 2
        await start_match(host, match.match_id)

        def deal_of(events: list[engine_pb2.FollowResponse]) -> game_pb2.Drew:
            return next(
                e.event.drew
                for e in events
                if e.event.WhichOneof("kind") == "drew" and e.event.drew.seat == seat
            )

        async def until_deal(follower: Follower) -> list[engine_pb2.FollowResponse]:
            events: list[engine_pb2.FollowResponse] = []
            while not any(
                e.event.WhichOneof("kind") == "drew" and e.event.drew.seat == seat for e in events
            ):
                event = await follower.next()
                assert event is not None, (follower.error, events)
                events.append(event)
            return events

        newcomer_hand = (await newcomer.view(match.match_id)).hand
        assert list(deal_of(await until_deal(new_stream)).cards) == list(newcomer_hand)
        assert not deal_of(await until_deal(old_stream)).cards
    finally:
        await cancel_all(followers)
        await close_all([host, leaver, newcomer])


# ---------------------------------------------------------------- 5. lobby and match facts


async def test_list_matches_returns_the_players_matches_newest_first(address):
    """engine.proto, ListMatches: 'Matches of the calling player, newest first' (a rejoin does not
    move an old match to the top); the limit caps the list."""
    alice, bob = await register_all(address, 2)
    try:
        first = await alice.create("online", 2)
        second = await alice.create("classic", 3)
        third = await bob.create("online", 2)
        await alice.join(third.match_id)
        await alice.join(first.match_id)  # a rejoin: she is seated there already

        async def listed(limit: int = 0) -> list[str]:
            reply = await alice.engine.ListMatches(
                engine_pb2.ListMatchesRequest(limit=limit), metadata=auth(alice.token)
            )
            return [m.match_id for m in reply.matches]

        newest_first = [third.match_id, second.match_id, first.match_id]
        assert await listed() == newest_first
        assert await listed(2) == newest_first[:2]
        bobs = await bob.engine.ListMatches(
            engine_pb2.ListMatchesRequest(), metadata=auth(bob.token)
        )
        assert [m.match_id for m in bobs.matches] == [third.match_id]
        await expect_status(
            alice.engine.ListMatches(
                engine_pb2.ListMatchesRequest(limit=1000), metadata=auth(alice.token)
            ),
            grpc.StatusCode.INVALID_ARGUMENT,
        )
    finally:
        await close_all([alice, bob])


async def test_get_match_reveals_the_server_seed_only_when_the_match_is_over(address):
    """engine.proto, GetMatch: 'seed commitment (and the seed once it is over)'; fairness.py: the
    revealed seed hashes to the commitment published at creation. A seat token names its match."""
    clients = await register_all(address, 2)
    try:
        match = await clients[0].create("online", 2, nonce="a")
        assert match.seed_commitment and not match.server_seed and not match.nonces
        await clients[1].join(match.match_id, nonce="b")
        await start_match(clients[1], match.match_id)

        async def facts(token: str, match_id: str) -> engine_pb2.MatchInfo:
            return (
                await clients[0].engine.GetMatch(
                    engine_pb2.GetMatchRequest(match_id=match_id), metadata=auth(token)
                )
            ).match

        playing = await facts(clients[0].token, match.match_id)
        assert playing.status == "playing" and playing.server_seed == ""
        assert playing.seed_commitment == match.seed_commitment
        assert list(playing.nonces) == ["a", "b"]
        assert await facts(clients[0].seat_tokens[match.match_id], "") == playing

        await play_to_the_end(match.match_id, clients, random.Random(2))
        over = await facts(clients[0].token, match.match_id)
        assert over.status == "over" and over.outcome.winners
        assert hashlib.sha256(over.server_seed.encode()).hexdigest() == match.seed_commitment
    finally:
        await close_all(clients)


async def test_only_a_seated_player_starts_a_full_match(address):
    """engine.proto, StartMatch: 'Any seated player may start once every seat is taken': a player
    not seated is PERMISSION_DENIED, a table with free seats is FAILED_PRECONDITION, and starting
    twice is FAILED_PRECONDITION."""
    host, guest, stranger = await register_all(address, 3)
    try:
        match = await host.create("online", 3, bots={2: game_pb2.BOT_LEVEL_RANDOM})

        def start_by(client: Client) -> Awaitable[engine_pb2.StartMatchResponse]:
            return client.engine.StartMatch(
                engine_pb2.StartMatchRequest(match_id=match.match_id), metadata=auth(client.token)
            )

        error = await expect_status(start_by(stranger), grpc.StatusCode.PERMISSION_DENIED)
        assert "seated" in error.details()
        error = await expect_status(start_by(host), grpc.StatusCode.FAILED_PRECONDITION)
        assert "[1]" in error.details() and "free" in error.details()
        await guest.join(match.match_id)
        await expect_status(start_by(stranger), grpc.StatusCode.PERMISSION_DENIED)
        started = (await start_by(guest)).match
        assert started.status == "playing"
        error = await expect_status(start_by(host), grpc.StatusCode.FAILED_PRECONDITION)
        assert "already started" in error.details()
    finally:
        await close_all([host, guest, stranger])


async def test_a_seated_player_rejoins_a_started_match_on_the_same_seat(address):
    """engine.proto, JoinMatch: 'Take a free seat (or get back your own seat and a fresh seat
    token)': after the start a seated player gets the same seat back, and the token works."""
    clients, match_id = await seated_table(address, "online", 3)
    rng = random.Random(9)
    try:
        for client in clients:
            seat = client.seats[match_id]
            rejoined = await client.engine.JoinMatch(
                engine_pb2.JoinMatchRequest(match_id=match_id, seat=-1),
                metadata=auth(client.token),
            )
            assert rejoined.seat == seat and rejoined.match.status == "playing"
            assert [s.player_id for s in rejoined.match.seat_info].count(client.player_id) == 1
            fresh = Client(client.channel, client.player_id, client.token)
            fresh.seat_tokens[match_id] = rejoined.seat_token
            assert (await fresh.view(match_id)).seat == seat
            client.seat_tokens[match_id] = rejoined.seat_token
        found = await due_client(clients, match_id)
        assert found is not None
        answer = await found[0].act(match_id, pick(found[1], rng))
        assert answer.view.seat == found[0].seats[match_id]
        assert [s.player_id for s in answer.view.seats] == [c.player_id for c in clients]
    finally:
        await close_all(clients)


async def test_a_platform_service_may_seat_players_and_choose_the_server_seed(address):
    """engine.proto, CreateMatch: 'with a service token the listed players are seated at once';
    a chosen server seed (for replays) deals exactly what fairness.deal_seed says. A player may
    not choose it (PERMISSION_DENIED): it would let the player read every hand."""
    alice, bob = await register_all(address, 2)
    try:
        request = engine_pb2.CreateMatchRequest(
            ruleset=game_pb2.Ruleset(preset="online"),
            seats=2,
            server_seed="replay seed",
            auto_start=True,
            players=[
                engine_pb2.SeatedPlayer(seat=0, player_id=alice.player_id),
                engine_pb2.SeatedPlayer(seat=1, player_id=bob.player_id),
            ],
        )
        reply = await alice.engine.CreateMatch(request, metadata=auth(service_token(SECRET)))
        match_id = reply.match.match_id
        assert reply.match.status == "playing" and set(reply.seat_tokens) == {0, 1}
        alice.seat_tokens[match_id] = reply.seat_tokens[0]
        dealt = Match.new(Ruleset.create("online"), 2, fairness.deal_seed("replay seed", ["", ""]))
        assert list((await alice.view(match_id)).hand) == [c.text for c in dealt.hands[0]]

        error = await expect_status(
            alice.engine.CreateMatch(request, metadata=auth(alice.token)),
            grpc.StatusCode.PERMISSION_DENIED,
        )
        assert "server seed" in error.details()
    finally:
        await close_all([alice, bob])


async def test_a_retried_creation_with_its_request_id_answers_with_the_first_match(address, engine):
    """engine.proto, CreateMatchRequest.request_id: the same id from the same caller answers with
    the match the first call created (a retry after a lost answer or a dead caller), never a
    second; the same id from another caller is another creation; an over-long id is refused
    with nothing stored."""
    alice, bob = await register_all(address, 2)
    try:
        mine = engine_pb2.CreateMatchRequest(
            ruleset=game_pb2.Ruleset(preset="online"), seats=3, request_id="lobby-1"
        )
        first = await alice.engine.CreateMatch(mine, metadata=auth(alice.token))
        again = await alice.engine.CreateMatch(mine, metadata=auth(alice.token))
        assert again.match.match_id == first.match.match_id
        assert again.seat_tokens == first.seat_tokens  # the same seat, the same token
        theirs = await bob.engine.CreateMatch(mine, metadata=auth(bob.token))
        assert theirs.match.match_id != first.match.match_id
        listed = await alice.engine.ListMatches(
            engine_pb2.ListMatchesRequest(limit=20), metadata=auth(alice.token)
        )
        assert [m.match_id for m in listed.matches].count(first.match.match_id) == 1

        seated = engine_pb2.CreateMatchRequest(
            ruleset=game_pb2.Ruleset(preset="online"),
            seats=2,
            auto_start=True,
            request_id="table-7",
            players=[
                engine_pb2.SeatedPlayer(seat=0, player_id=alice.player_id),
                engine_pb2.SeatedPlayer(seat=1, player_id=bob.player_id),
            ],
        )
        service = auth(service_token(SECRET))
        made = await alice.engine.CreateMatch(seated, metadata=service)
        match_id = made.match.match_id
        alice.seat_tokens[match_id], bob.seat_tokens[match_id] = (
            made.seat_tokens[0],
            made.seat_tokens[1],
        )
        assert await play_actions(match_id, [alice, bob], random.Random(2), 3) == 3
        played = await raw_events(engine.matches.store, match_id)
        retried = await alice.engine.CreateMatch(seated, metadata=service)
        assert retried.match.match_id == match_id and retried.match.status == "playing"
        assert dict(retried.seat_tokens) == dict(made.seat_tokens)
        assert await raw_events(engine.matches.store, match_id) == played  # not dealt again

        long_id = engine_pb2.CreateMatchRequest(
            ruleset=game_pb2.Ruleset(preset="online"), seats=2, request_id="x" * 129
        )
        error = await expect_status(
            alice.engine.CreateMatch(long_id, metadata=auth(alice.token)),
            grpc.StatusCode.INVALID_ARGUMENT,
        )
        assert "request_id" in error.details()
        relisted = await alice.engine.ListMatches(
            engine_pb2.ListMatchesRequest(limit=20), metadata=auth(alice.token)
        )
        assert len(relisted.matches) == len(listed.matches) + 1  # the seated table only
    finally:
        await close_all([alice, bob])


async def test_follow_works_across_idle_periods_without_losing_events(address, engine):
    """docs/architecture.md, "Services are stateless; Redis holds every match": 'Clients follow a
    match with a server-streaming call': a stream that waits longer than nothing happens still
    delivers the next event as soon as it is written."""
    clients, match_id = await seated_table(address, "online", 2)
    follower = Follower(clients[0].channel, clients[0].token, match_id=match_id)
    try:
        backlog = len(await raw_events(engine.matches.store, match_id))
        await follower.take(backlog)
        await asyncio.sleep(0.3)
        await play_actions(match_id, clients, random.Random(1), 1)
        event = await follower.next(timeout=3)
        assert event is not None and event.event.WhichOneof("kind") in ("played", "drew")
    finally:
        await follower.cancel()
        await close_all(clients)


# ---------------------------------------------------------------- 6. whose move it is


def seed_with_a_jack_starter(seats: int) -> str:
    """A server seed whose classic deal turns up a Jack: the dealer names its suit first."""
    for n in itertools.count():
        seed = f"jack starter {n}"
        match, _ = Match.start(
            Ruleset.create("classic"), seats, fairness.deal_seed(seed, [""] * seats)
        )
        if match.phase == "starter_suit" and match.chooser != match.turn:
            return seed
    raise AssertionError("unreachable")


async def test_to_act_names_the_seat_the_match_waits_for_in_every_phase(address):
    """game.proto, View.to_act: 'the seat the match waits for now: chooser in phase
    "starter_suit", turn in "play" and "drawn", -1 once the match is over. It is your move when
    to_act equals seat'. In classic 'a Jack starter lets the dealer wish' (maumau.rules.variants,
    Classic) while turn already names the seat after the dealer, so a client waiting for
    turn == seat would wait out the dealer's turn timer."""
    alice, bob = await register_all(address, 2)
    try:
        reply = await alice.engine.CreateMatch(
            engine_pb2.CreateMatchRequest(
                ruleset=game_pb2.Ruleset(preset="classic", options={"target": "0"}),
                seats=2,
                server_seed=seed_with_a_jack_starter(2),
                auto_start=True,
                players=[
                    engine_pb2.SeatedPlayer(seat=0, player_id=alice.player_id),
                    engine_pb2.SeatedPlayer(seat=1, player_id=bob.player_id),
                ],
            ),
            metadata=auth(service_token(SECRET)),
        )
        match_id = reply.match.match_id
        clients = {0: alice, 1: bob}
        for seat, client in clients.items():
            client.seat_tokens[match_id] = reply.seat_tokens[seat]
        views = {seat: await client.view(match_id) for seat, client in clients.items()}
        chooser = views[0].chooser
        assert views[0].phase == "starter_suit" and views[0].turn != chooser
        assert {view.to_act for view in views.values()} == {chooser}
        assert all(action.WhichOneof("kind") == "name_suit" for action in views[chooser].legal)
        assert not views[1 - chooser].legal, "the seat named by turn may not move yet"

        answer = await clients[chooser].act(match_id, views[chooser].legal[0])
        assert answer.view.phase == "play"
        assert answer.view.to_act == answer.view.turn
        while (view := await alice.view(match_id)).phase != "over":
            mover = clients[view.to_act]
            mine = await mover.view(match_id)
            assert mine.to_act == mine.seat and mine.legal
            await mover.act(match_id, mine.legal[0])
        assert view.to_act == -1
    finally:
        await close_all([alice, bob])


async def test_a_join_without_a_seat_takes_any_free_one(address):
    """engine.proto, JoinMatchRequest.seat: 'left out: any free seat ... -1, which still means
    any free seat in this release (deprecated)'. A seat left out used to be seat 0, the host's,
    and the join failed ('seat 0 is not free')."""
    host, guest, late = await register_all(address, 3)
    try:
        lobby = await host.create("online", 4, bots={1: game_pb2.BOT_LEVEL_RANDOM})
        assert host.seats[lobby.match_id] == 0
        joined = await guest.engine.JoinMatch(
            engine_pb2.JoinMatchRequest(match_id=lobby.match_id), metadata=auth(guest.token)
        )
        assert joined.seat == 2
        deprecated = await late.engine.JoinMatch(
            engine_pb2.JoinMatchRequest(match_id=lobby.match_id, seat=-1),
            metadata=auth(late.token),
        )
        assert deprecated.seat == 3
    finally:
        await close_all([host, guest, late])


# ---------------------------------------------------------------- 7. request ids


async def test_a_request_id_is_never_applied_twice_in_a_match(address, engine):
    """engine.proto, Act: 'A repeated request_id with the same action returns the first answer
    ... with another action it is FAILED_PRECONDITION "request id already used for another
    action" ... A seat's request ids are remembered as long as the match is kept'. Request ids
    are a seat's own: both seats here use the same ones. Before, a seat's latest two ids were
    all it remembered: an older one sent again was applied as a new action, and one sent with
    another action answered the first answer as if it were a retry."""
    clients, match_id = await seated_table(
        address, "classic", 2, {"hand_size": "10", "target": "500"}
    )
    store, rng = engine.matches.store, random.Random(30)
    sent: dict[str, list[tuple[str, game_pb2.Action, engine_pb2.ActResponse]]] = {
        client.player_id: [] for client in clients
    }

    async def version() -> int:
        return (await stored_match(store, match_id))[0].version

    try:
        while min(map(len, sent.values())) < 3:
            found = await due_client(clients, match_id)
            assert found is not None, "the match ended or waits for no one"
            client, view = found
            mine = sent[client.player_id]
            action, request_id = pick(view, rng), f"action {len(mine)}"
            mine.append((request_id, action, await client.act(match_id, action, request_id)))
        found = await due_client(clients, match_id)
        assert found is not None
        client, view = found
        (first_id, first, first_answer), *_, (last_id, last, _) = sent[client.player_id]
        before = await version()

        again = await client.act(match_id, first, request_id=first_id)
        assert (again.version, list(again.events)) == (
            first_answer.version,
            list(first_answer.events),
        ), "an older request id sent again was applied as a new action"
        assert await version() == before

        for request_id, action in ((first_id, first), (last_id, last)):
            other = next(
                (a for a in view.legal if a.text != action.text),
                game_pb2.Action(text="pass" if action.text != "pass" else "draw"),
            )
            error = await expect_status(
                client.act(match_id, other, request_id=request_id),
                grpc.StatusCode.FAILED_PRECONDITION,
            )
            assert "request id already used for another action" in error.details()
            assert await version() == before, "a reused request id changed the match"

        answer = await client.act(match_id, view.legal[0], request_id="a new one")
        assert answer.version == before + 1
    finally:
        await close_all(clients)
