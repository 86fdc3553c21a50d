// The page: the front page (a table in one click: against the computer, with a friend, ranked),
// rooms, the table, the summary, profile and leaderboards, tournaments, and a page for paths and
// links that lead nowhere. Paths: /, /room/CODE, /play?match=ID, /solo (a solo match played in
// the page, solo.js), /bots (a challenge to a bot, arena.js), /profile, /leaderboard,
// /tournaments, /tournament/ID, and the account's (account.js): /sign-up, /sign-in, /account,
// /auth/callback.

import { accountPage, providerCallback, signInPage, signUpPage } from "./account.js";
import { ApiError, Live, del, get, post } from "./api.js";
import { botsPage, challengeFrame, stopArena } from "./arena.js";
import { cardElement, deckOf, installSprite } from "./cards.js";
import { $, applyMotion, fill, motionSetting, setMotion } from "./dom.js";
import { cardName, lang, levelName, presetName, rulesetName, setLanguage, t } from "./i18n.js";
import { LocalMatch, forgetMatch, keptMatch, newMatch, soloFiles } from "./solo.js";
import { Table, checkFairness, dealConstants, missing } from "./table.js";
import { stopTournaments, tournamentPage, tournamentsPage } from "./tournaments.js";

const main = document.getElementById("app");
const announcer = document.getElementById("announcer");
const errors = document.getElementById("errors");
const TIPS_FOR = 3; // "Learn with tips" accompanies this many of your confirmed decisions
const state = { me: null, account: undefined, table: null, room: null, ticket: null, tipsLeft: 0, starting: false };
localStorage.removeItem("maumau.tips"); // tips are off after a reload: nothing of them is kept

const PRESETS = ["classic", "online", "ostfriesland", "colour"];
const LEVELS = ["random", "heuristic", "strong"];
const MAX_SEATS = { classic: 8, online: 4, ostfriesland: 8, colour: 8 };
const SAMPLES = { classic: ["7H", "JS", "AD"], online: ["8C", "JH", "AS"], ostfriesland: ["9D", "JC", "7H"], colour: ["R7", "Gskip", "W+4"] };

function announce(text, isError = false) {
  announcer.textContent = "";
  setTimeout(() => { announcer.textContent = text; }, 30);
  if (isError) {
    errors.textContent = text;
    errors.hidden = false;
    clearTimeout(announce.timer);
    announce.timer = setTimeout(() => { errors.hidden = true; }, 6000);
  }
}

const live = new Live(onFrame, (up) => {
  document.getElementById("connection").textContent = up ? "" : t("reconnecting");
});

function onFrame(frame) {
  if (frame.type === "event" && state.table && frame.topic === `match:${state.table.matchId}`) {
    state.table.onEvent(frame.event, frame.id);
  } else if (frame.type === "room" && state.room && frame.topic === `room:${state.room.code}`) {
    showRoom(frame.room);
  } else if (frame.type === "ticket") {
    showTicket(frame.ticket);
  } else if (frame.type === "challenge") {
    challengeFrame(frame);
  } else if (frame.type === "error") {
    announce(frame.error.message, true);
  }
}

// ---------------------------------------------------------------- the options, kept per browser

const OPTIONS_KEY = "maumau.options";
const DEFAULTS = {
  computers: 3, level: "heuristic", roomSeats: 4, roomLevel: "heuristic", rankedSeats: 4,
  classic: { deck: "french52", target: "0" }, online: { wins: "1" }, ostfriesland: { rounds: "1" },
  colour: { target: "0", teams: "false" },
};

function loadOptions() {
  let kept = {};
  try { kept = JSON.parse(localStorage.getItem(OPTIONS_KEY) || "{}") || {}; } catch { kept = {}; }
  const options = structuredClone(DEFAULTS);
  for (const [key, value] of Object.entries(kept)) {
    if (!(key in options)) continue;
    if (typeof options[key] === "object") Object.assign(options[key], value);
    else options[key] = value;
  }
  return options;
}

function saveOptions(options) {
  localStorage.setItem(OPTIONS_KEY, JSON.stringify(options));
}

const rulesetOf = (preset, options) => ({ preset, options: { ...options[preset] } });
// A ruleset's text form ("classic target=50"), as the gateway sends the ruleset on.
const rulesetText = ({ preset, options }) =>
  [preset, ...Object.entries(options).map(([name, value]) => `${name}=${value}`)].join(" ");
const teams = (preset, options) => preset === "colour" && options.colour.teams === "true";
const soloSeats = (preset, options) => (teams(preset, options) ? 4 : Number(options.computers) + 1);
const roomSeats = (preset, options) => (teams(preset, options) ? 4 : Math.min(Number(options.roomSeats), MAX_SEATS[preset]));
const rankedSeats = (preset, options) => (teams(preset, options) ? 4 : Math.min(Number(options.rankedSeats), MAX_SEATS[preset]));

// ---------------------------------------------------------------- chrome

function chrome() {
  document.documentElement.lang = lang();
  document.title = t("title");
  const nav = document.getElementById("nav");
  const links = [["/", "nav_play"], ["/profile", "nav_profile"], ["/leaderboard", "nav_leaderboard"], ["/bots", "nav_bots"], ["/tournaments", "nav_tournaments"],
    state.account ? ["/account", "nav_account"] : ["/sign-in", "nav_sign_in"]];
  fill(nav, links.map(([href, key]) => $("a", {
    href, "aria-current": location.pathname === href ? "page" : null,
    onclick: (e) => { e.preventDefault(); closeMenu(); go(href); },
  }, t(key))));
  const brand = document.getElementById("brand");
  brand.textContent = t("title");
  brand.onclick = (e) => { e.preventDefault(); go("/"); };
  const switcher = document.getElementById("lang");
  fill(switcher, $("span", { class: "long", text: t("switch_lang") }), $("span", { class: "short", "aria-hidden": "true", text: t("switch_lang_short") }));
  switcher.setAttribute("aria-label", t("switch_lang_label"));
  const tips = document.getElementById("tips");
  fill(tips, $("span", { class: "long", text: t("tips") }), $("span", { class: "short", "aria-hidden": "true", text: t("tips_short") }));
  tips.setAttribute("aria-label", t("tips"));
  tips.setAttribute("aria-pressed", String(state.tipsLeft > 0));
  const motion = document.getElementById("motion");
  motion.textContent = t("motion");
  motion.setAttribute("aria-pressed", String(motionSetting()));
  const menu = document.getElementById("menu");
  menu.textContent = t("menu");
  document.getElementById("skip").textContent = t("skip");
  applyMotion();
}

function closeMenu() {
  document.getElementById("menu").setAttribute("aria-expanded", "false");
  document.body.classList.remove("menu-open");
}

document.getElementById("menu").addEventListener("click", () => {
  const open = document.getElementById("menu").getAttribute("aria-expanded") !== "true";
  document.getElementById("menu").setAttribute("aria-expanded", String(open));
  document.body.classList.toggle("menu-open", open);
});

document.getElementById("lang").addEventListener("click", () => {
  setLanguage(lang() === "de" ? "en" : "de");
  closeMenu();
  chrome();
  route();
});

document.getElementById("tips").addEventListener("click", () => {
  state.tipsLeft = state.tipsLeft > 0 ? 0 : TIPS_FOR;
  announce(state.tipsLeft ? t("tips_on", { n: TIPS_FOR }) : t("tips_off"));
  chrome();
  if (state.table) state.table.tipsChanged();
});

document.getElementById("motion").addEventListener("click", () => {
  setMotion(!motionSetting());
  chrome();
});

// A confirmed decision of the player (a play, a draw or a pass): the tips count it.
function decided() {
  if (state.tipsLeft <= 0) return;
  state.tipsLeft -= 1;
  if (state.tipsLeft === 0) announce(t("tips_done"));
  chrome();
  if (state.table) state.table.tipsChanged();
}

const tips = { on: () => state.tipsLeft > 0, left: () => state.tipsLeft };

function go(path) {
  history.pushState(null, "", path);
  route();
}
window.addEventListener("popstate", () => route());

function leaveScreens() {
  stopTournaments();
  stopArena(live);
  if (state.table) state.table.stop();
  state.table = null;
  if (state.room) live.unfollow(`room:${state.room.code}`);
  state.room = null;
}

const KNOWN = [/^\/$/, /^\/rooms$/, /^\/queue$/, /^\/learn$/, /^\/play$/, /^\/solo$/, /^\/profile$/, /^\/leaderboard$/, /^\/bots$/,
  /^\/tournaments$/, /^\/room\/[^/]+$/, /^\/tournament\/[^/]+$/, /^\/sign-up$/, /^\/sign-in$/, /^\/account$/,
  /^\/auth\/callback$/];

// What the account pages need of this page: where to go, how to say things, and to forget the
// player when the browser signs in as another or out.
const forgetPlayer = () => { state.me = null; state.account = undefined; };
const accountContext = () => ({ go, announce, me: state.me, signedIn: forgetPlayer, signedOut: forgetPlayer });

async function route() {
  leaveScreens();
  errors.hidden = true;
  chrome();
  const path = location.pathname;
  if (!KNOWN.some((pattern) => pattern.test(path))) return nowhere("nowhere_path", { path });
  if (path === "/auth/callback") return providerCallback(main, accountContext());
  if (path === "/sign-in") return signInPage(main, accountContext()).catch((error) => announce(error.message, true));
  if (!state.me) {
    try {
      state.me = await get("/api/session");
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 401) announce(error.message, true);
      if (path === "/account") return signInPage(main, accountContext());
      return signIn(path.startsWith("/room/") ? "welcome_room" : "welcome");
    }
  }
  if (state.account === undefined) {
    state.account = await get("/api/account").catch(() => null);
    chrome();
  }
  live.start();
  try {
    if (path.startsWith("/room/")) return await enterRoom(decodeURIComponent(path.slice(6)));
    if (path === "/play") {
      const match = new URLSearchParams(location.search).get("match");
      if (match) return await openTable(match);
    }
    if (path === "/solo") return await openSolo();
    if (path === "/profile") return await profile();
    if (path === "/leaderboard") return await leaderboard();
    if (path === "/bots") return await botsPage(main, { go, announce, live, account: state.account });
    if (path === "/sign-up") return signUpPage(main, accountContext());
    if (path === "/account") return await accountPage(main, accountContext());
    if (path === "/tournaments") return await tournamentsPage(main, go, announce, state.me);
    if (path.startsWith("/tournament/")) return await tournamentPage(main, decodeURIComponent(path.slice(12)), state.me, go, announce);
    frontPage();
  } catch (error) {
    announce(error.message, true);
    if (!main.querySelector("h1, .table")) frontPage();
  }
}

function field(labelKey, control, hintKey) {
  return $("label", { class: "field" }, $("span", { text: t(labelKey) }), control, hintKey ? $("small", { text: t(hintKey) }) : null);
}

function select(name, values, labelOf, value) {
  return $("select", { name }, values.map((v) => $("option", { value: String(v), selected: String(v) === String(value) ? "selected" : null }, labelOf(v))));
}

function signIn(welcome) {
  const input = $("input", { name: "name", required: "required", maxlength: "32", autocomplete: "nickname", id: "name" });
  const form = $("form", { class: "panel sign-in", onsubmit: async (e) => {
    e.preventDefault();
    try {
      state.me = await post("/api/session", { name: input.value });
      route();
    } catch (error) {
      announce(error.message, true);
    }
  } }, $("p", { text: t(welcome) }), field("your_name", input), $("button", { type: "submit", class: "primary" }, t("start")));
  fill(main, $("h1", { text: t("title") }), form);
  input.focus();
}

// A page for a path, a match or a room that is not there.
function nowhere(key, params = {}) {
  fill(main, $("section", { class: "panel nowhere", "aria-labelledby": "nowhere-title" },
    $("h1", { id: "nowhere-title", text: t(`${key}_title`) }),
    $("p", { text: t(key, params) }),
    $("p", {}, $("a", { href: "/", class: "button", onclick: (e) => { e.preventDefault(); go("/"); } }, t("to_front_page")))));
  document.title = `${t(`${key}_title`)} · ${t("title")}`;
}

// ---------------------------------------------------------------- the front page

function frontPage() {
  const options = loadOptions();
  const running = $("div", { id: "running", "aria-live": "polite" });
  const sections = $("div", { class: "modes" });
  const draw = () => fill(sections, modeSection("computer", options), modeSection("friend", options), modeSection("ranked", options));
  draw();
  fill(main,
    $("div", { class: "front-head" },
      $("h1", { text: t("front_title", { name: state.me.name }) }),
      $("p", { class: "lead", text: t("front_lead") })),
    running,
    sections,
    moreOptions(options, () => { saveOptions(options); draw(); }));
  if (state.ticket && state.ticket.state === "searching") showTicket(state.ticket);
  showRunning(running);
}

function modeSection(mode, options) {
  const id = `mode-${mode}`;
  const sub = {
    computer: t("mode_computer_sub", { level: levelName(options.level) }),
    friend: t("mode_friend_sub"),
    ranked: t("mode_ranked_sub"),
  }[mode];
  return $("section", { class: `mode ${mode}`, id: mode === "computer" ? "play-now" : mode === "friend" ? "create-room" : "ranked", "aria-labelledby": id },
    $("div", { class: "mode-head" }, $("h2", { id, text: t(`mode_${mode}`) }), $("p", { text: sub })),
    $("div", { class: "tiles" }, PRESETS.map((preset) => tile(mode, preset, options))),
    mode === "ranked" ? $("div", { id: "ticket", "aria-live": "polite" }) : null);
}

function tile(mode, preset, options) {
  const seats = mode === "computer" ? soloSeats(preset, options) : mode === "friend" ? roomSeats(preset, options) : rankedSeats(preset, options);
  const ruleset = rulesetOf(preset, options);
  const deck = deckOf(rulesetText(ruleset));
  const fan = $("span", { class: "tile-cards", "aria-hidden": "true" },
    SAMPLES[preset].map((card, i) => {
      const face = cardElement(preset === "classic" && deck === "skat32" && card === "7H" ? "7H" : card, deck, { decorative: true });
      face.style.setProperty("--i", String(i - 1));
      return face;
    }));
  const sub = rulesetName(rulesetText(ruleset), { short: true });
  const size = t("players_n", { n: seats });
  return $("button", { type: "button", class: "tile", "data-preset": preset, "data-mode": mode,
    "aria-label": `${presetName(preset)} · ${sub} · ${size}`, onclick: () => start(mode, preset) },
  fan,
  $("span", { class: "tile-name", text: presetName(preset) }),
  $("span", { class: "tile-sub", text: sub }),
  $("span", { class: "tile-size", text: size }));
}

// A match against computers on the server, as where the page cannot play one itself.
async function serverSolo(ruleset, seats, level) {
  const nonce = randomNonce();
  // The deck's order is fetched (or found kept) before the nonce goes out: see dealConstants.
  await dealConstants(rulesetText(ruleset), seats).catch(() => null);
  const answer = await post("/api/play", { ruleset, computers: seats - 1, level, nonce });
  localStorage.setItem(`maumau.nonce.${answer.match.match_id}`, nonce);
  go(`/play?match=${encodeURIComponent(answer.match.match_id)}`);
}

async function start(mode, preset) {
  if (state.starting) return;
  state.starting = true;
  main.classList.add("starting");
  const options = loadOptions();
  const ruleset = rulesetOf(preset, options);
  try {
    if (mode === "computer" && (await soloFiles()).available) {
      newMatch({ ruleset: rulesetText(ruleset), seats: soloSeats(preset, options), level: options.level, name: state.me.name });
      go("/solo");
    } else if (mode === "computer") {
      await serverSolo(ruleset, soloSeats(preset, options), options.level);
    } else if (mode === "friend") {
      const created = await post("/api/rooms", { ruleset, seats: roomSeats(preset, options), bot_level: options.roomLevel });
      go(created.web_path);
    } else {
      const ticket = await post("/api/queue", { ruleset, seats: rankedSeats(preset, options), ranked: true });
      showTicket(ticket);
      live.follow(`ticket:${ticket.ticket_id}`, { ticket_id: ticket.ticket_id });
    }
  } catch (error) {
    announce(error.message, true);
  } finally {
    state.starting = false;
    main.classList.remove("starting");
  }
}

function moreOptions(options, changed) {
  const control = (name, values, labelOf, get, set) => {
    const node = select(name, values, labelOf, get());
    node.addEventListener("change", () => { set(node.value); changed(); });
    return node;
  };
  const levels = (key) => control(key, LEVELS, (l) => levelName(l, true), () => options[key], (v) => { options[key] = v; });
  const seatsOf = (key, low, high) => control(key, range(low, high), (n) => t("seats_n", { n }), () => options[key], (v) => { options[key] = Number(v); });
  const points = (preset, values) => control(`${preset}-target`, values, (n) => (n === "0" ? t("length_one_round") : t("length_points", { n })),
    () => options[preset].target, (v) => { options[preset].target = v; });
  const open = sessionStorage.getItem("maumau.more") === "open";
  const details = $("details", { class: "more panel", id: "more", open: open ? "open" : null },
    $("summary", { text: t("more_options") }),
    $("div", { class: "more-groups" },
      $("fieldset", {}, $("legend", { text: t("mode_computer") }),
        field("opt_computers", control("computers", [1, 2, 3], (n) => t(n === 1 ? "computers_1" : "computers_n", { n }), () => options.computers, (v) => { options.computers = Number(v); })),
        field("opt_level", levels("level"))),
      $("fieldset", {}, $("legend", { text: t("mode_friend") }),
        field("opt_room_seats", seatsOf("roomSeats", 2, 8), "opt_room_seats_hint"),
        field("opt_room_level", levels("roomLevel"))),
      $("fieldset", {}, $("legend", { text: t("mode_ranked") }),
        field("opt_ranked_seats", seatsOf("rankedSeats", 2, 8))),
      $("fieldset", {}, $("legend", { text: presetName("classic") }),
        field("opt_deck", control("deck", ["french52", "skat32"], (d) => t(`deck_${d}`), () => options.classic.deck, (v) => { options.classic.deck = v; })),
        field("opt_length", points("classic", ["0", "50", "100", "200"]))),
      $("fieldset", {}, $("legend", { text: presetName("online") }),
        field("opt_wins", control("wins", ["1", "2", "3", "5"], (n) => t(n === "1" ? "length_wins_1" : "length_wins", { n }), () => options.online.wins, (v) => { options.online.wins = v; }))),
      $("fieldset", {}, $("legend", { text: presetName("ostfriesland") }),
        field("opt_rounds", control("rounds", ["1", "3", "5", "10"], (n) => t(n === "1" ? "length_rounds_1" : "length_rounds", { n }), () => options.ostfriesland.rounds, (v) => { options.ostfriesland.rounds = v; }))),
      $("fieldset", {}, $("legend", { text: presetName("colour") }),
        field("opt_length", points("colour", ["0", "100", "200", "500"])),
        field("opt_teams", control("teams", ["false", "true"], (v) => t(v === "true" ? "teams_yes" : "teams_no"), () => options.colour.teams, (v) => { options.colour.teams = v; })))),
    $("p", { class: "hint", text: t("options_kept") }));
  details.addEventListener("toggle", () => sessionStorage.setItem("maumau.more", details.open ? "open" : "closed"));
  return details;
}

const range = (low, high) => Array.from({ length: high - low + 1 }, (_, i) => low + i);

// "Your match is running": the latest match of this player not over yet, one click away.
async function showRunning(box) {
  const kept = keptMatch();
  if (kept) {
    fill(box, runningPanel(JSON.parse(kept).ruleset, "/solo"));
    return;
  }
  const answer = await get("/api/matches").catch(() => null);
  if (!answer || !box.isConnected) return;
  const mine = (answer.matches || []).find((m) => m.status === "playing"
    && (m.seat_info || []).some((s) => s.player_id === state.me.player_id && !s.left));
  if (!mine) return;
  fill(box, runningPanel(mine.ruleset_text, `/play?match=${encodeURIComponent(mine.match_id)}`));
}

function runningPanel(ruleset, href) {
  return $("div", { class: "running panel" },
    $("p", {}, $("strong", { text: t("running_title") }), ` ${rulesetName(ruleset)}`),
    $("a", { href, class: "button primary", id: "back-to-table", onclick: (e) => { e.preventDefault(); go(href); } }, t("running_back")));
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
    state.ticket = null;
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
  fill(box, $("div", { class: "ticket panel" }, text, $("button", { type: "button", class: "secondary", onclick: async () => {
    try { showTicket(await del(`/api/queue/${ticket.ticket_id}`)); } catch (error) { announce(error.message, true); }
  } }, t("cancel"))));
}

// ---------------------------------------------------------------- rooms

async function enterRoom(code) {
  let room;
  try {
    room = await post(`/api/rooms/${encodeURIComponent(code)}/join`);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    // A room already playing: a latecomer watches its match.
    try {
      room = await get(`/api/rooms/${encodeURIComponent(code)}`);
    } catch (again) {
      if (again instanceof ApiError && (again.status === 404 || again.status === 400)) return nowhere("nowhere_room", { code });
      throw again;
    }
  }
  state.room = room;
  live.follow(`room:${room.code}`, { room: room.code });
  showRoom(room);
}

function showRoom(room) {
  state.room = room;
  let section = document.getElementById("room");
  if (!section) {
    section = $("section", { id: "room", class: "room" });
    fill(main, section, $("div", { id: "room-table" }));
  }
  const link = `${location.origin}${room.web_path}`;
  const watching = room.your_seat === undefined || room.your_seat < 0;
  const statusText = room.status === "open" ? t("room_open") : room.status === "starting" ? t("room_starting") : t("room_playing", { n: room.matches_started });
  const seats = room.seat_list.map((s) => $("li", { "data-seat": String(s.seat), class: s.seat === room.your_seat ? "me" : null },
    $("span", { class: "who", text: s.name || (s.bot_level ? t("bot", { seat: s.seat }) : t("empty_seat")) }),
    s.seat === room.your_seat ? ` ${t("you_mark")}` : "",
    s.player_id && s.player_id === room.host_player_id ? ` · ${t("host_mark")}` : "",
    ` · ${t("wins", { n: s.wins })}`));
  const isHost = state.me && room.host_player_id === state.me.player_id;
  const linkInput = $("input", { id: "invite-link", readonly: "readonly", value: link, "aria-label": t("invite") });
  fill(section,
    $("div", { class: "room-head" },
      $("h1", { text: t("room", { code: room.code }) }),
      $("p", { class: "room-status", text: `${rulesetName(room.ruleset_text)} · ${statusText}` })),
    $("div", { class: "invite" }, linkInput, $("button", { type: "button", class: "secondary", onclick: async () => {
      try { await navigator.clipboard.writeText(link); announce(t("copied")); } catch { linkInput.select(); }
    } }, t("copy"))),
    room.match_id
      ? $("details", { class: "room-tally", open: window.innerWidth > 640 ? "open" : null },
        $("summary", { text: t("room_tally") }), $("ol", { class: "room-seats", "aria-label": t("seats_label") }, seats))
      : $("ol", { class: "room-seats", "aria-label": t("seats_label") }, seats),
    watching ? $("p", { class: "watching-note", text: room.match_id ? t("room_watching") : t("room_full") }) : null,
    isHost && room.status === "open" ? $("button", { type: "button", id: "start-room", class: "primary", onclick: async () => {
      try { showRoom(await post(`/api/rooms/${room.code}/start`)); } catch (error) { announce(error.message, true); }
    } }, t("host_start")) : null);
  section.classList.toggle("compact", Boolean(room.match_id));
  if (room.match_id && (!state.table || state.table.matchId !== room.match_id)) {
    if (!state.table || !state.table.finished || watching) roomTable(room.match_id);
    else {
      const next = document.getElementById("next-match");
      if (next) next.hidden = false;
    }
  }
}

function roomTable(matchId) {
  if (state.table) state.table.stop();
  const holder = document.getElementById("room-table");
  const tableRoot = $("div", { class: "table-root" });
  fill(holder, tableRoot);
  const table = new Table(tableRoot, live, announce, { matchId, onOver: (done) => summary(done, holder, true), tips, onDecision: decided });
  state.table = table;
  table.start().catch((error) => announce(error.message, true));
}

// ---------------------------------------------------------------- the table and the summary

async function openTable(matchId) {
  const holder = $("div", { id: "solo-table" });
  const tableRoot = $("div", { class: "table-root" });
  fill(main, fill(holder, tableRoot));
  const query = new URLSearchParams(location.search);
  const [tournament, arena] = [query.get("tournament"), query.has("arena")];
  const table = new Table(tableRoot, live, announce, { matchId, onOver: (done) => summary(done, holder, false, tournament, arena), tips, onDecision: decided });
  state.table = table;
  try {
    await table.start();
  } catch (error) {
    table.stop();
    state.table = null;
    if (missing(error)) return nowhere("nowhere_match");
    throw error;
  }
}

// The solo match kept in this browser, played in the page; the first one waits for Pyodide.
async function openSolo() {
  if (!keptMatch()) return frontPage();
  const holder = $("div", { id: "solo-table", "data-solo": "device" });
  const loading = $("p", { class: "solo-loading", role: "status", text: t("solo_loading") });
  fill(main, fill(holder, loading));
  let backend;
  try {
    backend = await new LocalMatch().open();
  } catch (error) {
    const record = JSON.parse(keptMatch() || "{}");
    if (!error.code && !(record.actions || []).length) {
      // This browser cannot run the game (no WebAssembly, a failed download): a match not
      // begun yet is played on the server instead.
      forgetMatch();
      const [preset, ...pairs] = record.ruleset.split(" ");
      const ruleset = { preset, options: Object.fromEntries(pairs.map((pair) => pair.split("="))) };
      return serverSolo(ruleset, record.seats, record.level);
    }
    fill(holder, $("section", { class: "panel nowhere" },
      $("h1", { text: t("solo_failed_title") }),
      $("p", { text: t("solo_failed", { error: error.message }) }),
      $("p", {}, $("a", { href: "/", class: "button", onclick: (e) => { e.preventDefault(); go("/"); } }, t("to_front_page")))));
    if (error.code) forgetMatch(); // a kept record the rules core refuses is of no more use
    return;
  }
  if (!holder.isConnected) return;
  const tableRoot = $("div", { class: "table-root" });
  fill(holder, tableRoot);
  const table = new Table(tableRoot, live, announce, { backend, onOver: (done) => soloSummary(done, holder), tips, onDecision: decided });
  state.table = table;
  await table.start();
}

// The end of a solo match: its scores, and the same table again. It was dealt and played on
// this device, so there is no deal for the server to prove and no XP from the server.
function soloSummary(table, holder) {
  forgetMatch();
  const { preset, options } = table.info.ruleset;
  const again = () => {
    newMatch({ ruleset: rulesetText({ preset, options }), seats: table.info.seats, level: table.info.level, name: state.me.name });
    route();
  };
  summaryPanel(table, holder, {
    fairness: [$("p", { class: "solo-note", id: "solo-note", text: t("solo_no_xp") })],
    again: $("div", { class: "actions" },
      $("button", { type: "button", id: "new-match", class: "primary", onclick: again }, t("play_again")),
      $("a", { href: "/", class: "button", id: "front-page", onclick: (e) => { e.preventDefault(); go("/"); } }, t("to_front_page"))),
    verdict: t("solo_no_xp"),
  });
}

async function summary(table, holder, inRoom, tournament = null, arena = false) {
  const v = table.view || { seat: -1 };
  const seatCount = table.view ? table.view.hand_sizes.length : 0;
  const deal = table.view ? await dealConstants(table.view.ruleset, seatCount).catch(() => null) : null;
  const fairness = await checkFairness({
    started: table.started, seed: table.seed, seat: v.seat, nonce: localStorage.getItem(`maumau.nonce.${table.matchId}`),
    events: table.events, seats: seatCount, deal,
  });
  const watching = v.seat === undefined || v.seat < 0;
  const again = inRoom
    ? $("div", { class: "actions" }, $("p", { text: t("next_match") }),
      $("button", { type: "button", id: "next-match", class: "primary", hidden: state.room && state.room.match_id !== table.matchId ? null : "hidden",
        onclick: () => roomTable(state.room.match_id) }, t("next_match_button")))
    : $("div", { class: "actions" },
      tournament
        ? $("button", { type: "button", id: "back-to-tournament", class: "primary", onclick: () => go(`/tournament/${encodeURIComponent(tournament)}`) }, t("tour_back"))
        : arena ? $("button", { type: "button", id: "bots-again", class: "primary", onclick: () => go("/bots") }, t("arena_again"))
        : [
          !watching && table.info && !table.info.ranked ? $("button", { type: "button", id: "new-match", class: "primary", onclick: () => playAgain(table) }, t("play_again")) : null,
          $("a", { href: "/", class: "button", id: "front-page", onclick: (e) => { e.preventDefault(); go("/"); } }, t("to_front_page")),
        ]);
  const rating = $("div", { class: "xp", "aria-live": "polite", text: watching ? "" : t("waiting_rating") });
  summaryPanel(table, holder, {
    fairness: [rating, $("h3", { text: t("fair_check") }),
      $("ul", { class: `fairness ${fairness.ok ? "ok" : "bad"}`, id: "fairness" }, fairness.lines.map((line) => $("li", { text: line })))],
    again,
    verdict: fairness.lines.at(-1),
  });
  if (!watching) showXp(table, rating);
}

// The summary of a match over: who won, the card that went out, the scores per round, then
// what the caller adds (the XP and the fair-deal check, or a solo match's note) and what next.
function summaryPanel(table, holder, { fairness, again, verdict }) {
  const v = table.view || { seat: -1 };
  const over = table.over || (table.info && table.info.outcome) || { winners: [], totals: [] };
  const winners = over.winners || [];
  const seats = (table.view ? table.view.hand_sizes : []).map((_, seat) => seat);
  const rows = table.rounds.map((r) => $("tr", {}, $("th", { scope: "row", text: String(r.round) }), ...seats.map((s) => $("td", { text: String(r.points[s] ?? "") }))));
  const totals = over.totals && over.totals.length ? over.totals : (table.rounds.at(-1) || {}).totals || [];
  const watching = v.seat === undefined || v.seat < 0;
  const won = winners.includes(v.seat);
  const lastRound = table.rounds.at(-1);
  const last = table.lastPlay;
  const finisher = lastRound ? lastRound.winner : last ? last.seat : null;
  const winning = last && finisher !== null && last.seat === finisher
    ? $("p", { class: "winning-card" },
      cardElement(last.card, table.deck, { class: "small" }),
      $("span", { text: finisher === v.seat ? t("you_went_out", { card: cardName(last.card) }) : t("went_out", { who: table.name(finisher), card: cardName(last.card) }) }))
    : null;
  const panel = $("section", { class: `summary panel${won ? " won" : ""}`, id: "summary", "aria-labelledby": "summary-title" },
    $("h2", { id: "summary-title", tabindex: "-1", text: t("match_over") }),
    $("p", { class: "result", text: watching ? t("winners", { names: winners.map((s) => table.name(s)).join(", ") }) : won ? t("you_won") : t("you_lost") }),
    watching || (won && winners.length === 1) ? null : $("p", { text: t("winners", { names: winners.map((s) => table.name(s)).join(", ") }) }),
    winning,
    // A table of eight seats is wider than a phone: it scrolls in its own box, which the
    // keyboard reaches.
    $("div", { class: "scores-wrap", tabindex: "0", role: "region", "aria-label": t("scores_per_round") }, $("table", { class: "scores" },
      $("caption", { text: t("scores_per_round") }),
      $("thead", {}, $("tr", {}, $("th", { scope: "col", text: t("round_column") }), ...seats.map((s) => $("th", { scope: "col", class: winners.includes(s) ? "winner" : null, text: table.name(s) })))),
      $("tbody", {}, rows),
      $("tfoot", {}, $("tr", {}, $("th", { scope: "row", text: t("total") }), ...seats.map((s) => $("td", { class: winners.includes(s) ? "winner" : null, text: String(totals[s] ?? "") })))))),
    ...fairness,
    again);
  const old = holder.querySelector("#summary");
  if (old) old.remove();
  holder.append(panel);
  announce(`${t("match_over")}. ${verdict}`);
  panel.querySelector("h2").focus({ preventScroll: true });
  panel.scrollIntoView({ block: "start", behavior: "auto" });
}

// The same table again: the rule system, the computers and their level of the match just over.
async function playAgain(table) {
  if (state.starting) return;
  state.starting = true;
  try {
    const info = table.info;
    const bots = (info.seat_info || []).filter((s) => s.bot_level);
    const ruleset = { preset: info.ruleset.preset, options: { ...(info.ruleset.options || {}) } };
    await serverSolo(ruleset, info.seats, (bots[0] && bots[0].bot_level) || "heuristic");
  } catch (error) {
    announce(error.message, true);
  } finally {
    state.starting = false;
  }
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
          $("p", { class: "xp-earned", text: t("xp_earned", { xp: mine.xp || 0 }) }),
          $("p", { text: t("level_of", { level: me.level }) }),
          $("progress", { max: String(span), value: String(progress), "aria-label": t("xp_progress", { xp: me.xp, next: me.next_level_xp }) }),
          $("span", { text: ` ${t("xp_progress", { xp: me.xp, next: me.next_level_xp })}` }),
        ];
        if (summary.ranked && mine.before && mine.after) {
          parts.push($("p", { class: "rating-change", text: t("rating_change", { before: mine.before.display, after: mine.after.display }) }));
        }
        fill(box, parts);
        return;
      }
    } catch {
      // the rating service may be down: the summary stands without XP
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  if (box.isConnected) box.textContent = "";
}

// ---------------------------------------------------------------- profile and leaderboards

async function profile() {
  const me = await get("/api/profile").catch(() => null);
  if (!me) {
    fill(main, $("h1", { text: t("profile") }), $("p", { text: t("nobody") }));
    return;
  }
  const span = Math.max(1, Number(me.next_level_xp) - Number(me.level_xp));
  fill(main,
    $("h1", { text: `${t("profile")}: ${me.name}` }),
    $("p", { text: `${t("level_of", { level: me.level })} · ${t("xp_progress", { xp: me.xp, next: me.next_level_xp })}` }),
    $("progress", { max: String(span), value: String(Number(me.xp) - Number(me.level_xp)), "aria-label": t("xp") }),
    $("p", { text: `${t("matches_played", { n: me.matches_played })}, ${t("matches_won", { n: me.matches_won })}` }),
    $("h2", { text: t("ratings") }),
    grid([t("rule_system"), t("season"), t("rating"), t("rank"), t("played")],
      me.ratings.map((r) => [presetName(r.preset), r.season, r.skill.display, r.rank, r.matches_played]), t("no_ratings")),
    $("h2", { text: t("recent") }),
    grid([t("when"), t("rule_system"), t("score_column"), "XP"], me.recent.map((m) => {
      const mine = m.seats.find((s) => s.seat === m.seat) || {};
      return [new Date(m.finished_at * 1000).toLocaleString(lang()), rulesetName(m.ruleset), mine.total ?? "", mine.xp ?? ""];
    }), t("no_matches")));
}

function grid(headers, rows, empty) {
  if (!rows.length) return $("p", { class: "empty", text: empty || t("nobody") });
  return $("table", {}, $("thead", {}, $("tr", {}, headers.map((h) => $("th", { scope: "col", text: String(h) })))),
    $("tbody", {}, rows.map((row) => $("tr", {}, row.map((cell) => $("td", { text: String(cell) }))))));
}

async function leaderboard() {
  const query = new URLSearchParams(location.search);
  const preset = select("preset", PRESETS, (p) => presetName(p), query.get("preset") || "classic");
  // Bots and people never share a ladder: the bots' is a page of its own.
  const ladder = select("ladder", ["people", "bots"], (l) => t(`ladder_${l}`), query.get("ladder") || "people");
  const box = $("div", { id: "ladder" });
  const draw = async () => {
    const bots = ladder.value === "bots";
    const top = await get(`/api/leaderboard?preset=${preset.value}&limit=10&ladder=${ladder.value}`);
    const around = bots ? null : await get(`/api/leaderboard/around?preset=${preset.value}`).catch(() => null);
    const named = (e) => (e.bot && !e.player_id.startsWith("bot:") ? `${e.name} · BOT` : e.name || e.player_id);
    const rows = (page) => page.entries.map((e) => [e.rank, named(e), e.skill.display, e.matches_played]);
    const headers = [t("rank"), t("name"), t("rating"), t("played")];
    fill(box, grid(headers, rows(top), t("ladder_empty")),
      bots ? $("p", { class: "hint" }, t("ladder_bots_hint"), " ",
        $("a", { href: "/bots", id: "play-a-bot", onclick: (e) => { e.preventDefault(); go("/bots"); } }, t("arena_title")))
        : around && around.entries && around.entries.length ? [$("h2", { text: t("around_you") }), grid(headers, rows(around))]
          : $("p", { class: "hint", text: t("ladder_unranked") }));
  };
  for (const control of [preset, ladder]) control.addEventListener("change", () => draw().catch((error) => announce(error.message, true)));
  fill(main, $("h1", { text: t("leaderboard") }), field("rule_system", preset), field("ladder_kind", ladder), box);
  await draw();
}

installSprite();
chrome();
route();
