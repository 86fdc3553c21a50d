"""Every refusal of the engine: its exact status code, a message a person can act on, and Redis
left exactly as it was.

engine.proto: 'FAILED_PRECONDITION for a move the rules forbid now (trailing metadata carries
"maumau-error-code" and "maumau-error-params" JSON ...), INVALID_ARGUMENT for malformed input,
NOT_FOUND for an unknown match, UNAUTHENTICATED for a missing, bad or expired token,
PERMISSION_DENIED for a valid token of the wrong kind ..., a token of another match or seat, or a
field only a service token may set ..., RESOURCE_EXHAUSTED for an oversized message. An error never
changes stored state.'
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import pytest

from maumau.common.tokens import issue_seat_token
from maumau.engine.store import MatchStore
from maumau.rules import Match
from maumau.v1 import (
    bots_pb2,
    engine_pb2,
    game_pb2,
    matchmaking_pb2,
    players_pb2,
    players_pb2_grpc,
    tournaments_pb2,
)
from tests.support.engine import Client, close_all, seated_table, snapshot, stored_match
from tests.support.protos import comment
from tests.support.rpc import auth

Code = grpc.StatusCode
Call = Callable[[], Awaitable[object]]


@dataclass
class Table:
    """A dealt 3-seat match in phase 'play' (the 'online' preset has no starter effects), the
    true state it started from, and everything whose stored bytes must not change."""

    address: str
    store: MatchStore
    clients: list[Client]
    match_id: str
    match: Match
    stranger: Client
    watched: list[str] = field(default_factory=list)

    @property
    def mover(self) -> Client:
        return next(c for c in self.clients if c.seats[self.match_id] == self.match.turn)

    @property
    def other(self) -> Client:
        return next(c for c in self.clients if c.seats[self.match_id] != self.match.turn)

    def hand(self, client: Client) -> list[str]:
        return [card.text for card in self.match.hands[client.seats[self.match_id]]]

    async def state(self) -> tuple[object, ...]:
        """The stored bytes of every watched match and every player's list of matches."""
        players = [*self.clients, self.stranger]
        return (
            [await snapshot(self.store, match_id) for match_id in self.watched],
            [
                await self.store.redis.zrange(f"player:{{{p.player_id}}}:matches", 0, -1)
                for p in players
            ],
        )


def act(client: Client, token: str | None, action: game_pb2.Action, request_id: str = "x") -> Call:
    return lambda: client.engine.Act(
        engine_pb2.ActRequest(request_id=request_id or "", action=action),
        metadata=auth(token) if token is not None else None,
    )


def play(card: str, suit: str = "", call: str = "") -> game_pb2.Action:
    return game_pb2.Action(play=game_pb2.Play(card=card, suit=suit, call=call))


def text(action: str) -> game_pb2.Action:
    return game_pb2.Action(text=action)


def create(t: Table, token: str, preset: str = "online", seats: int = 2, **fields: object) -> Call:
    options = fields.pop("options", {})
    request = engine_pb2.CreateMatchRequest(
        ruleset=game_pb2.Ruleset(preset=preset, options=options), seats=seats, **fields
    )
    return lambda: t.stranger.engine.CreateMatch(request, metadata=auth(token))


def join(t: Table, client: Client, match_id: str, seat: int | None = None) -> Call:
    return lambda: client.engine.JoinMatch(
        engine_pb2.JoinMatchRequest(match_id=match_id, seat=seat), metadata=auth(client.token)
    )


async def first_event(t: Table, token: str, match_id: str, after: str = "") -> object:
    async for item in t.stranger.engine.Follow(
        engine_pb2.FollowRequest(match_id=match_id, after_event_id=after), metadata=auth(token)
    ):
        return item
    return None


Case = Callable[[Table], Awaitable[Call]]
CASES: dict[str, tuple[Case, Code, str]] = {}


def case(name: str, code: Code, says: str) -> Callable[[Case], Case]:
    """Register a refusal: ``says`` is a part of the message that tells the person what to do."""

    def register(build: Case) -> Case:
        CASES[name] = (build, code, says)
        return build

    return register


# ---------------------------------------------------------------- malformed input


@case("malformed card text", Code.INVALID_ARGUMENT, "'ZZ' is not a card: write rank and suit")
async def _(t: Table) -> Call:
    return act(t.mover, t.mover.seat_tokens[t.match_id], play("ZZ"))


@case("malformed action text", Code.INVALID_ARGUMENT, "'ZZ' is not an action: try a card like")
async def _(t: Table) -> Call:
    return act(t.mover, t.mover.seat_tokens[t.match_id], text("ZZ"))


@case("bad suit in a play", Code.INVALID_ARGUMENT, "'X' is not a suit here: choose one of S")
async def _(t: Table) -> Call:
    return act(t.mover, t.mover.seat_tokens[t.match_id], play(t.hand(t.mover)[0], suit="X"))


@case("bad suit named", Code.INVALID_ARGUMENT, "'X' is not a suit here: choose one of S")
async def _(t: Table) -> Call:
    return act(t.mover, t.mover.seat_tokens[t.match_id], game_pb2.Action(name_suit="X"))


@case("unknown call word", Code.INVALID_ARGUMENT, "'call:uno' is not an action")
async def _(t: Table) -> Call:
    return act(t.mover, t.mover.seat_tokens[t.match_id], play(t.hand(t.mover)[0], call="uno"))


@case("no action at all", Code.INVALID_ARGUMENT, "is not an action: try a card like")
async def _(t: Table) -> Call:
    return act(t.mover, t.mover.seat_tokens[t.match_id], game_pb2.Action())


@case("a text naming another action than the kind", Code.INVALID_ARGUMENT, "another action")
async def _(t: Table) -> Call:
    both = game_pb2.Action(draw=game_pb2.Empty(), text="pass")
    return act(t.mover, t.mover.seat_tokens[t.match_id], both)


@case("missing request_id", Code.INVALID_ARGUMENT, "request_id is required")
async def _(t: Table) -> Call:
    return act(t.mover, t.mover.seat_tokens[t.match_id], text("draw"), request_id="")


@case("a request larger than 64 KiB", Code.RESOURCE_EXHAUSTED, "larger than max")
async def _(t: Table) -> Call:
    return act(t.mover, t.mover.seat_tokens[t.match_id], text("draw" + " " * 70_000))


@case("follow from a position that is no event id", Code.INVALID_ARGUMENT, "is not an event id")
async def _(t: Table) -> Call:
    return lambda: first_event(t, t.mover.seat_tokens[t.match_id], "", after="yesterday")


# ---------------------------------------------------------------- unknown match


@case("view of an unknown match", Code.NOT_FOUND, "no match 'no-such-match'")
async def _(t: Table) -> Call:
    return lambda: t.stranger.engine.GetView(
        engine_pb2.GetViewRequest(match_id="no-such-match"), metadata=auth(t.stranger.token)
    )


@case("facts of an unknown match", Code.NOT_FOUND, "no match 'no-such-match'")
async def _(t: Table) -> Call:
    return lambda: t.stranger.engine.GetMatch(
        engine_pb2.GetMatchRequest(match_id="no-such-match"), metadata=auth(t.stranger.token)
    )


@case("joining an unknown match", Code.NOT_FOUND, "no match 'no-such-match'")
async def _(t: Table) -> Call:
    return join(t, t.stranger, "no-such-match")


@case("following an unknown match", Code.NOT_FOUND, "no match 'no-such-match'")
async def _(t: Table) -> Call:
    return lambda: first_event(t, t.stranger.token, "no-such-match")


# ---------------------------------------------------------------- tokens


@case("no token", Code.UNAUTHENTICATED, "send 'authorization: Bearer <token>'")
async def _(t: Table) -> Call:
    return act(t.mover, None, text("draw"))


@case("garbage token", Code.UNAUTHENTICATED, "token is malformed")
async def _(t: Table) -> Call:
    return act(t.mover, "garbage", text("draw"))


@case("token signed with another secret", Code.UNAUTHENTICATED, "signature does not match")
async def _(t: Table) -> Call:
    forged = issue_seat_token(
        b"another secret", t.match_id, t.match.turn, t.mover.player_id
    )  # the right claims, the wrong signature
    return act(t.mover, forged, text("draw"))


@case("a player token to act", Code.PERMISSION_DENIED, "a seat token is needed")
async def _(t: Table) -> Call:
    return act(t.mover, t.mover.token, text("draw"))


@case("a player token to leave", Code.PERMISSION_DENIED, "a seat token is needed")
async def _(t: Table) -> Call:
    return lambda: t.mover.engine.Leave(
        engine_pb2.LeaveRequest(match_id=t.match_id), metadata=auth(t.mover.token)
    )


@case("a seat token to create a match", Code.PERMISSION_DENIED, "a player token is needed")
async def _(t: Table) -> Call:
    return create(t, t.mover.seat_tokens[t.match_id])


@case("a seat token of another match", Code.PERMISSION_DENIED, "seat token is for another match")
async def _(t: Table) -> Call:
    other = await t.stranger.create("online", 2, bots={1: game_pb2.BOT_LEVEL_RANDOM})
    t.watched.append(other.match_id)
    return lambda: t.stranger.engine.GetView(
        engine_pb2.GetViewRequest(match_id=t.match_id),
        metadata=auth(t.stranger.seat_tokens[other.match_id]),
    )


@case("a seat token of another match to follow", Code.PERMISSION_DENIED, "for another match")
async def _(t: Table) -> Call:
    other = await t.stranger.create("online", 2, bots={1: game_pb2.BOT_LEVEL_RANDOM})
    t.watched.append(other.match_id)
    return lambda: first_event(t, t.stranger.seat_tokens[other.match_id], t.match_id)


@case("a player may not choose the server seed", Code.PERMISSION_DENIED, "leave it empty")
async def _(t: Table) -> Call:
    return create(t, t.stranger.token, server_seed="I know every card")


@case("a player may not seat other players", Code.PERMISSION_DENIED, "players: only a platform")
async def _(t: Table) -> Call:
    seated = [engine_pb2.SeatedPlayer(seat=1, player_id=t.clients[0].player_id)]
    return create(t, t.stranger.token, players=seated)


# ---------------------------------------------------------------- creating and joining


@case("unknown preset", Code.INVALID_ARGUMENT, "no rule system 'bridge': choose one of classic")
async def _(t: Table) -> Call:
    return create(t, t.stranger.token, preset="bridge")


@case("option out of range", Code.INVALID_ARGUMENT, "option wins: must be a whole number")
async def _(t: Table) -> Call:
    return create(t, t.stranger.token, options={"wins": "lots"})


@case("option of another preset", Code.INVALID_ARGUMENT, "option deck: not an option of online")
async def _(t: Table) -> Call:
    return create(t, t.stranger.token, options={"deck": "skat32"})


@case("9 seats", Code.INVALID_ARGUMENT, "classic is for 2 to 8 seats")
async def _(t: Table) -> Call:
    return create(t, t.stranger.token, preset="classic", seats=9)


@case("bad bot level", Code.INVALID_ARGUMENT, "no bot level 99: choose one of random")
async def _(t: Table) -> Call:
    return create(t, t.stranger.token, bots={1: 99})


@case("bot on a seat the table lacks", Code.INVALID_ARGUMENT, "bot seat 5 is not a seat")
async def _(t: Table) -> Call:
    return create(t, t.stranger.token, bots={5: game_pb2.BOT_LEVEL_RANDOM})


@case("joining a full match", Code.FAILED_PRECONDITION, "the match is full")
async def _(t: Table) -> Call:
    host, guest = t.clients[:2]
    full = await host.create("online", 2)
    await guest.join(full.match_id)
    t.watched.append(full.match_id)
    return join(t, t.stranger, full.match_id)


@case("joining a taken seat", Code.FAILED_PRECONDITION, "seat 0 is not free")
async def _(t: Table) -> Call:
    lobby = await t.clients[0].create("online", 3)
    t.watched.append(lobby.match_id)
    return join(t, t.stranger, lobby.match_id, seat=0)


@case("joining a seat the table lacks", Code.INVALID_ARGUMENT, "no seat 7 at this table of 3")
async def _(t: Table) -> Call:
    lobby = await t.clients[0].create("online", 3)
    t.watched.append(lobby.match_id)
    return join(t, t.stranger, lobby.match_id, seat=7)


@case("joining a negative seat", Code.INVALID_ARGUMENT, "seat -2 is not a seat: name one from 0")
async def _(t: Table) -> Call:
    lobby = await t.clients[0].create("online", 3)
    t.watched.append(lobby.match_id)
    return join(t, t.stranger, lobby.match_id, seat=-2)


@case("joining a started match", Code.FAILED_PRECONDITION, "the match has started")
async def _(t: Table) -> Call:
    return join(t, t.stranger, t.match_id)


@case("acting before the deal", Code.FAILED_PRECONDITION, "the match has not started yet")
async def _(t: Table) -> Call:
    lobby = await t.stranger.create("online", 2)
    t.watched.append(lobby.match_id)
    return act(t.stranger, t.stranger.seat_tokens[lobby.match_id], text("draw"))


@case("register with an empty name", Code.INVALID_ARGUMENT, "a name has 1 to 32 characters")
async def _(t: Table) -> Call:
    players = players_pb2_grpc.PlayersServiceStub(t.stranger.channel)
    return lambda: players.Register(players_pb2.RegisterRequest(name="   "))


# ---------------------------------------------------------------- moves the rules forbid now

RULE_CASES: dict[str, tuple[Case, str, Callable[[Table], dict[str, object]], str]] = {}


def rule_case(
    name: str, error_code: str, params: Callable[[Table], dict[str, object]], says: str
) -> Callable[[Case], Case]:
    def register(build: Case) -> Case:
        RULE_CASES[name] = (build, error_code, params, says)
        return build

    return register


@rule_case("wrong action for the state", "pass_not_allowed", lambda t: {}, "only after drawing")
async def _(t: Table) -> Call:
    return act(
        t.mover, t.mover.seat_tokens[t.match_id], game_pb2.Action(**{"pass": game_pb2.Empty()})
    )


@rule_case(
    "nothing to accept", "nothing_to_accept", lambda t: {}, "no penalty or skip for you to take"
)
async def _(t: Table) -> Call:
    return act(t.mover, t.mover.seat_tokens[t.match_id], text("accept"))


@rule_case(
    "out of turn",
    "not_your_turn",
    lambda t: {"turn": t.match.turn},
    "'s turn, not yours",
)
async def _(t: Table) -> Call:
    return act(t.other, t.other.seat_tokens[t.match_id], play(t.hand(t.other)[0]))


@rule_case(
    "a card not in hand",
    "card_not_in_hand",
    lambda t: {"card": t.hand(t.other)[0]},
    "is not in your hand",
)
async def _(t: Table) -> Call:
    return act(t.mover, t.mover.seat_tokens[t.match_id], play(t.hand(t.other)[0]))


@rule_case(
    "catching a seat that owes nothing",
    "catch_not_allowed",
    lambda t: {"seat": t.other.seats[t.match_id]},
    "owes no call you could catch",
)
async def _(t: Table) -> Call:
    action = game_pb2.Action(catch_seat=t.other.seats[t.match_id])
    return act(t.mover, t.mover.seat_tokens[t.match_id], action)


# ---------------------------------------------------------------- the checks


@pytest.fixture
async def table(address, engine):
    clients, match_id = await seated_table(address, "online", 3)
    stranger = await Client.register(address, "stranger")
    _, match = await stored_match(engine.matches.store, match_id)
    assert match.phase == "play" and not match.pending
    t = Table(address, engine.matches.store, clients, match_id, match, stranger, [match_id])
    yield t
    await close_all([*clients, stranger])


async def refused(t: Table, build: Case, code: Code, says: str) -> grpc.aio.AioRpcError:
    call = await build(t)
    before = await t.state()
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call()
    error = caught.value
    assert error.code() == code, f"{error.code()}: {error.details()}"
    assert says in (error.details() or ""), error.details()
    assert "Traceback" not in error.details() and "Exception" not in error.details()
    assert await t.state() == before, "a refusal changed stored state"
    return error


@pytest.mark.parametrize("name", list(CASES))
async def test_a_refusal_has_its_status_and_a_message_and_changes_nothing(table, name):
    """engine.proto, Errors: the status code the contract names, a message that says what to do,
    and no change to anything Redis stores for the match or the players."""
    build, code, says = CASES[name]
    await refused(table, build, code, says)


@pytest.mark.parametrize("name", list(RULE_CASES))
async def test_a_move_the_rules_forbid_carries_its_code_and_params(table, name):
    """engine.proto, Errors: a move the rules forbid now is FAILED_PRECONDITION with trailing
    metadata 'maumau-error-code' and 'maumau-error-params' (JSON), so clients can translate it."""
    build, error_code, params, says = RULE_CASES[name]
    error = await refused(table, build, Code.FAILED_PRECONDITION, says)
    trailing = dict(error.trailing_metadata() or ())
    assert trailing["maumau-error-code"] == error_code
    assert json.loads(trailing["maumau-error-params"]) == params(table)


async def test_the_bad_inputs_leave_the_match_playable(table):
    """An error never changes stored state: after every kind of refusal the seat due still acts
    with the very next request, and its version counts exactly one move."""
    for build, code, says in CASES.values():
        if code != Code.RESOURCE_EXHAUSTED:
            await refused(table, build, code, says)
    version = (await stored_match(table.store, table.match_id))[0].version
    answer = await table.mover.act(table.match_id, "draw", request_id=uuid.uuid4().hex)
    assert answer.version == version + 1


async def test_an_action_with_its_text_beside_its_kind_names_one_action(table):
    """game.proto, Action.text: 'in requests it may be sent instead of the structured kind, or
    beside it for the same action ... A text that names another action than the structured kind
    is INVALID_ARGUMENT (error code "action_text_differs")': the kind no longer wins silently,
    and a legal action of a view sent back as it came (kind and text) is taken."""
    token = table.mover.seat_tokens[table.match_id]
    first = (await table.mover.view(table.match_id)).legal[0]
    mixed = game_pb2.Action()
    mixed.CopyFrom(first)
    mixed.text = "pass"  # never legal in phase 'play', so never the same action as `first`
    error = await refused(
        table, lambda t: _ready(act(t.mover, token, mixed)), Code.INVALID_ARGUMENT, "'pass'"
    )
    assert dict(error.trailing_metadata() or ())["maumau-error-code"] == "action_text_differs"
    answer = await table.mover.act(table.match_id, first, request_id=uuid.uuid4().hex)
    assert answer.events, "the legal action sent back with its text was not taken"


async def _ready(call: Call) -> Call:
    return call


SERVICE_ONLY: dict[str, Callable[[Table], object]] = {
    "players": lambda t: [engine_pb2.SeatedPlayer(seat=1, player_id=t.clients[0].player_id)],
    "server_seed": lambda t: "I know every card",
    "ranked": lambda t: True,
}
"""A value for each field of CreateMatchRequest that engine.proto says only a service token
may set."""


def service_only_fields() -> list[str]:
    """The fields of every proto's requests whose own comment says a service token sets them,
    as message.field."""
    return [
        f"{message.name}.{field.name}"
        for module in (engine_pb2, players_pb2, matchmaking_pb2, tournaments_pb2, bots_pb2)
        for message in module.DESCRIPTOR.message_types_by_name.values()
        if message.name.endswith("Request")
        for field in message.fields
        if "service token"
        in comment(
            Path(module.DESCRIPTOR.name).name, message.name, field.name, with_message=False
        ).lower()
    ]


def test_every_field_only_a_service_token_sets_has_a_check():
    """A request field any proto documents as a service token's has a sample below, so its
    refusal is tested: only CreateMatchRequest has such fields."""
    assert sorted(service_only_fields()) == [
        f"CreateMatchRequest.{f}" for f in sorted(SERVICE_ONLY)
    ]


@pytest.mark.parametrize("field", sorted(SERVICE_ONLY))
async def test_a_field_only_a_service_token_sets_is_refused_for_a_player(table, field):
    """engine.proto, CreateMatchRequest: 'A field only a service token may set ... is
    PERMISSION_DENIED with any other token, the message naming the field: never ignored'
    (players with a player token used to be dropped silently, the match made without them)."""
    value = SERVICE_ONLY[field](table)

    async def build(t: Table) -> Call:
        return create(t, t.stranger.token, **{field: value})

    await refused(table, build, Code.PERMISSION_DENIED, f"{field}: ")
