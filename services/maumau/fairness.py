"""Provably fair deals, shared by the engine (which deals) and the SDK (which checks a deal):
neither the server nor any player alone chooses the cards.

Before anyone joins, the engine draws a secret server seed and publishes its SHA-256 (the
commitment). Each player may add a nonce when joining. At the start the deal seed is

    deal_seed = SHA-256(server_seed + "|" + nonce_0 + "|" + ... + "|" + nonce_n-1)  (hex)

and the rules core derives every round's shuffle and every reshuffle from it. When the match is
over the server seed is revealed: anyone checks the commitment, recomputes the deal seed and replays
the match with the rules core; every deal and draw must come out as they were seen.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence


def new_server_seed() -> str:
    return secrets.token_hex(32)


def commitment(server_seed: str) -> str:
    """The SHA-256 (hex) of the server seed, published before anyone joins."""
    return hashlib.sha256(server_seed.encode()).hexdigest()


def deal_seed(server_seed: str, nonces: Sequence[str]) -> str:
    """The seed given to the rules core, from the server seed and every seat's nonce."""
    return hashlib.sha256("|".join([server_seed, *nonces]).encode()).hexdigest()


def verify_commitment(server_seed: str, published: str) -> bool:
    return secrets.compare_digest(commitment(server_seed), published)
