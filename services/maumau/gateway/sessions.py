"""Who the browser is, and the seat tokens it may use without ever seeing them.

The player token lives in an HttpOnly, SameSite=Strict cookie: script cannot read it, and other
sites cannot send it. Seat tokens stay in the gateway: a session names a match, and the gateway
uses the seat token of that session's own seat (from a room, a ticket or ``JoinMatch``, which
hands a seated player a fresh token for their own seat). A player with no seat in a match
follows it as a spectator, with the player token.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

from maumau.common.tokens import TokenError, verify_player_token
from maumau.gateway.upstream import Upstreams, bearer
from maumau.v1 import engine_pb2

COOKIE = "maumau_player"
COOKIE_MAX_AGE = 365 * 24 * 3600
MAX_SEAT_TOKENS = 200_000


@dataclass(frozen=True)
class Session:
    player_id: str
    player_token: str


def session_from_cookie(secret: bytes, cookie: str | None) -> Session | None:
    """The session of a valid player-token cookie, else None."""
    if not cookie:
        return None
    try:
        claims = verify_player_token(secret, cookie)
    except TokenError:
        return None
    return Session(claims.player_id, cookie)


class SeatTokens:
    """Seat tokens by (player, match), the least recently used forgotten first; a forgotten one
    is fetched again from the engine."""

    def __init__(self, upstreams: Upstreams, limit: int = MAX_SEAT_TOKENS) -> None:
        self.upstreams = upstreams
        self.limit = limit
        self.tokens: OrderedDict[tuple[str, str], str] = OrderedDict()

    def remember(self, session: Session, match_id: str, token: str) -> None:
        if not (match_id and token):
            return
        key = (session.player_id, match_id)
        self.tokens.pop(key, None)
        self.tokens[key] = token
        while len(self.tokens) > self.limit:
            self.tokens.popitem(last=False)

    def forget(self, session: Session, match_id: str) -> None:
        self.tokens.pop((session.player_id, match_id), None)

    async def credential(self, session: Session, match_id: str) -> tuple[str, bool]:
        """The token to call the engine with for this match, and whether it is a seat token.
        A player seated there (and not gone) gets their seat's token; anyone else the player
        token, which the engine treats as a spectator."""
        key = (session.player_id, match_id)
        token = self.tokens.get(key)
        if token is not None:
            self.tokens.move_to_end(key)
            return token, True
        timeout = self.upstreams.timeout
        auth = bearer(session.player_token)
        info = (
            await self.upstreams.engine.GetMatch(
                engine_pb2.GetMatchRequest(match_id=match_id), metadata=auth, timeout=timeout
            )
        ).match
        mine = [s for s in info.seat_info if s.player_id == session.player_id and not s.left]
        if not mine:
            return session.player_token, False
        joined = await self.upstreams.engine.JoinMatch(
            engine_pb2.JoinMatchRequest(match_id=match_id, seat=mine[0].seat),
            metadata=auth,
            timeout=timeout,
        )
        self.remember(session, match_id, joined.seat_token)
        return joined.seat_token, True
