"""Signing in through an operator's OpenID Connect providers, with authlib.

Authorization code flow with PKCE (RFC 7636, S256), a ``state`` and a ``nonce`` per sign-in:
:meth:`Provider.begin` gives the provider's authorization URL (authlib builds it, the PKCE
challenge and the random values), :meth:`Provider.finish` exchanges the code at the token
endpoint (client_secret_basic) and checks the ID token as OpenID Connect Core 3.1.3.7 asks
(authlib's ``CodeIDToken``: issuer, audience, expiry, nonce, ``at_hash``; the signature with the
provider's keys through joserfc, which authlib uses). The provider's metadata comes from its
``/.well-known/openid-configuration`` and is kept; its keys are read again when a token names a
key not yet seen. HTTP goes through aiohttp, which the gateway uses too.

Nothing secret is logged: neither the client secret, the code, the verifier nor the tokens.
"""

from __future__ import annotations

import asyncio
import base64
import logging
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import aiohttp
from authlib.common.security import generate_token
from authlib.oauth2.rfc6749.parameters import prepare_grant_uri, prepare_token_request
from authlib.oauth2.rfc7636 import create_s256_code_challenge
from authlib.oidc.core import CodeIDToken
from joserfc import jwt
from joserfc.errors import InvalidKeyIdError, JoseError
from joserfc.jwk import KeySet
from joserfc.jws import JWSRegistry

from maumau.accounts.errors import refusal
from maumau.accounts.settings import ProviderConfig

log = logging.getLogger(__name__)

HTTP_SECONDS = 10.0
METADATA_SECONDS = 3600.0
"""How long a provider's discovery document is kept before it is read again."""
LEEWAY_SECONDS = 60


@dataclass(frozen=True)
class Begun:
    url: str
    state: str
    nonce: str
    verifier: str


@dataclass(frozen=True)
class Identity:
    subject: str
    email: str


class Provider:
    """One configured provider; ``session`` is shared by every provider of the service."""

    def __init__(
        self, config: ProviderConfig, redirect_uri: str, session: aiohttp.ClientSession
    ) -> None:
        self.config = config
        self.redirect_uri = redirect_uri
        self._session = session
        self._metadata: dict[str, Any] | None = None
        self._metadata_at = 0.0
        self._keys: dict[str, Any] | None = None
        self._lock = asyncio.Lock()

    @property
    def name(self) -> str:
        return self.config.name

    async def begin(self) -> Begun:
        metadata = await self.metadata()
        state, nonce, verifier = generate_token(43), generate_token(43), generate_token(64)
        url = prepare_grant_uri(
            metadata["authorization_endpoint"],
            self.config.client_id,
            "code",
            redirect_uri=self.redirect_uri,
            scope=" ".join(self.config.scopes),
            state=state,
            nonce=nonce,
            code_challenge=create_s256_code_challenge(verifier),
            code_challenge_method="S256",
        )
        return Begun(str(url), state, nonce, verifier)

    async def finish(self, code: str, nonce: str, verifier: str) -> Identity:
        """The identity the provider vouches for with ``code``; provider_refused if it does
        not, provider_unreachable when it does not answer."""
        metadata = await self.metadata()
        body = prepare_token_request(
            "authorization_code", code=code, redirect_uri=self.redirect_uri, code_verifier=verifier
        )
        answer = await self._request(
            "POST",
            metadata["token_endpoint"],
            data=body,
            headers={
                "Content-Type": "application/x-www-form-urlencoded",
                "Accept": "application/json",
                "Authorization": self._basic(),
            },
        )
        if "error" in answer or "id_token" not in answer:
            why = str(answer.get("error_description") or answer.get("error") or "no ID token")
            raise refusal("provider_refused", provider=self.name, reason=why[:200])
        claims = await self._id_token(answer, nonce, metadata)
        email = claims.get("email") if claims.get("email_verified", True) else None
        return Identity(str(claims["sub"]), email if isinstance(email, str) else "")

    def _basic(self) -> str:
        """client_secret_basic: both parts form-urlencoded first (RFC 6749, 2.3.1)."""
        pair = (
            f"{quote(self.config.client_id, safe='')}:{quote(self.config.client_secret, safe='')}"
        )
        return "Basic " + base64.b64encode(pair.encode()).decode()

    async def _id_token(
        self, answer: dict[str, Any], nonce: str, metadata: dict[str, Any]
    ) -> dict[str, Any]:
        algorithms = metadata.get("id_token_signing_alg_values_supported") or ["RS256"]
        registry = JWSRegistry(algorithms=list(algorithms), strict_check_header=False)
        text = str(answer["id_token"])
        try:
            try:
                token = jwt.decode(text, _key_set(await self.keys()), registry=registry)
            except InvalidKeyIdError:  # a key the provider rotated in since we read them
                keys = await self.keys(again=True)
                token = jwt.decode(text, _key_set(keys), registry=registry)
            params = {
                "nonce": nonce,
                "client_id": self.config.client_id,
                "access_token": answer.get("access_token"),
            }
            claims = CodeIDToken(
                token.claims,
                token.header,
                {"iss": {"essential": True, "values": [metadata["issuer"]]}},
                params,
            )
            claims.validate(now=int(time.time()), leeway=LEEWAY_SECONDS)
        except (JoseError, ValueError, KeyError, TypeError) as error:
            reason = f"its ID token does not verify ({type(error).__name__}: {error})"
            raise refusal("provider_refused", provider=self.name, reason=reason[:200]) from None
        return dict(claims)

    async def metadata(self) -> dict[str, Any]:
        async with self._lock:
            if self._metadata is None or time.monotonic() - self._metadata_at > METADATA_SECONDS:
                url = f"{self.config.issuer}/.well-known/openid-configuration"
                found = await self._request("GET", url)
                if found.get("issuer", "").rstrip("/") != self.config.issuer or not all(
                    isinstance(found.get(k), str)
                    for k in ("authorization_endpoint", "token_endpoint", "jwks_uri")
                ):
                    log.error("provider %s: its discovery document does not fit", self.name)
                    raise refusal("provider_unreachable", provider=self.name)
                self._metadata, self._metadata_at = found, time.monotonic()
            return self._metadata

    async def keys(self, again: bool = False) -> dict[str, Any]:
        if self._keys is None or again:
            metadata = await self.metadata()
            self._keys = await self._request("GET", metadata["jwks_uri"])
        return self._keys

    async def _request(self, method: str, url: str, **options: Any) -> dict[str, Any]:
        try:
            async with self._session.request(
                method, url, timeout=aiohttp.ClientTimeout(total=HTTP_SECONDS), **options
            ) as response:
                answer = await response.json(content_type=None)
        except (aiohttp.ClientError, TimeoutError, ValueError) as error:
            log.warning(
                "provider %s: %s %s failed: %s", self.name, method, url, type(error).__name__
            )
            raise refusal("provider_unreachable", provider=self.name) from None
        if not isinstance(answer, dict):
            raise refusal("provider_unreachable", provider=self.name)
        return answer


def _key_set(keys: Any) -> KeySet:
    """The provider's JWKS document as keys (joserfc checks its shape)."""
    return KeySet.import_key_set(keys)
