// table.js: the socket's glue to the drawing; it keeps only what the player is choosing.

import { TableSocket } from "./socket.js";
import { h, positionOf, results, dealNotes, sinking } from "./kit.js";
import { renderTable, renderPresence } from "./render.js";
import { animate, announce, celebrate } from "./news.js";
import { coachReady } from "./learn.js";
import { t, say } from "./i18n.js";

const root = document.getElementById("table");
const banner = document.getElementById("conn-banner");
const bannerText = document.getElementById("conn-text");
const announcer = document.getElementById("announcer");
const toast = document.getElementById("toast");
const baseTitle = document.title;
// A friend's table alone: the maker's copy button, the friend's first visit.
const invite = () => import("./invite.js");
// My move while the tab is away: its title and icon, a notification if allowed (yourmove.js).
let away = null;
const yourMove = () => (away ||= import("./yourmove.js").then((m) => m.start(ui, baseTitle), () => (away = null)));
document.addEventListener("visibilitychange", () => document.hidden && yourMove());
// Strangers' tables (and a partie abandoned) alone.
const strangers = (m) => (m.room.seating === "open" || m.view.result?.abandoned != null) && import("./strangers.js").then((s) => s.decorate(root, m, socket));

const ui = {
  lastState: null,
  selected: new Set(),
  expose: false,
  selectionKey: "",
  confirmNewMatch: false,
  busy: false,
  freshConnection: true,
  notice: "",
  noticeVersion: 0,
  stepKey: "",
  sinkingOpen: false,
  hint: null,
  hintAsking: null,
  hintNote: "",
  reviews: new Map(),
  reviewOpen: null,
  lookBack: null,
};

const watchQuery = root.dataset.seat === "watch" ? "?watch=1" : "";
const socket = new TableSocket(`/ws/${encodeURIComponent(root.dataset.roomId)}${watchQuery}`, {
  message: onMessage,
  status: onStatus,
  seen: () => (ui.lastState?.room.receipt ? `${ui.lastState.version}.${ui.lastState.room.receipt}` : null),
});
// For the console and the tests; nothing secret.
window.piquetTable = { socket, ui };

function draw() {
  if (!ui.lastState) return;
  // Looking back: that position, read-only (no legal entry, so no control acts).
  const look = ui.lookBack;
  const msg = look ? { ...ui.lastState, view: { ...look.view, legal: [], log: [] } } : ui.lastState;
  const c = renderTable(root, msg, look ? { ...ui, selected: new Set() } : ui);
  // A refusal; the table's news (unless the refusal said it: a full disk's, to the mover).
  const note = msg.room.notice || (msg.room.store === "waiting" ? t("Waiting for the table's store to answer…") : "");
  if (!look) for (const [t, role] of [[ui.notice, "alert"], [note !== ui.notice && note, "status"]]) if (t) root.querySelector("#prompt").append(" ", h("span", { class: "notice", role }, t));
  syncRoving();
  strangers(msg);
  root.dataset.busy = ui.busy;
  document.title = ui.title = c.myTurn ? t("Your turn · {title}", { title: baseTitle }) : baseTitle;
  ui.myTurn = c.myTurn;
  away?.then((m) => m?.update());
  // Last: tests wait on this attribute, so the DOM is complete when it changes.
  root.dataset.version = ui.lastState.version;
}

// One tab stop in the hand; arrows move within.
function syncRoving() {
  const cards = [...root.querySelectorAll("#hand button.card")];
  const stop = cards.find((el) => el === document.activeElement) || root.querySelector("#hand .playable") || cards[0];
  for (const el of cards) el.tabIndex = el === stop ? 0 : -1;
}

// A deal is drawn with dealinfo.js, its calls with sinking.js and its end with results.js,
// each fetched when first needed: a state that needs one waits for it, and every message after waits its turn, so
// each is drawn whole and in order.
let queue = null;
function onMessage(msg) {
  const v = msg.type === "state" && msg.view;
  const needs = v ? [v.phase.endsWith("_over") && results, v.deal_number > 0 && dealNotes, v.legal.some((a) => a.type === "call") && sinking].filter((p) => p && !p.mod) : [];
  if (!queue && !needs.length) return handle(msg);
  const mine = (queue = (queue || Promise.resolve())
    .then(() => Promise.all(needs.map((p) => p.ready())))
    .then(() => handle(msg))
    .catch((err) => setTimeout(() => { throw err; })) // said, and the next still drawn
    .then(() => queue === mine && (queue = null)));
}

function handle(msg) {
  if (msg.type === "state") onState(msg);
  else if (msg.type === "presence") onPresence(msg);
  else if (msg.type === "error") onError(msg);
  else if (msg.type === "hint" && msg.version === ui.lastState?.version) {
    coachReady().then(() => {
      Object.assign(ui, { hint: msg, hintAsking: null, hintNote: "" });
      announcer.append(h("p", {}, t("Hint: {why}", { why: say(msg.hint.why_say) })));
      draw();
    });
  } else if (msg.type === "review") {
    if (msg.ready) ui.reviews.set(msg.deal, msg.review);
    if (ui.reviewOpen === msg.deal) draw();
  }
}

function onState(msg) {
  const previous = ui.lastState;
  const view = msg.view;
  // The log comes once (log_reset: the deal's whole log).
  ui.log = msg.log_reset || !previous ? msg.new_log || [] : ui.log.concat(msg.new_log || []);
  view.log = ui.log;
  const stepKey = `${view.deal_number}:${view.step}`;
  const key = view.legal.some((a) => a.type === "discard") ? stepKey : "";
  if (stepKey !== ui.stepKey) Object.assign(ui, { stepKey, sinkingOpen: false });
  if (key !== ui.selectionKey) Object.assign(ui, { selected: new Set(), expose: false, selectionKey: key });
  else for (const code of ui.selected) if (!view.hand.includes(code)) ui.selected.delete(code);
  const newDeal = previous && previous.view.deal_number !== view.deal_number;
  if (view.phase === "partie_over" || newDeal) ui.confirmNewMatch = false;
  if (newDeal) ui.reviewOpen = ui.lookBack = null;
  if (newDeal && previous.view.deal_number > view.deal_number) ui.reviews = new Map(); // a new partie
  if (previous?.version !== msg.version) ui.hintNote = "";
  if (view.phase.endsWith("_over")) coachReady(); // the review is a click away
  setBusy(false);
  root.dataset.seat = msg.room.seat ?? "watch";
  // A refusal is followed by a fresh state at the same version: say why until it moves on.
  if (msg.version > ui.noticeVersion) ui.notice = "";
  ui.lastState = msg;
  draw();
  if (previous && !ui.lookBack) animate(root, previous.view, view);
  if (ui.scrollY != null) ui.scrollY = scrollTo(0, ui.scrollY); // (back where it was: once)
  if (!ui.freshConnection && previous) {
    announce(announcer, msg, ui);
    celebrate(toast, previous, msg, ui);
  }
  ui.freshConnection = false;
}

// Presence redraws only its own parts (watchers by the dozen must not redraw the table).
function onPresence(msg) {
  if (!ui.lastState) return;
  ui.lastState.room = { ...ui.lastState.room, seats: msg.seats, watchers: msg.watchers || 0 };
  renderPresence(root, ui.lastState, ui);
  strangers(ui.lastState);
}

function onError(msg) {
  setBusy(false);
  // A hint refused: said gently, not as a refused move.
  if (ui.hintAsking !== null && ["busy", "not_allowed", "internal", "stale_version"].includes(msg.code)) {
    ui.hintAsking = null;
    ui.hintNote = { busy: t("A hint is on its way already: one at a time."), stale_version: "" }[msg.code] ?? msg.message;
    return draw();
  }
  // A stale or duplicate action is followed by a fresh state: nothing to tell.
  if (msg.code === "stale_version" || msg.code === "duplicate_id") return;
  ui.notice = msg.message || t("That was refused.");
  ui.noticeVersion = msg.version ?? ui.lastState?.version ?? 0;
  draw();
}

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
      bannerText.textContent = t("Connection lost. Reconnecting…");
      banner.hidden = false;
    }, 1000);
  } else if (status === "closed") {
    bannerText.textContent = detail || t("The table closed the connection.");
    banner.classList.add("fatal");
    if (way?.link) banner.append(h("a", { class: "button conn-action", href: way.link.href }, way.link.label));
    else if (way?.retry) {
      const again = h("button", { type: "button", class: "button conn-action" }, way.retry);
      again.addEventListener("click", () => socket.start());
      banner.append(again);
    }
    banner.hidden = false;
  }
}

function setBusy(on) {
  ui.busy = on;
  root.dataset.busy = on;
  clearTimeout(ui.busyTimer);
  if (on) ui.busyTimer = setTimeout(() => setBusy(false), 10000);
}

// A trick the computer won stays until its lead; a click or a key says go on (go_on).
function goOn() {
  const s = ui.lastState;
  const v = s && s.view;
  if (!v || ui.wentOn === s.version || s.room.opponent !== "computer" || v.seat === null) return;
  if (v.step !== "lead" || v.to_move === v.seat || v.trick || !v.tricks.length) return;
  ui.wentOn = s.version;
  socket.goOn(s.version);
}
addEventListener("pointerdown", goOn, true);
addEventListener("keydown", goOn, true);

function send(action) {
  if (ui.busy || !ui.lastState) return;
  if (socket.action(action, ui.lastState.version) !== null) return setBusy(true);
  ui.notice = t("Not connected: that move was not sent. Reconnecting…");
  ui.noticeVersion = ui.lastState.version;
  draw();
}

function askHint() {
  const v = ui.lastState.version;
  if (!root.querySelector("[data-hint]:not([aria-disabled])") || ui.hint?.version === v || !socket.send({ type: "hint", version: v })) return;
  Object.assign(ui, { hintAsking: v, hintNote: "" });
  draw();
  coachReady(); // meanwhile, to draw the answer
}

async function openReview(deal) {
  ui.reviewOpen = deal;
  if (!ui.reviews.has(deal)) socket.send({ type: "review", deal });
  await coachReady();
  draw();
  root.querySelector("#review .review-title")?.focus();
}

/** The reviewed decision "deal:step" and the position it was made in, if this page has it. */
function looked(key) {
  for (const r of key ? ui.reviews.values() : []) {
    const item = (r.items || r.summary.biggest).find((x) => `${x.deal}:${x.step}` === key);
    if (item && positionOf(ui, item)) return { item, view: positionOf(ui, item) };
  }
  return null;
}
const lookKey = () => ui.lookBack && `${ui.lookBack.item.deal}:${ui.lookBack.item.step}`;

/** Looks back at a reviewed decision ("deal:step"), or (null) back to the table. */
function lookBack(key) {
  const was = lookKey();
  ui.lookBack = looked(key);
  draw();
  root.querySelector(ui.lookBack ? "[data-back]" : `[data-review-item="${was}"]`)?.focus();
}

addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey || event.target.closest?.("input, select, textarea")) return;
  if (event.key === "Escape" && ui.lookBack) lookBack(null);
  else if (event.key.toLowerCase() === "h" && ui.lastState) askHint();
});

function toggleCard(code) {
  const entry = ui.lastState.view.legal.find((a) => a.type === "discard");
  if (!entry) return;
  ui.notice = "";
  if (ui.selected.has(code)) ui.selected.delete(code);
  else if (ui.selected.size < entry.max) ui.selected.add(code);
  else if (entry.max === 1) ui.selected = new Set([code]);
  else {
    ui.notice = t("You may discard at most {n}.", { n: entry.max });
    ui.noticeVersion = ui.lastState.version;
  }
  draw();
}

function confirmDiscard() {
  const entry = ui.lastState.view.legal.find((a) => a.type === "discard");
  const cards = ui.lastState.view.hand.filter((code) => ui.selected.has(code));
  if (!entry || cards.length < entry.min || cards.length > entry.max) return;
  send(entry.expose_choice ? { type: "discard", cards, expose: ui.expose } : { type: "discard", cards });
}

root.addEventListener("click", (event) => {
  const target = event.target.closest("button, [data-select]");
  if (!target || !root.contains(target)) return;
  const attr = (name) => target.getAttribute(name);
  const has = (name) => attr(name) !== null;
  if (target.id === "copy-link") return invite().then((m) => m.copyLink());
  if (has("data-notify")) return yourMove().then((m) => m?.ask(target));
  if (target.id === "computer-seat") {
    const level = document.getElementById("computer-level");
    if (ui.lastState && socket.computerSeat(ui.lastState.version, level ? level.value : "basic")) setBusy(true);
    return;
  }
  if (has("data-new-match")) {
    const what = attr("data-new-match");
    ui.confirmNewMatch = what === "ask";
    if (what === "confirm" && ui.lastState && socket.newMatch(ui.lastState.version)) setBusy(true);
    return draw();
  }
  if (has("data-hint")) return askHint();
  if (has("data-review")) return openReview(Number(attr("data-review")));
  if (has("data-review-item")) return lookBack(attr("data-review-item"));
  if (has("data-back")) return lookBack(null);
  if (has("data-select")) return toggleCard(attr("data-select"));
  if (attr("aria-disabled") === "true") return;
  if (has("data-confirm-discard")) return confirmDiscard();
  const entry = has("data-action") && ui.lastState.view.legal[Number(attr("data-action"))];
  if (entry && entry.type !== "discard") {
    const { label, say: words, ...action } = entry;
    send(action);
  }
});

root.addEventListener("change", (event) => {
  if (event.target.matches("[data-expose]")) ui.expose = event.target.checked;
});

// The smaller calls stay open across redraws on this step; the score sheet, opened, is drawn.
root.addEventListener("toggle", (event) => {
  if (event.target.matches?.("details.sinking")) ui.sinkingOpen = event.target.open;
  else if (event.target.id === "panel-scores" && event.target.open && !results.mod) results.ready().then(draw);
}, true);

// A call's cards are marked in the hand while it is hovered or focused.
function hint(event, on) {
  const button = event.target.closest?.("[data-cards]");
  for (const code of button ? button.getAttribute("data-cards").split(" ") : []) root.querySelector(`#hand [data-card="${code}"]`)?.classList.toggle("hinted", on);
}
for (const [type, on] of [["pointerover", true], ["pointerout", false], ["focusin", true], ["focusout", false]]) root.addEventListener(type, (event) => hint(event, on));

root.addEventListener("keydown", (event) => {
  const card = event.target.closest?.("#hand button.card");
  if (!card) return;
  const cards = [...root.querySelectorAll("#hand button.card")];
  const i = cards.indexOf(card);
  const to = { ArrowRight: i + 1, ArrowDown: i + 1, ArrowLeft: i - 1, ArrowUp: i - 1, Home: 0, End: cards.length - 1 }[event.key];
  if (to === undefined) return;
  event.preventDefault();
  const next = cards[Math.max(0, Math.min(to, cards.length - 1))];
  for (const el of cards) el.tabIndex = el === next ? 0 : -1;
  next.focus();
});

// A language chosen in the header brings the page back in it (app/languages.py), and what
// the player was choosing, had open and was shown comes back with it (this tab's storage).
const KEPT = `piquet.ui.${root.dataset.roomId}`;
document.querySelector("[data-lang-choice]")?.addEventListener("submit", () => {
  const open = [...root.querySelectorAll("details[open][id]")].map((d) => d.id);
  try {
    sessionStorage.setItem(KEPT, JSON.stringify({ ...ui, lastState: null, log: null, selected: [...ui.selected], reviews: [...ui.reviews], lookBack: lookKey(), open, scrollY }));
  } catch (err) {} // (no storage: the page comes back as any page does)
});
try {
  const kept = JSON.parse(sessionStorage.getItem(KEPT));
  sessionStorage.removeItem(KEPT);
  if (kept) {
    Object.assign(ui, kept, { selected: new Set(kept.selected), reviews: new Map(kept.reviews), notice: "", hintNote: "", hintAsking: null, busy: false, freshConnection: true });
    ui.lookBack = looked(kept.lookBack);
    for (const id of kept.open) document.getElementById(id)?.setAttribute("open", "");
    if (ui.hint || ui.reviewOpen != null) coachReady().then(draw);
  }
} catch (err) {}

// The friend's first visit takes the seat; the module itself may fail to load (offline
// for a moment): tried again, as the claim's own request is.
const claim = () => invite().then((m) => m.claimSeat(root, () => socket.start()),
  () => setTimeout(claim, 2000));
if (root.dataset.claim === "true") claim();
else socket.start();
