// opponent.js: the other seat's side: name, role, presence, watchers, a fan of backs.

import { h, back } from "./kit.js";
import { t, nt } from "./i18n.js";

/** Redrawn alone on `presence`. */
export function presenceLine(c) {
  const seat = (c.room.seats || [])[c.opp];
  if (!seat) return null;
  const n = c.room.watchers || 0;
  const watchers = n ? h("span", { class: "watchers", "data-watchers": n }, nt("{n} watching", "{n} watching", n)) : null;
  if (c.room.opponent === "computer" || c.watching) return watchers;
  return h("span", { class: "presence-line" }, presenceOf(c, seat), watchers);
}

function presenceOf(c, seat) {
  const name = c.names[c.opp];
  if (!seat.joined) return h("span", { class: "presence waiting", "data-presence": "waiting" }, t("Waiting for your friend…"));
  if (seat.connected) return h("span", { class: "presence online", "data-presence": "connected" }, t("{name} is connected", { name }));
  return h("span", { class: "presence offline", "data-presence": "disconnected" }, t("{name} is not connected", { name }));
}

export function roleOf(c, seat) {
  const v = c.view;
  if (v.elder == null || !v.deal_number) return "";
  return seat === v.elder ? t("elder hand") : t("younger hand");
}

/** "Computer holds 12 cards" */
export const holds = (c, seat, n) => nt("{name} holds {n} card", "{name} holds {n} cards", n, { name: c.names[seat] });

export function opponentArea(c) {
  const v = c.view;
  const count = (c.watching ? (v.hand_counts || [])[c.opp] : v.opponent_hand_count) || 0;
  const presence = h("span", { class: "presence-slot" }, presenceLine(c));
  if (!v.deal_number || v.phase === "partie_over") return [h("div", { class: "seat-label" }, h("span", { class: "seat-name" }, c.names[c.opp]), presence)];
  const backs = [];
  for (let i = 0; i < count; i += 1) backs.push(back());
  const role = roleOf(c, c.opp);
  return [
    h(
      "div",
      { class: "seat-label" },
      h("span", { class: "seat-name" }, c.names[c.opp]),
      role ? h("span", { class: "seat-role" }, role) : null,
      presence
    ),
    h(
      "div",
      { class: "opp-hand", role: "img", "aria-label": holds(c, c.opp, count) },
      h("span", { class: "fan", "aria-hidden": "true" }, backs),
      h("span", { class: "count-badge", "data-count": "opponent", "aria-hidden": "true" }, nt("{n} card", "{n} cards", count))
    ),
  ];
}
