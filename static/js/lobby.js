// lobby.js: the lobby's lists (docs/protocol.md, "The lobby"): the tables waiting for a
// player, newest first, and the tables being played that anyone may watch, kept by the
// lobby's socket as they change. Names are written as text, never as markup.

import { TableSocket } from "./socket.js";
import { h } from "./kit.js";

const lists = { open: new Map(), playing: new Map() };
const live = document.getElementById("lobby-live");

/** The rules in words: the variant, and what differs from its own. */
export function rulesText(rules, practice) {
  const parts = [rules.game === "au_cent" ? "Piquet au cent" : "Rubicon Piquet"];
  if (rules.cards_towards_pique) parts.push("cards towards pique");
  if (rules.carte_rouge) parts.push("carte rouge");
  if (rules.tie === "one_more") parts.push("one more deal when level");
  if (practice) parts.push("practice table");
  return parts.join(", ");
}

function waited(table) {
  const minutes = Math.floor((Date.now() - table.listedAt) / 60000);
  return minutes < 1 ? "waiting less than a minute" : minutes === 1 ? "waiting 1 minute" : `waiting ${minutes} minutes`;
}

function openItem(t) {
  return h(
    "li",
    { class: "table-item", "data-room": t.room_id },
    h(
      "div",
      { class: "table-info" },
      h("span", { class: "table-who", "data-name": "" }, t.name),
      h("span", { class: "table-what" }, rulesText(t.rules, t.practice)),
      h("span", { class: "table-waited", "data-waited": "" }, waited(t))
    ),
    h("a", { class: "button", href: `/r/${encodeURIComponent(t.room_id)}`, "data-sit": t.room_id, "aria-label": `Sit down at ${t.name}'s table` }, "Sit down")
  );
}

function playingItem(t) {
  const deal = !t.deal ? "at the cut" : t.deals ? `deal ${t.deal} of ${t.deals}` : `deal ${t.deal}`;
  const [a, b] = t.names;
  return h(
    "li",
    { class: "table-item", "data-room": t.room_id },
    h(
      "div",
      { class: "table-info" },
      h("span", { class: "table-who", "data-names": "" }, `${a} and ${b}`),
      h("span", { class: "table-what" }, rulesText(t.rules, t.practice)),
      h("span", { class: "table-score", "data-score": "" }, `${deal}; ${a} ${t.scores[0]}, ${b} ${t.scores[1]}`)
    ),
    h("a", { class: "button", href: `/r/${encodeURIComponent(t.room_id)}`, "data-watch": t.room_id, "aria-label": `Watch ${a} and ${b}` }, "Watch")
  );
}

function draw() {
  const open = [...lists.open.values()].sort((x, y) => y.listedAt - x.listedAt);
  document.querySelector("[data-list=open]").replaceChildren(...open.map(openItem));
  document.querySelector("[data-list=playing]").replaceChildren(...[...lists.playing.values()].map(playingItem));
  document.querySelector("[data-empty=open]").hidden = open.length > 0;
  document.querySelector("[data-empty=playing]").hidden = lists.playing.size > 0;
}

function onMessage(msg) {
  if (msg.type !== "lobby") return;
  const now = Date.now();
  if (msg.reset) for (const list of Object.values(lists)) list.clear();
  for (const t of msg.open) lists.open.set(t.room_id, { ...t, listedAt: now - t.waited * 1000 });
  for (const id of msg.gone) lists.open.delete(id);
  for (const t of msg.playing) lists.playing.set(t.room_id, t);
  for (const id of msg.ended) lists.playing.delete(id);
  draw();
  document.body.dataset.lobbyVersion = Number(document.body.dataset.lobbyVersion || 0) + 1;
}

function onStatus(status) {
  live.dataset.live = status;
  live.textContent = status === "open" ? "These lists update by themselves." : "Reconnecting to the lobby…";
}

const socket = new TableSocket("/ws/lobby", { message: onMessage, status: onStatus });
socket.start();
// How long each table has waited, as the minutes pass.
setInterval(() => {
  for (const el of document.querySelectorAll("[data-list=open] [data-room]")) {
    const t = lists.open.get(el.dataset.room);
    if (t) el.querySelector("[data-waited]").textContent = waited(t);
  }
}, 15000);
window.piquetLobby = { socket, lists };
