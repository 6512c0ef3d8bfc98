// socket.js: the table's WebSocket (docs/protocol.md): quiet reconnects, the keepalive,
// each change stamped with its version and a fresh id.

import { t } from "./i18n.js";

// Closes after which reconnecting would not help: the page says why, and a way on.
const NEW_TABLE = { href: "/", label: t("Start a new table") };
const FATAL_CLOSES = {
  4401: { text: t("This seat belongs to another browser. Open the table from the browser that joined it."), link: NEW_TABLE },
  4403: { text: t("This page may not connect to the table from here.") },
  4404: { text: t("This table no longer exists: it expired, or the server was restarted."), link: NEW_TABLE },
  4409: { text: t("This seat is open in another window."), retry: t("Play in this window") },
  4410: { text: t("This table has expired: nobody played at it for a long while."), link: NEW_TABLE },
};
// 1012: a restart, or the table moved: back at once (spread) if it was serving, else wait.
const RESTART_CLOSE = 1012;
const RESTART_SPREAD_MS = 250;
const MAX_DELAY_MS = 8000;
const SILENCE_MS = 70000; // this long without a message: the link is dead

function randomPart() {
  return Array.from(crypto.getRandomValues(new Uint8Array(6)), (b) => b.toString(16).padStart(2, "0")).join("");
}

export class TableSocket {
  /** `on`: message(msg), status("open" | "lost" | "closed", detail, {link | retry}). */
  constructor(path, on) {
    this.url = `${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}${path}`;
    this.on = on;
    this.ws = null;
    this.attempt = 0;
    this.counter = 0;
    this.prefix = `c-${randomPart()}`; // unique across reloads and tabs
    this.retryTimer = null;
    this.stopped = false;
    addEventListener("online", () => this.reconnectNow());
    document.addEventListener("visibilitychange", () => document.visibilityState === "visible" && this.reconnectNow());
    // A page being left is not a lost connection: say nothing.
    addEventListener("pagehide", () => (this.stopped = true));
  }

  start() {
    this.stopped = false;
    this.connect();
  }

  connect() {
    clearTimeout(this.retryTimer);
    this.retryTimer = null;
    let ws;
    // Coming back, say the version last shown, with its receipt: a store that lost it is
    // found out (docs/protocol.md).
    const seen = this.on.seen?.();
    try {
      ws = new WebSocket(seen ? `${this.url}${this.url.includes("?") ? "&" : "?"}seen=${seen}` : this.url);
    } catch (err) {
      return this.scheduleRetry();
    }
    this.ws = ws;
    let served = false; // a message came: the try worked
    ws.addEventListener("open", () => {
      if (ws !== this.ws) return;
      this.touch();
      this.on.status("open");
    });
    ws.addEventListener("message", (event) => {
      if (ws !== this.ws) return;
      this.touch();
      served = true;
      this.attempt = 0;
      let msg;
      try {
        msg = JSON.parse(event.data);
      } catch (err) {
        return;
      }
      if (msg?.type === "ping") this.send({ type: "pong" });
      else if (msg?.type !== "pong") this.on.message(msg);
    });
    ws.addEventListener("close", (event) => {
      if (ws !== this.ws) return;
      this.ws = null;
      clearTimeout(this.silenceTimer);
      if (this.stopped) return;
      const fatal = FATAL_CLOSES[event.code];
      if (fatal) {
        this.stopped = true;
        return this.on.status("closed", fatal.text, fatal);
      }
      this.on.status("lost");
      if (event.code !== RESTART_CLOSE || !served) return this.scheduleRetry();
      this.attempt = 0;
      this.scheduleRetry(Math.random() * RESTART_SPREAD_MS);
    });
  }

  scheduleRetry(soon) {
    if (this.stopped || this.retryTimer) return;
    const base = Math.min(MAX_DELAY_MS, 400 * 2 ** this.attempt);
    this.attempt += 1;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.connect();
    }, soon ?? base / 2 + Math.random() * (base / 2));
  }

  reconnectNow() {
    if (this.stopped || this.ws) return;
    this.attempt = 0;
    this.connect();
  }

  touch() {
    clearTimeout(this.silenceTimer);
    this.silenceTimer = setTimeout(() => this.ws?.close(4000, "silent"), SILENCE_MS);
  }

  send(obj) {
    if (this.ws?.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(obj));
    return true;
  }

  /** A change made on `version`, with a fresh id: the id, or null when offline. */
  change(type, version, more) {
    const id = `${this.prefix}-${++this.counter}`;
    return this.send({ type, version, id, ...more }) ? id : null;
  }

  action(action, version) {
    return this.change("action", version, { action });
  }

  newMatch(version) {
    return this.change("new_match", version);
  }

  /** The trick was seen: the computer may lead. */
  goOn(version) {
    return this.send({ type: "go_on", version });
  }

  computerSeat(version, level) {
    return this.change("computer_seat", version, { level });
  }
}
