// The account pages: sign up (claim this browser's anonymous player: a username, then a passkey
// or a password), sign in (a passkey, a password, each configured identity provider), the
// provider's way back (/auth/callback) and the account page (sessions, passkeys, providers,
// access tokens, export, delete, sign out). The player token stays in the HttpOnly cookie; a
// new access token is shown once and kept nowhere.

import { ApiError, del, get, post } from "./api.js";
import { $, fill } from "./dom.js";
import { lang, t } from "./i18n.js";

// ---------------------------------------------------------------- WebAuthn's binary as base64url

const toBytes = (text) => Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
const toText = (buffer) => btoa(String.fromCharCode(...new Uint8Array(buffer))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

function creationOptions(options) {
  return { ...options, challenge: toBytes(options.challenge), user: { ...options.user, id: toBytes(options.user.id) },
    excludeCredentials: (options.excludeCredentials || []).map((c) => ({ ...c, id: toBytes(c.id) })) };
}

function requestOptions(options) {
  return { ...options, challenge: toBytes(options.challenge),
    allowCredentials: (options.allowCredentials || []).map((c) => ({ ...c, id: toBytes(c.id) })) };
}

// PublicKeyCredential.toJSON(), written out for browsers that lack it.
function credentialJson(credential) {
  const r = credential.response;
  const response = { clientDataJSON: toText(r.clientDataJSON) };
  if (r.attestationObject) {
    response.attestationObject = toText(r.attestationObject);
    response.transports = r.getTransports ? r.getTransports() : [];
  } else {
    response.authenticatorData = toText(r.authenticatorData);
    response.signature = toText(r.signature);
    if (r.userHandle) response.userHandle = toText(r.userHandle);
  }
  return { id: credential.id, rawId: toText(credential.rawId), type: credential.type, response,
    clientExtensionResults: credential.getClientExtensionResults(), authenticatorAttachment: credential.authenticatorAttachment };
}

async function addPasskey(name) {
  const begun = await post("/api/account/passkeys/register/begin");
  const credential = await navigator.credentials.create({ publicKey: creationOptions(begun.options) });
  return post("/api/account/passkeys/register/finish", { challenge_id: begun.challenge_id, credential: credentialJson(credential), name });
}

async function passkeySignIn() {
  const begun = await post("/api/account/passkeys/sign-in/begin");
  const credential = await navigator.credentials.get({ publicKey: requestOptions(begun.options) });
  return post("/api/account/passkeys/sign-in/finish", { challenge_id: begun.challenge_id, credential: credentialJson(credential) });
}

// A passkey prompt the person closed (or one the browser cannot show) is said in words.
function passkeyError(error) {
  if (error instanceof ApiError) return error.message;
  return error && error.name === "NotAllowedError" ? t("acct_passkey_cancelled") : t("acct_passkey_unsupported");
}

// ---------------------------------------------------------------- shared pieces

const passkeysWork = () => typeof window.PublicKeyCredential === "function";

function labelled(id, labelKey, control, hintKey) {
  control.id = id;
  const hint = hintKey ? $("small", { id: `${id}-hint`, text: t(hintKey) }) : null;
  if (hint) control.setAttribute("aria-describedby", hint.id);
  return $("div", { class: "field" }, $("label", { for: id, text: t(labelKey) }), control, hint);
}

function page(main, titleKey, params, ...children) {
  document.title = `${t(titleKey, params)} · ${t("title")}`;
  fill(main, $("section", { class: "account-page", "aria-labelledby": "account-title" },
    $("h1", { id: "account-title", text: t(titleKey, params) }), ...children));
}

function link(href, key, go) {
  return $("a", { href, onclick: (e) => { e.preventDefault(); go(href); } }, t(key));
}

// A status line of the form it belongs to, read out when it changes.
const status = () => $("p", { class: "form-status", role: "status" });

async function attempt(line, work) {
  line.textContent = "";
  line.classList.remove("bad");
  try {
    return await work();
  } catch (error) {
    line.textContent = passkeyError(error);
    line.classList.add("bad");
    return null;
  }
}

// ---------------------------------------------------------------- sign up

// Claim the anonymous player of this browser: a username, then a passkey or a password.
export function signUpPage(main, ctx) {
  const username = $("input", { name: "username", required: "required", minlength: "3", maxlength: "20", autocomplete: "username", spellcheck: "false" });
  const password = $("input", { name: "password", type: "password", minlength: "8", maxlength: "256", autocomplete: "new-password" });
  const line = status();
  const done = () => { ctx.signedIn(); ctx.go("/account"); };
  const withPasskey = $("button", { type: "button", class: "primary", disabled: passkeysWork() ? null : "disabled", onclick: () => attempt(line, async () => {
    if (!username.reportValidity()) return;
    await post("/api/account/claim", { username: username.value });
    try {
      await addPasskey(t("acct_this_device"));
    } catch (error) {
      ctx.signedIn();
      ctx.announce(t("acct_claimed_no_passkey", { reason: passkeyError(error) }), true);
      ctx.go("/account");
      return;
    }
    done();
  }) }, t("acct_sign_up_passkey"));
  const form = $("form", { class: "panel", onsubmit: (e) => {
    e.preventDefault();
    attempt(line, async () => {
      await post("/api/account/claim", { username: username.value, password: password.value });
      done();
    });
  } },
  labelled("sign-up-username", "acct_username", username, "acct_username_hint"),
  $("div", { class: "choices" },
    $("h2", { id: "sign-up-passkey", text: t("acct_way_passkey") }),
    $("p", { class: "hint", text: t("acct_passkey_hint") }),
    withPasskey,
    $("h2", { id: "sign-up-password", text: t("acct_way_password") }),
    labelled("sign-up-password-input", "acct_password", password, "acct_password_hint"),
    $("button", { type: "submit" }, t("acct_sign_up_password"))),
  line);
  page(main, "acct_sign_up_title", {}, $("p", { class: "lead", text: t("acct_sign_up_lead", { name: ctx.me ? ctx.me.name : "" }) }), form,
    $("p", {}, t("acct_have_account"), " ", link("/sign-in", "acct_sign_in", ctx.go)));
  username.focus();
}

// ---------------------------------------------------------------- sign in

export async function signInPage(main, ctx) {
  const username = $("input", { name: "username", required: "required", maxlength: "256", autocomplete: "username", spellcheck: "false" });
  const password = $("input", { name: "password", type: "password", required: "required", maxlength: "256", autocomplete: "current-password" });
  const line = status();
  const done = () => { ctx.signedIn(); ctx.go("/account"); };
  const providers = await get("/api/account/providers").then((answer) => answer.providers).catch(() => []);
  const passkey = $("button", { type: "button", class: "primary", disabled: passkeysWork() ? null : "disabled", onclick: () => attempt(line, async () => {
    await passkeySignIn();
    done();
  }) }, t("acct_sign_in_passkey"));
  const form = $("form", { class: "panel", onsubmit: (e) => {
    e.preventDefault();
    attempt(line, async () => {
      await post("/api/account/sign-in", { username: username.value, password: password.value });
      done();
    });
  } },
  $("h2", { id: "sign-in-password", text: t("acct_way_password") }),
  labelled("sign-in-username", "acct_username", username),
  labelled("sign-in-password-input", "acct_password", password),
  $("button", { type: "submit" }, t("acct_sign_in")));
  const others = providers.length ? $("section", { class: "panel", "aria-labelledby": "sign-in-providers" },
    $("h2", { id: "sign-in-providers", text: t("acct_way_provider") }),
    $("div", { class: "provider-buttons" }, providers.map((p) => $("button", { type: "button", onclick: () => attempt(line, async () => {
      const begun = await post(`/api/account/providers/${encodeURIComponent(p.name)}/begin`, {});
      location.assign(begun.authorization_url);
    }) }, t("acct_sign_in_with", { provider: p.display_name || p.name }))))) : null;
  page(main, "acct_sign_in_title", {},
    $("section", { class: "panel", "aria-labelledby": "sign-in-passkey" },
      $("h2", { id: "sign-in-passkey", text: t("acct_way_passkey") }), passkey),
    form, others, line,
    $("p", {}, t("acct_new_here"), " ", link("/sign-up", "acct_sign_up", ctx.go)));
}

// The provider sent the browser back here: hand its code and state to the gateway (a post
// from this page carries the session cookie, the provider's redirect does not).
export async function providerCallback(main, ctx) {
  const query = new URLSearchParams(location.search);
  history.replaceState(null, "", "/auth/callback"); // the code leaves the address bar
  page(main, "acct_callback_title", {}, $("p", { role: "status", text: t("acct_callback_wait") }));
  try {
    const answer = await post("/api/account/providers/finish", { state: query.get("state") || "", code: query.get("code") || "", error: query.get("error") || "" });
    if (!answer.linked) ctx.signedIn();
    ctx.announce(answer.linked ? t("acct_linked", { provider: answer.linked.provider }) : t("acct_signed_in"));
    ctx.go("/account");
  } catch (error) {
    page(main, "acct_callback_title", {}, $("p", { class: "bad", role: "alert", text: error.message }),
      $("p", {}, link("/sign-in", "acct_sign_in_again", ctx.go)));
  }
}

// ---------------------------------------------------------------- the account page

const when = (seconds) => (Number(seconds) ? new Date(Number(seconds) * 1000).toLocaleString(lang()) : "—");

function table(caption, headers, rows, emptyKey) {
  if (!rows.length) return $("p", { class: "empty", text: t(emptyKey) });
  return $("table", {}, $("caption", { class: "sr-only", text: caption }),
    $("thead", {}, $("tr", {}, headers.map((h) => $("th", { scope: "col", text: h })))),
    $("tbody", {}, rows.map((row) => $("tr", {}, row.map((cell, i) => $("td", { "data-label": headers[i] }, cell))))));
}

function howText(how) {
  if (how.startsWith("provider:")) return t("acct_how_provider", { provider: how.slice(9) });
  return t(`acct_how_${how}`) === `acct_how_${how}` ? how : t(`acct_how_${how}`);
}

function section(id, titleKey, ...children) {
  return $("section", { class: "panel account-part", "aria-labelledby": id }, $("h2", { id, text: t(titleKey) }), ...children);
}

export async function accountPage(main, ctx) {
  let account;
  try {
    account = await get("/api/account");
  } catch (error) {
    if (error instanceof ApiError && error.code === "no_account") return signUpPage(main, ctx);
    if (error instanceof ApiError && error.status === 401) return signInPage(main, ctx);
    throw error;
  }
  const [sessions, tokens, providers] = await Promise.all([
    get("/api/account/sessions").then((a) => a.sessions),
    get("/api/account/tokens").then((a) => a.tokens),
    get("/api/account/providers").then((a) => a.providers).catch(() => []),
  ]);
  const line = status();
  const redraw = () => accountPage(main, ctx);
  // A change, then the page drawn afresh with the change said in its status line.
  const act = (work, said) => attempt(line, async () => {
    await work();
    await redraw();
    main.querySelector(".form-status").textContent = said;
  });

  const sessionRows = sessions.map((s) => [
    s.device || t("acct_unknown_device"), howText(s.how), when(s.signed_in_at),
    s.current ? $("strong", { text: t("acct_this_session") }) : $("button", { type: "button",
      "aria-label": t("acct_sign_out_one_label", { device: s.device || t("acct_unknown_device"), when: when(s.signed_in_at) }),
      onclick: () => act(() => del(`/api/account/sessions/${encodeURIComponent(s.session_id)}`), t("acct_signed_out_one")) }, t("acct_sign_out_one")),
  ]);
  const passkeyRows = account.passkeys.map((p) => [p.name, when(p.created_at), when(p.last_used_at),
    $("button", { type: "button", "aria-label": t("acct_remove_passkey_label", { name: p.name }),
      onclick: () => act(() => del(`/api/account/passkeys/${encodeURIComponent(p.credential_id)}`), t("acct_passkey_removed")) }, t("acct_remove"))]);
  const linked = new Set(account.providers.map((p) => p.provider));
  const providerRows = account.providers.map((p) => [p.provider, p.email || p.subject, when(p.linked_at),
    $("button", { type: "button", "aria-label": t("acct_unlink_label", { provider: p.provider }),
      onclick: () => act(() => del(`/api/account/providers/${encodeURIComponent(p.provider)}`), t("acct_unlinked")) }, t("acct_unlink"))]);
  const linkButtons = providers.filter((p) => !linked.has(p.name)).map((p) => $("button", { type: "button", onclick: () => attempt(line, async () => {
    const begun = await post(`/api/account/providers/${encodeURIComponent(p.name)}/begin`, { link: true });
    location.assign(begun.authorization_url);
  }) }, t("acct_link_with", { provider: p.display_name || p.name })));

  const tokenName = $("input", { name: "token-name", required: "required", maxlength: "40" });
  const tokenScope = $("select", { name: "token-scope" }, ["play", "read"].map((s) => $("option", { value: s }, t(`acct_scope_${s}`))));
  const shown = $("div", { class: "token-shown", "aria-live": "polite" });
  const tokenRows = tokens.map((k) => [k.name, t(`acct_scope_${k.scope}`), when(k.created_at), when(k.expires_at),
    $("button", { type: "button", "aria-label": t("acct_revoke_label", { name: k.name }),
      onclick: () => act(() => del(`/api/account/tokens/${encodeURIComponent(k.token_id)}`), t("acct_token_revoked")) }, t("acct_revoke"))]);
  const tokenForm = $("form", { class: "token-form", onsubmit: (e) => {
    e.preventDefault();
    attempt(line, async () => {
      const created = await post("/api/account/tokens", { name: tokenName.value, scope: tokenScope.value });
      await redraw();
      const output = main.querySelector(".token-shown");
      const secret = $("input", { id: "token-secret", readonly: "readonly", value: created.access_token, class: "secret" });
      fill(output, $("label", { for: "token-secret", text: t("acct_token_once", { name: created.token.name }) }), secret);
      secret.focus();
      secret.select();
    });
  } }, labelled("token-name", "acct_token_name", tokenName), labelled("token-scope", "acct_token_scope", tokenScope),
  $("button", { type: "submit" }, t("acct_token_create")));

  const current = account.has_password ? $("input", { name: "current-password", type: "password", required: "required", maxlength: "256", autocomplete: "current-password" }) : null;
  const fresh = $("input", { name: "new-password", type: "password", required: "required", minlength: "8", maxlength: "256", autocomplete: "new-password" });
  const passwordForm = $("form", { onsubmit: (e) => {
    e.preventDefault();
    act(() => post("/api/account/password", { password: fresh.value, current_password: current ? current.value : "" }), t("acct_password_saved"));
  } },
  current ? labelled("current-password", "acct_current_password", current) : null,
  labelled("new-password", "acct_new_password", fresh, "acct_password_hint"),
  $("button", { type: "submit" }, t(account.has_password ? "acct_change_password" : "acct_set_password")));

  const confirm = $("input", { name: "confirm-username", autocomplete: "off", spellcheck: "false" });
  const deleteForm = $("form", { onsubmit: (e) => {
    e.preventDefault();
    attempt(line, async () => {
      await post("/api/account/delete", { username: confirm.value });
      ctx.signedOut();
      ctx.announce(t("acct_deleted"));
      ctx.go("/");
    });
  } }, labelled("confirm-username", "acct_delete_confirm", confirm, "acct_delete_hint"),
  $("button", { type: "submit", class: "danger" }, t("acct_delete")));

  page(main, "acct_title", { name: account.username },
    $("p", { class: "lead", text: t("acct_lead", { since: when(account.created_at) }) }), line,
    section("acct-sessions", "acct_sessions",
      table(t("acct_sessions"), [t("acct_device"), t("acct_how"), t("acct_signed_in_at"), ""], sessionRows, "acct_none"),
      $("div", { class: "buttons" },
        $("button", { type: "button", onclick: () => act(() => post("/api/account/sign-out-everywhere"), t("acct_signed_out_everywhere")) }, t("acct_sign_out_everywhere")),
        $("button", { type: "button", onclick: () => attempt(line, async () => {
          await post("/api/account/sign-out");
          ctx.signedOut();
          ctx.go("/sign-in");
        }) }, t("acct_sign_out")))),
    section("acct-passkeys", "acct_passkeys",
      table(t("acct_passkeys"), [t("acct_name"), t("acct_created"), t("acct_last_used"), ""], passkeyRows, "acct_no_passkeys"),
      $("button", { type: "button", disabled: passkeysWork() ? null : "disabled", onclick: () => act(() => addPasskey(t("acct_this_device")), t("acct_passkey_added")) }, t("acct_add_passkey"))),
    section("acct-password", "acct_way_password",
      $("p", { class: "hint", text: account.has_password ? t("acct_has_password") : t("acct_no_password") }), passwordForm),
    section("acct-providers", "acct_providers",
      table(t("acct_providers"), [t("acct_provider"), t("acct_identity"), t("acct_linked_at"), ""], providerRows, "acct_no_providers"),
      linkButtons.length ? $("div", { class: "provider-buttons" }, linkButtons) : null),
    section("acct-tokens", "acct_tokens",
      $("p", { class: "hint", text: t("acct_tokens_hint") }),
      tokenForm, shown,
      table(t("acct_tokens"), [t("acct_name"), t("acct_token_scope"), t("acct_created"), t("acct_expires"), ""], tokenRows, "acct_no_tokens")),
    section("acct-data", "acct_data",
      $("p", { class: "hint", text: t("acct_export_hint") }),
      $("a", { class: "button", href: "/api/account/export", download: "maumau-account.json" }, t("acct_export"))),
    section("acct-delete", "acct_delete_title", $("p", { class: "hint", text: t("acct_delete_lead") }), deleteForm));
}
