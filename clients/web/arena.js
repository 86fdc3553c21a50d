// "Play a bot" (/bots): the bots online with their rating on the bots' ladder, a rule system and
// rated or casual, a challenge to one of them, "waiting for <bot>" with Cancel, then the table
// (the gateway keeps the seat token). A decline is said in words with its reason, as are an
// expired and a withdrawn challenge. The gateway tells what became of a challenge over the
// tab's WebSocket (a follow of "challenge:<id>").

import { del, get, post } from "./api.js";
import { $, fill } from "./dom.js";
import { presetName, t } from "./i18n.js";

const PRESETS = ["classic", "online", "ostfriesland", "colour"];
// One round (or one won round) each, as the arena's own pools: a match is short.
const SHORT = { classic: { target: "0" }, online: { wins: "1" }, ostfriesland: { rounds: "1" }, colour: { target: "0" } };
const CHOICE_KEY = "maumau.arena";

// The challenge waiting for its answer (one at a time), kept across a language switch.
let pending = null;
let page = null;

function choices() {
  let kept = {};
  try { kept = JSON.parse(sessionStorage.getItem(CHOICE_KEY) || "{}") || {}; } catch { kept = {}; }
  return { preset: PRESETS.includes(kept.preset) ? kept.preset : "classic", rated: kept.rated === true };
}

// Leaving /bots withdraws a challenge still waiting; a redraw of /bots (another language) keeps it.
export function stopArena(live) {
  if (!pending || location.pathname === "/bots") return;
  const { challengeId } = pending;
  live.unfollow(`challenge:${challengeId}`);
  pending = null;
  del(`/api/arena/challenges/${encodeURIComponent(challengeId)}`).catch(() => {});
}

export async function botsPage(main, context) {
  page = context;
  const heading = $("h1", { id: "bots-title", text: t("arena_title") });
  if (!context.account) {
    fill(main, heading, $("section", { class: "panel arena-intro" },
      $("p", { text: t("arena_need_account") }),
      $("p", {}, $("a", { href: "/sign-up", class: "button primary", onclick: (e) => { e.preventDefault(); context.go("/sign-up"); } }, t("arena_sign_up")))));
    return;
  }
  const chosen = choices();
  const preset = $("select", { name: "arena-preset", id: "arena-preset" },
    PRESETS.map((p) => $("option", { value: p, selected: p === chosen.preset ? "selected" : null }, presetName(p))));
  const kind = (value, key) => $("label", { class: "choice" },
    $("input", { type: "radio", name: "arena-rated", value, checked: String(chosen.rated) === value ? "checked" : null }), $("span", { text: t(key) }));
  const rated = $("fieldset", { class: "arena-kind" }, $("legend", { text: t("arena_kind") }), kind("false", "arena_casual"), kind("true", "arena_rated"));
  const status = $("div", { id: "challenge-status", role: "status", "aria-live": "polite" });
  const list = $("div", { id: "bots-online" });
  const keep = () => sessionStorage.setItem(CHOICE_KEY, JSON.stringify({ preset: preset.value, rated: ratedChoice(rated) }));
  preset.addEventListener("change", () => { keep(); draw(); });
  rated.addEventListener("change", keep);
  const draw = () => drawBots(list, preset, rated, status).catch((error) => context.announce(error.message, true));
  fill(main, heading,
    $("p", { class: "lead", text: t("arena_lead") }),
    $("section", { class: "panel arena-choices", "aria-label": t("arena_choices") },
      $("label", { class: "field" }, $("span", { text: t("rule_system") }), preset), rated),
    status,
    $("section", { class: "arena-bots", "aria-labelledby": "bots-online-title" },
      $("div", { class: "arena-bots-head" },
        $("h2", { id: "bots-online-title", text: t("arena_online") }),
        $("button", { type: "button", class: "secondary", id: "bots-refresh", onclick: draw }, t("arena_refresh"))),
      list));
  if (pending) showWaiting(status);
  await draw();
}

const ratedChoice = (fieldset) => fieldset.querySelector("input:checked").value === "true";

async function drawBots(list, preset, rated, status) {
  const answer = await get(`/api/arena/bots?preset=${encodeURIComponent(preset.value)}`);
  if (!answer.bots.length) {
    fill(list, $("p", { class: "empty", text: t("arena_none") }));
    return;
  }
  fill(list, $("ul", { class: "bot-list" }, answer.bots.map((bot) => $("li", { class: "bot-entry" },
    $("span", { class: "bot-name" }, bot.name, " ", $("span", { class: "bot-mark", text: "BOT" })),
    $("span", { class: "bot-rating", text: bot.rating ? t("arena_rating", { rating: bot.rating.display, rank: bot.rating.rank }) : t("arena_unrated") }),
    $("button", { type: "button", class: "primary", "aria-label": t("arena_challenge_label", { name: bot.name }),
      onclick: () => challenge(bot, preset.value, ratedChoice(rated), status) }, t("arena_challenge"))))));
}

async function challenge(bot, preset, rated, status) {
  if (pending) return page.announce(t("arena_one_at_a_time"), true);
  try {
    const made = await post("/api/arena/challenges", { bots: [bot.player_id], ruleset: { preset, options: { ...SHORT[preset] } }, rated });
    pending = { challengeId: made.challenge_id, name: bot.name };
    page.live.follow(`challenge:${made.challenge_id}`, { challenge_id: made.challenge_id, after: made.after });
    showWaiting(status);
  } catch (error) {
    page.announce(error.message, true);
  }
}

function showWaiting(status) {
  const { challengeId, name } = pending;
  fill(status, $("div", { class: "panel challenge-waiting" },
    $("p", { class: "waiting", text: t("arena_waiting", { name }) }),
    $("button", { type: "button", class: "secondary", id: "challenge-cancel", onclick: async () => {
      try {
        await del(`/api/arena/challenges/${encodeURIComponent(challengeId)}`);
        page.live.unfollow(`challenge:${challengeId}`);
        pending = null;
        fill(status, $("p", { class: "challenge-ended", text: t("arena_withdrawn") }));
      } catch (error) {
        page.announce(error.message, true);
      }
    } }, t("cancel"))));
}

// What the gateway said became of the challenge: to the table, or why not, in words.
export function challengeFrame(frame) {
  if (!pending || frame.challenge_id !== pending.challengeId) return;
  const { name } = pending;
  pending = null;
  if (frame.state === "accepted") {
    page.go(`/play?match=${encodeURIComponent(frame.match_id)}&arena=1`);
    return;
  }
  const text = frame.state === "declined"
    ? t("arena_declined", { name, reason: t(`decline_${frame.reason}`) })
    : t(frame.state === "expired" ? "arena_expired" : "arena_cancelled", { name });
  const status = document.getElementById("challenge-status");
  if (status) fill(status, $("p", { class: "challenge-ended", text }));
}
