"""A passkey authenticator in the test, as a browser's would answer: a real EC P-256 key (the
``cryptography`` package) signs the client data, attestation 'none', the answers in the JSON of
``PublicKeyCredential.toJSON()`` (WebAuthn Level 3, section 5.1), binary as base64url."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import struct
from dataclasses import dataclass, field
from typing import Any

import cbor2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

UP, UV, AT = 0x01, 0x04, 0x40
"""The authenticator data flags: user present, user verified, attested credential data."""


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Passkey:
    """One credential: its id, its private key, the user handle it was made for, its count."""

    credential_id: bytes
    key: ec.EllipticCurvePrivateKey
    rp_id: str
    user_handle: bytes
    sign_count: int = 0


@dataclass
class Authenticator:
    """A platform authenticator holding discoverable credentials."""

    origin: str
    passkeys: list[Passkey] = field(default_factory=list)

    def create(self, options_json: str) -> str:
        """The answer to navigator.credentials.create(options)."""
        options = json.loads(options_json)
        rp_id = options["rp"]["id"]
        passkey = Passkey(
            secrets.token_bytes(32), ec.generate_private_key(ec.SECP256R1()), rp_id,
            unb64(options["user"]["id"]),
        )  # fmt: skip
        self.passkeys.append(passkey)
        numbers = passkey.key.public_key().public_numbers()
        cose = {
            1: 2,
            3: -7,
            -1: 1,
            -2: numbers.x.to_bytes(32, "big"),
            -3: numbers.y.to_bytes(32, "big"),
        }
        attested = bytes(16) + struct.pack(">H", len(passkey.credential_id)) + passkey.credential_id
        data = self._data(rp_id, UP | UV | AT, 0) + attested + cbor2.dumps(cose)
        client = self._client("webauthn.create", options["challenge"])
        attestation = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": data})
        return json.dumps(
            {
                "id": b64(passkey.credential_id),
                "rawId": b64(passkey.credential_id),
                "type": "public-key",
                "response": {
                    "clientDataJSON": b64(client),
                    "attestationObject": b64(attestation),
                    "transports": ["internal"],
                },
                "clientExtensionResults": {},
                "authenticatorAttachment": "platform",
            }
        )

    def get(self, options_json: str, passkey: Passkey | None = None, **tamper: Any) -> str:
        """The answer to navigator.credentials.get(options) with ``passkey`` (default: the
        last made); ``tamper`` changes the signed client data (e.g. origin=...)."""
        options = json.loads(options_json)
        passkey = passkey or self.passkeys[-1]
        passkey.sign_count += 1
        data = self._data(passkey.rp_id, UP | UV, passkey.sign_count)
        client = self._client("webauthn.get", options["challenge"], **tamper)
        signature = passkey.key.sign(
            data + hashlib.sha256(client).digest(), ec.ECDSA(hashes.SHA256())
        )
        return json.dumps(
            {
                "id": b64(passkey.credential_id),
                "rawId": b64(passkey.credential_id),
                "type": "public-key",
                "response": {
                    "clientDataJSON": b64(client),
                    "authenticatorData": b64(data),
                    "signature": b64(signature),
                    "userHandle": b64(passkey.user_handle),
                },
                "clientExtensionResults": {},
                "authenticatorAttachment": "platform",
            }
        )

    def _data(self, rp_id: str, flags: int, count: int) -> bytes:
        return hashlib.sha256(rp_id.encode()).digest() + bytes([flags]) + struct.pack(">I", count)

    def _client(self, kind: str, asked: str, **tamper: Any) -> bytes:
        data = {"type": kind, "challenge": asked, "origin": self.origin, "crossOrigin": False}
        return json.dumps({**data, **tamper}).encode()
