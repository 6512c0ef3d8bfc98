// lobby.js: the lobby's lists (docs/protocol.md, "The lobby"): the tables waiting for a
// player, newest first, and the tables being played that anyone may watch, kept by the
// lobby's socket as they change. Names are written as text, never as markup.

import { TableSocket } from "./socket.js";
import { h } from "./kit.js";
import { t, nt } from "./i18n.js";

const lists = { open: new Map(), playing: new Map() };
const live = document.getElementById("lobby-live");

/** The rules in words: the variant, and what differs from its own. */
export function rulesText(rules, practice) {
  const parts = [rules.game === "au_cent" ? t("Piquet au cent") : t("Rubicon Piquet")];
  if (rules.cards_towards_pique) parts.push(t("cards towards pique"));
  if (rules.carte_rouge) parts.push(t("carte rouge"));
  if (rules.tie === "one_more") parts.push(t("one more deal when level"));
  if (practice) parts.push(t("practice table"));
  return parts.join(", ");
}

function waited(table) {
  const minutes = Math.floor((Date.now() - table.listedAt) / 60000);
  return minutes < 1 ? t("waiting less than a minute") : nt("waiting {n} minute", "waiting {n} minutes", minutes);
}

function openItem(x) {
  return h(
    "li",
    { class: "table-item", "data-room": x.room_id },
    h(
      "div",
      { class: "table-info" },
      h("span", { class: "table-who", "data-name": "" }, x.name),
      h("span", { class: "table-what" }, rulesText(x.rules, x.practice)),
      h("span", { class: "table-waited", "data-waited": "" }, waited(x))
    ),
    h("a", { class: "button", href: `/r/${encodeURIComponent(x.room_id)}`, "data-sit": x.room_id, "aria-label": t("Sit down at {name}'s table", { name: x.name }) }, t("Sit down"))
  );
}

/** Where a partie is: "at the cut", "deal 3 of 6". */
export const dealAt = (x) => (!x.deal ? t("at the cut") : x.deals ? t("deal {n} of {deals}", { n: x.deal, deals: x.deals }) : t("deal {n}", { n: x.deal }));

function playingItem(x) {
  const [a, b] = x.names;
  return h(
    "li",
    { class: "table-item", "data-room": x.room_id },
    h(
      "div",
      { class: "table-info" },
      h("span", { class: "table-who", "data-names": "" }, t("{a} and {b}", { a, b })),
      h("span", { class: "table-what" }, rulesText(x.rules, x.practice)),
      h("span", { class: "table-score", "data-score": "" }, t("{deal}; {a} {x}, {b} {y}", { deal: dealAt(x), a, x: x.scores[0], b, y: x.scores[1] }))
    ),
    h("a", { class: "button", href: `/r/${encodeURIComponent(x.room_id)}`, "data-watch": x.room_id, "aria-label": t("Watch {a} and {b}", { a, b }) }, t("Watch"))
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
  for (const x of msg.open) lists.open.set(x.room_id, { ...x, listedAt: now - x.waited * 1000 });
  for (const id of msg.gone) lists.open.delete(id);
  for (const x of msg.playing) lists.playing.set(x.room_id, x);
  for (const id of msg.ended) lists.playing.delete(id);
  draw();
  document.body.dataset.lobbyVersion = Number(document.body.dataset.lobbyVersion || 0) + 1;
}

function onStatus(status) {
  live.dataset.live = status;
  live.textContent = status === "open" ? t("These lists update by themselves.") : t("Reconnecting to the lobby…");
}

const socket = new TableSocket("/ws/lobby", { message: onMessage, status: onStatus });
socket.start();
// How long each table has waited, as the minutes pass.
setInterval(() => {
  for (const el of document.querySelectorAll("[data-list=open] [data-room]")) {
    const x = lists.open.get(el.dataset.room);
    if (x) el.querySelector("[data-waited]").textContent = waited(x);
  }
}, 15000);
window.piquetLobby = { socket, lists };
