// replay.js: the replay page. A record (docs/record.md), chosen or dropped here or fetched
// from a table (/r/{id}/replay), stepped through deal by deal, action by action: each
// step's view drawn by the table's own modules, read-only (no legal entry, so no control
// acts), the deal's review beside it (the record's `reviews`), a reviewed decision marked.

import { renderTable } from "./render.js";
import { logLineText } from "./panels.js";

const table = document.getElementById("table");
const bar = document.getElementById("replay-bar");
const status = document.getElementById("replay-status");
const where = document.getElementById("replay-where");
const at = { i: 0, steps: [], starts: [], items: new Map(), room: null, ui: null };

function load(record) {
  if (!record || record.format !== "piquet-record" || !record.start || !Array.isArray(record.deals)) throw new Error("not a record");
  // Flattened: the start, then every step; a step's log is its deal's lines so far.
  const steps = [{ view: record.start, log: record.start.log || [], said: record.start.log || [], deal: -1 }];
  const starts = [];
  record.deals.forEach((d, index) => {
    starts.push(steps.length);
    let log = [];
    d.steps.forEach((s, j) => steps.push({ view: s.view, log: (log = log.concat(s.log || [])), said: s.log || [], deal: index, step: j }));
  });
  const reviews = new Map((record.reviews || []).map((r) => [r.deal, r]));
  const items = new Map();
  // A decision is looked at from the step before it (the view it was made on).
  for (const r of reviews.values()) {
    for (const x of r.items || []) {
      const i = starts[x.index] + x.step - 1;
      if (!steps[i]) continue;
      items.set(`${x.deal}:${x.step}`, i);
      steps[i].item = x;
    }
  }
  if (record.summary) reviews.set(0, { summary: record.summary });
  const seat = record.seat;
  const names = record.names || ["Host", "Guest"];
  const seats = names.map((name, i) => ({ name: i === seat ? "You" : name, joined: true, connected: true }));
  Object.assign(at, { steps, starts, items, room: { opponent: "computer", seats, watchers: 0, rematch: [] } });
  at.ui = { replay: true, reviews, selected: new Set() };
  table.dataset.seat = seat === null || seat === undefined ? "watch" : String(seat);
  table.hidden = bar.hidden = false;
  status.textContent = `A record of ${record.deals.length} deal${record.deals.length === 1 ? "" : "s"}, as ${seat === null ? "a watcher" : names[seat]} saw it.`;
  show(0);
}

function show(i) {
  const { steps, ui } = at;
  at.i = Math.max(0, Math.min(steps.length - 1, i));
  const p = steps[at.i];
  const n = p.view.deal_number;
  ui.lookBack = p.item ? { item: p.item } : null;
  ui.reviewOpen = ui.reviews.has(n) && p.deal >= 0 ? n : ui.reviews.has(0) ? 0 : null;
  ui.summaryToo = ui.reviewOpen !== 0;
  const c = renderTable(table, { version: at.i, room: at.room, view: { ...p.view, legal: [], log: p.log } }, ui);
  const words = p.said.map((line) => logLineText(c, line)).join(" ");
  if (!p.item) table.querySelector("#prompt").replaceChildren(words);
  const count = p.deal < 0 ? 0 : (at.starts[p.deal + 1] || steps.length) - at.starts[p.deal];
  where.textContent = p.deal < 0 ? `The cut. ${words}` : `Deal ${n}, step ${p.step + 1} of ${count}. ${words}`;
  Object.assign(table.dataset, { version: at.i, deal: p.deal + 1, step: p.step ?? -1 });
}

function target(go) {
  const { i, starts, steps } = at;
  const moves = {
    first: 0,
    last: steps.length - 1,
    back: i - 1,
    on: i + 1,
    "deal+": starts.find((s) => s > i) ?? steps.length - 1,
    "deal-": [...starts].reverse().find((s) => s < i) ?? 0,
  };
  return moves[go];
}

const KEYS = { ArrowRight: "on", ArrowLeft: "back", Home: "first", End: "last", PageDown: "deal+", "]": "deal+", PageUp: "deal-", "[": "deal-" };
addEventListener("keydown", (event) => {
  const go = KEYS[event.key];
  if (!at.ui || !go || event.ctrlKey || event.metaKey || event.altKey || event.target.closest?.("input")) return;
  event.preventDefault();
  show(target(go));
});
bar.addEventListener("click", (event) => {
  const button = event.target.closest("[data-go]");
  if (button) show(target(button.dataset.go));
});
table.addEventListener("click", (event) => {
  const item = event.target.closest("[data-review-item]");
  if (item && at.items.has(item.dataset.reviewItem)) show(at.items.get(item.dataset.reviewItem));
});

function fail(why) {
  status.textContent = why;
}

async function open(file) {
  try {
    load(JSON.parse(await file.text()));
  } catch (err) {
    fail(`${file.name} is not a Piquet record (a .json file downloaded from a table).`);
  }
}
document.getElementById("record-file").addEventListener("change", (event) => event.target.files[0] && open(event.target.files[0]));
addEventListener("dragover", (event) => event.preventDefault());
addEventListener("drop", (event) => {
  event.preventDefault();
  if (event.dataTransfer.files[0]) open(event.dataTransfer.files[0]);
});

if (table.dataset.recordUrl) {
  fetch(table.dataset.recordUrl, { credentials: "same-origin" })
    .then((r) => (r.ok ? r.json() : Promise.reject(new Error(r.status))))
    .then(load)
    .catch(() => fail("The table's record could not be fetched: the table may have closed."));
}
