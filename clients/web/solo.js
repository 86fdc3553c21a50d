// Solo play on the device: a match against 1-3 computers that runs in this page, the rules core
// and the bot levels in Pyodide (solo-worker.js), so it plays on with the network gone. Its
// record (ruleset, seats, level, seed and every action) is kept in localStorage after each move;
// a reload replays it with the rules core to the same hand and turn.
//
// LocalMatch is the table's backend for such a match, beside ServerMatch (table.js): the same
// calls, answered by the worker instead of the gateway.

import { get } from "./api.js";
import { lang } from "./i18n.js";

const KEPT = "maumau.solo";
const COMPUTER_PAUSE_MS = 300; // as the engine's pause before a bot moves: the play can be followed

let described = null;
let worker = null;
let loading = null;
const waiting = new Map();
let nextId = 0;

// What the gateway serves for solo play ({available: false} without Pyodide); asked once.
export async function soloFiles() {
  if (!described) described = get("/api/solo").catch(() => ({ available: false }));
  return described;
}

function call(name, args) {
  const id = ++nextId;
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    worker.postMessage({ id, call: name, args });
  });
}

// Pyodide and the rules core in the worker, once per page: the first solo match waits for it.
export function loadEngine() {
  if (!loading) {
    loading = soloFiles().then(async (files) => {
      if (!files.available) throw new Error("solo play on the device is not served here");
      worker = new Worker(files.worker, { type: "module" });
      worker.addEventListener("message", ({ data }) => {
        const pending = waiting.get(data.id);
        if (!pending) return;
        waiting.delete(data.id);
        if (data.error !== undefined) pending.reject(new Error(data.error));
        else pending.resolve(data.result);
      });
      return call("load", { pyodide: files.pyodide, zip: files.package });
    });
    loading.catch(() => {
      // Asked again on the next solo match, by a fresh worker.
      if (worker) worker.terminate();
      worker = null;
      loading = null;
    });
  }
  return loading;
}

export const keptMatch = () => localStorage.getItem(KEPT);
export const forgetMatch = () => localStorage.removeItem(KEPT);

// A new match's record, kept before the first move: the seed is this browser's own.
export function newMatch({ ruleset, seats, level, name }) {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  const seed = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  localStorage.setItem(KEPT, JSON.stringify({ ruleset, seats, level, seed, name, actions: [] }));
}

class Refused extends Error {
  constructor(error) {
    super(error.message);
    this.code = error.code;
  }
}

export class LocalMatch {
  constructor() {
    this.local = true;
    this.endEvent = "match_over"; // no seed to reveal: the device dealt the cards itself
    this.onEvent = null;
    this.count = 0; // events handed to the table
  }

  // The kept match, replayed by the rules core.
  async open() {
    await loadEngine();
    const started = await call("start", { record: keptMatch(), lang: lang() });
    if (started.error) throw new Refused(started.error);
    this.infoData = started.info;
    this.matchId = started.info.match_id;
    this.current = started.view;
    this.backlog = started.events;
    return this;
  }

  info() { return Promise.resolve(this.infoData); }
  view() { return Promise.resolve(this.current); }

  follow(onEvent) {
    this.onEvent = onEvent;
    this.emit(this.backlog);
    this.backlog = [];
    this.computers();
  }

  unfollow() {
    this.onEvent = null;
    clearTimeout(this.pause);
  }

  emit(events) {
    for (const event of events) {
      this.count += 1;
      if (this.onEvent) this.onEvent(event, `${this.count}-0`);
    }
  }

  moved(answer) {
    localStorage.setItem(KEPT, answer.record);
    this.current = answer.view;
    this.emit(answer.events);
  }

  async act(text) {
    const answer = await call("act", { action: text, lang: lang() });
    if (answer.error) throw new Refused(answer.error);
    this.moved(answer);
    this.computers();
    return { view: answer.view };
  }

  tips() { return call("tips", { lang: lang() }); }

  // The computers move one after the other, each after a short pause, until it is the
  // player's turn or the match is over.
  computers() {
    clearTimeout(this.pause);
    if (!this.onEvent) return;
    this.pause = setTimeout(async () => {
      if (!this.onEvent) return;
      let answer;
      try {
        answer = await call("computer", {});
      } catch {
        this.computers(); // the worker failed this once: the computer tries again
        return;
      }
      if (!answer || !this.onEvent) return;
      this.moved(answer);
      this.computers();
    }, COMPUTER_PAUSE_MS);
  }
}
