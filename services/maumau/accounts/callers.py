"""What every call of the Accounts service stands on: the caller's own token checked against the
player directory, the caller's account, a new session with its first token (a claim and every
sign-in way start one), and the account and its ways as messages.

``sign_ins`` (the ways to sign in) and ``service`` (the account's own calls) build on
:class:`Callers`; nothing a caller sends is logged here either.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

import grpc

from maumau.accounts import names
from maumau.accounts.attempts import Attempts
from maumau.accounts.errors import AccountError, refusal
from maumau.accounts.export import Services
from maumau.accounts.names import BadUsername
from maumau.accounts.passkeys import RelyingParty
from maumau.accounts.passwords import BadPassword, Hasher, check_password
from maumau.accounts.providers import Provider
from maumau.accounts.settings import Settings
from maumau.accounts.store import Account, AccountStore
from maumau.common import tokens
from maumau.common.players import PlayerDirectory
from maumau.v1 import accounts_pb2 as pb

Context = grpc.aio.ServicerContext[Any, Any]

MAX_DEVICE = 64
MAX_USERNAME_TEXT = 256
"""A longer username is no username: it is cut before it is folded, and so matches none."""


class Callers:
    """The state and helpers the Accounts service's calls share."""

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
            passkeys=[passkey_pb(c, r) for c, r in sorted(account.passkeys.items())],
            providers=[link_pb(p, r) for p, r in sorted(account.links.items())],
        )


def checked_username(text: str) -> str:
    try:
        return names.check_username(text[:MAX_USERNAME_TEXT])
    except BadUsername as error:
        raise AccountError(error.code, error.params) from None


def checked_password(text: str) -> str:
    try:
        return check_password(text)
    except BadPassword as error:
        raise AccountError(error.code, error.params) from None


def passkey_pb(credential_id: str, record: Mapping[str, Any]) -> pb.Passkey:
    return pb.Passkey(
        credential_id=credential_id,
        name=str(record.get("name", "")),
        created_at=int(record.get("created_at", 0)),
        last_used_at=int(record.get("last_used_at", 0)),
    )


def link_pb(provider: str, record: Mapping[str, Any]) -> pb.ProviderLink:
    return pb.ProviderLink(
        provider=provider,
        subject=str(record.get("subject", "")),
        email=str(record.get("email", "")),
        linked_at=int(record.get("linked_at", 0)),
    )
