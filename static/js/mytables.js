// mytables.js: the lobby's "My tables" (docs/protocol.md): the tables this browser holds a
// seat at, as the server reads them from its seat cookies, each asked for where it is
// served; whose move it is, back to the table in one click, or leave it. Names are text.

import { h } from "./kit.js";
import { rulesText } from "./lobby.js";

const section = document.getElementById("my-tables");
const list = section.querySelector("[data-list=mine]");
const status = section.querySelector("[data-mine-status]");
let tables = [];
let confirming = null; // the table whose "Leave" waits for "Yes, leave"

async function json(url, options) {
  const answer = await fetch(url, { credentials: "same-origin", ...options });
  return answer.ok ? answer.json() : null;
}

function ago(seconds) {
  const [n, unit] = seconds < 3600 ? [Math.floor(seconds / 60), "minute"] : seconds < 86400 ? [Math.floor(seconds / 3600), "hour"] : [Math.floor(seconds / 86400), "day"];
  return n < 1 ? "just now" : n === 1 ? `1 ${unit} ago` : `${n} ${unit}s ago`;
}

function who(t) {
  if (t.waiting) return t.seating === "open" ? "Waiting for someone to sit down" : "Waiting for your friend";
  return t.opponent === "computer" ? `Against the computer (${t.level})` : `Against ${t.opponent_name}`;
}

function where(t) {
  if (t.waiting) return "";
  const deal = !t.deal ? "at the cut" : t.deals ? `deal ${t.deal} of ${t.deals}` : `deal ${t.deal}`;
  return `${deal}; you ${t.scores[0]}, ${t.opponent === "computer" ? "the computer" : t.opponent_name} ${t.scores[1]}`;
}

function state(t) {
  if (t.abandoned_by) return t.abandoned_by === "you" ? "You left: the partie is over." : `${t.opponent_name} left: you won the partie.`;
  if (t.over) return t.won ? `You won the partie: ${t.result}.` : `The partie is over: ${t.result}.`;
  if (t.waiting) return "";
  return t.your_move ? "Your move" : t.opponent === "computer" ? "The computer's move" : `${t.opponent_name}'s move`;
}

function leaving(t) {
  const what = t.opponent === "friend" && !t.waiting && !t.over ? `The partie ends, abandoned by you, and ${t.opponent_name} is told.` : t.opponent === "friend" && t.over ? "It leaves your list." : "The table closes.";
  return h(
    "div",
    { class: "leave-confirm", role: "group", "aria-label": "Leave this table?" },
    h("p", {}, `Leave this table? ${what}`),
    h("button", { type: "button", class: "button", "data-leave-yes": t.room_id }, "Yes, leave"),
    h("button", { type: "button", class: "button", "data-leave-no": t.room_id }, "Stay")
  );
}

function item(t) {
  const move = state(t);
  return h(
    "li",
    { class: "table-item", "data-room": t.room_id, "data-your-move": String(t.your_move) },
    h(
      "div",
      { class: "table-info" },
      h("span", { class: "table-who", "data-who": "" }, who(t)),
      h("span", { class: "table-what" }, [rulesText(t.rules, t.practice), t.pace === "slow" ? "take your time" : "play now"].join("; ")),
      h("span", { class: "table-score", "data-score": "" }, where(t)),
      move && h(t.your_move ? "strong" : "span", { class: "table-move", "data-move": "" }, move),
      !t.waiting && h("span", { class: "table-waited", "data-since": "" }, `Last move ${ago(t.since)}`),
      confirming === t.room_id && leaving(t)
    ),
    h(
      "div",
      { class: "table-actions" },
      h("a", { class: "button primary", href: t.url, "data-go": t.room_id, "aria-label": `Go to the table: ${who(t)}` }, "Go to the table"),
      h("button", { type: "button", class: "button", "data-leave": t.room_id, "aria-label": `Leave the table: ${who(t)}` }, "Leave")
    )
  );
}

let drawn = "";
/** The list, drawn again only when what it says changed; a focused button keeps focus. */
function draw(force) {
  const said = JSON.stringify([confirming, tables.map((t) => [item(t).textContent, t.your_move])]);
  if (said === drawn && !force) return;
  drawn = said;
  const had = document.activeElement?.closest?.("[data-go], [data-leave]");
  list.replaceChildren(...tables.map(item));
  section.hidden = tables.length === 0 && !status.textContent;
  document.body.dataset.myTables = tables.length;
  if (had) section.querySelector(had.dataset.go ? `[data-go="${had.dataset.go}"]` : `[data-leave="${had.dataset.leave}"]`)?.focus();
}

/** The list afresh: the tables the cookies name, each from where it is served. */
async function refresh() {
  const mine = await json("/api/my-tables").catch(() => null);
  if (!mine) return;
  const lines = await Promise.all(mine.rooms.map((id) => json(`/api/rooms/${encodeURIComponent(id)}/mine`).catch(() => null)));
  tables = lines.filter((t) => t && !t.gone).sort((a, b) => b.your_move - a.your_move || a.since - b.since);
  draw();
}

const LEFT = {
  abandoned: (t) => `You left the table against ${t.opponent_name}: the partie ended, abandoned by you.`,
  closed: () => "You left the table, and it closed.",
  left: () => "You left the table.",
};

async function leave(id) {
  const t = tables.find((x) => x.room_id === id);
  confirming = null;
  const answer = await json(`/api/rooms/${encodeURIComponent(id)}/leave`, { method: "POST" }).catch(() => null);
  status.textContent = answer ? LEFT[answer.left](t) : "That table could not be left just now; try again in a moment.";
  await refresh();
}

section.addEventListener("click", (event) => {
  const button = event.target.closest("button");
  if (!button) return;
  const { leave: ask, leaveYes: yes, leaveNo: no } = button.dataset;
  if (ask !== undefined) confirming = ask;
  else if (no !== undefined) confirming = null;
  else if (yes !== undefined) return leave(yes);
  draw();
  section.querySelector(ask !== undefined ? "[data-leave-yes]" : `[data-leave="${no}"]`)?.focus();
});

refresh();
// Coming back to the lobby (the back button keeps the page), and now and then.
addEventListener("pageshow", (event) => event.persisted && refresh());
document.addEventListener("visibilitychange", () => !document.hidden && refresh());
setInterval(refresh, 30000);
