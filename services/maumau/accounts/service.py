"""The gRPC adapter of the Accounts service: tokens and requests in, the store and the sign-in
ways behind them, the same signed player tokens out as PlayersService.Register gives.

Every refusal is an :class:`~maumau.accounts.errors.AccountError` with its code; nothing a
caller sends (passwords, codes, tokens, credentials) is ever logged.

The calls of the account itself are here; the ways to sign in (password, passkeys, identity
providers) are in ``sign_ins``, and what every call stands on in ``callers``.
"""

from __future__ import annotations

import json

from maumau.accounts import names
from maumau.accounts.callers import MAX_USERNAME_TEXT, Context, checked_password, checked_username
from maumau.accounts.errors import refusal
from maumau.accounts.sign_ins import SignInWays
from maumau.accounts.store import Grant, look_key, name_key
from maumau.common import tokens
from maumau.common.players import is_bot
from maumau.v1 import accounts_pb2 as pb
from maumau.v1 import accounts_pb2_grpc

MAX_TOKEN_NAME = 40
DEFAULT_TOKEN_DAYS = 90

SCOPES = {
    pb.TOKEN_SCOPE_PLAY: tokens.Scope.PLAY,
    pb.TOKEN_SCOPE_READ: tokens.Scope.READ,
    pb.TOKEN_SCOPE_BOT_PLAY: tokens.Scope.BOT_PLAY,
}
SCOPE_PB = {scope: number for number, scope in SCOPES.items()}


class AccountsService(SignInWays, accounts_pb2_grpc.AccountsServiceServicer):
    """The account's own calls (claim a name, read it, sessions, access tokens, export and
    delete) beside the sign-in ways it inherits."""

    # ---------------------------------------------------------------- the account

    async def Claim(self, request: pb.ClaimRequest, context: Context) -> pb.ClaimResponse:
        claims = await self._caller(context)
        player_id = claims.player_id
        claimed = await self.store.claimed(player_id)
        if claimed is not None:
            raise refusal("already_claimed", name=claimed)
        shown = checked_username(request.username)
        hashed = None
        if request.password:
            hashed = await self.hasher.hash(checked_password(request.password))
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

    async def GetAccount(
        self, request: pb.GetAccountRequest, context: Context
    ) -> pb.GetAccountResponse:
        account = await self._account(await self._caller(context))
        shown = self._account_pb(account)
        shown.bot = await is_bot(self.store.redis, account.player_id)
        return pb.GetAccountResponse(account=shown)

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
        if scope == tokens.Scope.BOT_PLAY and not await is_bot(self.store.redis, account.player_id):
            raise refusal("bot_token_not_bot")
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
