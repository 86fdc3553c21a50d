// The page: lobby (play now, rooms, ranked queue), the table, the summary, profile and
// leaderboards, tournaments. Paths: /, /room/CODE, /play?match=ID, /profile, /leaderboard,
// /tournaments, /tournament/ID.

import { ApiError, Live, del, get, post } from "./api.js";
import { lang, setLanguage, t } from "./i18n.js";
import { $, Table, cardFace, checkFairness, dealConstants } from "./table.js";
import { stopTournaments, tournamentPage, tournamentsPage } from "./tournaments.js";

const main = document.getElementById("app");
const announcer = document.getElementById("announcer");
const errors = document.getElementById("errors");
const state = { me: null, table: null, room: null, ticket: null, tips: localStorage.getItem("maumau.tips") === "on" };

const PRESETS = ["classic", "online", "ostfriesland", "colour"];
const LEVELS = ["random", "heuristic", "strong"];
const SEATS = { classic: [2, 8], online: [2, 4], ostfriesland: [2, 8], colour: [2, 8] };

function announce(text, isError = false) {
  announcer.textContent = text;
  if (isError) {
    errors.textContent = text;
    errors.hidden = false;
    setTimeout(() => { errors.hidden = true; }, 6000);
  }
}

const live = new Live(onFrame, (up) => {
  document.getElementById("connection").textContent = up ? "" : t("reconnecting");
});

function onFrame(frame) {
  if (frame.type === "event" && state.table && frame.topic === `match:${state.table.matchId}`) {
    state.table.onEvent(frame.event);
  } else if (frame.type === "room" && state.room && frame.topic === `room:${state.room.code}`) {
    showRoom(frame.room);
  } else if (frame.type === "ticket") {
    showTicket(frame.ticket);
  } else if (frame.type === "error") {
    announce(frame.error.message, true);
  }
}

// ---------------------------------------------------------------- chrome

function chrome() {
  document.documentElement.lang = lang();
  document.title = t("title");
  const nav = document.getElementById("nav");
  const links = [["/", "nav_play"], ["/profile", "nav_profile"], ["/leaderboard", "nav_leaderboard"], ["/tournaments", "nav_tournaments"]];
  nav.replaceChildren(...links.map(([href, key]) => $("a", { href, onclick: (e) => { e.preventDefault(); go(href); } }, t(key))));
  const switcher = document.getElementById("lang");
  switcher.textContent = t("switch_lang");
  switcher.setAttribute("aria-label", t("switch_lang_label"));
  const tips = document.getElementById("tips");
  tips.textContent = t("tips");
  tips.setAttribute("aria-pressed", String(state.tips));
  document.getElementById("skip").textContent = t("skip");
}

document.getElementById("lang").addEventListener("click", () => {
  setLanguage(lang() === "de" ? "en" : "de");
  chrome();
  route();
});

document.getElementById("tips").addEventListener("click", () => {
  state.tips = !state.tips;
  localStorage.setItem("maumau.tips", state.tips ? "on" : "off");
  chrome();
  if (state.table) state.table.tipsChanged();
});

function go(path) {
  history.pushState(null, "", path);
  route();
}
window.addEventListener("popstate", () => route());

function leaveScreens() {
  stopTournaments();
  if (state.table) state.table.stop();
  state.table = null;
  if (state.room) live.unfollow(`room:${state.room.code}`);
  state.room = null;
}

async function route() {
  leaveScreens();
  errors.hidden = true;
  const path = location.pathname;
  if (!state.me) {
    try {
      state.me = await get("/api/session");
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 401) announce(error.message, true);
      return signIn();
    }
  }
  live.start();
  try {
    if (path.startsWith("/room/")) return await enterRoom(decodeURIComponent(path.slice(6)));
    if (path === "/play") {
      const match = new URLSearchParams(location.search).get("match");
      if (match) return await openTable(match);
    }
    if (path === "/profile") return await profile();
    if (path === "/leaderboard") return await leaderboard();
    if (path === "/tournaments") return await tournamentsPage(main, go, announce);
    if (path.startsWith("/tournament/")) return await tournamentPage(main, decodeURIComponent(path.slice(12)), state.me, go, announce);
    lobby();
  } catch (error) {
    announce(error.message, true);
    if (!main.firstChild) lobby();
  }
}

function field(labelKey, control) {
  return $("label", { class: "field" }, $("span", { text: t(labelKey) }), control);
}

function select(name, values, labelOf, value) {
  return $("select", { name }, values.map((v) => $("option", { value: v, selected: v === value ? "selected" : null }, labelOf(v))));
}

function signIn() {
  const input = $("input", { name: "name", required: "required", maxlength: "32", autocomplete: "nickname" });
  const form = $("form", { class: "card-panel", onsubmit: async (e) => {
    e.preventDefault();
    try {
      state.me = await post("/api/session", { name: input.value });
      route();
    } catch (error) {
      announce(error.message, true);
    }
  } }, $("p", { text: t("welcome") }), field("your_name", input), $("button", { type: "submit" }, t("start")));
  main.replaceChildren($("h1", { text: t("title") }), form);
  input.focus();
}

// ---------------------------------------------------------------- lobby

function rulesetForm(prefix) {
  const preset = select("preset", PRESETS, (p) => t(`preset_${p}`), "classic");
  preset.id = `${prefix}-preset`;
  const optionsBox = $("div", { class: "options" });
  const drawOptions = () => {
    const p = preset.value;
    const controls = [];
    if (p === "classic") {
      controls.push(field("opt_deck", select("deck", ["french52", "skat32"], (d) => t(`deck_${d}`), "french52")));
      controls.push(field("opt_target", $("input", { name: "target", type: "number", min: "0", max: "10000", value: "0" })));
    } else if (p === "online") {
      controls.push(field("opt_wins", $("input", { name: "wins", type: "number", min: "1", max: "100", value: "1" })));
    } else if (p === "ostfriesland") {
      controls.push(field("opt_rounds", $("input", { name: "rounds", type: "number", min: "1", max: "100", value: "1" })));
    } else if (p === "colour") {
      controls.push(field("opt_target", $("input", { name: "target", type: "number", min: "0", max: "10000", value: "0" })));
      controls.push(field("opt_teams", select("teams", ["false", "true"], (v) => (v === "true" ? "✓" : "–"), "false")));
    }
    optionsBox.replaceChildren(...controls);
  };
  preset.addEventListener("change", drawOptions);
  drawOptions();
  const read = () => {
    const options = {};
    for (const control of optionsBox.querySelectorAll("input, select")) options[control.name] = String(control.value);
    return { preset: preset.value, options };
  };
  return { nodes: [field("rule_system", preset), optionsBox], read, preset };
}

// A ruleset's text form ("classic target=50"), as the gateway sends the ruleset on.
const rulesetText = ({ preset, options }) =>
  [preset, ...Object.entries(options).map(([name, value]) => `${name}=${value}`)].join(" ");

function lobby() {
  const play = rulesetForm("play");
  const computers = select("computers", ["1", "2", "3"], (n) => n, "3");
  const level = select("level", LEVELS, (l) => t(`level_${l}`), "heuristic");
  const playForm = $("form", { class: "card-panel", id: "play-now", onsubmit: async (e) => {
    e.preventDefault();
    const nonce = randomNonce();
    const ruleset = play.read();
    const seats = Number(computers.value) + 1;
    try {
      // The deck's order is fetched (or found kept) before the nonce goes out: see dealConstants.
      await dealConstants(rulesetText(ruleset), seats).catch(() => null);
      const answer = await post("/api/play", { ruleset, computers: seats - 1, level: level.value, nonce });
      localStorage.setItem(`maumau.nonce.${answer.match.match_id}`, nonce);
      go(`/play?match=${encodeURIComponent(answer.match.match_id)}`);
    } catch (error) {
      announce(error.message, true);
    }
  } }, $("h2", { text: t("play_now") }), ...play.nodes, field("computers", computers), field("level", level),
  $("button", { type: "submit", id: "play-button" }, t("play")));

  const room = rulesetForm("room");
  const seats = $("input", { name: "seats", type: "number", min: "2", max: "8", value: "4" });
  const roomLevel = select("bot_level", LEVELS, (l) => t(`level_${l}`), "heuristic");
  const roomForm = $("form", { class: "card-panel", id: "create-room", onsubmit: async (e) => {
    e.preventDefault();
    try {
      const created = await post("/api/rooms", { ruleset: room.read(), seats: Number(seats.value), bot_level: roomLevel.value });
      go(created.web_path);
    } catch (error) {
      announce(error.message, true);
    }
  } }, $("h2", { text: t("create_room") }), ...room.nodes, field("seats", seats), field("level", roomLevel),
  $("button", { type: "submit" }, t("create_room")));

  const ranked = rulesetForm("ranked");
  const rankedSeats = $("input", { name: "seats", type: "number", min: "2", max: "8", value: "4" });
  const queueForm = $("form", { class: "card-panel", id: "ranked", onsubmit: async (e) => {
    e.preventDefault();
    try {
      const ticket = await post("/api/queue", { ruleset: ranked.read(), seats: Number(rankedSeats.value), ranked: true });
      showTicket(ticket);
      live.follow(`ticket:${ticket.ticket_id}`, { ticket_id: ticket.ticket_id });
    } catch (error) {
      announce(error.message, true);
    }
  } }, $("h2", { text: t("ranked_queue") }), ...ranked.nodes, field("seats", rankedSeats),
  $("button", { type: "submit" }, t("join_queue")), $("div", { id: "ticket", "aria-live": "polite" }));

  main.replaceChildren($("h1", { text: `${t("title")} · ${state.me.name}` }), $("div", { class: "lobby" }, playForm, roomForm, queueForm));
}

function randomNonce() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

// ---------------------------------------------------------------- ranked queue

let ticketTimer = null;
function showTicket(ticket) {
  state.ticket = ticket;
  const box = document.getElementById("ticket");
  clearInterval(ticketTimer);
  if (ticket.state === "seated") {
    if (box) box.textContent = t("seated");
    go(`/play?match=${encodeURIComponent(ticket.match_id)}`);
    return;
  }
  if (!box) return;
  if (ticket.state !== "searching") {
    box.textContent = t("ticket_cancelled", { reason: ticket.reason });
    return;
  }
  const since = Date.now() - ticket.waited_seconds * 1000;
  const text = $("span", { class: "waiting" });
  const update = () => { text.textContent = t("waiting", { seconds: Math.floor((Date.now() - since) / 1000) }); };
  update();
  ticketTimer = setInterval(update, 1000);
  box.replaceChildren(text, $("button", { type: "button", class: "secondary", onclick: async () => {
    try { showTicket(await del(`/api/queue/${ticket.ticket_id}`)); } catch (error) { announce(error.message, true); }
  } }, t("cancel")));
}

// ---------------------------------------------------------------- rooms

async function enterRoom(code) {
  const room = await post(`/api/rooms/${encodeURIComponent(code)}/join`);
  state.room = room;
  live.follow(`room:${room.code}`, { room: room.code });
  showRoom(room);
}

function showRoom(room) {
  state.room = room;
  let section = document.getElementById("room");
  if (!section) {
    section = $("section", { id: "room" });
    main.replaceChildren(section, $("div", { id: "room-table" }));
  }
  const link = `${location.origin}${room.web_path}`;
  const statusText = room.status === "open" ? t("room_open") : room.status === "starting" ? t("room_starting") : t("room_playing", { n: room.matches_started });
  const seats = room.seat_list.map((s) => $("li", { "data-seat": s.seat },
    `${t("seat", { seat: s.seat })}: ${s.name || (s.bot_level ? t("bot", { seat: s.seat }) : t("empty_seat"))}`,
    s.seat === room.your_seat ? ` ${t("you_mark")}` : "",
    s.player_id && s.player_id === room.host_player_id ? ` · ${t("host_mark")}` : "",
    ` · ${t("wins", { n: s.wins })}`));
  const isHost = state.me && room.host_player_id === state.me.player_id;
  const linkInput = $("input", { id: "invite-link", readonly: "readonly", value: link, "aria-label": t("invite") });
  section.replaceChildren(
    $("h1", { text: t("room", { code: room.code }) }),
    $("p", { class: "room-status", text: `${room.ruleset_text} · ${statusText}` }),
    $("div", { class: "invite" }, linkInput, $("button", { type: "button", class: "secondary", onclick: async () => {
      try { await navigator.clipboard.writeText(link); announce(t("copied")); } catch { linkInput.select(); }
    } }, t("copy"))),
    $("ol", { class: "room-seats" }, seats),
    isHost && room.status === "open" ? $("button", { type: "button", id: "start-room", onclick: async () => {
      try { showRoom(await post(`/api/rooms/${room.code}/start`)); } catch (error) { announce(error.message, true); }
    } }, t("host_start")) : null);
  if (room.match_id && room.your_seat >= 0 && (!state.table || state.table.matchId !== room.match_id)) {
    if (!state.table || !state.table.finished) roomTable(room.match_id);
    else {
      const next = document.getElementById("next-match");
      if (next) next.hidden = false;
    }
  }
}

function roomTable(matchId) {
  if (state.table) state.table.stop();
  const holder = document.getElementById("room-table");
  const table = new Table(holder, live, announce, { matchId, onOver: (done) => summary(done, holder, true), tipsOn: () => state.tips });
  state.table = table;
  table.start().catch((error) => announce(error.message, true));
}

// ---------------------------------------------------------------- the table and the summary

async function openTable(matchId) {
  const holder = $("div", { id: "solo-table" });
  main.replaceChildren(holder);
  const tournament = new URLSearchParams(location.search).get("tournament");
  const table = new Table(holder, live, announce, { matchId, onOver: (done) => summary(done, holder, false, tournament), tipsOn: () => state.tips });
  state.table = table;
  await table.start();
}

async function summary(table, holder, inRoom, tournament = null) {
  const v = table.view || { seat: -1 };
  const over = table.over || (table.info && table.info.outcome) || { winners: [], totals: [] };
  const winners = over.winners || [];
  const seats = (table.view ? table.view.hand_sizes : []).map((_, seat) => seat);
  const rows = table.rounds.map((r) => $("tr", {}, $("th", { scope: "row", text: String(r.round) }), ...seats.map((s) => $("td", { text: String(r.points[s] ?? "") }))));
  const totals = over.totals && over.totals.length ? over.totals : (table.rounds.at(-1) || {}).totals || [];
  const seatCount = table.view ? table.view.hand_sizes.length : 0;
  const deal = table.view ? await dealConstants(table.view.ruleset, seatCount).catch(() => null) : null;
  const fairness = await checkFairness({
    started: table.started, seed: table.seed, seat: v.seat, nonce: localStorage.getItem(`maumau.nonce.${table.matchId}`),
    events: table.events, seats: seatCount, deal,
  });
  const rating = $("div", { class: "xp", "aria-live": "polite", text: t("waiting_rating") });
  const panel = $("section", { class: "summary", id: "summary", "aria-labelledby": "summary-title" },
    $("h2", { id: "summary-title", text: t("match_over") }),
    $("p", { class: "result", text: winners.includes(v.seat) ? t("you_won") : t("you_lost") }),
    $("p", { text: t("winners", { names: winners.map((s) => table.name(s)).join(", ") }) }),
    $("table", { class: "scores" },
      $("caption", { text: t("scores_per_round") }),
      $("thead", {}, $("tr", {}, $("th", { scope: "col", text: "#" }), ...seats.map((s) => $("th", { scope: "col", text: table.name(s) })))),
      $("tbody", {}, rows),
      $("tfoot", {}, $("tr", {}, $("th", { scope: "row", text: t("total") }), ...seats.map((s) => $("td", { text: String(totals[s] ?? "") }))))),
    rating,
    $("h3", { text: t("fair_check") }),
    $("ul", { class: `fairness ${fairness.ok ? "ok" : "bad"}`, id: "fairness" }, fairness.lines.map((line) => $("li", { text: line }))),
    inRoom ? $("div", { class: "actions" }, $("p", { text: t("next_match") }),
      $("button", { type: "button", id: "next-match", hidden: state.room && state.room.match_id !== table.matchId ? null : "hidden",
        onclick: () => roomTable(state.room.match_id) }, t("next_match_button"))) : $("div", { class: "actions" },
      tournament ? $("button", { type: "button", id: "back-to-tournament", onclick: () => go(`/tournament/${encodeURIComponent(tournament)}`) }, t("tour_back"))
        : $("button", { type: "button", id: "new-match", onclick: () => go("/") }, t("new_match"))));
  holder.replaceChildren(panel);
  announce(`${t("match_over")}. ${fairness.lines.at(-1)}`);
  panel.querySelector("h2").setAttribute("tabindex", "-1");
  panel.querySelector("h2").focus();
  showXp(table, rating);
}

// The rating service applies the result moments later: ask a few times.
async function showXp(table, box) {
  for (let attempt = 0; attempt < 15; attempt += 1) {
    try {
      const me = await get("/api/profile");
      const summary = (me.recent || []).find((m) => m.match_id === table.matchId);
      if (summary) {
        const mine = summary.seats.find((s) => s.seat === summary.seat) || {};
        const span = Math.max(1, Number(me.next_level_xp) - Number(me.level_xp));
        const progress = Number(me.xp) - Number(me.level_xp);
        const parts = [
          $("p", { text: t("xp_earned", { xp: mine.xp || 0 }) }),
          $("p", { text: t("level_of", { level: me.level }) }),
          $("progress", { max: String(span), value: String(progress), "aria-label": t("xp_progress", { xp: me.xp, next: me.next_level_xp }) }),
          $("span", { text: ` ${t("xp_progress", { xp: me.xp, next: me.next_level_xp })}` }),
        ];
        if (summary.ranked && mine.before && mine.after) {
          parts.push($("p", { class: "rating-change", text: t("rating_change", { before: mine.before.display, after: mine.after.display }) }));
        }
        box.replaceChildren(...parts);
        return;
      }
    } catch {
      // the rating service may be down: the summary stands without XP
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

// ---------------------------------------------------------------- profile and leaderboards

async function profile() {
  const me = await get("/api/profile").catch(() => null);
  if (!me) {
    main.replaceChildren($("h1", { text: t("profile") }), $("p", { text: t("nobody") }));
    return;
  }
  const span = Math.max(1, Number(me.next_level_xp) - Number(me.level_xp));
  main.replaceChildren(
    $("h1", { text: `${t("profile")}: ${me.name}` }),
    $("p", { text: `${t("level_of", { level: me.level })} · ${t("xp_progress", { xp: me.xp, next: me.next_level_xp })}` }),
    $("progress", { max: String(span), value: String(Number(me.xp) - Number(me.level_xp)), "aria-label": t("xp") }),
    $("p", { text: `${t("matches_played", { n: me.matches_played })}, ${t("matches_won", { n: me.matches_won })}` }),
    $("h2", { text: t("ratings") }),
    table([t("rule_system"), t("season"), t("rating"), t("rank"), t("played")],
      me.ratings.map((r) => [t(`preset_${r.preset}`), r.season, r.skill.display, r.rank, r.matches_played])),
    $("h2", { text: t("recent") }),
    table([t("when"), t("rule_system"), t("score_column"), "XP"], me.recent.map((m) => {
      const mine = m.seats.find((s) => s.seat === m.seat) || {};
      return [new Date(m.finished_at * 1000).toLocaleString(lang()), m.ruleset, mine.total ?? "", mine.xp ?? ""];
    })));
}

function table(headers, rows) {
  if (!rows.length) return $("p", { text: t("nobody") });
  return $("table", {}, $("thead", {}, $("tr", {}, headers.map((h) => $("th", { scope: "col", text: String(h) })))),
    $("tbody", {}, rows.map((row) => $("tr", {}, row.map((cell) => $("td", { text: String(cell) }))))));
}

async function leaderboard() {
  const preset = select("preset", PRESETS, (p) => t(`preset_${p}`), new URLSearchParams(location.search).get("preset") || "classic");
  const box = $("div", { id: "ladder" });
  const draw = async () => {
    const top = await get(`/api/leaderboard?preset=${preset.value}&limit=10`);
    const around = await get(`/api/leaderboard/around?preset=${preset.value}`).catch(() => null);
    const rows = (page) => page.entries.map((e) => [e.rank, e.name || e.player_id, e.skill.display, e.matches_played]);
    const headers = [t("rank"), t("name"), t("rating"), t("played")];
    box.replaceChildren(table(headers, rows(top)),
      around ? $("h2", { text: t("around_you") }) : null, around ? table(headers, rows(around)) : null);
  };
  preset.addEventListener("change", () => draw().catch((error) => announce(error.message, true)));
  main.replaceChildren($("h1", { text: t("leaderboard") }), field("rule_system", preset), box);
  await draw();
}

chrome();
route();
export { cardFace };
