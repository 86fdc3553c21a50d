// The gateway's JSON commands and the tab's one WebSocket. The player token is an HttpOnly
// cookie the browser sends by itself: this code never sees it, nor any seat token.

import { lang } from "./i18n.js";

export class ApiError extends Error {
  constructor(status, body) {
    const error = (body && body.error) || {};
    super(error.message || `HTTP ${status}`);
    this.status = status;
    this.code = error.code || "";
    this.grpcStatus = error.status || "";
  }
}

export async function call(method, path, body) {
  const options = { method, headers: { "X-Maumau-Lang": lang() }, credentials: "same-origin" };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

export const get = (path) => call("GET", path);
export const post = (path, body = {}) => call("POST", path, body);
export const del = (path) => call("DELETE", path);

export function requestId() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

// One WebSocket per tab. Follows survive reconnects: a match is followed again from the id of
// the last event received, so the page sees every event once.
export class Live {
  constructor(onFrame, onStatus) {
    this.onFrame = onFrame;
    this.onStatus = onStatus;
    this.follows = new Map(); // topic -> follow message
    this.lastEvent = new Map(); // match id -> id of the last event received
    this.retry = 250;
    this.socket = null;
  }

  // Connect once there is a session (the gateway refuses a socket without one).
  start() {
    if (!this.socket) this.connect();
  }

  connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${scheme}://${location.host}/ws?lang=${lang()}`);
    this.socket = socket;
    socket.addEventListener("open", () => {
      this.retry = 250;
      this.onStatus(true);
      for (const message of this.follows.values()) this.sendFollow(message);
    });
    socket.addEventListener("message", (message) => {
      const frame = JSON.parse(message.data);
      if (frame.type === "event") {
        const matchId = frame.topic.slice("match:".length);
        this.lastEvent.set(matchId, frame.id);
      }
      if (frame.type === "end") this.follows.delete(frame.topic);
      if (frame.type === "error" && frame.error.retry_after_ms && this.follows.has(frame.topic)) {
        // Refused past a limit (too many streams open): follow again after the wait it names.
        const topic = frame.topic;
        setTimeout(() => {
          if (this.follows.has(topic)) this.sendFollow(this.follows.get(topic));
        }, frame.error.retry_after_ms);
      }
      this.onFrame(frame);
    });
    socket.addEventListener("close", () => {
      if (this.socket !== socket) return;
      this.onStatus(false);
      setTimeout(() => this.connect(), this.retry);
      this.retry = Math.min(this.retry * 2, 5000);
    });
  }

  sendFollow(message) {
    const out = { ...message };
    if (out.match_id) out.after = this.lastEvent.get(out.match_id) || "";
    if (this.socket && this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(out));
  }

  follow(topic, message) {
    this.follows.set(topic, { op: "follow", ...message });
    this.sendFollow(this.follows.get(topic));
  }

  unfollow(topic) {
    if (!this.follows.delete(topic)) return;
    if (this.socket && this.socket.readyState === WebSocket.OPEN) {
      this.socket.send(JSON.stringify({ op: "unfollow", topic }));
    }
  }

  // Start a match's events from the beginning again (a fresh page of the same match).
  forget(matchId) {
    this.lastEvent.delete(matchId);
  }
}
