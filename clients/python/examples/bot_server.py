"""A bot of your own for the platform: a gRPC server of ``maumau.v1.BotsService`` (protos/maumau/v1/
bots.proto) that the engine asks whenever a bot seat of your level is to move.

Start it, then start the platform with the engine pointed at it for one level::

    python clients/python/examples/bot_server.py --port 7000
    MAUMAU_BOTS_ADDRESS_STRONG=127.0.0.1:7000 make run

Every "strong" bot seat now plays as this program says. It sees exactly what a person at that
seat sees (the ``View``: own hand, the others' card counts, the open discard pile) and must
answer one of ``view.legal``; if it is slow, down or answers something illegal, the engine moves
the seat itself, so a match never stalls.

Its strategy, as a starting point: catch missed calls, make calls, play a card rather than draw,
from the suit held most, keep Jacks and wilds for last and wish the suit held most.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
from collections import Counter

import grpc

from maumau.v1 import bots_pb2, bots_pb2_grpc
from maumau_sdk import Action, Play, View, action_to_pb

WILD_RANKS = ("J", "W", "W+4")


def score(view: View, action: Action) -> tuple[float, str]:
    """How much this bot likes an action in a view, and why (one line)."""
    held = Counter(card.suit for card in view.hand if card.rank not in WILD_RANKS)
    text = action.text
    if text.startswith("catch"):
        return 100, "catch the seat that missed its call"
    if text.startswith("call"):
        return 90, "make the call before anyone catches it"
    if isinstance(action, Play):
        points = 50 + (10 if action.call else 0)
        if action.card.rank in WILD_RANKS:
            return points - 20 + held[action.suit or ""], "a wild card: kept for when stuck"
        return points + held[action.card.suit], f"play from a suit held {held[action.card.suit]}x"
    if text.startswith("suit:"):
        return 40 + held[text[5:]], "name the suit held most"
    if text == "draw":
        return 10, "nothing better: draw"
    return 5, "take what is due"


class MyBot(bots_pb2_grpc.BotsServiceServicer):
    """Stateless: each answer depends on the request alone. ``decisions`` counts them."""

    def __init__(self) -> None:
        self.decisions = 0

    def ranked(self, request_view: object) -> list[tuple[float, str, Action]]:
        view = View.from_pb(request_view)  # type: ignore[arg-type]
        scored = [(*score(view, action), action) for action in view.legal]
        return sorted(scored, key=lambda entry: -entry[0])

    async def Decide(self, request, context):  # type: ignore[no-untyped-def]
        ranked = self.ranked(request.view)
        if not ranked:
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION, "no legal action in view")
        _, reason, action = ranked[0]
        self.decisions += 1
        print(f"seat {request.view.seat}: {action.text} ({reason})", flush=True)
        return bots_pb2.DecideResponse(action=action_to_pb(action), reason=reason)

    async def Hint(self, request, context):  # type: ignore[no-untyped-def]
        return bots_pb2.HintResponse(
            actions=[
                bots_pb2.RankedAction(action=action_to_pb(action), score=points, reason=reason)
                for points, reason, action in self.ranked(request.view)
            ]
        )


async def serve(port: int, host: str = "127.0.0.1") -> None:
    server = grpc.aio.server()
    bots_pb2_grpc.add_BotsServiceServicer_to_server(MyBot(), server)
    bound = server.add_insecure_port(f"{host}:{port}")
    await server.start()
    print(f"my bot serves maumau.v1.BotsService on {host}:{bound}", flush=True)
    stop = asyncio.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        asyncio.get_running_loop().add_signal_handler(signum, stop.set)
    await stop.wait()
    await server.stop(grace=5)  # let calls in flight finish


if __name__ == "__main__":
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--port", type=int, default=7000, help="0: any free port")
    options.add_argument("--host", default="127.0.0.1")
    arguments = options.parse_args()
    asyncio.run(serve(arguments.port, arguments.host))
