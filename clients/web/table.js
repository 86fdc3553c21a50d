// The table of one match: the server sends the state (the seat's view, events), the page draws
// it. Which cards and moves are legal comes from the view's `legal` list alone.

import { get, post, requestId } from "./api.js";
import { cardName, cardParts, lang, suitName, t } from "./i18n.js";
import { replayMatch } from "./replay.js";

const $ = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (value !== false && value !== undefined && value !== null) node.setAttribute(key, value);
  }
  for (const child of children.flat()) if (child) node.append(child);
  return node;
};
export { $ };

export function cardFace(text, attrs = {}) {
  const parts = cardParts(text);
  const classes = ["card", parts.deck];
  if (parts.deck === "french") classes.push(parts.suit === "H" || parts.suit === "D" ? "red" : "black");
  else classes.push(`colour-${parts.colour}`);
  const label = parts.deck === "french" ? `${parts.rank}${parts.symbol}` : parts.symbol;
  return $("span", { class: classes.join(" "), "data-card": text, ...attrs },
    $("span", { class: "face", "aria-hidden": "true", text: label }),
    $("span", { class: "sr-only", text: cardName(text) }));
}

// The words for one action's text form ("JD:S!mau", "draw", "catch:2", ...), for buttons and tips.
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

export class Table {
  constructor(root, live, announce, { matchId, onOver, tipsOn }) {
    this.root = root;
    this.live = live;
    this.announce = announce;
    this.matchId = matchId;
    this.onOver = onOver;
    this.tipsOn = tipsOn;
    this.view = null;
    this.info = null;
    this.log = [];
    this.events = []; // every event of the match in order, for the fair-deal replay
    this.rounds = [];
    this.started = null; // MatchStarted
    this.seed = null; // SeedRevealed
    this.over = null; // MatchOver
    this.turnStarted = Date.now();
    this.refreshing = false;
    this.again = false;
    this.picker = null;
    this.tip = null;
    this.timer = setInterval(() => this.tick(), 1000);
  }

  async start() {
    this.info = await get(`/api/matches/${this.matchId}`);
    await this.fetchView();
    this.live.follow(`match:${this.matchId}`, { match_id: this.matchId });
  }

  stop() {
    clearInterval(this.timer);
    clearTimeout(this.refreshTimer);
    this.live.unfollow(`match:${this.matchId}`);
  }

  name(seat) {
    if (this.view && seat === this.view.seat) return t("you");
    const info = (this.info && this.info.seat_info || []).find((s) => s.seat === seat);
    if (info && info.name && !info.bot_level) return info.name;
    return t("bot", { seat });
  }

  // A live event of this match: words for the log, then a fresh view.
  onEvent(event) {
    const [kind, body] = Object.entries(event)[0] || [];
    if (!kind) return;
    this.events.push(event);
    if (kind === "match_started") this.started = body;
    if (kind === "seed_revealed") this.seed = body;
    if (kind === "round_over") this.rounds.push(body);
    if (kind === "match_over") this.over = body;
    if (kind === "turn_started") this.turnStarted = Date.now();
    const words = this.narrate(kind, body);
    if (words) {
      this.log.push(words);
      this.log = this.log.slice(-8);
      this.announce(words);
    }
    if (kind === "seed_revealed") {
      this.finish();
      return;
    }
    this.refresh();
  }

  narrate(kind, e) {
    const me = this.view ? this.view.seat : -1;
    const who = (seat) => this.name(seat);
    const said = (key, seat, params) => t(seat === me && t(`${key}_me`) !== `${key}_me` ? `${key}_me` : key, params);
    const cards = (list) => (list || []).map(cardName).join(", ");
    switch (kind) {
      case "seat_joined": return t("ev_joined", { who: e.name || who(e.seat) });
      case "match_started": return t("ev_started");
      case "round_started": return t("ev_round", { round: e.round, card: cardName(e.starter) });
      case "drew":
        if (e.reason === "deal") return e.seat === me ? t("ev_dealt_me", { cards: cards(e.cards) }) : "";
        if (e.seat === me && e.cards.length) return t("ev_draw_me", { cards: cards(e.cards) });
        if (e.reason === "draw") return t("ev_draw", { who: who(e.seat), n: e.count });
        return said("ev_penalty", e.seat, { who: who(e.seat), n: e.count });
      case "played": {
        let words = said("ev_played", e.seat, { who: who(e.seat), card: cardName(e.card) });
        if (e.suit) words += t("ev_wish", { suit: suitName(e.suit) });
        if (e.call) words += t("ev_call", { call: t(`call_${e.call}`) });
        return words;
      }
      case "suit_named": return said("ev_suit_named", e.seat, { who: who(e.seat), suit: suitName(e.suit) });
      case "called": return said("ev_called", e.seat, { who: who(e.seat), call: t(`call_${e.word}`) });
      case "skipped": return said("ev_skipped", e.seat, { who: who(e.seat) });
      case "direction_changed": return t("ev_direction");
      case "caught": return t("ev_caught", { by: who(e.by), whom: who(e.seat) });
      case "challenged": return t(e.bluff ? "ev_bluff" : "ev_no_bluff", { by: who(e.by), whom: who(e.seat) });
      case "passed": return said("ev_passed", e.seat, { who: who(e.seat) });
      case "reshuffled": return t("ev_reshuffled");
      case "turn_started": return e.seat === me ? t("your_turn") + "." : t("ev_turn_other", { who: who(e.seat) });
      case "round_over": return said("ev_round_over", e.winner, { round: e.round, who: who(e.winner) });
      case "match_over": return t("ev_match_over");
      case "timed_out": return said("ev_timed_out", e.seat, { who: who(e.seat) });
      case "handed_to_bot": return t("ev_handed_to_bot", { who: who(e.seat) });
      case "left": return t("ev_left", { who: who(e.seat) });
      case "seed_revealed": return t("ev_seed");
      default: return "";
    }
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
        const view = await get(`/api/matches/${this.matchId}/view`);
        if (!this.view || Number(view.version) >= Number(this.view.version)) this.show(view);
      } while (this.again);
    } catch (error) {
      this.announce(error.message);
      this.refreshTimer = setTimeout(() => this.fetchView(), 1000);
    } finally {
      this.refreshing = false;
    }
  }

  async act(text) {
    this.closePicker();
    try {
      const answer = await post(`/api/matches/${this.matchId}/act`, { request_id: requestId(), action: text });
      if (!this.view || Number(answer.view.version) >= Number(this.view.version)) this.show(answer.view);
    } catch (error) {
      this.announce(error.message, true);
    }
  }

  myTurn() {
    return this.view && this.view.phase !== "over" && this.view.legal.length > 0;
  }

  async loadTip() {
    if (!this.tipsOn() || !this.myTurn()) {
      this.tip = null;
      return;
    }
    const version = this.view.version;
    try {
      const answer = await post(`/api/matches/${this.matchId}/tips`);
      if (Number(this.view.version) !== Number(version) || Number(answer.version) !== Number(version)) return;
      this.tip = answer.actions[0] || null;
    } catch {
      this.tip = null;
    }
    this.render();
  }

  show(view) {
    const newVersion = !this.view || view.version !== this.view.version;
    this.view = view;
    this.render();
    if (newVersion) {
      this.tip = null;
      this.loadTip();
    }
  }

  // The tips switch moved: show or drop the tip for the decision at hand.
  tipsChanged() {
    this.tip = null;
    this.render();
    this.loadTip();
  }

  tick() {
    const node = this.root.querySelector(".timer");
    if (node && this.info && this.info.turn_seconds) {
      const left = Math.max(0, this.info.turn_seconds - Math.floor((Date.now() - this.turnStarted) / 1000));
      node.textContent = t("time_left", { seconds: left });
    }
  }

  closePicker() {
    this.picker = null;
  }

  render() {
    const v = this.view;
    if (!v || this.finished) return;
    const focused = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.focusKey : null;
    const legal = v.legal || [];
    const plays = new Map();
    for (const action of legal) {
      if (!action.play) continue;
      if (!plays.has(action.play.card)) plays.set(action.play.card, []);
      plays.get(action.play.card).push(action);
    }
    const others = legal.filter((a) => !a.play);
    const seats = v.hand_sizes.map((size, seat) => {
      const classes = ["seat"];
      if (seat === v.to_act) classes.push("turn");
      if (seat === v.seat) classes.push("me");
      const notes = [];
      if ((v.owing_call || []).includes(seat)) notes.push(t("owes_call"));
      if ((v.declared_last || []).includes(seat)) notes.push(t("pressed_last"));
      if (v.in_round && v.in_round[seat] === false) notes.push(t("sits_out"));
      return $("li", { class: classes.join(" "), "data-seat": seat },
        $("span", { class: "seat-name", text: this.name(seat) }),
        $("span", { class: "count", text: size === 1 ? t("card_1") : t("cards_n", { n: size }) }),
        $("span", { class: "score", text: t("score", { n: (v.totals || [])[seat] ?? 0 }) }),
        notes.length ? $("span", { class: "note", text: notes.join(" · ") }) : null);
    });
    const pending = v.pending === "draw" ? t("pending_draw", { n: v.pending_count })
      : v.pending === "skip" ? t("pending_skip")
      : v.pending === "draw4" ? t("pending_draw4", { n: v.pending_count }) : "";
    const turnText = v.phase === "over" ? t("match_over") : v.to_act === v.seat ? t("your_turn") : t("turn_of", { name: this.name(v.to_act) });
    const hand = v.hand.map((card, index) => {
      const options = plays.get(card);
      const key = `card-${card}-${index}`;
      return $("li", {},
        $("button", {
          class: `card-button${options ? " legal" : ""}`,
          type: "button",
          "data-card": card,
          "data-focus-key": key,
          "aria-label": options ? t("play_card", { card: cardName(card) }) : cardName(card),
          "aria-disabled": options ? "false" : "true",
          onclick: () => options && this.choose(card, options),
        }, cardFace(card)));
    });
    const names = (seat) => this.name(seat);
    const buttons = others.map((action) =>
      $("button", { type: "button", class: "action", "data-action": action.text, "data-focus-key": `act-${action.text}`,
        onclick: () => this.act(action.text) }, actionWords(action, v, names)));
    const picker = this.picker ? $("div", { class: "picker", role: "group", "aria-label": t("choose", { card: cardName(this.picker.card) }) },
      $("p", { text: t("choose", { card: cardName(this.picker.card) }) }),
      ...this.picker.options.map((action) => $("button", { type: "button", class: "action choice", "data-action": action.text,
        "data-focus-key": `pick-${action.text}`, onclick: () => this.act(action.text) }, actionWords(action, v, names))),
      $("button", { type: "button", class: "action secondary", "data-focus-key": "pick-back", onclick: () => { this.picker = null; this.render(); } }, t("back"))) : null;
    let tip = null;
    if (this.tipsOn() && this.myTurn()) {
      tip = $("aside", { class: "tip", "aria-live": "polite" },
        this.tip ? [$("strong", { text: t("tip", { action: actionWords(this.tip, v, names) }) }), $("span", { text: " " + t("tip_why", { reason: this.tip.reason }) })]
          : $("span", { text: t("no_tips") }));
    }
    const serve = v.active_suit ? suitName(v.active_suit) : "";
    this.root.replaceChildren(
      $("section", { class: "table", "aria-label": t("round", { round: v.round }), "data-version": String(v.version),
        "data-seat": String(v.seat), "data-turn": String(v.to_act), "data-preset": v.ruleset.split(" ")[0] },
        $("div", { class: "status" },
          $("h2", { text: `${t("round", { round: v.round })} · ${v.ruleset}` }),
          $("p", { class: "whose", text: turnText }),
          this.info && this.info.turn_seconds ? $("p", { class: "timer" }) : null,
          pending ? $("p", { class: "pending", text: pending }) : null),
        $("ol", { class: "seats", "aria-label": "seats" }, seats),
        $("div", { class: "center" },
          $("div", { class: "pile" }, $("span", { class: "label", text: t("top") }), v.top ? cardFace(v.top, { id: "top-card" }) : null),
          $("div", { class: "serve" }, $("span", { class: "label", text: t("to_serve") }),
            $("span", { class: `suit-chip suit-${v.active_suit}`, id: "to-serve", text: serve }),
            v.wished ? $("span", { class: "wished", text: t("wished", { suit: suitName(v.wished) }) }) : null),
          $("p", { class: "pile-size", text: t("draw_pile", { n: v.draw_pile_size }) })),
        tip,
        picker,
        $("h3", { text: t("your_hand") }),
        $("ul", { class: "hand", "aria-label": t("your_hand") }, hand),
        buttons.length ? $("div", { class: "actions", role: "group", "aria-label": t("actions") }, buttons) : null,
        $("h3", { text: t("last_moves") }),
        $("ol", { class: "log" }, this.log.map((line) => $("li", { text: line })))));
    this.tick();
    if (focused) {
      const again = this.root.querySelector(`[data-focus-key="${CSS.escape(focused)}"]`);
      if (again) again.focus();
    } else if (this.picker) {
      const first = this.root.querySelector(".picker .choice");
      if (first) first.focus();
    }
  }

  choose(card, options) {
    if (options.length === 1) {
      this.act(options[0].text);
      return;
    }
    // Calls first: playing with the call that is due is the usual choice.
    const sorted = [...options].sort((a, b) => Number(Boolean(b.play.call)) - Number(Boolean(a.play.call)));
    this.picker = { card, options: sorted };
    this.render();
    const first = this.root.querySelector(".picker .choice");
    if (first) first.focus();
  }

  async finish() {
    if (this.finished) return;
    this.finished = true;
    clearTimeout(this.refreshTimer);
    clearInterval(this.timer);
    this.info = await get(`/api/matches/${this.matchId}`).catch(() => this.info);
    this.onOver(this);
  }
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
