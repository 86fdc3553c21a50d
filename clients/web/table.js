// The table of one match: its backend sends the state (the seat's view, events), the page draws
// it: the gateway for a match on the server, the rules core in the page for a solo match. Which cards and moves are legal comes from the view's `legal` list alone.
//
// The seats sit around an oval table, the page's own seat at the bottom with its hand fanned;
// the draw pile and the discard pile lie in the middle with the suit or colour to serve on them.
// A wish, the drawn card's choice and a turn to sit out are asked on the table itself. Every
// move works by pointer and by keyboard (arrows through the hand, Enter, D, P, A, M, 1-9, the
// suits' and colours' initials), one move at a time, and is told in the live region.

import { ApiError, get, post, requestId } from "./api.js";
import { cardElement, COLOURS, deckOf, faceSvg, suitSvg, suitInk } from "./cards.js";
import { $, fill, motionOn } from "./dom.js";
import { cardName, lang, levelName, rulesetName, suitName, t } from "./i18n.js";
import { replayMatch } from "./replay.js";
import { Story } from "./story.js";

export { $ };

// The four suits (or colours) a wish offers, with their keys.
const SUIT_KEYS = { S: "s", H: "h", D: "d", C: "c", R: "r", G: "g", B: "b", Y: "y" };

// The words for one action ("JD:S!mau", "draw", "catch:2", ...), for buttons and tips.
export function actionWords(action, view, names) {
  const text = action.text || "";
  if (action.play) {
    const { card, suit, call } = action.play;
    let words = suit ? t("play_wish", { card: cardName(card), suit: suitName(suit) }) : t("play_card", { card: cardName(card) });
    if (call) words += t("with_call", { call: t(`call_${call}`) });
    return words;
  }
  if (text === "draw") return t("act_draw");
  if (text === "pass") return t("act_pass");
  if (text === "accept") {
    return view && view.pending === "skip" ? t("act_accept_skip") : t("act_accept_draw", { n: view ? view.pending_count : "" });
  }
  if (text === "challenge") return t("act_challenge");
  if (text.startsWith("catch:")) return t("act_catch", { name: names(Number(text.slice(6))) });
  if (text === "call:last") return t("act_last");
  if (text.startsWith("suit:")) return t("act_name_suit", { suit: suitName(text.slice(5)) });
  return text;
}

// The structured form of an action's text ("JC:C!mau" -> play JC wishing clubs calling mau),
// as the view's legal list carries it: a tip names its action by text only.
export function parseAction(text) {
  const simple = ["draw", "pass", "accept", "challenge"];
  if (simple.includes(text) || text.startsWith("catch:") || text.startsWith("call:") || text.startsWith("suit:")) return { text };
  const [body, call = ""] = text.split("!");
  const [card, suit = ""] = body.split(":");
  return { text, play: { card, suit, call } };
}

const capitalised = (text) => text.charAt(0).toUpperCase() + text.slice(1);

// The seat the match waits for: the view's to_act (the chooser of a starter suit, else the
// turn; -1 once over), read from turn and chooser in a view from an engine without it.
export function toAct(view) {
  if (view.to_act !== undefined && view.to_act !== null) return view.to_act;
  if (view.phase === "over") return -1;
  return view.phase === "starter_suit" ? view.chooser : view.turn;
}

// Stream ids ("1700000000000-3") in the order the stream has them.
function compareIds(a, b) {
  const [am, as = "0"] = String(a).split("-").map(Number);
  const [bm, bs = "0"] = String(b).split("-").map(Number);
  return am - bm || as - bs;
}

// Where the other seats sit: the page's seat at the bottom, the next one (clockwise) to its left,
// on around the top to its right. Percent of the table's width and height.
export function seatPlaces(count, bottomTaken) {
  const places = [];
  if (!bottomTaken) {
    for (let k = 0; k < count; k++) {
      const angle = (270 - (k * 360) / count) * (Math.PI / 180);
      places.push({ x: 50 + 41 * Math.cos(angle), y: 50 - 40 * Math.sin(angle) });
    }
    return places;
  }
  const others = count - 1;
  if (others === 1) return [{ x: 50, y: 13 }];
  const wide = count >= 6;
  const from = wide ? 200 : 180;
  const to = wide ? -20 : 0;
  for (let k = 0; k < others; k++) {
    const degrees = from - (k * (from - to)) / (others - 1);
    const angle = degrees * (Math.PI / 180);
    places.push({ x: 50 + 41 * Math.cos(angle), y: 54 - 43 * Math.sin(angle) });
  }
  return places;
}

// The table's backend for a match on the server: the gateway's commands, and the live feed
// (whose frames the page hands to the table). A match played in the page has its own backend
// with the same calls (LocalMatch, solo.js).
export class ServerMatch {
  constructor(matchId, live) {
    this.matchId = matchId;
    this.live = live;
    this.local = false;
    this.endEvent = "seed_revealed"; // the last event of a match: its seed, for the fair-deal check
  }

  path(tail = "") { return `/api/matches/${encodeURIComponent(this.matchId)}${tail}`; }
  info() { return get(this.path()); }
  view() { return get(this.path("/view")); }
  act(text) { return post(this.path("/act"), { request_id: requestId(), action: text }); }
  tips() { return post(this.path("/tips")); }

  // Every event from the first: a table drawn again (another language, Back) keeps the
  // match's history and the fair-deal check has every card. The page routes the frames.
  follow() {
    this.live.forget(this.matchId);
    this.live.follow(`match:${this.matchId}`, { match_id: this.matchId });
  }

  unfollow() { this.live.unfollow(`match:${this.matchId}`); }
}

export class Table {
  constructor(root, live, announce, { matchId, backend, onOver, tips, onDecision }) {
    this.root = root;
    this.announce = announce;
    this.backend = backend || new ServerMatch(matchId, live);
    this.matchId = this.backend.matchId;
    this.onOver = onOver;
    this.tips = tips || { on: () => false, left: () => 0 };
    this.onDecision = onDecision || (() => {});
    this.view = null;
    this.info = null;
    this.events = []; // every event of the match in stream order, for the fair-deal replay
    this.order = []; // their stream ids
    this.eventIds = new Set();
    this.rounds = [];
    this.started = null; // MatchStarted
    this.seed = null; // SeedRevealed
    this.over = null; // MatchOver
    this.lastPlay = null; // the last Played event (the card that won the round, at the end)
    this.turnStarted = Date.now();
    this.refreshing = false;
    this.again = false;
    this.busy = false; // a move is on its way: the table takes no other until it is answered
    this.picker = null; // { card, options, title } while a wish is chosen
    this.callOn = false; // the call toggle, set before the play it goes with
    this.tip = null;
    this.cursor = 0; // the card of the hand that has the keyboard's focus
    this.keepFocus = false; // put the focus back into the hand after the next drawing
    this.badges = new Map(); // seat -> { text, kind } shown on the seat a penalty or skip hit
    this.landing = 0; // cards on their way to the discard pile
    this.catchingUp = true; // the match's events so far are arriving: no motion, no announcements
    this.finished = false;
    this.story = new Story((seat) => this.name(seat), () => (this.view ? this.view.seat : -1));
    this.timer = setInterval(() => this.tick(), 1000);
    this.onKey = (event) => this.key(event);
  }

  async start() {
    // Keys from the first moment: the handler waits for a view itself.
    document.addEventListener("keydown", this.onKey);
    this.info = await this.backend.info();
    await this.fetchView();
    this.quiet();
    this.backend.follow((event, id) => this.onEvent(event, id));
  }

  stop() {
    clearInterval(this.timer);
    clearTimeout(this.refreshTimer);
    clearTimeout(this.quietTimer);
    document.removeEventListener("keydown", this.onKey);
    this.backend.unfollow();
    this.stopped = true;
  }

  get deck() {
    return deckOf(this.view ? this.view.ruleset : this.info ? this.info.ruleset_text : "");
  }

  get spectator() {
    return !this.view || this.view.seat === undefined || this.view.seat < 0;
  }

  seatInfo(seat) {
    const list = (this.view && this.view.seats && this.view.seats.length ? this.view.seats : this.info && this.info.seat_info) || [];
    return list.find((s) => s.seat === seat) || {};
  }

  name(seat) {
    if (this.view && seat === this.view.seat) return t("you");
    const info = this.seatInfo(seat);
    if (info.name && !info.bot_level) return info.name;
    return t("bot", { seat });
  }

  // The match's events so far come in a burst after following; the table is caught up once
  // no event came for a moment.
  quiet() {
    clearTimeout(this.quietTimer);
    this.quietTimer = setTimeout(() => this.caughtUp(), 250);
  }

  caughtUp() {
    if (!this.catchingUp) return;
    this.catchingUp = false;
    // Rebuilt in stream order (a late frame of an earlier follow may have come first).
    this.story = new Story((seat) => this.name(seat), () => (this.view ? this.view.seat : -1));
    for (const event of this.events) {
      const [kind, body] = Object.entries(event)[0] || [];
      if (kind) this.story.add(kind, body);
    }
    if (this.ended) this.finish();
    else {
      this.render();
      this.refresh();
    }
  }

  // A live event of this match: the history, motion, the announcement, then a fresh view.
  onEvent(event, id = "") {
    const [kind, body] = Object.entries(event)[0] || [];
    if (!kind || this.finished) return;
    if (id) {
      if (this.eventIds.has(id)) return;
      this.eventIds.add(id);
      let at = this.events.length;
      while (at > 0 && this.order[at - 1] && compareIds(this.order[at - 1], id) > 0) at -= 1;
      this.events.splice(at, 0, event);
      this.order.splice(at, 0, id);
    } else {
      this.events.push(event);
      this.order.push("");
    }
    if (kind === "match_started") this.started = body;
    if (kind === "seed_revealed") this.seed = body;
    if (kind === "round_over") this.rounds.push(body);
    if (kind === "match_over") this.over = body;
    if (kind === "played") this.lastPlay = body;
    if (kind === "turn_started") this.turnStarted = Date.now();
    if (kind === this.backend.endEvent) this.ended = true;
    if (this.catchingUp) {
      this.quiet();
      return;
    }
    const words = this.story.add(kind, body);
    if (words) this.announce(words);
    this.move(kind, body);
    if (this.ended) {
      this.finish();
      return;
    }
    this.refresh();
  }

  // One view at a time, a moment after the events that ask for it (a burst of events asks
  // once); a failed fetch is tried again shortly.
  refresh() {
    if (this.refreshTimer) return;
    this.refreshTimer = setTimeout(() => this.fetchView(), 60);
  }

  async fetchView() {
    this.refreshTimer = null;
    if (this.refreshing) {
      this.again = true;
      return;
    }
    this.refreshing = true;
    try {
      do {
        this.again = false;
        const view = await this.backend.view();
        if (!this.view || Number(view.version) >= Number(this.view.version)) this.show(view);
      } while (this.again);
    } catch (error) {
      if (!this.view) throw error;
      this.announce(error.message);
      if (!this.stopped) this.refreshTimer = setTimeout(() => this.fetchView(), 1000);
    } finally {
      this.refreshing = false;
    }
  }

  // Send one move; nothing else is sent until its answer is in (a double click sends one).
  async act(text) {
    if (this.busy || !this.view) return;
    const action = (this.view.legal || []).find((a) => a.text === text);
    if (!action) return;
    this.busy = true;
    this.picker = null;
    this.keepFocus = this.root.contains(document.activeElement) || this.keepFocus;
    this.render();
    try {
      const answer = await this.backend.act(text);
      if (action.play) this.callOn = false;
      // Taking a penalty is a draw, sitting a skip out a pass: each a decision the tips count.
      if (action.play || ["draw", "pass", "accept"].includes(text)) this.onDecision(action);
      this.busy = false;
      if (!this.view || Number(answer.view.version) >= Number(this.view.version)) this.show(answer.view);
      else this.render();
    } catch (error) {
      this.busy = false;
      this.render();
      this.announce(error.message, true);
    }
  }

  myTurn() {
    return this.view && this.view.phase !== "over" && (this.view.legal || []).some((a) => !a.text.startsWith("catch:") && a.text !== "call:last");
  }

  async loadTip() {
    if (!this.tips.on() || !this.myTurn()) {
      this.tip = null;
      return;
    }
    const version = this.view.version;
    try {
      const answer = await this.backend.tips();
      if (Number(this.view.version) !== Number(version) || Number(answer.version) !== Number(version)) return;
      const best = answer.actions[0];
      if (best) {
        const legal = (this.view.legal || []).find((a) => a.text === best.action);
        this.tip = { action: legal || parseAction(best.action), reason: best.reason };
      } else {
        this.tip = { action: null, reason: "" }; // no suggestion: the tip explains the rest
      }
    } catch {
      this.tip = { action: null, reason: "" };
    }
    this.render();
  }

  show(view) {
    const newVersion = !this.view || view.version !== this.view.version;
    const turnChanged = !this.view || toAct(this.view) !== toAct(view);
    this.view = view;
    if (turnChanged && !this.catchingUp) this.turnStarted = Math.max(this.turnStarted, Date.now() - 500);
    if (newVersion) {
      this.tip = null;
      if (this.picker && !(view.legal || []).some((a) => a.play && a.play.card === this.picker.card)) this.picker = null;
    }
    this.render();
    if (newVersion) this.loadTip();
  }

  // The tips switch moved: show or drop the tip for the decision at hand.
  tipsChanged() {
    this.tip = null;
    this.render();
    this.loadTip();
  }

  tick() {
    const v = this.view;
    const seconds = this.info ? this.info.turn_seconds : 0;
    for (const node of this.root.querySelectorAll("[data-timer]")) {
      if (!v || v.phase === "over" || !seconds) {
        node.hidden = true;
        continue;
      }
      const left = Math.max(0, seconds - Math.floor((Date.now() - this.turnStarted) / 1000));
      const text = node.querySelector(".timer-text");
      if (text) text.textContent = t("time_left", { seconds: left });
      const bar = node.querySelector(".timer-bar");
      if (bar) bar.style.setProperty("--left", String(left / seconds));
      node.classList.toggle("hurry", left <= 10);
    }
  }

  // ------------------------------------------------------------------ drawing the table

  render() {
    const v = this.view;
    if (!v || this.stopped) return;
    const active = document.activeElement;
    const focused = active && this.root.contains(active) && active.dataset ? active.dataset.focusKey : null;
    const inHand = Boolean(active && active.closest && active.closest(".hand"));
    const legal = v.legal || [];
    const names = (seat) => this.name(seat);
    const over = v.phase === "over" || this.finished;
    const deck = this.deck;
    const me = this.spectator ? -1 : v.seat;
    const turnSeat = toAct(v);

    const plays = new Map();
    for (const action of legal) {
      if (!action.play) continue;
      if (!plays.has(action.play.card)) plays.set(action.play.card, []);
      plays.get(action.play.card).push(action);
    }
    const callWords = [...new Set(legal.filter((a) => a.play && a.play.call).map((a) => a.play.call))];
    const lastCall = legal.find((a) => a.text === "call:last");

    const table = $("section", {
      class: `table seats-${v.hand_sizes.length}${this.busy ? " busy" : ""}${over ? " over" : ""}`,
      "aria-label": t("table_label"),
      "aria-busy": this.busy ? "true" : "false",
      "data-version": String(v.version),
      "data-seat": String(me),
      "data-turn": String(turnSeat),
      "data-phase": v.phase,
      "data-preset": v.ruleset.split(" ")[0],
      "data-deck": deck,
    },
    this.head(v, turnSeat, over),
    $("div", { class: "felt" },
      $("ol", { class: "seats", "aria-label": t("seats_label") }, this.seats(v, me, turnSeat, over)),
      this.centre(v, deck, over),
      this.prompt(v, plays, legal, names, deck, over)),
    me >= 0 ? this.mine(v, plays, legal, callWords, lastCall, names, deck, turnSeat, over) : $("p", { class: "watching", text: t("watching") }),
    this.history());
    fill(this.root, table);
    this.layoutHand();
    this.tick();
    this.restoreFocus(focused, inHand);
  }

  head(v, turnSeat, over) {
    let whose;
    if (over) whose = t("match_over");
    else if (turnSeat === v.seat && !this.spectator) whose = v.phase === "starter_suit" ? t("your_turn_suit") : t("your_turn");
    else whose = t("turn_of", { name: this.name(turnSeat) });
    return $("div", { class: "table-head" },
      $("h2", { text: `${rulesetName(v.ruleset)} · ${t("round", { round: v.round })}` }),
      $("p", { class: `whose${turnSeat === v.seat && !over ? " mine" : ""}`, text: whose }));
  }

  seats(v, me, turnSeat, over) {
    const count = v.hand_sizes.length;
    const order = [];
    if (me >= 0) for (let k = 1; k < count; k++) order.push((me + k) % count);
    else for (let k = 0; k < count; k++) order.push(k);
    const places = seatPlaces(count, me >= 0);
    return order.map((seat, index) => {
      const size = v.hand_sizes[seat];
      const info = this.seatInfo(seat);
      const turn = seat === turnSeat && !over;
      const notes = [];
      if ((v.owing_call || []).includes(seat)) notes.push(t("owes_call"));
      if ((v.declared_last || []).includes(seat)) notes.push(t("pressed_last"));
      if (v.in_round && v.in_round[seat] === false) notes.push(t("sits_out_round"));
      if (turn && v.pending === "skip") notes.push(t("sits_out_now"));
      if (info.left) notes.push(t("left_seat"));
      const bot = info.bot_level ? t("bot_badge", { level: levelName(info.bot_level) }) : "";
      const shown = Math.min(size, 12);
      const backs = $("span", { class: "backs", "aria-hidden": "true" }, $("span", { class: "count", text: String(size) }));
      for (let i = 0; i < shown; i++) {
        const back = $("span", { class: "mini-back" });
        back.style.setProperty("--i", String(i - (shown - 1) / 2));
        backs.append(back);
      }
      const badge = this.badges.get(seat);
      const summary = [this.name(seat), bot, size === 1 ? t("card_1") : t("cards_n", { n: size }),
        t("score", { n: (v.totals || [])[seat] ?? 0 }), turn ? t("to_play") : "", ...notes].filter(Boolean).join(", ");
      const node = $("li", { class: `seat${turn ? " turn" : ""}${size === 0 ? " out" : ""}`, "data-seat": String(seat) },
        $("span", { class: "sr-only", text: summary }),
        backs,
        $("span", { class: "plate", "aria-hidden": "true" },
          $("span", { class: "name", text: this.name(seat) }),
          bot ? $("span", { class: "bot", text: bot }) : null,
          $("span", { class: "score", text: t("score_short", { n: (v.totals || [])[seat] ?? 0 }) })),
        turn ? this.timerNode() : null,
        notes.length ? $("span", { class: "notes", "aria-hidden": "true", text: notes.join(" · ") }) : null,
        badge ? $("span", { class: `hit ${badge.kind}`, "aria-hidden": "true", text: badge.text }) : null);
      node.style.setProperty("--x", `${places[index].x}%`);
      node.style.setProperty("--y", `${places[index].y}%`);
      return node;
    });
  }

  timerNode() {
    if (!this.info || !this.info.turn_seconds) return null;
    return $("span", { class: "timer", "data-timer": "" },
      $("span", { class: "timer-bar", "aria-hidden": "true" }),
      $("span", { class: "timer-text" }));
  }

  centre(v, deck, over) {
    const draw = (v.legal || []).find((a) => a.text === "draw");
    const stack = $("div", { class: `draw-pile${draw && !this.busy ? " can-draw" : ""}`, "aria-hidden": "true",
      onclick: () => draw && this.act("draw") },
    ...[0, 1, 2].slice(0, Math.max(1, Math.min(3, Math.ceil(v.draw_pile_size / 10)))).map((i) => {
      const back = cardElement("back", deck);
      back.style.setProperty("--i", String(i));
      return back;
    }),
    $("span", { class: "pile-count", text: String(v.draw_pile_size) }));
    const discard = v.discard && v.discard.length ? v.discard : v.top ? [v.top] : [];
    const under = discard.slice(-3, -1).map((card, i, list) => {
      const node = cardElement(card, deck, { decorative: true, class: "under" });
      const index = discard.length - 1 - (list.length - i);
      node.style.setProperty("--turn", `${((index * 37) % 19) - 9}deg`);
      return node;
    });
    const wish = v.wished ? $("span", { class: `wish-badge suit-${v.wished}`, "aria-hidden": "true" },
      $("span", { class: "sign" }), $("span", { class: "wish-word", text: t("wish_short") })) : null;
    if (wish) wish.firstChild.innerHTML = suitSvg(v.wished, deck);
    let label = v.top ? t("discard_label", { card: cardName(v.top) }) : t("discard_empty");
    if (v.wished) label += ` ${t("discard_wished", { suit: suitName(v.wished) })}`;
    const top = v.top ? cardElement(v.top, deck, { id: "top-card", class: this.landing ? "landing" : "", decorative: true }) : null;
    const pending = v.pending === "draw" ? t("pending_draw", { n: v.pending_count })
      : v.pending === "skip" ? t("pending_skip")
      : v.pending === "draw4" ? t("pending_draw4", { n: v.pending_count }) : "";
    const serve = v.active_suit;
    const chip = $("span", { class: `suit-chip suit-${serve}`, id: "to-serve", "data-suit": serve },
      $("span", { class: "chip-sign", "aria-hidden": "true" }),
      $("span", { text: serve ? t("to_serve_suit", { suit: suitName(serve) }) : t("to_serve_none") }));
    if (serve) {
      chip.firstChild.innerHTML = suitSvg(serve, deck);
      if (COLOURS[serve]) {
        chip.style.setProperty("--chip", COLOURS[serve].fill);
        chip.style.setProperty("--chip-ink", COLOURS[serve].ink);
      }
    }
    return $("div", { class: "centre" },
      $("div", { class: "piles" },
        stack,
        $("div", { class: "discard", role: "img", "aria-label": label }, ...under, top, wish)),
      $("div", { class: "pile-info" },
        chip,
        pending ? $("span", { class: "pending", text: pending }) : null,
        !over ? $("span", { class: "direction", text: v.direction < 0 ? t("direction_ccw") : t("direction_cw") }) : null,
        $("span", { class: "sr-only", text: t("draw_pile", { n: v.draw_pile_size }) })));
  }

  // What the table asks right now: a suit or colour to wish, the drawn card, a turn to sit out.
  prompt(v, plays, legal, names, deck, over) {
    if (over || this.spectator) return null;
    if (this.picker) return this.wishPrompt(this.picker.title, this.picker.options, deck, true);
    const naming = legal.filter((a) => a.text.startsWith("suit:"));
    if (naming.length) return this.wishPrompt(t("name_starter_suit", { card: cardName(v.top) }), naming, deck, false);
    if (v.phase === "drawn" && v.drawn) {
      const options = plays.get(v.drawn);
      const pass = legal.find((a) => a.text === "pass");
      return $("div", { class: "prompt drawn", role: "group", "aria-label": t("drawn_title", { card: cardName(v.drawn) }) },
        $("p", { text: t("drawn_title", { card: cardName(v.drawn) }) }),
        cardElement(v.drawn, deck, { decorative: true, class: "big" }),
        $("div", { class: "prompt-buttons" },
          options ? $("button", { type: "button", class: "primary", "data-focus-key": "drawn-play", onclick: () => this.choose(v.drawn, options) }, t("drawn_play")) : null,
          pass ? $("button", { type: "button", "data-focus-key": "drawn-keep", "aria-keyshortcuts": "P", onclick: () => this.act("pass") }, t("drawn_keep")) : null));
    }
    if (v.pending === "skip" && toAct(v) === v.seat && legal.some((a) => a.text === "accept")) {
      return $("div", { class: "prompt skip", role: "group", "aria-label": t("skip_title") },
        $("p", { text: t("skip_title") }),
        $("div", { class: "prompt-buttons" },
          $("button", { type: "button", class: "primary", "data-focus-key": "skip-accept", "aria-keyshortcuts": "A", onclick: () => this.act("accept") }, t("act_accept_skip"))));
    }
    return null;
  }

  wishPrompt(title, options, deck, canGoBack) {
    const buttons = options.map((action) => {
      const suit = action.play ? action.play.suit : action.text.slice(5);
      const key = SUIT_KEYS[suit];
      const button = $("button", { type: "button", class: `wish suit-${suit}`, "data-suit": suit, "data-action": action.text,
        "data-focus-key": `wish-${suit}`, "aria-keyshortcuts": key.toUpperCase(), onclick: () => this.act(action.text) },
      $("span", { class: "sign", "aria-hidden": "true" }),
      $("span", { class: "wish-name", text: capitalised(suitName(suit)) }),
      $("kbd", { "aria-hidden": "true", text: key.toUpperCase() }));
      button.firstChild.innerHTML = suitSvg(suit, deck);
      if (COLOURS[suit]) {
        button.style.setProperty("--chip", COLOURS[suit].fill);
        button.style.setProperty("--chip-ink", COLOURS[suit].ink);
      } else {
        button.style.setProperty("--suit-ink", suitInk(suit, deck));
      }
      return button;
    });
    return $("div", { class: "prompt wishes", role: "group", "aria-label": title },
      $("p", { text: title }),
      $("div", { class: "wish-buttons" }, buttons),
      canGoBack ? $("button", { type: "button", class: "back", "data-focus-key": "wish-back", "aria-keyshortcuts": "Escape",
        onclick: () => { this.picker = null; this.keepFocus = true; this.render(); } }, t("back")) : null);
  }

  mine(v, plays, legal, callWords, lastCall, names, deck, turnSeat, over) {
    const myTurn = turnSeat === v.seat && !over;
    const notes = [];
    if ((v.owing_call || []).includes(v.seat)) notes.push(t("owes_call_me"));
    if (v.in_round && v.in_round[v.seat] === false) notes.push(t("sits_out_round"));
    const tipText = this.tipNode(v, names);
    const tipCard = this.tip && this.tip.action && this.tip.action.play ? this.tip.action.play.card : null;
    let tipMarked = false;
    const cursor = Math.min(this.cursor, Math.max(0, v.hand.length - 1));
    const hand = v.hand.map((card, index) => {
      const options = plays.get(card);
      const tipped = tipCard === card && !tipMarked;
      if (tipped) tipMarked = true;
      const classes = ["card-button"];
      if (options) classes.push("legal");
      if (tipped) classes.push("tipped");
      if (card === v.drawn && v.phase === "drawn") classes.push("drawn");
      const button = $("button", {
        class: classes.join(" "),
        type: "button",
        "data-card": card,
        "data-index": String(index),
        "data-focus-key": `card-${index}`,
        tabindex: index === cursor ? "0" : "-1",
        "aria-label": cardName(card),
        "aria-disabled": options && !this.busy ? "false" : "true",
        "aria-describedby": tipped ? "tip" : null,
        "aria-keyshortcuts": index < 9 ? String(index + 1) : null,
        onclick: () => { this.cursor = index; if (options) this.choose(card, options); },
        onfocus: () => { this.cursor = index; },
      });
      button.append(cardElement(card, deck, { decorative: true }));
      return $("li", {}, button);
    });
    const buttons = [];
    if (callWords.length || lastCall || ((v.declared_last || []).includes(v.seat) && v.hand.length <= 2)) {
      const pressedLast = (v.declared_last || []).includes(v.seat);
      const words = callWords.length ? callWords.map((w) => t(`call_word_${w}`)).join(" / ") : t("call_word_last");
      const pressed = callWords.length ? this.callOn : pressedLast;
      buttons.push($("button", {
        type: "button", class: `call-toggle${pressed ? " on" : ""}`, "aria-pressed": String(pressed), "data-focus-key": "call",
        "aria-keyshortcuts": "M", "aria-disabled": !callWords.length && !lastCall ? "true" : null,
        title: t(callWords.length ? "call_toggle_hint" : "call_last_hint"),
        onclick: () => this.toggleCall(),
      }, words));
    }
    const keyOf = { draw: "D", pass: "P", accept: "A" };
    for (const action of legal) {
      if (action.play || action.text.startsWith("suit:") || action.text === "call:last") continue;
      if (action.text === "pass" && v.phase === "drawn") continue; // asked on the table
      if (action.text === "accept" && v.pending === "skip") continue;
      buttons.push($("button", {
        type: "button", class: `action${action.text === "draw" ? " draw" : ""}`, "data-action": action.text,
        "data-focus-key": `act-${action.text}`, "aria-keyshortcuts": keyOf[action.text] || null,
        "aria-disabled": this.busy ? "true" : null, onclick: () => this.act(action.text),
      }, actionWords(action, v, names)));
    }
    const score = (v.totals || [])[v.seat] ?? 0;
    const hand_label = v.hand.length === 1 ? t("your_hand_1") : t("your_hand_n", { n: v.hand.length });
    return $("div", { class: `mine${myTurn ? " turn" : ""}` },
      $("div", { class: "me-bar" },
        $("span", { class: "name", text: t("you") }),
        $("span", { class: "score", text: t("score", { n: score }) }),
        myTurn ? this.timerNode() : null,
        notes.length ? $("span", { class: "notes", text: notes.join(" · ") }) : null,
        this.badges.get(v.seat) ? $("span", { class: `hit ${this.badges.get(v.seat).kind}`, "aria-hidden": "true", text: this.badges.get(v.seat).text }) : null),
      tipText,
      v.hand.length || !over ? $("ul", { class: "hand", "aria-label": hand_label }, hand) : null,
      over ? null : $("div", { class: "actions", role: "group", "aria-label": t("actions") }, buttons),
      over ? null : $("p", { class: "keys", text: t("keys_help") }));
  }

  tipNode(v, names) {
    if (!this.tips.on() || !this.myTurn()) return null;
    const left = this.tips.left();
    const allowed = [...new Set((v.legal || []).filter((a) => a.play).map((a) => cardName(a.play.card)))];
    return $("aside", { class: "tip", id: "tip", "aria-label": t("tip_label") },
      $("p", { class: "tip-count", text: t("tip_count", { n: left }) }),
      this.tip && !this.tip.action ? null
      : this.tip
        ? [$("p", {}, $("strong", { text: t("tip", { action: actionWords(this.tip.action, v, names) }) })),
          this.tip.reason ? $("p", { class: "tip-why", text: t("tip_why", { reason: this.tip.reason }) }) : null]
        : $("p", { text: t("tip_thinking") }),
      $("p", { class: "tip-allowed", text: allowed.length ? t("tip_allowed", { cards: allowed.join(", ") }) : t("tip_none_fits") }),
      this.wishTip(v));
  }

  // What a tip says of suit (or colour) wishes: the wish on the pile, or the wish a card of the
  // hand lets this player make.
  wishTip(v) {
    const colour = (suit) => Boolean(COLOURS[suit]);
    if (v.wished) {
      return $("p", { class: "tip-wish", text: t(colour(v.wished) ? "tip_wished_colour" : "tip_wished", { suit: capitalised(suitName(v.wished)) }) });
    }
    const wishing = (v.legal || []).find((a) => a.play && a.play.suit);
    if (!wishing) return null;
    const counts = new Map();
    for (const card of v.hand) {
      if (card === wishing.play.card) continue;
      const suits = (v.legal || []).filter((a) => a.play && a.play.card === wishing.play.card).map((a) => a.play.suit);
      const suit = suits.find((s) => card.startsWith(s) || card.endsWith(s));
      if (suit) counts.set(suit, (counts.get(suit) || 0) + 1);
    }
    const [most] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0] || [];
    const key = colour(wishing.play.suit) ? "tip_wish_colour" : "tip_wish_suit";
    return $("p", { class: "tip-wish", text: t(key, { card: cardName(wishing.play.card) })
      + (most ? ` ${t(colour(most) ? "tip_wish_most_colour" : "tip_wish_most", { suit: suitName(most) })}` : "") });
  }

  history() {
    const lines = this.story.texts();
    // Focusable, as it scrolls: a keyboard scrolls it too.
    const list = $("ol", { class: "history-lines", tabindex: "0", "aria-labelledby": "history-title" }, lines.map((line) => $("li", { text: line })));
    const section = $("section", { class: "history", "aria-labelledby": "history-title" },
      $("h3", { id: "history-title", text: t("history") }), list);
    requestAnimationFrame(() => { list.scrollTop = list.scrollHeight; });
    return section;
  }

  // The hand in one row: the cards overlap as much as the width asks, on a gentle arc.
  layoutHand() {
    const hand = this.root.querySelector(".hand");
    if (!hand) return;
    const cards = [...hand.children];
    if (!cards.length) return;
    const first = cards[0].firstChild;
    const width = hand.clientWidth;
    const cardWidth = first.offsetWidth || 80;
    const n = cards.length;
    const room = n > 1 ? (width - cardWidth - 8) / (n - 1) : cardWidth;
    const step = Math.max(10, Math.min(cardWidth * 0.66, room));
    hand.style.setProperty("--overlap", `${step - cardWidth}px`);
    const spread = Math.min(3, 28 / n);
    cards.forEach((li, i) => {
      const offset = i - (n - 1) / 2;
      li.style.setProperty("--rot", `${offset * spread}deg`);
      li.style.setProperty("--arc", `${Math.abs(offset) ** 2 * (n > 10 ? 0.3 : 0.9)}px`);
    });
  }

  restoreFocus(focused, inHand) {
    let target = null;
    if (this.picker || (this.root.querySelector(".prompt .wish") && !focused)) {
      if (!focused || !focused.startsWith("wish-")) target = this.root.querySelector(".prompt .wish");
    }
    if (!target && focused) target = this.root.querySelector(`[data-focus-key="${CSS.escape(focused)}"]`);
    if (!target && (inHand || this.keepFocus || (focused && focused.startsWith("card-")))) {
      const cards = this.root.querySelectorAll(".hand .card-button");
      if (cards.length) target = cards[Math.min(this.cursor, cards.length - 1)];
      else target = this.root.querySelector(".actions button") || this.root.querySelector(".table-head h2");
    }
    if (target) {
      if (target.matches(".table-head h2")) target.setAttribute("tabindex", "-1");
      target.focus({ preventScroll: true });
      this.keepFocus = false;
    }
  }

  // ------------------------------------------------------------------ choosing a move

  choose(card, options) {
    if (this.busy) return;
    // The call toggle picks the play with its call, or without one.
    let chosen = options.filter((a) => Boolean(a.play.call) === this.callOn);
    if (!chosen.length) chosen = options.filter((a) => !a.play.call);
    if (!chosen.length) chosen = options;
    if (chosen.length === 1) {
      this.act(chosen[0].text);
      return;
    }
    const suits = new Set(chosen.map((a) => a.play.suit));
    if (suits.size === chosen.length && chosen.every((a) => a.play.suit)) {
      const colour = chosen.some((a) => COLOURS[a.play.suit]);
      this.picker = { card, options: chosen, title: t(colour ? "wish_colour_title" : "wish_suit_title", { card: cardName(card) }) };
      this.render();
      return;
    }
    this.act(chosen[0].text);
  }

  toggleCall() {
    const legal = (this.view && this.view.legal) || [];
    if (legal.some((a) => a.play && a.play.call)) {
      this.callOn = !this.callOn;
      this.announce(this.callOn ? t("call_on") : t("call_off"));
      this.render();
      return;
    }
    if (legal.some((a) => a.text === "call:last")) this.act("call:last");
  }

  key(event) {
    if (!this.view || this.finished || this.stopped || !this.root.isConnected) return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target;
    if (target && target.closest && target.closest("input, select, textarea, [contenteditable], summary, details")) return;
    const v = this.view;
    const legal = v.legal || [];
    const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
    const hand = [...this.root.querySelectorAll(".hand .card-button")];
    const inHand = target && target.closest && target.closest(".hand");
    if (inHand && ["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End"].includes(key)) {
      const index = hand.indexOf(target.closest(".card-button"));
      let next = index;
      if (key === "ArrowLeft" || key === "ArrowUp") next = Math.max(0, index - 1);
      if (key === "ArrowRight" || key === "ArrowDown") next = Math.min(hand.length - 1, index + 1);
      if (key === "Home") next = 0;
      if (key === "End") next = hand.length - 1;
      event.preventDefault();
      this.cursor = next;
      for (const [i, button] of hand.entries()) button.tabIndex = i === next ? 0 : -1;
      hand[next].focus();
      return;
    }
    const wishes = [...this.root.querySelectorAll(".prompt .wish")];
    if (wishes.length) {
      const pick = wishes.find((b) => SUIT_KEYS[b.dataset.suit] === key);
      if (pick) {
        event.preventDefault();
        this.keepFocus = true;
        this.act(pick.dataset.action);
        return;
      }
      if (key === "Escape" && this.picker) {
        event.preventDefault();
        this.picker = null;
        this.keepFocus = true;
        this.render();
        return;
      }
    }
    const find = (text) => legal.find((a) => a.text === text);
    const run = (text) => {
      event.preventDefault();
      this.keepFocus = true;
      this.act(text);
    };
    if (key === "d" && find("draw")) return run("draw");
    if (key === "p" && find("pass")) return run("pass");
    if (key === "a" && find("accept")) return run("accept");
    if (key === "m") {
      event.preventDefault();
      this.keepFocus = true;
      this.toggleCall();
      return;
    }
    if (/^[1-9]$/.test(key) && hand[Number(key) - 1]) {
      event.preventDefault();
      const index = Number(key) - 1;
      this.cursor = index;
      const options = (v.legal || []).filter((a) => a.play && a.play.card === v.hand[index]);
      this.keepFocus = true;
      if (options.length) this.choose(v.hand[index], options);
      else {
        hand[index].focus();
        this.announce(t("cannot_play", { card: cardName(v.hand[index]) }));
      }
    }
  }

  // ------------------------------------------------------------------ motion

  // A played card travels from its seat to the pile; drawn cards travel from the pile to the
  // seat; a penalty or a skip shows on the seat it hit. None of it under reduced motion.
  move(kind, e) {
    if (kind === "drew" && e.reason !== "deal" && e.reason !== "draw") this.hit(e.seat, `+${e.count}`, "penalty");
    if (kind === "skipped") this.hit(e.seat, t("hit_skip"), "skip");
    if (kind === "caught") this.hit(e.seat, t("hit_caught"), "penalty");
    if (!motionOn()) return;
    if (kind === "played") this.fly(e.seat, "pile", e.card);
    if (kind === "drew" && e.reason !== "deal") {
      for (let i = 0; i < Math.min(e.count, 4); i++) setTimeout(() => this.fly("stack", e.seat, "back"), i * 90);
    }
  }

  hit(seat, text, kind) {
    this.badges.set(seat, { text, kind });
    clearTimeout(this.badgeTimer);
    this.badgeTimer = setTimeout(() => {
      this.badges.clear();
      for (const node of this.root.querySelectorAll(".hit")) node.remove();
    }, 2200);
  }

  where(place) {
    const root = this.root;
    if (place === "pile") return root.querySelector(".discard");
    if (place === "stack") return root.querySelector(".draw-pile");
    if (this.view && place === this.view.seat) return root.querySelector(".hand") || root.querySelector(".me-bar");
    return root.querySelector(`.seat[data-seat="${place}"] .backs`) || root.querySelector(`.seat[data-seat="${place}"]`);
  }

  fly(from, to, card) {
    let start = this.where(from);
    const end = this.where(to);
    if (this.view && from === this.view.seat && card !== "back") {
      start = this.root.querySelector(`.hand .card-button[data-card="${CSS.escape(card)}"]`) || start;
    }
    if (!start || !end) return;
    const a = start.getBoundingClientRect();
    const b = end.getBoundingClientRect();
    const flying = $("span", { class: "flying", "aria-hidden": "true" });
    flying.innerHTML = faceSvg(card, this.deck);
    const width = to === "pile" ? Math.min(b.width, 110) : Math.min(60, b.width || 60);
    flying.style.width = `${width}px`;
    flying.style.left = `${a.left + a.width / 2 - width / 2}px`;
    flying.style.top = `${a.top + a.height / 2 - (width * 0.7)}px`;
    document.body.append(flying);
    const dx = b.left + b.width / 2 - (a.left + a.width / 2);
    const dy = b.top + b.height / 2 - (a.top + a.height / 2);
    if (to === "pile") {
      this.landing += 1;
      for (const node of this.root.querySelectorAll("#top-card")) node.classList.add("landing");
    }
    const animation = flying.animate([
      { transform: "translate(0, 0) rotate(0deg) scale(0.8)", opacity: 0.9 },
      { transform: `translate(${dx}px, ${dy}px) rotate(${to === "pile" ? 12 : -8}deg) scale(1)`, opacity: 1 },
    ], { duration: 340, easing: "cubic-bezier(.2,.7,.3,1)" });
    animation.onfinish = animation.oncancel = () => {
      flying.remove();
      if (to === "pile") {
        this.landing = Math.max(0, this.landing - 1);
        if (!this.landing) for (const node of this.root.querySelectorAll("#top-card")) node.classList.remove("landing");
      }
    };
  }

  // ------------------------------------------------------------------ the end

  async finish() {
    if (this.finished) return;
    this.finished = true;
    clearTimeout(this.refreshTimer);
    clearInterval(this.timer);
    document.removeEventListener("keydown", this.onKey);
    this.info = await this.backend.info().catch(() => this.info);
    const view = await this.backend.view().catch(() => null);
    if (view) this.view = view;
    this.render();
    this.onOver(this);
  }
}

// Whether an error of the match routes says the match is not there.
export function missing(error) {
  return error instanceof ApiError && (error.status === 404 || error.grpcStatus === "NOT_FOUND" || error.status === 400);
}

async function sha256hex(text) {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

// The deck of a ruleset and table size in its order before shuffling, and the hand size: fixed
// constants of the rules core, fetched from the gateway once per rule system and table size and
// kept in this browser. Play-now fetches them before its nonce goes out, so a server that knew
// a match's seed could not answer with an order made to fit it.
export async function dealConstants(ruleset, seats) {
  const key = (text) => `maumau.deck.${text}|${seats}`;
  const kept = localStorage.getItem(key(ruleset));
  if (kept) return JSON.parse(kept);
  const answer = await get(`/api/deck?ruleset=${encodeURIComponent(ruleset)}&seats=${seats}`);
  const constants = { deck: answer.deck, hand_size: answer.hand_size };
  localStorage.setItem(key(answer.ruleset), JSON.stringify(constants));
  return constants;
}

// The fair-deal check, in this browser: the revealed seed against the commitment seen before
// the deal, this player's nonce in its place, the deal seed recomputed, and every card this seat
// saw (its hands, its draws, the starting cards) replayed from the seed (replay.js).
export async function checkFairness({ started, seed, seat, nonce, events, seats, deal }) {
  const lines = [];
  if (!started || !seed) return { ok: false, lines: [t("fair_pending")] };
  const commitmentOk = (await sha256hex(seed.server_seed)) === started.seed_commitment;
  lines.push(t(commitmentOk ? "fair_commitment_ok" : "fair_commitment_bad"));
  let nonceOk = true;
  if (nonce) {
    nonceOk = started.nonces[seat] === nonce;
    lines.push(t(nonceOk ? "fair_nonce_ok" : "fair_nonce_bad"));
  } else {
    lines.push(t("fair_nonce_none"));
  }
  const seedOk = (await sha256hex([seed.server_seed, ...started.nonces].join("|"))) === seed.deal_seed;
  lines.push(t(seedOk ? "fair_seed_ok" : "fair_seed_bad"));
  let replayOk = false;
  if (!deal) {
    lines.push(t("fair_replay_missing"));
  } else {
    const replay = await replayMatch({ events, deck: deal.deck, handSize: deal.hand_size, seed: seed.deal_seed, seat, seats });
    replayOk = replay.ok;
    const params = replay.ok ? { n: replay.cards } : { ...replay.params };
    for (const name of ["card", "expected"]) if (params[name]) params[name] = cardName(params[name]);
    for (const name of ["cards", "expected_cards"]) if (params[name]) params[name] = params[name].split(" ").filter(Boolean).map(cardName).join(", ");
    lines.push(t(replay.ok ? "fair_cards_ok" : replay.key, params));
  }
  const ok = commitmentOk && nonceOk && seedOk && replayOk;
  lines.push(t(ok ? "fair_ok" : "fair_bad"));
  return { ok, lines };
}

export { lang };
