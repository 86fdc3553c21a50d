"""Signed tokens: any replica of any service checks one with the platform secret alone.

A token is `base64url(payload JSON) + "." + base64url(HMAC-SHA256(secret, first part))`. The
payload names its kind, so a token issued for one purpose is refused for another: a seat token
acts for exactly one seat of one match, and a player token acts for no seat at all.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import secrets
import time
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol, TypeVar

T = TypeVar("T")


class TokenError(ValueError):
    """A token cannot be trusted; the message says why, in words a person can act on."""


class TokenKind(StrEnum):
    PLAYER = "player"
    SEAT = "seat"
    SERVICE = "service"


@dataclass(frozen=True)
class PlayerClaims:
    player_id: str
    expires_at: int | None


@dataclass(frozen=True)
class SeatClaims:
    match_id: str
    seat: int
    player_id: str
    expires_at: int | None


@dataclass(frozen=True)
class ServiceClaims:
    service: str
    expires_at: int | None


def new_id() -> str:
    """An unguessable id (128 random bits, URL-safe), for matches, players and requests."""
    return secrets.token_urlsafe(16)


def issue_player_token(
    secret: bytes, player_id: str, *, ttl_seconds: float | None = None, now: float | None = None
) -> str:
    """A token that proves who the player is, but gives no seat."""
    return _issue(secret, TokenKind.PLAYER, {"p": player_id}, ttl_seconds, now)


def issue_seat_token(
    secret: bytes,
    match_id: str,
    seat: int,
    player_id: str,
    *,
    ttl_seconds: float | None = None,
    now: float | None = None,
) -> str:
    """A token that lets its holder act for, and see the hand of, one seat of one match."""
    claims = {"m": match_id, "s": seat, "p": player_id}
    return _issue(secret, TokenKind.SEAT, claims, ttl_seconds, now)


def issue_service_token(
    secret: bytes, service: str, *, ttl_seconds: float | None = None, now: float | None = None
) -> str:
    """A token one service shows another (e.g. the engine asking bots for a move)."""
    return _issue(secret, TokenKind.SERVICE, {"n": service}, ttl_seconds, now)


def verify_player_token(secret: bytes, token: str, *, now: float | None = None) -> PlayerClaims:
    """Who holds this player token; TokenError says why it cannot be trusted."""
    payload = _verify(secret, token, TokenKind.PLAYER, now)
    return PlayerClaims(_field(payload, "p", str), payload.get("e"))


def verify_seat_token(secret: bytes, token: str, *, now: float | None = None) -> SeatClaims:
    """Which seat of which match this token acts for; TokenError says why it cannot."""
    payload = _verify(secret, token, TokenKind.SEAT, now)
    return SeatClaims(
        _field(payload, "m", str),
        _field(payload, "s", int),
        _field(payload, "p", str),
        payload.get("e"),
    )


def verify_service_token(secret: bytes, token: str, *, now: float | None = None) -> ServiceClaims:
    """Which service shows this token; TokenError says why it cannot be trusted."""
    payload = _verify(secret, token, TokenKind.SERVICE, now)
    return ServiceClaims(_field(payload, "n", str), payload.get("e"))


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


def _issue(
    secret: bytes,
    kind: TokenKind,
    claims: dict[str, Any],
    ttl_seconds: float | None,
    now: float | None,
) -> str:
    payload = {"k": kind.value, **claims}
    if ttl_seconds is not None:
        payload["e"] = int((time.time() if now is None else now) + ttl_seconds)
    body = _b64encode(json.dumps(payload, separators=(",", ":"), sort_keys=True).encode())
    return f"{body}.{_b64encode(_mac(secret, body))}"


def _verify(secret: bytes, token: str, kind: TokenKind, now: float | None) -> dict[str, Any]:
    body, dot, mac_text = token.strip().partition(".")
    if not dot or not body or not mac_text:
        raise TokenError("token is malformed: expected two parts separated by '.'")
    if not token.isascii():
        raise TokenError("token is malformed: it holds characters that are not base64url")
    if not hmac.compare_digest(_mac(secret, body), _b64decode(mac_text)):
        raise TokenError("token signature does not match: it was altered or signed elsewhere")
    try:
        payload = json.loads(_b64decode(body))
    except ValueError:
        payload = None
    if not isinstance(payload, dict):
        raise TokenError("token is malformed: its payload is not a JSON object")
    if payload.get("k") != kind:
        raise TokenError(f"this is a {payload.get('k')} token, a {kind} token is needed")
    if "e" in payload and (time.time() if now is None else now) >= _field(payload, "e", int):
        raise TokenError("token expired: ask for a new one")
    return payload


def _field(payload: dict[str, Any], key: str, kind: type[T]) -> T:
    value = payload.get(key)
    if not isinstance(value, kind):
        raise TokenError(f"token is malformed: field {key!r} is missing or not a {kind.__name__}")
    return value


def _mac(secret: bytes, body: str) -> bytes:
    return hmac.new(secret, body.encode("ascii"), hashlib.sha256).digest()


def _b64encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _b64decode(text: str) -> bytes:
    try:
        return base64.b64decode(text + "=" * (-len(text) % 4), altchars=b"-_", validate=True)
    except (binascii.Error, ValueError):
        raise TokenError("token is malformed: a part is not base64url text") from None
