// socket.js: the table's WebSocket (docs/protocol.md). It reconnects quietly with
// backoff, answers the server's keepalive, and stamps every action with the
// version it was made on and a client message id that is never reused.

// Closes after which reconnecting on our own would not help (docs/protocol.md): the page
// stops and says why, with a way on: a link to start a new table, or, for 4409, a
// button to take the seat back by hand (at once it would push the other window out).
const NEW_TABLE = { href: "/", label: "Start a new table" };
const FATAL_CLOSES = {
  4401: { text: "This seat belongs to another browser. Open the table from the browser that joined it.", link: NEW_TABLE },
  4403: { text: "This page may not connect to the table from here." },
  4404: { text: "This table no longer exists: it expired, or the server was restarted.", link: NEW_TABLE },
  4409: { text: "This seat is open in another window.", retry: "Play in this window" },
  4410: { text: "This table has expired: nobody played at it for a long while.", link: NEW_TABLE },
};
// 1012: the server is restarting, or the table moved to another server process. With
// several processes (deploy/), the table is already waiting elsewhere: a socket that was
// serving the table comes back at once, within a short random spread so that a
// restart's sockets do not all land together. A 1012 to a try that got nothing (the
// table could not be loaded: its store is out) waits like any failed try.
const RESTART_CLOSE = 1012;
const RESTART_SPREAD_MS = 250;
const MAX_DELAY_MS = 8000;
const SILENCE_MS = 70000; // no message at all for this long: the link is dead, reconnect

function randomPart() {
  const bytes = new Uint8Array(6);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export class TableSocket {
  /**
   * @param {string} path  e.g. "/ws/<room_id>"
   * @param {object} on    callbacks: message(msg), status("open"|"lost"|"closed", detail, way)
   *                        where `way` (on "closed") may hold `link` {href, label} or `retry` (a label)
   */
  constructor(path, on) {
    this.url = `${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}${path}`;
    this.on = on;
    this.ws = null;
    this.attempt = 0;
    this.counter = 0;
    this.prefix = `c-${randomPart()}`; // ids stay unique across reloads and tabs
    this.retryTimer = null;
    this.silenceTimer = null;
    this.stopped = false;
    this.wasOpen = false;
    addEventListener("online", () => this.reconnectNow());
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") this.reconnectNow();
    });
    // A page being left is not a lost connection: say nothing.
    addEventListener("pagehide", () => { this.stopped = true; });
  }

  start() {
    this.stopped = false;
    this.connect();
  }

  connect() {
    clearTimeout(this.retryTimer);
    this.retryTimer = null;
    let ws;
    // Coming back, say which version was last shown (with its receipt), so a table whose
    // store lost it is found out instead of showing an older one (docs/protocol.md).
    const seen = this.on.seen ? this.on.seen() : null;
    const url = seen ? `${this.url}${this.url.includes("?") ? "&" : "?"}seen=${seen}` : this.url;
    try {
      ws = new WebSocket(url);
    } catch (err) {
      this.scheduleRetry();
      return;
    }
    this.ws = ws;
    let served = false; // the table's first message came: the try worked
    ws.addEventListener("open", () => {
      if (ws !== this.ws) return;
      this.wasOpen = true;
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
      if (msg && msg.type === "ping") {
        this.send({ type: "pong" });
        return;
      }
      if (msg && msg.type === "pong") return;
      this.on.message(msg);
    });
    ws.addEventListener("close", (event) => {
      if (ws !== this.ws) return;
      this.ws = null;
      clearTimeout(this.silenceTimer);
      if (this.stopped) return;
      const fatal = FATAL_CLOSES[event.code];
      if (fatal) {
        this.stopped = true;
        this.on.status("closed", fatal.text, fatal);
        return;
      }
      this.on.status("lost");
      if (event.code === RESTART_CLOSE && served) {
        this.attempt = 0;
        this.scheduleRetry(Math.random() * RESTART_SPREAD_MS);
        return;
      }
      this.scheduleRetry();
    });
    // "error" is always followed by "close"; nothing to do here.
  }

  scheduleRetry(soon) {
    if (this.stopped || this.retryTimer) return;
    const base = Math.min(MAX_DELAY_MS, 400 * 2 ** this.attempt);
    this.attempt += 1;
    const delay = soon ?? base / 2 + Math.random() * (base / 2);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.connect();
    }, delay);
  }

  reconnectNow() {
    if (this.stopped || this.ws) return;
    this.attempt = 0;
    this.connect();
  }

  touch() {
    clearTimeout(this.silenceTimer);
    this.silenceTimer = setTimeout(() => {
      if (this.ws) this.ws.close(4000, "silent");
    }, SILENCE_MS);
  }

  get isOpen() {
    return !!this.ws && this.ws.readyState === WebSocket.OPEN;
  }

  send(obj) {
    if (!this.isOpen) return false;
    this.ws.send(JSON.stringify(obj));
    return true;
  }

  nextId() {
    this.counter += 1;
    return `${this.prefix}-${this.counter}`;
  }

  /** Sends a game action made on `version`; returns its id, or null when offline. */
  action(action, version) {
    const id = this.nextId();
    return this.send({ type: "action", version, id, action }) ? id : null;
  }

  newMatch(version) {
    const id = this.nextId();
    return this.send({ type: "new_match", version, id }) ? id : null;
  }

  /** The person has seen the trick: the computer's wait before its lead may end. */
  goOn(version) {
    return this.send({ type: "go_on", version });
  }

  /** A waiting friend's seat goes to the computer at `level`. */
  computerSeat(version, level) {
    const id = this.nextId();
    return this.send({ type: "computer_seat", version, id, level }) ? id : null;
  }
}
