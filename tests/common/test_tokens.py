"""Signed tokens: they round-trip, and a forged, misused or stale token is refused with a reason."""

import base64
import json
import time

import jwt
import pytest
from hypothesis import given
from hypothesis import strategies as st

from maumau.common.tokens import (
    PlayerClaims,
    SeatClaims,
    ServiceClaims,
    TokenError,
    WrongKind,
    bearer,
    bearer_metadata,
    issue_player_token,
    issue_seat_token,
    issue_service_token,
    new_id,
    signing_key,
    verify_player_token,
    verify_seat_token,
    verify_service_token,
)

SECRET = b"test-secret"


def test_each_kind_round_trips() -> None:
    player = issue_player_token(SECRET, "p1", generation=2, ttl_seconds=60, now=1000)
    seat = issue_seat_token(SECRET, "m1", 3, "p1", ttl_seconds=60, now=1000)
    service = issue_service_token(SECRET, "engine")
    assert verify_player_token(SECRET, player, now=1001) == PlayerClaims("p1", 1060, 2)
    assert verify_seat_token(SECRET, seat, now=1001) == SeatClaims("m1", 3, "p1", 1060)
    assert verify_service_token(SECRET, service) == ServiceClaims("engine", None)


def test_tokens_are_standard_jwts_with_an_audience_per_kind() -> None:
    """Third-party clients read them as bearer JWTs: sub, iat, exp and the audience of the kind."""
    token = issue_seat_token(SECRET, "m1", 3, "p1", ttl_seconds=60, now=1000)
    header = json.loads(base64.urlsafe_b64decode(token.split(".")[0] + "=="))
    assert header == {"alg": "HS256", "typ": "JWT"}
    claims = jwt.decode(token, options={"verify_signature": False})
    assert claims == {
        "iss": "maumau",
        "aud": "maumau:seat",
        "sub": "p1",
        "iat": 1000,
        "exp": 1060,
        "mid": "m1",
        "seat": 3,
    }


@given(st.text(), st.integers(min_value=0, max_value=7))
def test_any_ids_round_trip_in_url_safe_text(match_id: str, seat: int) -> None:
    token = issue_seat_token(SECRET, match_id, seat, "p", now=1000)
    assert set(token) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.")
    assert verify_seat_token(SECRET, token, now=1000).match_id == match_id


def _edited(token: str, **changes: object) -> str:
    header, body, signature = token.split(".")
    claims = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    claims.update(changes)
    forged = base64.urlsafe_b64encode(json.dumps(claims).encode()).decode().rstrip("=")
    return f"{header}.{forged}.{signature}"


def test_a_seat_token_edited_to_another_seat_is_refused() -> None:
    """A token for one seat can neither act for nor see the hand of another (docs/architecture.md,
    "Who may do what")."""
    token = issue_seat_token(SECRET, "m1", 0, "p1")
    with pytest.raises(TokenError, match="token signature does not match"):
        verify_seat_token(SECRET, _edited(token, seat=1))


def test_a_token_without_a_signature_is_refused() -> None:
    """The `alg: none` trick: an unsigned token with a player's claims gets nothing."""
    unsigned = jwt.encode(
        {"iss": "maumau", "aud": "maumau:player", "sub": "p1", "iat": 1, "exp": 2**40},
        None,
        algorithm="none",
    )
    with pytest.raises(TokenError, match="malformed"):
        verify_player_token(SECRET, unsigned)


def test_a_token_signed_with_another_secret_is_refused() -> None:
    with pytest.raises(TokenError, match="token signature does not match"):
        verify_player_token(SECRET, issue_player_token(b"other-secret", "p1"))


def test_a_token_of_the_wrong_kind_is_refused() -> None:
    with pytest.raises(WrongKind, match="this is a seat token, a player token is needed"):
        verify_player_token(SECRET, issue_seat_token(SECRET, "m1", 0, "p1"))
    with pytest.raises(WrongKind, match="this is a player token, a service token is needed"):
        verify_service_token(SECRET, issue_player_token(SECRET, "engine"))


def test_a_token_expires_after_its_lifetime() -> None:
    token = issue_player_token(SECRET, "p1", ttl_seconds=60, now=1000)
    assert verify_player_token(SECRET, token, now=1059) == PlayerClaims("p1", 1060)
    with pytest.raises(TokenError, match="player token expired: register again"):
        verify_player_token(SECRET, token, now=1060)


def test_an_expired_token_of_another_kind_is_named_by_its_kind() -> None:
    """Whoever shows an old seat token where either kind would do learns it expired."""
    seat = issue_seat_token(SECRET, "m1", 0, "p1", ttl_seconds=60, now=1000)
    with pytest.raises(TokenError, match="seat token expired"):
        verify_seat_token(SECRET, seat, now=2000)
    with pytest.raises(WrongKind):
        verify_player_token(SECRET, seat, now=2000)


def test_player_and_seat_tokens_always_end() -> None:
    now = time.time()
    assert verify_player_token(SECRET, issue_player_token(SECRET, "p")).expires_at > now
    assert verify_seat_token(SECRET, issue_seat_token(SECRET, "m", 0, "p")).expires_at > now
    endless = jwt.encode(
        {"iss": "maumau", "aud": "maumau:player", "sub": "p1", "iat": 1},
        signing_key(SECRET),
        algorithm="HS256",
    )
    with pytest.raises(TokenError, match="must carry 'exp'"):
        verify_player_token(SECRET, endless)


@pytest.mark.parametrize(
    "token", ["", "abc", "abc.", ".abc", "a.b.c", "e30.!!!", "e30.ä", "a.b.c" * 1000]
)
def test_malformed_text_is_refused(token: str) -> None:
    with pytest.raises(TokenError, match="malformed"):
        verify_player_token(SECRET, token)


def test_new_ids_are_unguessable_url_safe_text() -> None:
    ids = {new_id() for _ in range(1000)}
    assert len(ids) == 1000
    assert all(len(i) == 22 and i.replace("-", "").replace("_", "").isalnum() for i in ids)
    # One in 64 would start with '-', which a command line takes for an option.
    assert not any(i.startswith("-") for i in ids)
    assert all(len(new_id(9)) == 12 for _ in range(100))


class _Call:
    def __init__(self, *metadata: tuple[str, str | bytes]) -> None:
        self.metadata = metadata

    def invocation_metadata(self) -> tuple[tuple[str, str | bytes], ...]:
        return self.metadata


def test_bearer_reads_the_token_that_bearer_metadata_sends() -> None:
    token = issue_player_token(SECRET, "p1")
    assert bearer(_Call(("x-other", "1"), *bearer_metadata(token))) == token


@pytest.mark.parametrize(
    "metadata",
    [(), (("authorization", "Basic abc"),), (("authorization", b"Bearer abc"),), (("x", "y"),)],
)
def test_bearer_refuses_a_call_without_a_bearer_token(
    metadata: tuple[tuple[str, str | bytes], ...],
) -> None:
    with pytest.raises(TokenError, match="authorization: Bearer"):
        bearer(_Call(*metadata))
