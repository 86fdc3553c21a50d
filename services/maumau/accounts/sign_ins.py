"""The ways to sign in to an account: a password, passkeys (WebAuthn) and identity providers
(OpenID Connect), each set up, used and removed here; every sign-in is counted by way and
outcome, and each starts a session as :class:`~maumau.accounts.callers.Callers` does.

Apart from the account's own calls (``service``), as each way brings its own challenge, limits
and proofs.
"""

from __future__ import annotations

import base64
import re
import secrets

import prometheus_client

from maumau.accounts import names
from maumau.accounts.callers import (
    MAX_USERNAME_TEXT,
    Callers,
    Context,
    checked_password,
    link_pb,
    passkey_pb,
)
from maumau.accounts.errors import AccountError, refusal
from maumau.accounts.passwords import MAX_LENGTH as MAX_PASSWORD
from maumau.accounts.passwords import normalised
from maumau.accounts.providers import Provider
from maumau.accounts.store import challenge_key, identity_key, name_key, passkey_key, state_key
from maumau.common import tokens
from maumau.v1 import accounts_pb2 as pb

MAX_PASSKEY_NAME = 40
MAX_CODE = 2048
ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
CREDENTIAL_ID = re.compile(r"[A-Za-z0-9_-]{1,1400}")

SIGN_INS = prometheus_client.Counter(
    "maumau_accounts_sign_ins_total",
    "Sign-in attempts by way (password, passkey, provider) and outcome (ok, failed, limited).",
    ["way", "outcome"],
)
for _way in ("password", "passkey", "provider"):
    for _outcome in ("ok", "failed", "limited"):
        SIGN_INS.labels(_way, _outcome)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class SignInWays(Callers):
    """The calls of the sign-in ways: a password, passkeys and identity providers."""

    # ---------------------------------------------------------------- password

    async def SignIn(self, request: pb.SignInRequest, context: Context) -> pb.SignInResponse:
        address = self.attempts.address(context)
        device = self._device(request.device, context)
        folded = names.folded(request.username.strip()[:MAX_USERNAME_TEXT])
        try:
            await self.attempts.spend(address, folded)
        except AccountError:
            SIGN_INS.labels("password", "limited").inc()
            raise
        owner = await self.store.owner(name_key(folded)) if folded else None
        # The same reads and the same hashing whether the name is known or not.
        account = await self.store.account(owner or "-")
        stored = None if account is None else account.password
        if not await self.hasher.verify(stored, request.password[: MAX_PASSWORD * 4]):
            SIGN_INS.labels("password", "failed").inc()
            raise refusal("sign_in_failed")
        assert account is not None and stored is not None
        if self.hasher.needs_rehash(stored):
            rehashed = await self.hasher.hash(normalised(request.password))
            await self.store.set_password(account.player_id, rehashed)
        SIGN_INS.labels("password", "ok").inc()
        signed_in = await self._start_session(
            account.player_id, account.username, "password", device, address
        )
        return pb.SignInResponse(signed_in=signed_in)

    async def SetPassword(
        self, request: pb.SetPasswordRequest, context: Context
    ) -> pb.SetPasswordResponse:
        account = await self._account(await self._caller(context))
        password = checked_password(request.password)
        if account.password is not None:
            await self.attempts.spend(self.attempts.address(context), account.folded)
            if not await self.hasher.verify(account.password, request.current_password):
                raise refusal("password_wrong")
        await self.store.set_password(account.player_id, await self.hasher.hash(password))
        return pb.SetPasswordResponse()

    # ---------------------------------------------------------------- passkeys

    async def _challenge(self, purpose: str, player_id: str = "") -> tuple[str, bytes]:
        challenge_id, challenge = tokens.new_id(), secrets.token_bytes(32)
        record = {"purpose": purpose, "player_id": player_id, "challenge": _b64(challenge)}
        await self.store.put_once(
            challenge_key(challenge_id), record, self.settings.challenge_seconds
        )
        return challenge_id, challenge

    async def _take_challenge(self, challenge_id: str, purpose: str, player_id: str) -> bytes:
        record = None
        if ID.fullmatch(challenge_id):
            record = await self.store.take_once(challenge_key(challenge_id))
        if (
            record is None
            or record.get("purpose") != purpose
            or record.get("player_id") != player_id
        ):
            raise refusal("challenge_unknown", seconds=self.settings.challenge_seconds)
        return _unb64(str(record["challenge"]))

    async def BeginPasskeyRegistration(
        self, request: pb.BeginPasskeyRegistrationRequest, context: Context
    ) -> pb.BeginPasskeyRegistrationResponse:
        account = await self._account(await self._caller(context))
        if len(account.passkeys) >= self.settings.max_passkeys:
            raise refusal("passkey_limit", most=self.settings.max_passkeys)
        challenge_id, challenge = await self._challenge("register", account.player_id)
        options = self.party.registration(
            account.player_id, account.username, challenge, list(account.passkeys)
        )
        return pb.BeginPasskeyRegistrationResponse(challenge_id=challenge_id, options_json=options)

    async def FinishPasskeyRegistration(
        self, request: pb.FinishPasskeyRegistrationRequest, context: Context
    ) -> pb.FinishPasskeyRegistrationResponse:
        account = await self._account(await self._caller(context))
        name = request.name.strip()
        if len(name) > MAX_PASSKEY_NAME or not name.isprintable():
            raise refusal("passkey_name", most=MAX_PASSKEY_NAME)
        challenge = await self._take_challenge(request.challenge_id, "register", account.player_id)
        registered = self.party.registered(request.credential_json, challenge)
        if len(account.passkeys) >= self.settings.max_passkeys:
            raise refusal("passkey_limit", most=self.settings.max_passkeys)
        if not await self.store.take(passkey_key(registered.credential_id), account.player_id):
            raise refusal("passkey_taken")
        record = {
            "public_key": registered.public_key,
            "sign_count": registered.sign_count,
            "name": name or f"passkey {len(account.passkeys) + 1}",
            "created_at": self._now(),
            "last_used_at": 0,
        }
        await self.store.set_field(account.player_id, "passkey:" + registered.credential_id, record)
        return pb.FinishPasskeyRegistrationResponse(
            passkey=passkey_pb(registered.credential_id, record)
        )

    async def BeginPasskeySignIn(
        self, request: pb.BeginPasskeySignInRequest, context: Context
    ) -> pb.BeginPasskeySignInResponse:
        await self.attempts.spend(self.attempts.address(context), None)
        challenge_id, challenge = await self._challenge("sign-in")
        options = self.party.authentication(challenge)
        return pb.BeginPasskeySignInResponse(challenge_id=challenge_id, options_json=options)

    async def FinishPasskeySignIn(
        self, request: pb.FinishPasskeySignInRequest, context: Context
    ) -> pb.FinishPasskeySignInResponse:
        address = self.attempts.address(context)
        device = self._device(request.device, context)
        try:
            await self.attempts.spend(address, None)
        except AccountError:
            SIGN_INS.labels("passkey", "limited").inc()
            raise
        challenge = await self._take_challenge(request.challenge_id, "sign-in", "")
        try:
            credential_id, handle = self.party.claimed_passkey(request.credential_json)
            owner = await self.store.owner(passkey_key(credential_id))
            account = None if owner != handle else await self.store.account(handle)
            stored = None if account is None else account.passkeys.get(credential_id)
            if account is None or stored is None:
                raise refusal("passkey_failed", reason="this passkey is not registered here")
            count = self.party.asserted(
                request.credential_json,
                challenge,
                str(stored["public_key"]),
                int(stored.get("sign_count", 0)),
            )
        except AccountError:
            SIGN_INS.labels("passkey", "failed").inc()
            raise
        record = {**stored, "sign_count": count, "last_used_at": self._now()}
        await self.store.set_field(account.player_id, "passkey:" + credential_id, record)
        SIGN_INS.labels("passkey", "ok").inc()
        signed_in = await self._start_session(
            account.player_id, account.username, "passkey", device, address
        )
        return pb.FinishPasskeySignInResponse(signed_in=signed_in)

    async def RemovePasskey(
        self, request: pb.RemovePasskeyRequest, context: Context
    ) -> pb.RemovePasskeyResponse:
        account = await self._account(await self._caller(context))
        credential = request.credential_id
        if not CREDENTIAL_ID.fullmatch(credential) or credential not in account.passkeys:
            raise refusal("passkey_unknown", credential=credential[:40])
        if account.ways <= 1:
            raise refusal("last_way")
        await self.store.remove_field(account.player_id, "passkey:" + credential)
        await self.store.give_back(passkey_key(credential), account.player_id)
        return pb.RemovePasskeyResponse()

    # ---------------------------------------------------------------- identity providers

    def _provider(self, name: str) -> Provider:
        provider = self.providers.get(name)
        if provider is None:
            allowed = ", ".join(sorted(self.providers)) or "none is configured"
            raise refusal("provider_unknown", name=name[:40], allowed=allowed)
        return provider

    async def ListProviders(
        self, request: pb.ListProvidersRequest, context: Context
    ) -> pb.ListProvidersResponse:
        return pb.ListProvidersResponse(
            providers=[
                pb.Provider(name=p.name, display_name=p.config.display_name)
                for p in self.providers.values()
            ]
        )

    async def BeginProviderSignIn(
        self, request: pb.BeginProviderSignInRequest, context: Context
    ) -> pb.BeginProviderSignInResponse:
        provider = self._provider(request.provider)
        player_id = ""
        if request.link:
            player_id = (await self._account(await self._caller(context))).player_id
        else:
            await self.attempts.spend(self.attempts.address(context), None)
        begun = await provider.begin()
        record = {
            "provider": provider.name,
            "nonce": begun.nonce,
            "verifier": begun.verifier,
            "player_id": player_id,
        }
        await self.store.put_once(state_key(begun.state), record, self.settings.challenge_seconds)
        return pb.BeginProviderSignInResponse(authorization_url=begun.url, state=begun.state)

    async def FinishProviderSignIn(
        self, request: pb.FinishProviderSignInRequest, context: Context
    ) -> pb.FinishProviderSignInResponse:
        address = self.attempts.address(context)
        device = self._device(request.device, context)
        if not request.error and not 1 <= len(request.code) <= MAX_CODE:
            raise refusal("provider_code", most=MAX_CODE)
        record = None
        if 1 <= len(request.state) <= 128 and ID.fullmatch(request.state):
            record = await self.store.take_once(state_key(request.state))
        if record is None or record.get("provider") not in self.providers:
            raise refusal("provider_state", seconds=self.settings.challenge_seconds)
        provider = self.providers[str(record["provider"])]
        if request.error:
            SIGN_INS.labels("provider", "failed").inc()
            why = "".join(c for c in request.error[:100] if c.isprintable())
            raise refusal("provider_refused", provider=provider.name, reason=why)
        linking = str(record.get("player_id") or "")
        if linking:
            claims = await self._caller(context)
            if claims.player_id != linking:
                raise refusal("provider_not_your_link", provider=provider.name)
        try:
            identity = await provider.finish(request.code, record["nonce"], record["verifier"])
        except AccountError:
            SIGN_INS.labels("provider", "failed").inc()
            raise
        if linking:
            return pb.FinishProviderSignInResponse(
                linked=await self._link(linking, provider.name, identity.subject, identity.email)
            )
        owner = await self.store.owner(identity_key(provider.name, identity.subject))
        account = None if owner is None else await self.store.account(owner)
        link = None if account is None else account.links.get(provider.name)
        if account is None or link is None or link.get("subject") != identity.subject:
            SIGN_INS.labels("provider", "failed").inc()
            raise refusal("provider_not_linked", provider=provider.name)
        SIGN_INS.labels("provider", "ok").inc()
        signed_in = await self._start_session(
            account.player_id, account.username, f"provider:{provider.name}", device, address
        )
        return pb.FinishProviderSignInResponse(signed_in=signed_in)

    async def _link(
        self, player_id: str, provider: str, subject: str, email: str
    ) -> pb.ProviderLink:
        account = await self.store.account(player_id)
        if account is None:
            raise refusal("no_account")
        if not await self.store.take(identity_key(provider, subject), player_id):
            raise refusal("provider_linked_elsewhere", provider=provider)
        earlier = account.links.get(provider)
        if earlier is not None and earlier.get("subject") != subject:
            await self.store.give_back(identity_key(provider, str(earlier["subject"])), player_id)
        record = {"subject": subject, "email": email, "linked_at": self._now()}
        await self.store.set_field(player_id, "link:" + provider, record)
        return link_pb(provider, record)

    async def UnlinkProvider(
        self, request: pb.UnlinkProviderRequest, context: Context
    ) -> pb.UnlinkProviderResponse:
        account = await self._account(await self._caller(context))
        link = account.links.get(request.provider)
        if link is None:
            allowed = ", ".join(sorted(account.links)) or "none is linked"
            raise refusal("provider_unknown", name=request.provider[:40], allowed=allowed)
        if account.ways <= 1:
            raise refusal("last_way")
        await self.store.remove_field(account.player_id, "link:" + request.provider)
        await self.store.give_back(
            identity_key(request.provider, str(link.get("subject"))), account.player_id
        )
        return pb.UnlinkProviderResponse()
