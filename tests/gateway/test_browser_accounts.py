"""The account pages in a real browser (Debian's Chromium, headless) against the whole platform:
sign up with a passkey (Chromium's virtual authenticator, through the DevTools protocol) and sign
in with it in a second, fresh context as the same player; a password sign-up, sign-in and a
wrong password said in words; the real OpenID provider (oidc-provider on loopback) through the
redirect flow; the account page's sessions, tokens, export and delete; German texts; an axe
audit of the new pages; and one whole sign-up by keyboard only.

The page is served as http://localhost:<port>: passkeys are bound to the relying party
``localhost`` and the page's origin, so this module runs an Accounts replica (and a gateway)
configured for exactly that origin."""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from axe_playwright_python.async_playwright import Axe
from playwright.async_api import Browser, BrowserContext, Page, Route

from maumau.common.redis_server import EmbeddedRedis, free_port
from tests.accounts.oidc_provider import RunningProvider, oidc_provider
from tests.accounts.support import start_accounts, stop_accounts
from tests.gateway.browser import Player, new_context, robot, start_solo
from tests.gateway.support import Gateway, Platform, start_gateway
from tests.gateway.test_browser_axe import findings

pytestmark = pytest.mark.xdist_group("tests/accounts/oidc")  # its npm folder, on one worker

PASSWORD = "a long walk by the sea"


@pytest.fixture(scope="module")
def port() -> int:
    return free_port()


@pytest.fixture(scope="module")
def provider(port: int) -> Iterator[RunningProvider | str]:
    """The real OpenID provider, or why it cannot run here (node or npm missing): then only the
    provider's test skips, saying so, and the passkey and password tests run."""
    try:
        with oidc_provider(f"http://localhost:{port}/auth/callback") as running:
            yield running
    except pytest.skip.Exception as missing:
        yield str(missing)


@pytest.fixture(scope="module")
async def site(
    services: Platform, redis_server: EmbeddedRedis, port: int, provider: RunningProvider | str
) -> AsyncIterator[str]:
    """The gateway at http://localhost:<port>, its own Accounts replica bound to that origin."""
    origin = f"http://localhost:{port}"
    accounts = await start_accounts(
        redis_server.url,
        f"127.0.0.1:{services.engine.port}",
        rating_address=f"127.0.0.1:{services.rating.port}",
        tournaments_address=f"127.0.0.1:{services.tournaments.port}",
        origins=origin,
        oidc_providers=provider.setting() if isinstance(provider, RunningProvider) else "",
        oidc_redirect_uri=f"{origin}/auth/callback",
    )
    gateway: Gateway = await start_gateway(
        services.settings(port=port, accounts_address=f"127.0.0.1:{accounts.port}")
    )
    yield origin
    await gateway.stop()
    await stop_accounts(accounts)


async def authenticator(page: Page) -> tuple[Any, str]:
    """Chromium's virtual platform authenticator on ``page`` (a resident key, the user
    verified), as a phone's or laptop's own."""
    cdp = await page.context.new_cdp_session(page)
    await cdp.send("WebAuthn.enable")
    added = await cdp.send(
        "WebAuthn.addVirtualAuthenticator",
        {
            "options": {
                "protocol": "ctap2",
                "transport": "internal",
                "hasResidentKey": True,
                "hasUserVerification": True,
                "isUserVerified": True,
            }
        },
    )
    return cdp, added["authenticatorId"]


async def anonymous(context: BrowserContext, site: str, name: str = "Anon") -> Page:
    player = await Player.open(context, site)
    await player.sign_in(name)
    await player.page.wait_for_selector("#play-now .tile")
    return player.page


async def me(page: Page) -> dict[str, Any]:
    answer: dict[str, Any] = await page.evaluate("fetch('/api/session').then((r) => r.json())")
    return answer


def username() -> str:
    return "u" + secrets.token_hex(5)


async def signed_up_with_password(page: Page, site: str, name: str) -> None:
    await page.goto(f"{site}/sign-up")
    await page.get_by_role("textbox", name="Username").fill(name)
    await page.get_by_label("Password", exact=True).fill(PASSWORD)
    await page.get_by_role("button", name="Create the account with a password").click()
    await page.get_by_role("heading", name=f"Your account: {name}").wait_for()


async def test_a_passkey_signs_up_and_signs_in_on_a_second_browser_as_the_same_player(
    browser: Browser, site: str
) -> None:
    first = await new_context(browser, locale="en-GB")
    second = await new_context(browser, locale="en-GB")
    try:
        page = await anonymous(first, site, "Passkey Pia")
        before = await me(page)
        match_id = await start_solo(page, "classic", {"target": "0"})
        await robot(page, match_id)  # a match (one round) played to its end while anonymous
        cdp, authenticator_id = await authenticator(page)
        name = username()
        await page.goto(f"{site}/sign-up")
        await page.get_by_role("textbox", name="Username").fill(name)
        await page.get_by_role("button", name="Create the account with a passkey").click()
        await page.get_by_role("heading", name=f"Your account: {name}").wait_for()
        await page.get_by_role("button", name="Remove the passkey This device").wait_for()
        credentials = await cdp.send(
            "WebAuthn.getCredentials", {"authenticatorId": authenticator_id}
        )
        assert len(credentials["credentials"]) == 1

        other = await second.new_page()
        other_cdp, other_id = await authenticator(other)
        await other_cdp.send(
            "WebAuthn.addCredential",
            {"authenticatorId": other_id, "credential": credentials["credentials"][0]},
        )
        await other.goto(f"{site}/sign-in")
        await other.get_by_role("button", name="Sign in with a passkey").click()
        await other.get_by_role("heading", name=f"Your account: {name}").wait_for()
        # the same player, named by its username now, on both browsers, its history kept
        assert await me(other) == await me(page) == {"player_id": before["player_id"], "name": name}
        profile = await other.evaluate("fetch('/api/profile').then((r) => r.json())")
        assert [m["match_id"] for m in profile["recent"]] == [match_id]
        assert await other.get_by_role("link", name="Account").count() == 1
    finally:
        await first.close()
        await second.close()


async def test_a_password_signs_up_and_in_and_a_wrong_one_is_said_in_words(
    browser: Browser, site: str
) -> None:
    first = await new_context(browser, locale="en-GB")
    second = await new_context(browser, locale="en-GB")
    try:
        page = await anonymous(first, site, "Word Walter")
        name = username()
        await signed_up_with_password(page, site, name)
        player_id = (await me(page))["player_id"]

        other = await second.new_page()
        await other.goto(f"{site}/sign-in")
        await other.get_by_role("textbox", name="Username").fill(name)
        await other.get_by_label("Password", exact=True).fill("not my password")
        await other.get_by_role("button", name="Sign in", exact=True).click()
        await other.get_by_role("status").filter(has_text="wrong username or password").wait_for()
        await other.get_by_label("Password", exact=True).fill(PASSWORD)
        await other.get_by_role("button", name="Sign in", exact=True).click()
        await other.get_by_role("heading", name=f"Your account: {name}").wait_for()
        assert (await me(other))["player_id"] == player_id
    finally:
        await first.close()
        await second.close()


async def test_the_provider_links_and_then_signs_in_through_its_redirects(
    browser: Browser, site: str, provider: RunningProvider | str
) -> None:
    if not isinstance(provider, RunningProvider):
        pytest.skip(provider)
    login = "person-" + secrets.token_hex(4)

    async def as_login(route: Route) -> None:
        url = route.request.url
        if "/auth?" in url and "login_hint" not in url:
            url += f"&login_hint={login}"
        await route.continue_(url=url)

    first = await new_context(browser, locale="en-GB")
    second = await new_context(browser, locale="en-GB")
    try:
        for context in (first, second):
            await context.route(re.compile(re.escape(provider.issuer) + ".*"), as_login)
        page = await anonymous(first, site, "Linked Lea")
        name = username()
        await signed_up_with_password(page, site, name)
        await page.get_by_role("button", name="Link Test ID").click()
        await page.get_by_role("cell", name=f"{login}@example.test").wait_for()
        player_id = (await me(page))["player_id"]

        other = await second.new_page()
        await other.goto(f"{site}/sign-in")
        await other.get_by_role("button", name="Sign in with Test ID").click()
        await other.get_by_role("heading", name=f"Your account: {name}").wait_for()
        assert (await me(other))["player_id"] == player_id
        assert other.url == f"{site}/account"
    finally:
        await first.close()
        await second.close()


async def test_the_account_page_signs_out_a_session_keeps_tokens_exports_and_deletes(
    browser: Browser, site: str
) -> None:
    first = await new_context(browser, locale="en-GB", accept_downloads=True)
    second = await new_context(browser, locale="en-GB")
    try:
        page = await anonymous(first, site, "Careful Carl")
        name = username()
        await signed_up_with_password(page, site, name)
        other = await second.new_page()
        await other.goto(f"{site}/sign-in")
        await other.get_by_role("textbox", name="Username").fill(name)
        await other.get_by_label("Password", exact=True).fill(PASSWORD)
        await other.get_by_role("button", name="Sign in", exact=True).click()
        await other.get_by_role("heading", name=f"Your account: {name}").wait_for()

        await page.reload()
        await page.locator("#acct-sessions").wait_for()
        sign_out = page.get_by_role("button", name=re.compile(r"^Sign out Chrome"))
        await sign_out.click()
        await page.get_by_role("status").filter(has_text="That session is signed out").wait_for()
        await other.reload()
        await other.get_by_role("heading", name="Sign in").wait_for()

        await page.get_by_label("Current password").fill(PASSWORD)
        await page.get_by_label("New password").fill(PASSWORD + " again")
        await page.get_by_role("button", name="Change the password").click()
        await page.get_by_role("status").filter(has_text="The password is saved").wait_for()

        await page.get_by_role("textbox", name="Token name").fill("my script")
        await page.get_by_role("combobox", name="Allows").select_option("read")
        await page.get_by_role("button", name="Create token").click()
        secret = page.get_by_role("textbox", name=re.compile("^Your new token my script"))
        token = await secret.input_value()
        assert token.count(".") == 2  # a signed token, shown this once
        await page.get_by_role("button", name="Revoke the token my script").click()
        await page.get_by_text("No access token.").wait_for()
        assert await page.get_by_role("textbox", name=re.compile("^Your new token")).count() == 0

        async with page.expect_download() as download:
            await page.get_by_role("link", name="Download my data").click()
        saved = await (await download.value).path()
        exported = json.loads(saved.read_text())
        assert exported["account"]["username"] == name

        confirm = page.get_by_role("textbox", name="Type your username to confirm")
        await confirm.fill(name + "x")
        await page.get_by_role("button", name="Delete my account").click()
        await page.get_by_role("status").filter(has_text="type the account's username").wait_for()
        await confirm.fill(name)
        await page.get_by_role("button", name="Delete my account").click()
        await page.wait_for_url(f"{site}/")
        assert await page.evaluate("fetch('/api/account').then((r) => r.status)") == 401
    finally:
        await first.close()
        await second.close()


async def test_the_sign_in_page_speaks_german(browser: Browser, site: str) -> None:
    context = await new_context(browser, locale="de-DE")
    try:
        page = await context.new_page()
        await page.goto(f"{site}/sign-in")
        await page.get_by_role("heading", name="Anmelden").wait_for()
        await page.get_by_role("button", name="Mit einem Passkey anmelden").wait_for()
        await page.get_by_role("textbox", name="Benutzername").fill("nobody-here")
        await page.get_by_label("Passwort", exact=True).fill("auch nicht meins")
        await page.get_by_role("button", name="Anmelden", exact=True).click()
        wrong = "falscher Benutzername oder falsches Passwort"
        await page.get_by_role("status").filter(has_text=wrong).wait_for()
    finally:
        await context.close()


async def test_one_whole_sign_up_by_keyboard_only(browser: Browser, site: str) -> None:
    context = await new_context(browser, locale="en-GB")
    try:
        page = await anonymous(context, site, "Keys Kim")
        await page.goto(f"{site}/sign-up")
        await page.get_by_role("textbox", name="Username").wait_for()
        name = username()
        await page.keyboard.type(name)  # the username field has the focus
        for _ in range(2):  # past the passkey button to the password
            await page.keyboard.press("Tab")
        focused = "document.activeElement.getAttribute('autocomplete')"
        assert await page.evaluate(focused) == "new-password"
        await page.keyboard.type(PASSWORD)
        await page.keyboard.press("Enter")
        await page.get_by_role("heading", name=f"Your account: {name}").wait_for()
    finally:
        await context.close()


async def audit(page: Page, screen: str) -> None:
    results = await Axe().run(page)
    found = findings(results.response)
    assert not found, f"{screen}:\n" + "\n".join(found)


@pytest.mark.parametrize("locale", ["en-GB", "de-DE"])
async def test_the_account_pages_pass_the_axe_audit(
    browser: Browser, site: str, locale: str
) -> None:
    context = await new_context(browser, locale=locale, reduced_motion="reduce")
    try:
        page = await anonymous(context, site, "Audit Ana")
        await page.goto(f"{site}/sign-up")
        await page.locator("#account-title").wait_for()
        await audit(page, "sign-up")
        await page.goto(f"{site}/sign-in")
        await page.locator("#sign-in-passkey").wait_for()
        await audit(page, "sign-in")
        name = username()
        await page.goto(f"{site}/sign-up")
        await page.locator("#sign-up-username").fill(name)
        await page.locator("#sign-up-password-input").fill(PASSWORD)
        await page.locator("#sign-up-password-input").press("Enter")
        await page.locator("#acct-sessions").wait_for()
        await audit(page, "account")
    finally:
        await context.close()
