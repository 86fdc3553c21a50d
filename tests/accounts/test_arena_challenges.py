"""Challenges between accounts (issue 27), over real gRPC against a real Redis and a real engine:
all accept, every seat gets its seat token, plays and hears when the match ends; a decline with
each reason reaches the creator; the creator cancels; a challenge expires unless its creator's
stream is open (within its longest life); a blocked challenger is refused without more."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator

import grpc
import pytest

from maumau.accounts.app import AccountsApp
from maumau.common.config import ServiceConfig
from maumau.common.redis_client import connect
from maumau.common.redis_server import EmbeddedRedis
from maumau.engine.app import EngineApp
from maumau.rating.app import RatingApp
from maumau.v1 import arena_pb2 as arena
from maumau.v1 import engine_pb2, engine_pb2_grpc, game_pb2
from tests.accounts.support import Player, settings, stop_accounts
from tests.accounts.test_arena_bots import account, arena_of, bot, refusal
from tests.support.engine import SECRET
from tests.support.rpc import auth

KEEPALIVE = 0.2
CHALLENGE_SECONDS = 0.4
"""Shorter than a stream's presence lasts (three keep-alives), so an open stream refreshed
once per step of the clock keeps its challenge."""


class Clock:
    """The accounts replica's clock, moved on by the test (the sweep runs when called)."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def accounts(
    redis_server: EmbeddedRedis, engine: EngineApp, lone_rating: RatingApp, clock: Clock
) -> AsyncIterator[AccountsApp]:
    client = await connect(redis_server.url)
    config = ServiceConfig(host="127.0.0.1", port=0, metrics_port=0, health_interval_seconds=0.2)
    changes = {
        "rating_address": f"127.0.0.1:{lone_rating.port}",
        "arena_challenge_seconds": CHALLENGE_SECONDS,
        "arena_keepalive_seconds": KEEPALIVE,
        "arena_sweep_seconds": 60,  # the tests sweep themselves, at the clock's time
    }
    app = AccountsApp(
        client, config, SECRET, settings(f"127.0.0.1:{engine.port}", **changes), clock=clock
    )
    await app.start()
    yield app
    await stop_accounts(app)


class Listener:
    """An account's open event stream, read past keep-alives."""

    def __init__(self, player: Player, token: str) -> None:
        self.stream = arena_of(player).Events(arena.EventsRequest(), metadata=auth(token))

    async def opened(self) -> Listener:
        assert (await self.stream.read()).event.WhichOneof("kind") == "keep_alive"
        return self

    async def next(self) -> arena.AccountEvent:
        while True:
            event = (await self.stream.read()).event
            if event.WhichOneof("kind") != "keep_alive":
                return event


async def listen(player: Player, token: str | None = None) -> Listener:
    return await Listener(player, token or player.token).opened()


def challenge(to: list[Player], rated: bool = False) -> arena.CreateChallengeRequest:
    return arena.CreateChallengeRequest(
        player_ids=[p.player_id for p in to],
        ruleset=game_pb2.Ruleset(preset="classic"),
        rated=rated,
    )


async def test_all_accept_and_every_seat_plays_its_seat_token(
    address: str, accounts_address: str, accounts: AccountsApp
) -> None:
    robo, robo_token = await bot(address, accounts_address)
    other, other_token = await bot(address, accounts_address)
    person = await account(address, accounts_address)
    seen = {p.player_id: await listen(p, t) for p, t in ((robo, robo_token), (other, other_token))}
    seen[person.player_id] = await listen(person)
    made = await arena_of(robo).CreateChallenge(
        challenge([other, person], rated=True), metadata=auth(robo_token)
    )
    challenge_id = made.challenge.challenge_id
    for challenged in (other, person):
        received = (await seen[challenged.player_id].next()).challenge_received.challenge
        assert (received.challenge_id, received.creator_id, received.rated) == (
            challenge_id,
            robo.player_id,
            True,
        )
    first = await arena_of(other).AcceptChallenge(
        arena.AcceptChallengeRequest(challenge_id=challenge_id), metadata=auth(other_token)
    )
    assert not first.match_id
    last = await arena_of(person).AcceptChallenge(
        arena.AcceptChallengeRequest(challenge_id=challenge_id), metadata=person.auth
    )
    assert last.match_id
    engine = engine_pb2_grpc.EngineServiceStub(robo.engine)
    seats: dict[int, str] = {}
    for player in (robo, other, person):
        started = (await seen[player.player_id].next()).match_started
        assert (started.match_id, started.challenge_id, started.rated) == (
            last.match_id,
            challenge_id,
            True,
        )
        seats[started.seat] = started.seat_token
    assert sorted(seats) == [0, 1, 2]
    match = (
        await engine.GetMatch(
            engine_pb2.GetMatchRequest(match_id=last.match_id), metadata=person.auth
        )
    ).match
    assert match.ranked and match.status == "playing"
    for step in range(12):  # each seat acts with its own seat token, as any client does
        for seat, token in seats.items():
            view = (await engine.GetView(engine_pb2.GetViewRequest(), metadata=auth(token))).view
            assert view.seat == seat
            if view.legal:
                await engine.Act(
                    engine_pb2.ActRequest(request_id=f"s{seat}-{step}", action=view.legal[0]),
                    metadata=auth(token),
                )
    for token in seats.values():  # bots take the seats and play the match to its end
        await engine.Leave(engine_pb2.LeaveRequest(match_id=last.match_id), metadata=auth(token))
    for player in (robo, other, person):
        finished = (await seen[player.player_id].next()).match_finished
        assert finished.match_id == last.match_id and finished.placement in (1, 2)
    again = arena_of(person).AcceptChallenge(
        arena.AcceptChallengeRequest(challenge_id=challenge_id), metadata=person.auth
    )
    assert await refusal(again) == (grpc.StatusCode.NOT_FOUND, "arena_challenge_unknown")
    for player in (robo, other, person):
        seen[player.player_id].stream.cancel()
        await player.close()


async def test_a_decline_with_each_reason_reaches_the_creator(
    address: str, accounts_address: str, accounts: AccountsApp
) -> None:
    person = await account(address, accounts_address)
    robo, token = await bot(address, accounts_address)
    third = await account(address, accounts_address)
    creator, others = await listen(person), await listen(third)
    reasons = [r for r in arena.DeclineReason.values() if r != arena.DECLINE_REASON_UNSPECIFIED]
    assert len(reasons) == 8
    for reason in reasons:
        made = await arena_of(person).CreateChallenge(
            challenge([robo, third]), metadata=person.auth
        )
        challenge_id = made.challenge.challenge_id
        assert (await others.next()).challenge_received.challenge.challenge_id == challenge_id
        unspecified = arena_of(robo).DeclineChallenge(
            arena.DeclineChallengeRequest(challenge_id=challenge_id), metadata=auth(token)
        )
        assert await refusal(unspecified) == (grpc.StatusCode.INVALID_ARGUMENT, "decline_reason")
        await arena_of(robo).DeclineChallenge(
            arena.DeclineChallengeRequest(challenge_id=challenge_id, reason=reason),
            metadata=auth(token),
        )
        declined = (await creator.next()).challenge_declined
        assert (declined.challenge_id, declined.player_id, declined.reason) == (
            challenge_id,
            robo.player_id,
            reason,
        )
        assert (await others.next()).challenge_cancelled.challenge_id == challenge_id
        accept = arena_of(third).AcceptChallenge(
            arena.AcceptChallengeRequest(challenge_id=challenge_id), metadata=third.auth
        )
        assert await refusal(accept) == (grpc.StatusCode.NOT_FOUND, "arena_challenge_unknown")
    creator.stream.cancel()
    others.stream.cancel()
    for player in (person, robo, third):
        await player.close()


async def test_the_creator_cancels_and_nobody_else_can(
    address: str, accounts_address: str, accounts: AccountsApp
) -> None:
    person = await account(address, accounts_address)
    robo, token = await bot(address, accounts_address)
    listening = await listen(robo, token)
    made = await arena_of(person).CreateChallenge(challenge([robo]), metadata=person.auth)
    challenge_id = made.challenge.challenge_id
    await listening.next()
    not_theirs = arena_of(robo).CancelChallenge(
        arena.CancelChallengeRequest(challenge_id=challenge_id), metadata=auth(token)
    )
    assert await refusal(not_theirs) == (grpc.StatusCode.NOT_FOUND, "arena_challenge_unknown")
    await arena_of(person).CancelChallenge(
        arena.CancelChallengeRequest(challenge_id=challenge_id), metadata=person.auth
    )
    assert (await listening.next()).challenge_cancelled.challenge_id == challenge_id
    own = arena_of(person).AcceptChallenge(
        arena.AcceptChallengeRequest(challenge_id="x" * 500), metadata=person.auth
    )
    assert await refusal(own) == (grpc.StatusCode.NOT_FOUND, "arena_challenge_unknown")
    listening.stream.cancel()
    await person.close()
    await robo.close()


async def test_a_challenge_expires_unless_its_creators_stream_is_open(
    address: str, accounts_address: str, accounts: AccountsApp, clock: Clock
) -> None:
    robo, token = await bot(address, accounts_address)
    other, other_token = await bot(address, accounts_address)
    listening = await listen(other, other_token)
    alone = await arena_of(robo).CreateChallenge(challenge([other]), metadata=auth(token))
    await listening.next()
    clock.now += CHALLENGE_SECONDS - 0.1
    await accounts.arena.sweep_once()
    assert await accounts.arena.book.get(alone.challenge.challenge_id) is not None
    clock.now += 0.2
    await accounts.arena.sweep_once()
    expired = await listening.next()
    assert expired.challenge_expired.challenge_id == alone.challenge.challenge_id
    creator = await listen(robo, token)  # now the creator keeps its stream open
    kept = await arena_of(robo).CreateChallenge(challenge([other]), metadata=auth(token))
    await listening.next()
    for _ in range(3):
        clock.now += CHALLENGE_SECONDS + 0.1
        await accounts.arena.feeds.poll()
        await accounts.arena.sweep_once()
        assert await accounts.arena.book.get(kept.challenge.challenge_id) is not None
    clock.now += accounts.settings.arena_challenge_max_seconds  # its longest life is over
    await accounts.arena.sweep_once()
    assert (await creator.next()).challenge_expired.challenge_id == kept.challenge.challenge_id
    assert (await listening.next()).challenge_expired.challenge_id == kept.challenge.challenge_id
    creator.stream.cancel()
    listening.stream.cancel()
    await robo.close()
    await other.close()


async def test_a_blocked_challenger_is_refused_without_more(
    address: str, accounts_address: str, accounts: AccountsApp
) -> None:
    robo, token = await bot(address, accounts_address)
    person = await account(address, accounts_address)
    await arena_of(person).BlockAccount(
        arena.BlockAccountRequest(player_id=robo.player_id), metadata=person.auth
    )
    listed = await arena_of(person).ListBlocked(arena.ListBlockedRequest(), metadata=person.auth)
    assert list(listed.player_ids) == [robo.player_id]
    refused = arena_of(robo).CreateChallenge(challenge([person]), metadata=auth(token))
    assert await refusal(refused) == (grpc.StatusCode.PERMISSION_DENIED, "challenge_refused")
    await arena_of(person).UnblockAccount(
        arena.UnblockAccountRequest(player_id=robo.player_id), metadata=person.auth
    )
    made = await arena_of(robo).CreateChallenge(challenge([person]), metadata=auth(token))
    assert made.challenge.challenged_ids == [person.player_id]
    for request, code in (
        (challenge([]), "challenge_players"),
        (challenge([robo]), "challenge_players"),
        (challenge([person, person]), "challenge_players"),
        (challenge([person] * 8), "challenge_players"),
    ):
        bad = arena_of(robo).CreateChallenge(request, metadata=auth(token))
        assert await refusal(bad) == (grpc.StatusCode.INVALID_ARGUMENT, code)
    self_block = arena_of(person).BlockAccount(
        arena.BlockAccountRequest(player_id=person.player_id), metadata=person.auth
    )
    assert await refusal(self_block) == (grpc.StatusCode.INVALID_ARGUMENT, "block_player")
    await robo.close()
    await person.close()
