// replay.js: a record (docs/record.md) chosen, dropped or fetched, stepped through: each
// view drawn by the table's modules, read-only (no `legal`), the deal's review beside it.

import { renderTable } from "./render.js";
import { logLineText } from "./panels.js";
import { coachReady } from "./learn.js";
import { results, dealNotes } from "./kit.js";
import { t, nt } from "./i18n.js";

const table = document.getElementById("table");
const bar = document.getElementById("replay-bar");
const status = document.getElementById("replay-status");
const at = { i: 0, steps: [], starts: [], items: new Map(), ui: null };
const KEYS = { ArrowRight: "on", ArrowLeft: "back", Home: "first", End: "last", PageDown: "deal+", "]": "deal+", PageUp: "deal-", "[": "deal-" };

async function load(record) {
  if (record.format !== "piquet-record") throw new Error("not a record");
  // The reviews and their look backs, the deals' results: drawn from the first step.
  await Promise.all([coachReady(), results.ready(), dealNotes.ready()]);
  // The start, then each step, with its deal's log so far.
  const cut = record.start.log || [];
  const steps = [{ view: record.start, log: cut, said: cut, deal: -1 }];
  const starts = record.deals.map((d, deal) => {
    let log = [];
    d.steps.forEach((s, step) => steps.push({ view: s.view, log: (log = log.concat(s.log)), said: s.log, deal, step }));
    return steps.length - d.steps.length;
  });
  const reviews = new Map((record.reviews || []).map((r) => [r.deal, r]));
  at.items = new Map();
  // A decision is shown on the view it was made on, the step before's.
  for (const x of (record.reviews || []).flatMap((r) => r.items)) {
    const i = starts[x.index] + x.step - 1;
    at.items.set(`${x.deal}:${x.step}`, i);
    steps[i].item = x;
  }
  if (record.summary) reviews.set(0, { summary: record.summary });
  const seat = record.seat;
  const seats = record.names.map((name, i) => ({ name, you: i === seat, joined: true }));
  Object.assign(at, { steps, starts, room: { opponent: "computer", seats }, ui: { replay: true, reviews, selected: new Set() } });
  table.dataset.seat = seat ?? "watch";
  table.hidden = bar.hidden = false;
  const n = record.deals.length;
  status.textContent = seat == null ? nt("A record of {n} deal, as a watcher saw it.", "A record of {n} deals, as a watcher saw it.", n) : nt("A record of {n} deal, as {name} saw it.", "A record of {n} deals, as {name} saw it.", n, { name: record.names[seat] });
  show(0);
}

function show(i) {
  const { steps, starts, ui } = at;
  at.i = Math.max(0, Math.min(steps.length - 1, i));
  const p = steps[at.i];
  const n = p.view.deal_number;
  ui.lookBack = p.item ? { item: p.item } : null;
  ui.reviewOpen = ui.reviews.has(n) && p.deal >= 0 ? n : ui.reviews.has(0) ? 0 : null;
  ui.summaryToo = ui.reviewOpen !== 0;
  const c = renderTable(table, { version: at.i, room: at.room, view: { ...p.view, legal: [], log: p.log } }, ui);
  const said = p.said.map((line) => logLineText(c, line)).join(" ");
  if (!p.item) table.querySelector("#prompt").replaceChildren(said);
  const of = (starts[p.deal + 1] || steps.length) - starts[p.deal];
  document.getElementById("replay-where").textContent = p.deal < 0 ? t("The cut. {said}", { said }) : t("Deal {n}, step {step} of {of}. {said}", { n, step: p.step + 1, of, said });
  table.dataset.version = at.i;
}

function go(where) {
  const { i, starts, steps } = at;
  const to = { first: 0, last: steps.length, back: i - 1, on: i + 1, "deal+": starts.find((s) => s > i) ?? steps.length, "deal-": starts.findLast((s) => s < i) ?? 0 };
  show(to[where]);
}

addEventListener("keydown", (event) => {
  if (!at.ui || !KEYS[event.key] || event.ctrlKey || event.metaKey || event.altKey || event.target.matches("input")) return;
  event.preventDefault();
  go(KEYS[event.key]);
});
bar.addEventListener("click", (event) => event.target.dataset.go && go(event.target.dataset.go));
table.addEventListener("click", (event) => {
  const item = event.target.closest("[data-review-item]");
  if (item) show(at.items.get(item.dataset.reviewItem));
});

async function open(file) {
  try {
    await load(JSON.parse(await file.text()));
  } catch (err) {
    status.textContent = t("{file} is not a Piquet record (a .json file downloaded from a table).", { file: file.name });
  }
}
document.getElementById("record-file").addEventListener("change", (event) => open(event.target.files[0]));
addEventListener("dragover", (event) => event.preventDefault());
addEventListener("drop", (event) => {
  event.preventDefault();
  open(event.dataTransfer.files[0]);
});
if (table.dataset.recordUrl) {
  fetch(table.dataset.recordUrl, { credentials: "same-origin" })
    .then((r) => r.json())
    .then(load)
    .catch(() => (status.textContent = t("The table's record could not be fetched: the table may have closed.")));
}
