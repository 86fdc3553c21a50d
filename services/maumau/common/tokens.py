"""Signed tokens: any replica of any service checks one with the platform secret alone.

A token is a standard JWT (HS256, PyJWT) that third-party clients can read as a bearer token:
``sub`` the player (or service) it speaks for, ``iat`` and ``exp`` its lifetime, and an audience
per kind (``maumau:player``, ``maumau:seat``, ``maumau:service``), so a token issued for one
purpose is refused for another: a seat token acts for exactly one seat of one match (``mid``,
``seat``), and a player token acts for no seat at all. Player and seat tokens always end; a
player token also carries its player's token generation (``gen``), which the player directory
compares with the one in Redis, so a player can revoke every token of theirs at once.

A player token may also name a grant of its account (``sid``: one sign-in's session or one
personal access token, which the player directory checks is still there, so one of them can be
ended alone) and a scope (``scp``). A token without ``scp`` is a sign-in's own: it may do
everything its player may. A personal access token's scope limits it: ``play`` plays (and
reads), ``read`` only reads, ``bot:play`` (a bot account's) reaches the arena's calls alone (the
Arena service's events, challenges and blocks, and the matchmaker's JoinArena, LeaveArena and
ListArenaPools), which a sign-in's own and a ``play`` token reach too. Every
check of a token names what the call needs (:class:`Scope`, ``play`` unless said otherwise),
so a call that writes refuses a ``read`` token (and every call outside the arena a ``bot:play``
token) with :class:`NotInScope` (PERMISSION_DENIED), whichever kind of token the call wants.

The signing key is derived from the platform secret (HMAC-SHA256 with a fixed label), so the
key always has the length HS256 asks for and the secret itself signs nothing else.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import secrets
import time
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol, TypeVar

import jwt

T = TypeVar("T")

ALGORITHM = "HS256"
ISSUER = "maumau"

PLAYER_TOKEN_TTL_SECONDS = 30 * 86400
"""A player token's lifetime unless its issuer says otherwise (the engine's is a setting)."""

SEAT_TOKEN_TTL_SECONDS = 30 * 86400
"""The longest a seat token lives: longer than any match is played and then kept, so in practice
a seat token ends with its match (the engine answers "expired" once the match is gone)."""

BOTS_TOKEN_TTL_SECONDS = 3600
"""A bots token's lifetime: short, since the engine shows it to third-party bot servers too."""

CLOCK_SKEW_SECONDS = 60
"""A token issued up to this far in the future (by a replica whose clock runs ahead) is taken."""

MAX_TOKEN_CHARACTERS = 4096
"""Longer bearer text is refused before it is decoded."""


class TokenError(ValueError):
    """A token cannot be trusted; the message says why, in words a person can act on."""


class WrongKind(TokenError):
    """A valid token of another kind (a seat token where a player token is needed, ...)."""


class NotInScope(TokenError):
    """A valid personal access token whose scope does not reach the call (PERMISSION_DENIED)."""


class Scope(StrEnum):
    """What a call needs of a player token, and what a personal access token may be given."""

    READ = "read"
    """Looking: views, events, matches, tickets, rooms, parties."""
    PLAY = "play"
    """Everything a player does at the table and around it: create, join, act, queue, enter."""
    BOT_PLAY = "bot:play"
    """The arena: an account's events, challenges and blocks (``maumau.accounts.arena``) and the
    matchmaker's arena pools (JoinArena, LeaveArena, ListArenaPools). A bot account's access
    tokens carry it alone, so a bot queues for no human and changes nothing."""
    ACCOUNT = "account"
    """The account itself (sessions, tokens, sign-in ways, export, delete): only a sign-in's own
    token has it, never a personal access token."""


TOKEN_SCOPES = (Scope.PLAY, Scope.READ, Scope.BOT_PLAY)
"""The scopes a personal access token may carry."""

_GRANTED: dict[Scope | None, frozenset[Scope]] = {
    None: frozenset({Scope.READ, Scope.PLAY, Scope.BOT_PLAY, Scope.ACCOUNT}),
    Scope.PLAY: frozenset({Scope.READ, Scope.PLAY, Scope.BOT_PLAY}),
    Scope.READ: frozenset({Scope.READ}),
    Scope.BOT_PLAY: frozenset({Scope.BOT_PLAY}),
}


def reaches(scope: Scope | None, needs: Scope) -> bool:
    """Whether a player token of ``scope`` (None: a sign-in's own) may make a call needing
    ``needs``.

    >>> reaches(None, Scope.ACCOUNT), reaches(Scope.PLAY, Scope.READ)
    (True, True)
    >>> reaches(Scope.READ, Scope.PLAY), reaches(Scope.PLAY, Scope.ACCOUNT)
    (False, False)
    """
    return needs in _GRANTED[scope]


class TokenKind(StrEnum):
    PLAYER = "player"
    SEAT = "seat"
    SERVICE = "service"
    BOTS = "bots"
    """A platform service asking the Bots service (only it) for decisions: safe to show a
    third-party bot server, which can do nothing else with it."""

    @property
    def audience(self) -> str:
        return f"maumau:{self.value}"


@dataclass(frozen=True)
class PlayerClaims:
    player_id: str
    expires_at: int
    generation: int | None = None
    """The player's token generation when issued; None for a token a platform service made for
    its own short call on the player's behalf (those are never handed to anyone)."""
    scope: Scope | None = None
    """A personal access token's scope; None for a sign-in's own token (every scope)."""
    session: str | None = None
    """The account's grant the token belongs to (a session or a personal access token), which
    must still exist; None for a token of no grant (an anonymous player's, Register's)."""


@dataclass(frozen=True)
class SeatClaims:
    match_id: str
    seat: int
    player_id: str
    expires_at: int


@dataclass(frozen=True)
class ServiceClaims:
    service: str
    expires_at: int | None


def new_id(random_bytes: int = 16) -> str:
    """An unguessable id (128 random bits by default, URL-safe), for matches, players and
    requests; never starting with '-', which a command line would take for an option."""
    while (made := secrets.token_urlsafe(random_bytes)).startswith("-"):
        pass
    return made


def issue_player_token(
    secret: bytes,
    player_id: str,
    *,
    generation: int | None = None,
    ttl_seconds: float = PLAYER_TOKEN_TTL_SECONDS,
    now: float | None = None,
    scope: Scope | None = None,
    session: str | None = None,
) -> str:
    """A token that proves who the player is, but gives no seat; with ``session`` it belongs
    to that grant of the account, with ``scope`` it is limited to it."""
    claims: dict[str, Any] = {} if generation is None else {"gen": generation}
    if session is not None:
        claims["sid"] = session
    if scope is not None:
        claims["scp"] = scope.value
    return _issue(secret, TokenKind.PLAYER, player_id, claims, ttl_seconds, now)


def issue_seat_token(
    secret: bytes,
    match_id: str,
    seat: int,
    player_id: str,
    *,
    ttl_seconds: float = SEAT_TOKEN_TTL_SECONDS,
    now: float | None = None,
) -> str:
    """A token that lets its holder act for, and see the hand of, one seat of one match."""
    claims = {"mid": match_id, "seat": seat}
    return _issue(secret, TokenKind.SEAT, player_id, claims, ttl_seconds, now)


def issue_service_token(
    secret: bytes, service: str, *, ttl_seconds: float | None = None, now: float | None = None
) -> str:
    """A token one service shows another (e.g. the engine asking bots for a move)."""
    return _issue(secret, TokenKind.SERVICE, service, {}, ttl_seconds, now)


def issue_bots_token(
    secret: bytes,
    service: str,
    *,
    ttl_seconds: float = BOTS_TOKEN_TTL_SECONDS,
    now: float | None = None,
) -> str:
    """A token a platform service shows the Bots service (``maumau:bots``), and nothing else."""
    return _issue(secret, TokenKind.BOTS, service, {}, ttl_seconds, now)


Claims = PlayerClaims | SeatClaims | ServiceClaims


def verify_token(
    secret: bytes,
    token: str,
    *kinds: TokenKind,
    now: float | None = None,
    needs: Scope = Scope.PLAY,
) -> Claims:
    """The claims of a token of one of ``kinds`` (decoded once, whichever kind it is) for a call
    that ``needs`` a scope; TokenError says why it cannot be trusted, WrongKind when it is valid
    but of another kind (asking for the first of ``kinds``, the one a person is expected to
    hold), NotInScope when it is a personal access token whose scope does not reach the call."""
    kind, payload = _verify(secret, token, kinds, now, needs)
    if kind == TokenKind.PLAYER:
        generation = payload.get("gen")
        if generation is not None and (type(generation) is not int or generation < 0):
            raise TokenError("token is malformed: claim 'gen' is not a whole number")
        session = payload.get("sid")
        if session is not None and (type(session) is not str or not session):
            raise TokenError("token is malformed: claim 'sid' is not a grant id")
        scope = payload.get("scp")
        return PlayerClaims(
            payload["sub"],
            payload["exp"],
            generation,
            None if scope is None else Scope(scope),
            session,
        )
    if kind == TokenKind.SEAT:
        match_id, seat = _claim(payload, "mid", str), _claim(payload, "seat", int)
        return SeatClaims(match_id, seat, payload["sub"], payload["exp"])
    return ServiceClaims(payload["sub"], payload.get("exp"))


def verify_player_token(
    secret: bytes, token: str, *, now: float | None = None, needs: Scope = Scope.PLAY
) -> PlayerClaims:
    """Who holds this player token, for a call that ``needs`` a scope; TokenError says why it
    cannot be trusted. The generation and the grant are checked against Redis by
    ``maumau.common.players.PlayerDirectory.check_token``."""
    claims = verify_token(secret, token, TokenKind.PLAYER, now=now, needs=needs)
    assert isinstance(claims, PlayerClaims)
    return claims


def verify_seat_token(
    secret: bytes, token: str, *, now: float | None = None, needs: Scope = Scope.PLAY
) -> SeatClaims:
    """Which seat of which match this token acts for; TokenError says why it cannot (a player
    token whose scope does not reach ``needs``: NotInScope)."""
    claims = verify_token(secret, token, TokenKind.SEAT, now=now, needs=needs)
    assert isinstance(claims, SeatClaims)
    return claims


def verify_service_token(secret: bytes, token: str, *, now: float | None = None) -> ServiceClaims:
    """Which service shows this token; TokenError says why it cannot be trusted."""
    claims = verify_token(secret, token, TokenKind.SERVICE, now=now)
    assert isinstance(claims, ServiceClaims)
    return claims


def verify_bots_token(secret: bytes, token: str, *, now: float | None = None) -> ServiceClaims:
    """Which service asks the Bots service; TokenError says why it cannot be trusted."""
    claims = verify_token(secret, token, TokenKind.BOTS, now=now)
    assert isinstance(claims, ServiceClaims)
    return claims


BEARER_PREFIX = "Bearer "


class CallContext(Protocol):
    """What bearer() needs of a call: a ``grpc.aio.ServicerContext`` has it."""

    def invocation_metadata(self) -> Iterable[tuple[str, str | bytes]] | None: ...


def bearer(context: CallContext) -> str:
    """The token the caller sent as ``authorization: Bearer <token>``; TokenError when none."""
    for key, value in context.invocation_metadata() or ():
        if key == "authorization" and isinstance(value, str) and value.startswith(BEARER_PREFIX):
            return value[len(BEARER_PREFIX) :]
    raise TokenError("no token: send 'authorization: Bearer <token>' in the metadata")


def bearer_metadata(token: str) -> tuple[tuple[str, str], ...]:
    """Call metadata that shows ``token``, for a service calling another one."""
    return (("authorization", BEARER_PREFIX + token),)


_KINDS = {kind.audience: kind for kind in TokenKind}


@functools.lru_cache(maxsize=16)
def signing_key(secret: bytes) -> bytes:
    """The HS256 key of every token: derived from the platform secret, 32 bytes long."""
    return hmac.new(secret, b"maumau token signing key v1", hashlib.sha256).digest()


def _issue(
    secret: bytes,
    kind: TokenKind,
    subject: str,
    claims: dict[str, Any],
    ttl_seconds: float | None,
    now: float | None,
) -> str:
    issued = int(time.time() if now is None else now)
    payload: dict[str, Any] = {
        "iss": ISSUER,
        "aud": kind.audience,
        "sub": subject,
        "iat": issued,
        **claims,
    }
    if ttl_seconds is not None:
        payload["exp"] = issued + max(1, int(ttl_seconds))
    return jwt.encode(payload, signing_key(secret), algorithm=ALGORITHM)


def _verify(
    secret: bytes, token: str, kinds: tuple[TokenKind, ...], now: float | None, needs: Scope
) -> tuple[TokenKind, dict[str, Any]]:
    token = token.strip()
    if not token or len(token) > MAX_TOKEN_CHARACTERS or not token.isascii():
        raise TokenError(
            f"token is malformed: expected a JWT of at most {MAX_TOKEN_CHARACTERS} ASCII characters"
        )
    payload = _decoded(secret, token)
    audience = payload.get("aud")
    kind = _KINDS.get(audience) if isinstance(audience, str) else None
    if kind == TokenKind.PLAYER:
        _check_scope(payload, needs)
    if kind not in kinds:
        raise WrongKind(f"this is a {kind or 'foreign'} token, a {kinds[0]} token is needed")
    assert kind is not None
    _claim(payload, "sub", str)
    if kind != TokenKind.SERVICE and "exp" not in payload:  # only in-platform tokens may last
        raise TokenError(f"token is malformed: a {kind} token must carry 'exp'")
    if "exp" in payload:
        expires = _claim(payload, "exp", int)
        if (time.time() if now is None else now) >= expires:
            again = {
                TokenKind.PLAYER: "register again "
                "(PlayersService.RenewToken renews one before it ends)",
                TokenKind.SEAT: "its match is over; join a new match for a new seat token",
                TokenKind.SERVICE: "the service must issue itself a new one",
                TokenKind.BOTS: "the calling service must issue itself a new one",
            }[kind]
            raise TokenError(f"{kind} token expired: {again}")
    return kind, payload


_SCOPES = {scope.value: scope for scope in TOKEN_SCOPES}


def _check_scope(payload: dict[str, Any], needs: Scope) -> None:
    """Refuse a player token whose scope does not reach ``needs``: checked before the kind, so
    a ``read`` token shown where a seat token acts is refused for its scope."""
    text = payload.get("scp")
    if text is None:
        return
    scope = _SCOPES.get(text) if isinstance(text, str) else None
    if scope is None:
        raise TokenError("token is malformed: claim 'scp' is no scope (play, read, bot:play)")
    if not reaches(scope, needs):
        reach = ", ".join(sorted(s.value for s in _GRANTED[scope])) or "nothing yet"
        raise NotInScope(
            f"this personal access token has the scope '{scope}' ({reach}); this call needs "
            f"'{needs}'" + (": sign in for it" if needs == Scope.ACCOUNT else "")
        )


@functools.lru_cache(maxsize=4096)
def _decoded(secret: bytes, token: str) -> dict[str, Any]:
    """A token's claims once its signature, algorithm and claim types are checked; the same
    token is shown again and again (every call of a client), so the answer is remembered.
    Audience and expiry are checked by the caller, every time, so a token of another kind or an
    old one is named as such, not as merely invalid. The claims must not be changed."""
    try:
        return jwt.decode(
            token,
            signing_key(secret),
            algorithms=[ALGORITHM],
            issuer=ISSUER,
            leeway=CLOCK_SKEW_SECONDS,
            options={"verify_aud": False, "verify_exp": False, "require": ["sub", "iat", "aud"]},
        )
    except jwt.InvalidSignatureError:
        raise TokenError(
            "token signature does not match: it was altered or signed elsewhere"
        ) from None
    except jwt.MissingRequiredClaimError as missing:
        raise TokenError(f"token is malformed: claim {missing.claim!r} is missing") from None
    except jwt.PyJWTError as error:
        raise TokenError(f"token is malformed: {error}") from None


def _claim(payload: dict[str, Any], key: str, kind: type[T]) -> T:
    value = payload.get(key)
    if type(value) is not kind:
        raise TokenError(f"token is malformed: claim {key!r} is missing or not a {kind.__name__}")
    return value
