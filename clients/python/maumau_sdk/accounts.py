"""A player's account, from asyncio Python: a username, passwords, sessions and access tokens.

An anonymous player (:meth:`Platform.register`) claims a username and keeps their id, history,
XP and ratings; later, on any device, :meth:`Platform.login` signs in again::

    async with Platform.connect() as platform:
        player = await platform.register("Ada")
        await player.account.claim("ada", password="correct horse battery")
        ...
        again = await platform.login("ada", "correct horse battery", device="laptop")
        for session in await again.account.sessions():
            print(session.device, session.how, session.current)
        token = await again.account.create_access_token("my bot", scope="play")

The answers are the ``maumau.v1`` messages of ``accounts.proto``, documented field by field
there. The account's calls take a sign-in's token (from :meth:`claim`, :meth:`Platform.login`,
or a passkey or provider sign-in), never a personal access token.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from maumau.v1 import accounts_pb2 as pb
from maumau.v1 import arena_pb2

if TYPE_CHECKING:
    from maumau_sdk.client import Player

SCOPES = {
    "play": pb.TOKEN_SCOPE_PLAY,
    "read": pb.TOKEN_SCOPE_READ,
    "bot:play": pb.TOKEN_SCOPE_BOT_PLAY,
}
"""The scopes of a personal access token, by the names the CLI and docs use."""


class Account:
    """The account calls of one player (``player.account``), made with the player's token.

    A call that signs this device in again (:meth:`claim`, :meth:`sign_out_everywhere`) puts the
    new token into ``player.token``: the earlier ones have ended."""

    def __init__(self, player: Player) -> None:
        self.player = player

    async def _send(self, method: str, request: Any, *, safe: bool) -> Any:
        platform = self.player.platform
        token = self.player.token
        return await platform._call(
            lambda: getattr(platform._accounts, method)(
                request,
                metadata=(("authorization", f"Bearer {token}"),),
                timeout=platform.timeout,
                wait_for_ready=True,
            ),
            safe=safe,
        )

    def _signed_in(self, signed_in: pb.SignedIn) -> None:
        self.player.token = signed_in.player_token
        if signed_in.username:
            self.player.name = signed_in.username

    async def claim(self, username: str, *, password: str = "", device: str = "") -> pb.Account:
        """Turn this anonymous player into the account ``username`` (with ``password``, if
        given); the player's earlier tokens end and ``player.token`` is this device's session."""
        request = pb.ClaimRequest(username=username, password=password, device=device)
        reply = await self._send("Claim", request, safe=False)
        self._signed_in(reply.signed_in)
        account: pb.Account = reply.account
        return account

    async def get(self) -> pb.Account:
        """The account: its username and the ways to sign in to it."""
        reply = await self._send("GetAccount", pb.GetAccountRequest(), safe=True)
        account: pb.Account = reply.account
        return account

    async def set_password(self, password: str, *, current_password: str = "") -> None:
        """Set or change the password (``current_password`` when one is set)."""
        request = pb.SetPasswordRequest(password=password, current_password=current_password)
        await self._send("SetPassword", request, safe=False)

    async def sessions(self) -> list[pb.DeviceSession]:
        """Every signed-in device, this one marked ``current``."""
        reply = await self._send("ListSessions", pb.ListSessionsRequest(), safe=True)
        return list(reply.sessions)

    async def sign_out(self, session_id: str) -> None:
        """End one session (another device's, or this one's)."""
        await self._send("SignOut", pb.SignOutRequest(session_id=session_id), safe=True)

    async def sign_out_everywhere(self) -> None:
        """End every session but a new one for this device, whose token ``player.token``
        becomes."""
        reply = await self._send("SignOutEverywhere", pb.SignOutEverywhereRequest(), safe=False)
        self._signed_in(reply.signed_in)

    async def create_access_token(
        self, name: str, *, scope: str = "play", ttl_days: int = 0
    ) -> tuple[pb.AccessToken, str]:
        """A personal access token for a script or client (``scope`` "play", "read", or
        "bot:play" for a bot account's program): its listing and the token itself, which is
        shown this once."""
        if scope not in SCOPES:
            raise ValueError(f"scope must be one of {', '.join(SCOPES)}, not {scope!r}")
        request = pb.CreateAccessTokenRequest(name=name, scope=SCOPES[scope], ttl_days=ttl_days)
        reply = await self._send("CreateAccessToken", request, safe=False)
        return reply.token, reply.access_token

    async def become_bot(self) -> None:
        """Turn this account into a bot account, for good (only one that has played no game
        may): it plays in the arena with its ``bot:play`` access tokens (:meth:`Platform.bot`)."""
        platform = self.player.platform
        token = self.player.token
        await platform._call(
            lambda: platform._arena.BecomeBot(
                arena_pb2.BecomeBotRequest(),
                metadata=(("authorization", f"Bearer {token}"),),
                timeout=platform.timeout,
                wait_for_ready=True,
            ),
            safe=True,
        )

    async def access_tokens(self) -> list[pb.AccessToken]:
        """The account's personal access tokens (never the tokens themselves)."""
        reply = await self._send("ListAccessTokens", pb.ListAccessTokensRequest(), safe=True)
        return list(reply.tokens)

    async def revoke_access_token(self, token_id: str) -> None:
        """End a personal access token at once."""
        request = pb.RevokeAccessTokenRequest(token_id=token_id)
        await self._send("RevokeAccessToken", request, safe=True)

    async def export(self) -> dict[str, Any]:
        """Everything the platform keeps about the account, as the JSON document it answers."""
        reply = await self._send("ExportAccount", pb.ExportAccountRequest(), safe=True)
        exported: dict[str, Any] = json.loads(reply.json)
        return exported

    async def delete(self, username: str) -> None:
        """Delete the account (``username`` typed again to confirm): every way in ends at once."""
        await self._send("DeleteAccount", pb.DeleteAccountRequest(username=username), safe=False)
