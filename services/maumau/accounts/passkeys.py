"""Passkeys (WebAuthn) through the ``webauthn`` library: the options a browser's
``navigator.credentials.create()`` and ``.get()`` take, and the checks of what it answers.

The relying party is the gateway's domain (``rp_id``) and its origins; passkeys are
discoverable (resident keys), so a sign-in names no account: the authenticator offers the
passkeys it holds for the domain, and the answer's user handle is the player id. Attestation is
``none``: the platform trusts the key, not a statement about the device that made it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from webauthn import (
    generate_authentication_options,
    generate_registration_options,
    options_to_json,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url
from webauthn.helpers.exceptions import WebAuthnException
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from maumau.accounts.errors import refusal

MAX_CREDENTIAL_JSON = 16 * 1024


@dataclass(frozen=True)
class Registered:
    credential_id: str
    """base64url, as the browser names it."""
    public_key: str
    """The COSE public key, base64url."""
    sign_count: int


@dataclass(frozen=True)
class Asserted:
    credential_id: str
    user_handle: str
    """The player id the passkey was registered for (as the authenticator keeps it)."""
    new_sign_count: int


@dataclass(frozen=True)
class RelyingParty:
    rp_id: str
    name: str
    origins: tuple[str, ...]
    timeout_ms: int

    def registration(
        self, player_id: str, username: str, challenge: bytes, existing: list[str]
    ) -> str:
        """The creation options (JSON) for a new passkey of the account."""
        options = generate_registration_options(
            rp_id=self.rp_id,
            rp_name=self.name,
            user_name=username,
            user_id=player_id.encode(),
            user_display_name=username,
            challenge=challenge,
            timeout=self.timeout_ms,
            authenticator_selection=AuthenticatorSelectionCriteria(
                resident_key=ResidentKeyRequirement.REQUIRED,
                user_verification=UserVerificationRequirement.PREFERRED,
            ),
            exclude_credentials=[
                PublicKeyCredentialDescriptor(id=base64url_to_bytes(c)) for c in existing
            ],
        )
        return str(options_to_json(options))

    def authentication(self, challenge: bytes) -> str:
        """The request options (JSON) of a sign-in with any passkey of the domain."""
        options = generate_authentication_options(
            rp_id=self.rp_id,
            challenge=challenge,
            timeout=self.timeout_ms,
            user_verification=UserVerificationRequirement.PREFERRED,
        )
        return str(options_to_json(options))

    def registered(self, credential_json: str, challenge: bytes) -> Registered:
        """The new passkey in a browser's answer to ``registration``; passkey_invalid if not."""
        credential = _credential(credential_json)
        try:
            verified = verify_registration_response(
                credential=credential,
                expected_challenge=challenge,
                expected_rp_id=self.rp_id,
                expected_origin=list(self.origins),
            )
        except WebAuthnException as error:
            raise refusal("passkey_invalid", reason=_reason(error)) from None
        except Exception:  # whatever else a hostile answer makes the parsers raise
            raise refusal("passkey_invalid", reason="the credential is malformed") from None
        return Registered(
            bytes_to_base64url(verified.credential_id),
            bytes_to_base64url(verified.credential_public_key),
            verified.sign_count,
        )

    def claimed_passkey(self, credential_json: str) -> tuple[str, str]:
        """The credential id and user handle an assertion names (before it is checked)."""
        credential = _credential(credential_json)
        response = credential.get("response")
        handle = response.get("userHandle") if isinstance(response, dict) else None
        raw = credential.get("rawId") or credential.get("id")
        if not isinstance(raw, str) or not isinstance(handle, str) or not raw or not handle:
            raise refusal("passkey_invalid", reason="the answer names no passkey or no user")
        try:
            return bytes_to_base64url(base64url_to_bytes(raw)), base64url_to_bytes(handle).decode()
        except (ValueError, UnicodeDecodeError):
            raise refusal("passkey_invalid", reason="the answer is not base64url") from None

    def asserted(
        self, credential_json: str, challenge: bytes, public_key: str, sign_count: int
    ) -> int:
        """The new sign count once the assertion verifies with the stored key; passkey_failed
        if it does not."""
        try:
            verified = verify_authentication_response(
                credential=_credential(credential_json),
                expected_challenge=challenge,
                expected_rp_id=self.rp_id,
                expected_origin=list(self.origins),
                credential_public_key=base64url_to_bytes(public_key),
                credential_current_sign_count=sign_count,
            )
        except WebAuthnException as error:
            raise refusal("passkey_failed", reason=_reason(error)) from None
        except Exception:
            raise refusal("passkey_failed", reason="the answer is malformed") from None
        return int(verified.new_sign_count)


def _credential(text: str) -> dict[str, Any]:
    if not text or len(text) > MAX_CREDENTIAL_JSON:
        raise refusal(
            "passkey_invalid", reason=f"credential_json: 1 to {MAX_CREDENTIAL_JSON} characters"
        )
    try:
        parsed = json.loads(text)
    except ValueError:
        raise refusal("passkey_invalid", reason="credential_json is not JSON") from None
    if not isinstance(parsed, dict):
        raise refusal("passkey_invalid", reason="credential_json is not a JSON object")
    return parsed


def _reason(error: Exception) -> str:
    text = str(error).strip() or type(error).__name__
    return text[:200]
