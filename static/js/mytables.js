// mytables.js: the lobby's "My tables" (docs/protocol.md): the tables this browser holds a
// seat at, as the server reads them from its seat cookies, each asked for where it is
// served; whose move it is, back to the table in one click, or leave it. Names are text.

import { h } from "./kit.js";
import { rulesText, dealAt } from "./lobby.js";
import { t, nt, say } from "./i18n.js";

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
  if (seconds < 60) return t("just now");
  if (seconds < 3600) return nt("{n} minute ago", "{n} minutes ago", Math.floor(seconds / 60));
  if (seconds < 86400) return nt("{n} hour ago", "{n} hours ago", Math.floor(seconds / 3600));
  return nt("{n} day ago", "{n} days ago", Math.floor(seconds / 86400));
}

function who(x) {
  if (x.waiting) return x.seating === "open" ? t("Waiting for someone to sit down") : t("Waiting for your friend");
  return x.opponent === "computer" ? t("Against the computer ({level})", { level: say({ code: `level.${x.level}.name` }, false) }) : t("Against {name}", { name: x.opponent_name });
}

function where(x) {
  if (x.waiting) return "";
  const scores = { deal: dealAt(x), mine: x.scores[0], theirs: x.scores[1] };
  return x.opponent === "computer" ? t("{deal}; you {mine}, the computer {theirs}", scores) : t("{deal}; you {mine}, {name} {theirs}", { ...scores, name: x.opponent_name });
}

function state(x) {
  const name = x.opponent_name;
  const result = x.result_say ? say(x.result_say) : x.result;
  if (x.abandoned_by) return x.abandoned_by === "you" ? t("You left: the partie is over.") : t("{name} left: you won the partie.", { name });
  if (x.over) return x.won ? t("You won the partie: {result}.", { result }) : t("The partie is over: {result}.", { result });
  if (x.waiting) return "";
  return x.your_move ? t("Your move") : x.opponent === "computer" ? t("The computer's move") : t("{name}'s move", { name });
}

function leaving(x) {
  const what = x.opponent === "friend" && !x.waiting && !x.over ? t("Leave this table? The partie ends, abandoned by you, and {name} is told.", { name: x.opponent_name }) : x.opponent === "friend" && x.over ? t("Leave this table? It leaves your list.") : t("Leave this table? The table closes.");
  return h(
    "div",
    { class: "leave-confirm", role: "group", "aria-label": t("Leave this table?") },
    h("p", {}, what),
    h("button", { type: "button", class: "button", "data-leave-yes": x.room_id }, t("Yes, leave")),
    h("button", { type: "button", class: "button", "data-leave-no": x.room_id }, t("Stay"))
  );
}

function item(x) {
  const move = state(x);
  return h(
    "li",
    { class: "table-item", "data-room": x.room_id, "data-your-move": String(x.your_move) },
    h(
      "div",
      { class: "table-info" },
      h("span", { class: "table-who", "data-who": "" }, who(x)),
      h("span", { class: "table-what" }, [rulesText(x.rules, x.practice), x.pace === "slow" ? t("take your time") : t("play now")].join("; ")),
      h("span", { class: "table-score", "data-score": "" }, where(x)),
      move && h(x.your_move ? "strong" : "span", { class: "table-move", "data-move": "" }, move),
      !x.waiting && h("span", { class: "table-waited", "data-since": "" }, t("Last move {ago}", { ago: ago(x.since) })),
      confirming === x.room_id && leaving(x)
    ),
    h(
      "div",
      { class: "table-actions" },
      h("a", { class: "button primary", href: x.url, "data-go": x.room_id, "aria-label": t("Go to the table: {who}", { who: who(x) }) }, t("Go to the table")),
      h("button", { type: "button", class: "button", "data-leave": x.room_id, "aria-label": t("Leave the table: {who}", { who: who(x) }) }, t("Leave"))
    )
  );
}

let drawn = "";
/** The list, drawn again only when what it says changed; a focused button keeps focus. */
function draw(force) {
  const said = JSON.stringify([confirming, tables.map((x) => [item(x).textContent, x.your_move])]);
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
  tables = lines.filter((x) => x && !x.gone).sort((a, b) => b.your_move - a.your_move || a.since - b.since);
  draw();
}

const LEFT = {
  abandoned: (x) => t("You left the table against {name}: the partie ended, abandoned by you.", { name: x.opponent_name }),
  closed: () => t("You left the table, and it closed."),
  left: () => t("You left the table."),
};

async function leave(id) {
  const x = tables.find((y) => y.room_id === id);
  confirming = null;
  const answer = await json(`/api/rooms/${encodeURIComponent(id)}/leave`, { method: "POST" }).catch(() => null);
  status.textContent = answer ? LEFT[answer.left](x) : t("That table could not be left just now; try again in a moment.");
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
