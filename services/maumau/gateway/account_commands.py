"""The commands of an account, from the Accounts service: claim the browser's anonymous player,
sign in (password, passkey, identity provider), the account's password, sessions, passkeys,
providers and access tokens, export, delete and sign out.

Every sign-in ends in the same HttpOnly, SameSite=Strict cookie as a registration: the player
token never reaches script. WebAuthn options and credentials pass through as JSON; the relying
party (``MAUMAU_ACCOUNTS_RP_ID``, ``MAUMAU_ACCOUNTS_ORIGINS``) must be this page's origin. The
provider's redirect lands on the web client's ``/auth/callback`` page, which posts the code and
state back here: the provider's cross-site redirect carries no Strict cookie, a same-origin post
does (and a link needs the account's cookie). Refusals carry the Accounts service's stable code
and its text in the page's language.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import grpc
from aiohttp import web
from google.protobuf.message import Message

from maumau.common.quotas import FORWARDED_FOR, RELAY
from maumau.gateway.context import (
    RELAY_TOKEN,
    SETTINGS,
    UPSTREAMS,
    address_of,
    lang_of,
    reply,
    session_of,
)
from maumau.gateway.inputs import body_of, require_session, timeout_of
from maumau.gateway.sessions import COOKIE, COOKIE_MAX_AGE
from maumau.gateway.upstream import Refusal, bearer, from_rpc, localized_text, refusal, to_json
from maumau.v1 import accounts_pb2 as pb

Answer = TypeVar("Answer", bound=Message)

MAX_TEXT = 4096
"""The longest text field a command takes (a WebAuthn credential's JSON is well under)."""

SCOPES = {"play": pb.TOKEN_SCOPE_PLAY, "read": pb.TOKEN_SCOPE_READ}
SCOPE_NAMES = {value: name for name, value in SCOPES.items()}

BROWSERS = (("Edg/", "Edge"), ("Firefox/", "Firefox"), ("Chrome/", "Chrome"), ("Safari/", "Safari"))
SYSTEMS = (("Android", "Android"), ("iPhone", "iOS"), ("iPad", "iOS"), ("Windows", "Windows"),
           ("Mac OS", "macOS"), ("Linux", "Linux"))  # fmt: skip


def device_of(agent: str) -> str:
    """How a browser is listed among the sessions ("Firefox on Linux"): from its user agent,
    named by the two words a person recognises, never the whole header."""
    browser = next((name for mark, name in BROWSERS if mark in agent), "Browser")
    system = next((name for mark, name in SYSTEMS if mark in agent), "")
    return f"{browser} on {system}" if system else browser


def text(request: web.Request, data: dict[str, Any], name: str, required: bool = True) -> str:
    """``data[name]`` as a string of at most :data:`MAX_TEXT` characters ("" when optional and
    missing); the service judges what it holds."""
    value = data.get(name, None if required else "")
    if not isinstance(value, str) or len(value) > MAX_TEXT:
        detail = f"'{name}' must be a string of at most {MAX_TEXT} characters"
        raise refusal("INVALID_ARGUMENT", lang_of(request), detail, "bad_field")
    return value


def account_refusal(error: grpc.aio.AioRpcError, lang: str) -> Refusal:
    """The Accounts service's refusal in its own words in ``lang`` (the ``LocalizedMessage`` it
    sends in the language the call asked for); other errors as any service's."""
    refused = from_rpc(error, lang)
    text = localized_text(error, lang) if refused.code else None
    if text is not None:
        refused.message = text
    return refused


async def call(
    request: web.Request,
    method: Callable[..., Awaitable[Answer]],
    message: Message,
    token: str | None = None,
) -> Answer:
    """One call of the Accounts service for this browser: its token (if any), its address (for
    the service's sign-in limits, vouched for by the gateway's service token) and its language."""
    metadata = [
        (FORWARDED_FOR, address_of(request)),
        (RELAY, request.app[RELAY_TOKEN]),
        ("accept-language", lang_of(request)),
    ]
    if token is not None:
        metadata.extend(bearer(token))
    try:
        return await method(message, metadata=tuple(metadata), timeout=timeout_of(request))
    except grpc.aio.AioRpcError as error:
        raise account_refusal(error, lang_of(request)) from None


def own_token(request: web.Request) -> str:
    return require_session(request).player_token


def signed_in_reply(request: web.Request, signed_in: pb.SignedIn, body: Any = None) -> web.Response:
    """The answer of a sign-in: the player and username for the page, the token in the cookie."""
    response = reply(body or {"player_id": signed_in.player_id, "username": signed_in.username})
    response.set_cookie(
        COOKIE,
        signed_in.player_token,
        max_age=COOKIE_MAX_AGE,
        path="/",
        httponly=True,
        samesite="Strict",
        secure=request.app[SETTINGS].cookie_secure,
    )
    return response


def signed_out_reply(body: Any) -> web.Response:
    response = reply(body)
    response.del_cookie(COOKIE, path="/")
    return response


def accounts(request: web.Request) -> Any:
    return request.app[UPSTREAMS].accounts


async def claim(request: web.Request) -> web.Response:
    """Turn this browser's anonymous player into an account (a password is optional: a passkey
    may follow at once)."""
    token = own_token(request)
    data = await body_of(request)
    message = pb.ClaimRequest(
        username=text(request, data, "username"),
        password=text(request, data, "password", required=False),
        device=device_of(request.headers.get("User-Agent", "")),
    )
    answer = await call(request, accounts(request).Claim, message, token)
    return signed_in_reply(request, answer.signed_in, {"account": to_json(answer.account)})


async def sign_in(request: web.Request) -> web.Response:
    data = await body_of(request)
    message = pb.SignInRequest(
        username=text(request, data, "username"),
        password=text(request, data, "password"),
        device=device_of(request.headers.get("User-Agent", "")),
    )
    answer = await call(request, accounts(request).SignIn, message)
    return signed_in_reply(request, answer.signed_in)


async def set_password(request: web.Request) -> web.Response:
    """Set the account's password, or change it (the current one is needed then)."""
    token = own_token(request)
    data = await body_of(request)
    message = pb.SetPasswordRequest(
        password=text(request, data, "password"),
        current_password=text(request, data, "current_password", required=False),
    )
    await call(request, accounts(request).SetPassword, message, token)
    return reply({})


async def get_account(request: web.Request) -> web.Response:
    answer = await call(
        request, accounts(request).GetAccount, pb.GetAccountRequest(), own_token(request)
    )
    return reply(to_json(answer.account))


async def begin_passkey_registration(request: web.Request) -> web.Response:
    answer = await call(
        request,
        accounts(request).BeginPasskeyRegistration,
        pb.BeginPasskeyRegistrationRequest(),
        own_token(request),
    )
    return reply({"challenge_id": answer.challenge_id, "options": json.loads(answer.options_json)})


async def finish_passkey_registration(request: web.Request) -> web.Response:
    token = own_token(request)
    data = await body_of(request)
    message = pb.FinishPasskeyRegistrationRequest(
        challenge_id=text(request, data, "challenge_id"),
        credential_json=credential_of(request, data),
        name=text(request, data, "name", required=False)
        or device_of(request.headers.get("User-Agent", "")),
    )
    answer = await call(request, accounts(request).FinishPasskeyRegistration, message, token)
    return reply(to_json(answer.passkey))


def credential_of(request: web.Request, data: dict[str, Any]) -> str:
    """The browser's ``PublicKeyCredential.toJSON()``, passed on as JSON text."""
    credential = data.get("credential")
    encoded = json.dumps(credential) if isinstance(credential, dict) else ""
    if not encoded or len(encoded) > MAX_TEXT:
        detail = f"'credential' must be the passkey's JSON (at most {MAX_TEXT} characters)"
        raise refusal("INVALID_ARGUMENT", lang_of(request), detail, "bad_field")
    return encoded


async def begin_passkey_sign_in(request: web.Request) -> web.Response:
    answer = await call(
        request, accounts(request).BeginPasskeySignIn, pb.BeginPasskeySignInRequest()
    )
    return reply({"challenge_id": answer.challenge_id, "options": json.loads(answer.options_json)})


async def finish_passkey_sign_in(request: web.Request) -> web.Response:
    data = await body_of(request)
    message = pb.FinishPasskeySignInRequest(
        challenge_id=text(request, data, "challenge_id"),
        credential_json=credential_of(request, data),
        device=device_of(request.headers.get("User-Agent", "")),
    )
    answer = await call(request, accounts(request).FinishPasskeySignIn, message)
    return signed_in_reply(request, answer.signed_in)


async def remove_passkey(request: web.Request) -> web.Response:
    message = pb.RemovePasskeyRequest(credential_id=request.match_info["credential_id"])
    await call(request, accounts(request).RemovePasskey, message, own_token(request))
    return reply({})


async def list_providers(request: web.Request) -> web.Response:
    answer = await call(request, accounts(request).ListProviders, pb.ListProvidersRequest())
    return reply(to_json(answer))


async def begin_provider_sign_in(request: web.Request) -> web.Response:
    """The provider's URL to send the browser to; with ``link`` the identity joins this
    browser's account instead of signing in."""
    data = await body_of(request)
    link = data.get("link", False)
    if not isinstance(link, bool):
        raise refusal("INVALID_ARGUMENT", lang_of(request), "'link' must be bool", "bad_field")
    message = pb.BeginProviderSignInRequest(provider=request.match_info["provider"], link=link)
    token = own_token(request) if link else None
    answer = await call(request, accounts(request).BeginProviderSignIn, message, token)
    return reply({"authorization_url": answer.authorization_url})


async def finish_provider_sign_in(request: web.Request) -> web.Response:
    """What the provider sent back to ``/auth/callback``, posted by that page: a sign-in sets
    the cookie, a link answers the linked identity."""
    data = await body_of(request)
    message = pb.FinishProviderSignInRequest(
        state=text(request, data, "state"),
        code=text(request, data, "code", required=False),
        error=text(request, data, "error", required=False),
        device=device_of(request.headers.get("User-Agent", "")),
    )
    session = session_of(request)
    token = session.player_token if session else None
    answer = await call(request, accounts(request).FinishProviderSignIn, message, token)
    if answer.HasField("linked"):
        return reply({"linked": to_json(answer.linked)})
    return signed_in_reply(request, answer.signed_in)


async def unlink_provider(request: web.Request) -> web.Response:
    message = pb.UnlinkProviderRequest(provider=request.match_info["provider"])
    await call(request, accounts(request).UnlinkProvider, message, own_token(request))
    return reply({})


async def list_sessions(request: web.Request) -> web.Response:
    answer = await call(
        request, accounts(request).ListSessions, pb.ListSessionsRequest(), own_token(request)
    )
    return reply(to_json(answer))


async def sign_out_session(request: web.Request) -> web.Response:
    message = pb.SignOutRequest(session_id=request.match_info["session_id"])
    await call(request, accounts(request).SignOut, message, own_token(request))
    return reply({})


async def sign_out_everywhere(request: web.Request) -> web.Response:
    """Every session and token of the account ends; this browser stays signed in afresh."""
    answer = await call(
        request,
        accounts(request).SignOutEverywhere,
        pb.SignOutEverywhereRequest(),
        own_token(request),
    )
    return signed_in_reply(request, answer.signed_in)


async def sign_out(request: web.Request) -> web.Response:
    """This browser's session ends, and its cookie goes."""
    token = own_token(request)
    listed = await call(request, accounts(request).ListSessions, pb.ListSessionsRequest(), token)
    for session in listed.sessions:
        if session.current:
            message = pb.SignOutRequest(session_id=session.session_id)
            await call(request, accounts(request).SignOut, message, token)
    return signed_out_reply({})


async def list_tokens(request: web.Request) -> web.Response:
    answer = await call(
        request,
        accounts(request).ListAccessTokens,
        pb.ListAccessTokensRequest(),
        own_token(request),
    )
    return reply({"tokens": [token_json(token) for token in answer.tokens]})


def token_json(token: pb.AccessToken) -> dict[str, Any]:
    shown = to_json(token)
    shown["scope"] = SCOPE_NAMES.get(token.scope, "")
    return shown


async def create_token(request: web.Request) -> web.Response:
    """A personal access token: its secret is in this answer only."""
    token = own_token(request)
    data = await body_of(request)
    scope = data.get("scope")
    days = data.get("ttl_days", 0)
    if scope not in SCOPES:
        raise refusal("INVALID_ARGUMENT", lang_of(request), "'scope' must be play or read", "scope")
    if isinstance(days, bool) or not isinstance(days, int) or not 0 <= days <= 100_000:
        detail = "'ttl_days' must be a whole number of days"
        raise refusal("INVALID_ARGUMENT", lang_of(request), detail, "bad_field")
    message = pb.CreateAccessTokenRequest(
        name=text(request, data, "name"), scope=SCOPES[scope], ttl_days=days
    )
    answer = await call(request, accounts(request).CreateAccessToken, message, token)
    return reply({"token": token_json(answer.token), "access_token": answer.access_token})


async def revoke_token(request: web.Request) -> web.Response:
    message = pb.RevokeAccessTokenRequest(token_id=request.match_info["token_id"])
    await call(request, accounts(request).RevokeAccessToken, message, own_token(request))
    return reply({})


async def export(request: web.Request) -> web.Response:
    """Everything the platform holds about the account, as a JSON download."""
    answer = await call(
        request, accounts(request).ExportAccount, pb.ExportAccountRequest(), own_token(request)
    )
    response = web.Response(text=answer.json, content_type="application/json")
    response.headers["Content-Disposition"] = 'attachment; filename="maumau-account.json"'
    return response


async def delete(request: web.Request) -> web.Response:
    """Delete the account, confirmed by its username typed again; the cookie goes with it."""
    token = own_token(request)
    data = await body_of(request)
    message = pb.DeleteAccountRequest(username=text(request, data, "username"))
    answer = await call(request, accounts(request).DeleteAccount, message, token)
    return signed_out_reply(to_json(answer))


def add_routes(app: web.Application) -> None:
    """The account's commands under ``/api/account``."""
    routes = app.router
    routes.add_get("/api/account", get_account)
    routes.add_post("/api/account/claim", claim)
    routes.add_post("/api/account/sign-in", sign_in)
    routes.add_post("/api/account/sign-out", sign_out)
    routes.add_post("/api/account/password", set_password)
    routes.add_post("/api/account/passkeys/register/begin", begin_passkey_registration)
    routes.add_post("/api/account/passkeys/register/finish", finish_passkey_registration)
    routes.add_post("/api/account/passkeys/sign-in/begin", begin_passkey_sign_in)
    routes.add_post("/api/account/passkeys/sign-in/finish", finish_passkey_sign_in)
    routes.add_delete("/api/account/passkeys/{credential_id}", remove_passkey)
    routes.add_get("/api/account/providers", list_providers)
    routes.add_post("/api/account/providers/finish", finish_provider_sign_in)
    routes.add_post("/api/account/providers/{provider}/begin", begin_provider_sign_in)
    routes.add_delete("/api/account/providers/{provider}", unlink_provider)
    routes.add_get("/api/account/sessions", list_sessions)
    routes.add_delete("/api/account/sessions/{session_id}", sign_out_session)
    routes.add_post("/api/account/sign-out-everywhere", sign_out_everywhere)
    routes.add_get("/api/account/tokens", list_tokens)
    routes.add_post("/api/account/tokens", create_token)
    routes.add_delete("/api/account/tokens/{token_id}", revoke_token)
    routes.add_get("/api/account/export", export)
    routes.add_post("/api/account/delete", delete)
