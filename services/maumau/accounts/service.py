"""The gRPC adapter of the Accounts service: tokens and requests in, the store and the sign-in
ways behind them, the same signed player tokens out as Players.Register gives.

Every refusal is an :class:`~maumau.accounts.errors.AccountError` with its code; nothing a
caller sends (passwords, codes, tokens, credentials) is ever logged.
"""

from __future__ import annotations

import base64
import json
import re
import secrets
import time
from collections.abc import Callable, Mapping
from typing import Any

import grpc
import prometheus_client

from maumau.accounts import names
from maumau.accounts.attempts import Attempts
from maumau.accounts.errors import AccountError, refusal
from maumau.accounts.export import Services
from maumau.accounts.names import BadUsername
from maumau.accounts.passkeys import RelyingParty
from maumau.accounts.passwords import MAX_LENGTH as MAX_PASSWORD
from maumau.accounts.passwords import BadPassword, Hasher, check_password, normalised
from maumau.accounts.providers import Provider
from maumau.accounts.settings import Settings
from maumau.accounts.store import (
    Account,
    AccountStore,
    Grant,
    challenge_key,
    identity_key,
    look_key,
    name_key,
    passkey_key,
    state_key,
)
from maumau.common import tokens
from maumau.common.players import PlayerDirectory
from maumau.v1 import accounts_pb2 as pb
from maumau.v1 import accounts_pb2_grpc

Context = grpc.aio.ServicerContext[Any, Any]

MAX_DEVICE = 64
MAX_PASSKEY_NAME = 40
MAX_TOKEN_NAME = 40
MAX_CODE = 2048
MAX_USERNAME_TEXT = 256
"""A longer username is no username: it is cut before it is folded, and so matches none."""
ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
CREDENTIAL_ID = re.compile(r"[A-Za-z0-9_-]{1,1400}")
DEFAULT_TOKEN_DAYS = 90

SIGN_INS = prometheus_client.Counter(
    "maumau_accounts_sign_ins_total",
    "Sign-in attempts by way (password, passkey, provider) and outcome (ok, failed, limited).",
    ["way", "outcome"],
)
for _way in ("password", "passkey", "provider"):
    for _outcome in ("ok", "failed", "limited"):
        SIGN_INS.labels(_way, _outcome)

SCOPES = {pb.TOKEN_SCOPE_PLAY: tokens.Scope.PLAY, pb.TOKEN_SCOPE_READ: tokens.Scope.READ}
SCOPE_PB = {scope: number for number, scope in SCOPES.items()}


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class AccountsService(accounts_pb2_grpc.AccountsServiceServicer):
    def __init__(
        self,
        store: AccountStore,
        secret: bytes,
        settings: Settings,
        hasher: Hasher,
        attempts: Attempts,
        party: RelyingParty,
        providers: Mapping[str, Provider],
        services: Services,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.directory = PlayerDirectory(store.redis)
        self.secret = secret
        self.settings = settings
        self.hasher = hasher
        self.attempts = attempts
        self.party = party
        self.providers = dict(providers)
        self.services = services
        self.clock = clock

    # ---------------------------------------------------------------- callers

    async def _caller(self, context: Context) -> tokens.PlayerClaims:
        """The registered player whose own token (not an access token) the call shows."""
        claims = tokens.verify_player_token(
            self.secret, tokens.bearer(context), needs=tokens.Scope.ACCOUNT
        )
        if claims.generation is None or not await self.directory.name(claims.player_id):
            raise refusal("not_a_player")
        return await self.directory.check_token(claims)

    async def _account(self, claims: tokens.PlayerClaims) -> Account:
        account = await self.store.account(claims.player_id)
        if account is None:
            raise refusal("no_account")
        return account

    def _now(self) -> int:
        return int(self.clock())

    def _device(self, text: str, context: Context) -> str:
        if text:
            device = text.strip()
            if len(device) > MAX_DEVICE or not device.isprintable():
                raise refusal("device_text", most=MAX_DEVICE)
            return device
        for key, value in context.invocation_metadata() or ():
            if key == "user-agent" and isinstance(value, str):
                return "".join(c for c in value if c.isprintable())[:MAX_DEVICE]
        return ""

    async def _start_session(
        self, player_id: str, username: str, how: str, device: str, address: str
    ) -> pb.SignedIn:
        """A new session of the account and its first token; beyond ``max_sessions`` the
        oldest sessions end."""
        generation = await self.directory.generation(player_id)
        session = tokens.new_id(12)
        token = tokens.issue_player_token(
            self.secret,
            player_id,
            generation=generation,
            ttl_seconds=self.settings.token_ttl_seconds,
            session=session,
        )
        expires_at = tokens.verify_player_token(self.secret, token).expires_at
        record = {
            "kind": "session",
            "how": how,
            "device": device,
            "address": address,
            "created_at": self._now(),
            "order": time.time_ns(),
        }
        await self.store.add_grant(player_id, session, record, expires_at)
        sessions = [g for g in await self.store.grants(player_id) if g.kind == "session"]
        excess = len(sessions) - self.settings.max_sessions
        if excess > 0:
            await self.store.end_grants(player_id, [g.grant_id for g in sessions[:excess]])
        return pb.SignedIn(
            player_id=player_id,
            username=username,
            player_token=token,
            expires_at=expires_at,
            session_id=session,
        )

    def _account_pb(self, account: Account) -> pb.Account:
        return pb.Account(
            player_id=account.player_id,
            username=account.username,
            created_at=account.created_at,
            has_password=account.password is not None,
            passkeys=[_passkey_pb(c, r) for c, r in sorted(account.passkeys.items())],
            providers=[_link_pb(p, r) for p, r in sorted(account.links.items())],
        )

    # ---------------------------------------------------------------- username and password

    async def Claim(self, request: pb.ClaimRequest, context: Context) -> pb.ClaimResponse:
        claims = await self._caller(context)
        player_id = claims.player_id
        claimed = await self.store.claimed(player_id)
        if claimed is not None:
            raise refusal("already_claimed", name=claimed)
        shown = _username(request.username)
        hashed = None
        if request.password:
            hashed = await self.hasher.hash(_password(request.password))
        device = self._device(request.device, context)
        folded, skeletons = names.folded(shown), list(names.skeletons(shown))
        taken: list[str] = []
        for key in (name_key(folded), *map(look_key, skeletons)):
            if not await self.store.take(key, player_id):
                await self._give_back(taken, player_id)
                raise refusal("username_taken", name=shown)
            taken.append(key)
        if not await self.store.claim(player_id, shown, folded, skeletons, self._now()):
            await self._give_back(taken, player_id)
            raise refusal("already_claimed", name=await self.store.claimed(player_id) or shown)
        if hashed is not None:
            await self.store.set_password(player_id, hashed)
        await self.directory.revoke_tokens(player_id)  # the anonymous tokens end here
        address = self.attempts.address(context)
        signed_in = await self._start_session(player_id, shown, "claim", device, address)
        account = await self._account(claims)
        return pb.ClaimResponse(account=self._account_pb(account), signed_in=signed_in)

    async def _give_back(self, keys: list[str], player_id: str) -> None:
        for key in reversed(keys):
            await self.store.give_back(key, player_id)

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
        password = _password(request.password)
        if account.password is not None:
            await self.attempts.spend(self.attempts.address(context), account.folded)
            if not await self.hasher.verify(account.password, request.current_password):
                raise refusal("password_wrong")
        await self.store.set_password(account.player_id, await self.hasher.hash(password))
        return pb.SetPasswordResponse()

    async def GetAccount(
        self, request: pb.GetAccountRequest, context: Context
    ) -> pb.GetAccountResponse:
        account = await self._account(await self._caller(context))
        return pb.GetAccountResponse(account=self._account_pb(account))

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
            passkey=_passkey_pb(registered.credential_id, record)
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
        return _link_pb(provider, record)

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

    # ---------------------------------------------------------------- sessions

    async def _grants(self, player_id: str, kind: str) -> list[Grant]:
        """The player's live grants of ``kind``; those whose tokens all ended are let go."""
        now = self._now()
        live: list[Grant] = []
        ended: list[Grant] = []
        for grant in await self.store.grants(player_id):
            (ended if grant.until and grant.until <= now else live).append(grant)
        await self.store.end_grants(player_id, [g.grant_id for g in ended])
        return [g for g in live if g.kind == kind]

    async def ListSessions(
        self, request: pb.ListSessionsRequest, context: Context
    ) -> pb.ListSessionsResponse:
        claims = await self._caller(context)
        return pb.ListSessionsResponse(
            sessions=[
                _session_pb(g, g.grant_id == claims.session)
                for g in await self._grants(claims.player_id, "session")
            ]
        )

    async def SignOut(self, request: pb.SignOutRequest, context: Context) -> pb.SignOutResponse:
        claims = await self._caller(context)
        sessions = {g.grant_id for g in await self._grants(claims.player_id, "session")}
        if request.session_id not in sessions:
            raise refusal("session_unknown", session=request.session_id[:40])
        await self.store.end_grants(claims.player_id, [request.session_id])
        return pb.SignOutResponse()

    async def SignOutEverywhere(
        self, request: pb.SignOutEverywhereRequest, context: Context
    ) -> pb.SignOutEverywhereResponse:
        claims = await self._caller(context)
        account = await self._account(claims)
        current = next(
            (g for g in await self.store.grants(claims.player_id) if g.grant_id == claims.session),
            None,
        )
        await self.directory.revoke_tokens(claims.player_id)
        await self.store.end_grants(
            claims.player_id, [g.grant_id for g in await self.store.grants(claims.player_id)]
        )
        how = "renewed" if current is None else str(current.record.get("how", "renewed"))
        device = "" if current is None else str(current.record.get("device", ""))
        signed_in = await self._start_session(
            claims.player_id, account.username, how, device, self.attempts.address(context)
        )
        return pb.SignOutEverywhereResponse(signed_in=signed_in)

    # ---------------------------------------------------------------- access tokens

    async def CreateAccessToken(
        self, request: pb.CreateAccessTokenRequest, context: Context
    ) -> pb.CreateAccessTokenResponse:
        account = await self._account(await self._caller(context))
        name = request.name.strip()
        if not 1 <= len(name) <= MAX_TOKEN_NAME or not name.isprintable():
            raise refusal("token_name", most=MAX_TOKEN_NAME)
        scope = SCOPES.get(request.scope)
        if scope is None:
            raise refusal("token_scope")
        most = self.settings.access_token_max_days
        default = min(DEFAULT_TOKEN_DAYS, most)
        days = request.ttl_days or default
        if not 1 <= days <= most:
            raise refusal("token_days", most=most, default=default)
        if len(await self._grants(account.player_id, "token")) >= self.settings.max_access_tokens:
            raise refusal("token_limit", most=self.settings.max_access_tokens)
        token_id = tokens.new_id(12)
        token = tokens.issue_player_token(
            self.secret,
            account.player_id,
            generation=await self.directory.generation(account.player_id),
            ttl_seconds=days * 86400,
            scope=scope,
            session=token_id,
        )
        expires_at = tokens.verify_player_token(self.secret, token, needs=scope).expires_at
        record = {"kind": "token", "name": name, "scope": scope.value, "created_at": self._now()}
        await self.store.add_grant(account.player_id, token_id, record, expires_at)
        grant = Grant(token_id, "token", record, expires_at)
        return pb.CreateAccessTokenResponse(token=_token_pb(grant), access_token=token)

    async def ListAccessTokens(
        self, request: pb.ListAccessTokensRequest, context: Context
    ) -> pb.ListAccessTokensResponse:
        claims = await self._caller(context)
        grants = await self._grants(claims.player_id, "token")
        return pb.ListAccessTokensResponse(tokens=[_token_pb(g) for g in grants])

    async def RevokeAccessToken(
        self, request: pb.RevokeAccessTokenRequest, context: Context
    ) -> pb.RevokeAccessTokenResponse:
        claims = await self._caller(context)
        held = {g.grant_id for g in await self._grants(claims.player_id, "token")}
        if request.token_id not in held:
            raise refusal("token_unknown", token=request.token_id[:40])
        await self.store.end_grants(claims.player_id, [request.token_id])
        return pb.RevokeAccessTokenResponse()

    # ---------------------------------------------------------------- your data

    async def ExportAccount(
        self, request: pb.ExportAccountRequest, context: Context
    ) -> pb.ExportAccountResponse:
        claims = await self._caller(context)
        account = await self._account(claims)
        grants = await self.store.grants(claims.player_id)
        gathered, unavailable = await self.services.gather(claims.player_id)
        document = {
            "format": "maumau-account-export/1",
            "exported_at": self._now(),
            "account": {
                "player_id": account.player_id,
                "username": account.username,
                "display_name": await self.directory.name(account.player_id),
                "created_at": account.created_at,
                "has_password": account.password is not None,
                "passkeys": [
                    {"credential_id": c, **{k: v for k, v in r.items()}}
                    for c, r in sorted(account.passkeys.items())
                ],
                "providers": [{"provider": p, **r} for p, r in sorted(account.links.items())],
            },
            "sessions": [
                {"session_id": g.grant_id, **g.record, "expires_at": g.until}
                for g in grants
                if g.kind == "session"
            ],
            "access_tokens": [
                {"token_id": g.grant_id, **g.record, "expires_at": g.until}
                for g in grants
                if g.kind == "token"
            ],
            **gathered,
            "unavailable": unavailable,
        }
        return pb.ExportAccountResponse(json=json.dumps(document, indent=2, sort_keys=True))

    async def DeleteAccount(
        self, request: pb.DeleteAccountRequest, context: Context
    ) -> pb.DeleteAccountResponse:
        claims = await self._caller(context)
        account = await self._account(claims)
        typed = request.username.strip()[:MAX_USERNAME_TEXT]
        if names.folded(typed) != account.folded:
            raise refusal("delete_confirm")
        now = self._now()
        cooling_off = self.settings.name_cooling_off_days * 86400
        await self.store.delete(claims.player_id, account, now, cooling_off)
        return pb.DeleteAccountResponse(deleted_at=now, name_free_at=now + cooling_off)


def _username(text: str) -> str:
    try:
        return names.check_username(text[:MAX_USERNAME_TEXT])
    except BadUsername as error:
        raise AccountError(error.code, error.params) from None


def _password(text: str) -> str:
    try:
        return check_password(text)
    except BadPassword as error:
        raise AccountError(error.code, error.params) from None


def _passkey_pb(credential_id: str, record: Mapping[str, Any]) -> pb.Passkey:
    return pb.Passkey(
        credential_id=credential_id,
        name=str(record.get("name", "")),
        created_at=int(record.get("created_at", 0)),
        last_used_at=int(record.get("last_used_at", 0)),
    )


def _link_pb(provider: str, record: Mapping[str, Any]) -> pb.ProviderLink:
    return pb.ProviderLink(
        provider=provider,
        subject=str(record.get("subject", "")),
        email=str(record.get("email", "")),
        linked_at=int(record.get("linked_at", 0)),
    )


def _session_pb(grant: Grant, current: bool) -> pb.DeviceSession:
    return pb.DeviceSession(
        session_id=grant.grant_id,
        how=str(grant.record.get("how", "")),
        device=str(grant.record.get("device", "")),
        address=str(grant.record.get("address", "")),
        signed_in_at=grant.created_at,
        expires_at=grant.until,
        current=current,
    )


def _token_pb(grant: Grant) -> pb.AccessToken:
    scope = tokens.Scope(grant.record.get("scope", "read"))
    return pb.AccessToken(
        token_id=grant.grant_id,
        name=str(grant.record.get("name", "")),
        scope=SCOPE_PB.get(scope, pb.TOKEN_SCOPE_UNSPECIFIED),
        created_at=grant.created_at,
        expires_at=grant.until,
    )
