// table.js: glue between the socket and the drawing. It keeps only what the
// player is in the middle of choosing (cards selected to discard, the expose
// choice); everything else is redrawn from the latest state the server sent.

import { TableSocket } from "./socket.js";
import { h } from "./kit.js";
import { renderTable, renderPresence } from "./render.js";
import { animate, announce, celebrate } from "./news.js";
import { copyLink, claimSeat } from "./invite.js";
import { positionOf } from "./learn.js";

const root = document.getElementById("table");
const banner = document.getElementById("conn-banner");
const bannerText = document.getElementById("conn-text");
const announcer = document.getElementById("announcer");
const toast = document.getElementById("toast");
const baseTitle = document.title;

const ui = {
  lastState: null,
  selected: new Set(),
  expose: false,
  selectionKey: "",
  confirmNewMatch: false,
  busy: false,
  busyTimer: null,
  freshConnection: true,
  notice: "",
  noticeVersion: 0,
  stepKey: "",
  sinkingOpen: false,
  // Learning (learn.js): the hint shown ({version, hint}) or asked for (its version), a
  // gentle word about it, the reviews come (by deal; 0: the partie's), the one open, and
  // the reviewed position being looked back at ({item, view}).
  hint: null,
  hintAsking: null,
  hintNote: "",
  reviews: new Map(),
  reviewOpen: null,
  lookBack: null,
};

// A full table's third visitor watches: the socket asks for the public view.
const watchQuery = root.dataset.seat === "watch" ? "?watch=1" : "";
const socket = new TableSocket(`/ws/${encodeURIComponent(root.dataset.roomId)}${watchQuery}`, {
  message: onMessage,
  status: onStatus,
});
// For debugging from the console (and the reconnect test); holds nothing secret.
window.piquetTable = { socket, ui };

// ---- drawing ------------------------------------------------------------------------

function draw() {
  if (!ui.lastState) return;
  // Looking back: that position, drawn read-only (no legal entry, so no control acts).
  const look = ui.lookBack;
  const msg = look ? { ...ui.lastState, view: { ...look.view, legal: [], log: [] } } : ui.lastState;
  const c = renderTable(root, msg, look ? { ...ui, selected: new Set() } : ui);
  const prompt = root.querySelector("#prompt");
  if (ui.notice && prompt && !look) {
    const note = document.createElement("span");
    note.className = "notice";
    note.setAttribute("role", "alert");
    note.textContent = ui.notice;
    prompt.append(" ", note);
  }
  syncRoving();
  root.dataset.busy = ui.busy ? "true" : "false";
  document.title = c.myTurn ? `Your turn · ${baseTitle}` : baseTitle;
  // Last: tests wait on this attribute, so the DOM is complete when it changes.
  root.dataset.version = String(ui.lastState.version);
}

/** One tab stop in the hand (the focused or first playable card); arrows move within. */
function syncRoving() {
  const cards = Array.from(root.querySelectorAll("#hand button.card"));
  if (!cards.length) return;
  const focused = cards.find((el) => el === document.activeElement);
  const stop = focused || root.querySelector("#hand .playable") || cards[0];
  for (const el of cards) el.tabIndex = el === stop ? 0 : -1;
}

// ---- messages -----------------------------------------------------------------------

function onMessage(msg) {
  if (msg.type === "state") onState(msg);
  else if (msg.type === "presence") onPresence(msg);
  else if (msg.type === "error") onError(msg);
  else if (msg.type === "hint" && ui.lastState && msg.version === ui.lastState.version) {
    Object.assign(ui, { hint: msg, hintAsking: null, hintNote: "" });
    announcer.append(h("p", {}, `Hint: ${msg.hint.why}`));
    draw();
  } else if (msg.type === "review") {
    if (msg.ready) ui.reviews.set(msg.deal, msg.review);
    if (ui.reviewOpen === msg.deal) draw();
  }
}

function onState(msg) {
  const previous = ui.lastState;
  // The log comes once: this deal's lines when log_reset, else only the new ones.
  ui.log = msg.log_reset || !previous ? msg.new_log || [] : ui.log.concat(msg.new_log || []);
  msg.view.log = ui.log;
  if (!msg.room && previous) msg.room = previous.room;
  if (previous && previous.room && msg.room && !msg.room.seats) msg.room.seats = previous.room.seats;
  const view = msg.view;
  const discard = (view.legal || []).find((a) => a.type === "discard");
  const key = discard ? `${view.deal_number}:${view.step}` : "";
  const stepKey = `${view.deal_number}:${view.step}`;
  if (stepKey !== ui.stepKey) {
    ui.stepKey = stepKey;
    ui.sinkingOpen = false;
  }
  if (key !== ui.selectionKey) {
    ui.selected = new Set();
    ui.expose = false;
    ui.selectionKey = key;
  } else {
    const hand = new Set(view.hand || []);
    for (const code of ui.selected) if (!hand.has(code)) ui.selected.delete(code);
  }
  if (view.phase === "partie_over" || (previous && previous.view.deal_number !== view.deal_number)) {
    ui.confirmNewMatch = false;
  }
  if (previous && previous.view.deal_number !== view.deal_number) ui.reviewOpen = ui.lookBack = null;
  if (previous && previous.view.deal_number > view.deal_number) ui.reviews = new Map(); // a new partie
  if (!previous || previous.version !== msg.version) ui.hintNote = "";
  setBusy(false);
  // A refusal is followed by a fresh state at the same version: keep saying why
  // until the table moves on.
  if (msg.version > ui.noticeVersion) ui.notice = "";
  ui.lastState = msg;
  draw();
  if (previous && !ui.lookBack) animate(root, previous.view, view);
  if (!ui.freshConnection && previous) {
    announce(announcer, msg, ui);
    celebrate(toast, previous, msg, ui);
  }
  ui.freshConnection = false;
}

// Presence changes who is here, nothing of the partie: only its own parts are redrawn
// (watchers coming and going by the dozen must not redraw the table each time).
function onPresence(msg) {
  if (!ui.lastState) return;
  ui.lastState.room = { ...ui.lastState.room, seats: msg.seats, watchers: msg.watchers || 0 };
  renderPresence(root, ui.lastState, ui);
}

function onError(msg) {
  setBusy(false);
  // The hint asked for is refused: said gently beside the table, not as a refusal.
  if (ui.hintAsking !== null && ["busy", "not_allowed", "internal", "stale_version"].includes(msg.code)) {
    ui.hintAsking = null;
    ui.hintNote = msg.code === "busy" ? "A hint is on its way already: one at a time." : msg.code === "stale_version" ? "" : msg.message;
    draw();
    return;
  }
  // A stale or duplicate action is followed by a fresh state: nothing to tell.
  if (msg.code === "stale_version" || msg.code === "duplicate_id") return;
  ui.notice = msg.message || "That was refused.";
  ui.noticeVersion = typeof msg.version === "number" ? msg.version : ui.lastState ? ui.lastState.version : 0;
  draw();
}

// ---- connection -----------------------------------------------------------------------

let bannerTimer = null;
function onStatus(status, detail, way) {
  root.dataset.connection = status;
  clearTimeout(bannerTimer);
  banner.querySelector(".conn-action")?.remove();
  if (status === "open") {
    ui.freshConnection = true;
    banner.hidden = true;
    banner.classList.remove("fatal");
  } else if (status === "lost") {
    setBusy(false);
    ui.hintAsking = null;
    // Quiet: a blip that heals within a second never shows the banner.
    bannerTimer = setTimeout(() => {
      bannerText.textContent = "Connection lost. Reconnecting…";
      banner.hidden = false;
    }, 1000);
  } else if (status === "closed") {
    bannerText.textContent = detail || "The table closed the connection.";
    banner.classList.add("fatal");
    if (way && way.link) {
      banner.append(h("a", { class: "button conn-action", href: way.link.href }, way.link.label));
    } else if (way && way.retry) {
      const again = h("button", { type: "button", class: "button conn-action" }, way.retry);
      again.addEventListener("click", () => socket.start());
      banner.append(again);
    }
    banner.hidden = false;
  }
}

function setBusy(on) {
  ui.busy = on;
  root.dataset.busy = on ? "true" : "false";
  clearTimeout(ui.busyTimer);
  if (on) ui.busyTimer = setTimeout(() => setBusy(false), 10000);
}

// ---- sending ----------------------------------------------------------------------------

// A trick the computer won stays in view until its next lead (the server holds that lead a
// while); a click or a key says "go on" sooner, once per state (docs/protocol.md, go_on).
function goOn() {
  const s = ui.lastState;
  const v = s && s.view;
  if (!v || ui.wentOn === s.version || s.room.opponent !== "computer" || v.seat === null) return;
  if (v.step !== "lead" || v.to_move === v.seat || v.trick || !(v.tricks || []).length) return;
  ui.wentOn = s.version;
  socket.goOn(s.version);
}
addEventListener("pointerdown", goOn, true);
addEventListener("keydown", goOn, true);

function send(action) {
  if (ui.busy || !ui.lastState) return;
  const id = socket.action(action, ui.lastState.version);
  if (id === null) {
    ui.notice = "Not connected: that move was not sent. Reconnecting…";
    ui.noticeVersion = ui.lastState.version;
    draw();
    return;
  }
  setBusy(true);
}

// ---- learning: the hint, the reviews, looking back -------------------------------------

function askHint() {
  const s = ui.lastState;
  const button = root.querySelector("[data-hint]:not([aria-disabled])");
  if (!button || (ui.hint && ui.hint.version === s.version) || !socket.send({ type: "hint", version: s.version })) return;
  Object.assign(ui, { hintAsking: s.version, hintNote: "" });
  draw();
}

function openReview(deal) {
  ui.reviewOpen = deal;
  if (!ui.reviews.has(deal)) socket.send({ type: "review", deal });
  draw();
  root.querySelector("#review .review-title")?.focus();
}

/** Looks back at a reviewed decision ("deal:step"), or back to the table (null). */
function lookBack(key) {
  const was = ui.lookBack && `${ui.lookBack.item.deal}:${ui.lookBack.item.step}`;
  ui.lookBack = null;
  for (const r of key ? ui.reviews.values() : []) {
    const item = (r.items || (r.summary && r.summary.biggest) || []).find((x) => `${x.deal}:${x.step}` === key);
    const view = item && positionOf(ui, item);
    if (view) ui.lookBack = { item, view };
  }
  draw();
  root.querySelector(ui.lookBack ? "[data-back]" : `[data-review-item="${was}"]`)?.focus();
}

addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey || event.target.closest?.("input, select, textarea")) return;
  if (event.key === "Escape" && ui.lookBack) lookBack(null);
  else if (event.key.toLowerCase() === "h" && ui.lastState) askHint();
});

function legalEntry(index) {
  const legal = (ui.lastState && ui.lastState.view.legal) || [];
  return legal[Number(index)] || null;
}

function withoutLabel(entry) {
  const { label, ...action } = entry;
  return action;
}

function toggleCard(code) {
  const entry = (ui.lastState.view.legal || []).find((a) => a.type === "discard");
  if (!entry) return;
  ui.notice = "";
  if (ui.selected.has(code)) ui.selected.delete(code);
  else if (ui.selected.size < entry.max) ui.selected.add(code);
  else if (entry.max === 1) ui.selected = new Set([code]);
  else {
    ui.notice = `You may discard at most ${entry.max}.`;
    ui.noticeVersion = ui.lastState.version;
    draw();
    return;
  }
  draw();
}

function confirmDiscard(button) {
  if (button.getAttribute("aria-disabled") === "true") return;
  const entry = (ui.lastState.view.legal || []).find((a) => a.type === "discard");
  if (!entry) return;
  const hand = ui.lastState.view.hand || [];
  const cards = hand.filter((code) => ui.selected.has(code));
  if (cards.length < entry.min || cards.length > entry.max) return;
  const action = { type: "discard", cards };
  if (entry.expose_choice) action.expose = ui.expose;
  send(action);
}

root.addEventListener("click", (event) => {
  const target = event.target.closest("button, [data-select]");
  if (!target || !root.contains(target)) return;
  if (target.id === "copy-link") {
    copyLink();
    return;
  }
  if (target.id === "computer-seat") {
    const level = document.getElementById("computer-level");
    if (ui.lastState && socket.computerSeat(ui.lastState.version, level ? level.value : "basic")) setBusy(true);
    return;
  }
  if (target.hasAttribute("data-new-match")) {
    const what = target.getAttribute("data-new-match");
    if (what === "ask") ui.confirmNewMatch = true;
    else if (what === "cancel") ui.confirmNewMatch = false;
    else if (what === "confirm" && ui.lastState) {
      ui.confirmNewMatch = false;
      if (socket.newMatch(ui.lastState.version)) setBusy(true);
    }
    draw();
    return;
  }
  if (target.hasAttribute("data-hint")) return askHint();
  if (target.hasAttribute("data-review")) return openReview(Number(target.getAttribute("data-review")));
  if (target.hasAttribute("data-review-item")) return lookBack(target.getAttribute("data-review-item"));
  if (target.hasAttribute("data-back")) return lookBack(null);
  if (target.hasAttribute("data-select")) {
    toggleCard(target.getAttribute("data-select"));
    return;
  }
  if (target.hasAttribute("data-confirm-discard")) {
    confirmDiscard(target);
    return;
  }
  if (target.hasAttribute("data-action")) {
    if (target.getAttribute("aria-disabled") === "true") return;
    const entry = legalEntry(target.getAttribute("data-action"));
    if (entry && entry.type !== "discard") send(withoutLabel(entry));
  }
});

root.addEventListener("change", (event) => {
  if (event.target.matches("[data-expose]")) {
    ui.expose = event.target.checked;
  }
});

// The smaller calls fold out; keep them open across redraws while on this step.
root.addEventListener(
  "toggle",
  (event) => {
    if (event.target.matches && event.target.matches("details.sinking")) ui.sinkingOpen = event.target.open;
  },
  true
);

// A call names cards: mark them in the hand while the button is hovered or focused.
function hint(event, on) {
  const button = event.target.closest && event.target.closest("[data-cards]");
  if (!button) return;
  for (const code of button.getAttribute("data-cards").split(" ")) {
    const card = root.querySelector(`#hand [data-card="${CSS.escape(code)}"]`);
    if (card) card.classList.toggle("hinted", on);
  }
}
root.addEventListener("pointerover", (event) => hint(event, true));
root.addEventListener("pointerout", (event) => hint(event, false));
root.addEventListener("focusin", (event) => hint(event, true));
root.addEventListener("focusout", (event) => hint(event, false));

root.addEventListener("keydown", (event) => {
  const card = event.target.closest && event.target.closest("#hand button.card");
  if (!card) return;
  const cards = Array.from(root.querySelectorAll("#hand button.card"));
  const i = cards.indexOf(card);
  let next = null;
  if (event.key === "ArrowRight" || event.key === "ArrowDown") next = cards[Math.min(i + 1, cards.length - 1)];
  else if (event.key === "ArrowLeft" || event.key === "ArrowUp") next = cards[Math.max(i - 1, 0)];
  else if (event.key === "Home") next = cards[0];
  else if (event.key === "End") next = cards[cards.length - 1];
  if (!next) return;
  event.preventDefault();
  for (const el of cards) el.tabIndex = el === next ? 0 : -1;
  next.focus();
});

if (root.dataset.claim === "true") claimSeat(root, () => socket.start());
else socket.start();
