"""Signed tokens: they round-trip, and a forged, misused or stale token is refused with a reason."""

import base64
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from maumau.common.tokens import (
    PlayerClaims,
    SeatClaims,
    ServiceClaims,
    TokenError,
    bearer,
    bearer_metadata,
    issue_player_token,
    issue_seat_token,
    issue_service_token,
    new_id,
    verify_player_token,
    verify_seat_token,
    verify_service_token,
)

SECRET = b"test-secret"


def test_each_kind_round_trips() -> None:
    player = issue_player_token(SECRET, "p1")
    seat = issue_seat_token(SECRET, "m1", 3, "p1")
    service = issue_service_token(SECRET, "engine")
    assert verify_player_token(SECRET, player) == PlayerClaims("p1", None)
    assert verify_seat_token(SECRET, seat) == SeatClaims("m1", 3, "p1", None)
    assert verify_service_token(SECRET, service) == ServiceClaims("engine", None)


@given(st.text(), st.integers(min_value=0, max_value=7))
def test_any_ids_round_trip_in_url_safe_text(match_id: str, seat: int) -> None:
    token = issue_seat_token(SECRET, match_id, seat, "p")
    assert set(token) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.")
    assert verify_seat_token(SECRET, token) == SeatClaims(match_id, seat, "p", None)


def test_a_seat_token_edited_to_another_seat_is_refused() -> None:
    """A token for one seat can neither act for nor see the hand of another (ARCHITECTURE.md)."""
    body, mac = issue_seat_token(SECRET, "m1", 0, "p1").split(".")
    claims = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    claims["s"] = 1
    forged = base64.urlsafe_b64encode(json.dumps(claims).encode()).decode().rstrip("=")
    with pytest.raises(TokenError, match="token signature does not match"):
        verify_seat_token(SECRET, f"{forged}.{mac}")


def test_a_token_signed_with_another_secret_is_refused() -> None:
    with pytest.raises(TokenError, match="token signature does not match"):
        verify_player_token(SECRET, issue_player_token(b"other-secret", "p1"))


def test_a_token_of_the_wrong_kind_is_refused() -> None:
    with pytest.raises(TokenError, match="this is a seat token, a player token is needed"):
        verify_player_token(SECRET, issue_seat_token(SECRET, "m1", 0, "p1"))
    with pytest.raises(TokenError, match="this is a player token, a service token is needed"):
        verify_service_token(SECRET, issue_player_token(SECRET, "engine"))


def test_a_token_expires_after_its_lifetime() -> None:
    token = issue_player_token(SECRET, "p1", ttl_seconds=60, now=1000)
    assert verify_player_token(SECRET, token, now=1059) == PlayerClaims("p1", 1060)
    with pytest.raises(TokenError, match="token expired"):
        verify_player_token(SECRET, token, now=1060)


@pytest.mark.parametrize("token", ["", "abc", "abc.", ".abc", "a.b.c", "e30.!!!", "e30.ä"])
def test_malformed_text_is_refused(token: str) -> None:
    with pytest.raises(TokenError, match="malformed"):
        verify_player_token(SECRET, token)


def test_new_ids_are_unguessable_url_safe_text() -> None:
    ids = {new_id() for _ in range(1000)}
    assert len(ids) == 1000
    assert all(len(i) == 22 and i.replace("-", "").replace("_", "").isalnum() for i in ids)


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
