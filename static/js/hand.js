// hand.js: your hand, each card a button (to select, to play); a watcher's: the host's backs.

import { h, cardFace, back } from "./kit.js";
import { roleOf, holds } from "./opponent.js";
import { t } from "./i18n.js";

export function handArea(c) {
  const v = c.view;
  if (c.watching) {
    const n = (v.hand_counts || [])[c.me] || 0;
    const role = roleOf(c, c.me);
    return [
      h("div", { class: "seat-label watched-seat" }, h("span", { class: "seat-name" }, c.names[c.me]), role ? h("span", { class: "seat-role" }, role) : null),
      n ? h("span", { class: "fan watched", role: "img", "aria-label": holds(c, c.me, n) }, Array.from({ length: n }, () => back())) : null,
    ];
  }
  const hand = v.hand;
  const selecting = !!c.discard;
  const playing = c.plays.size > 0;
  return hand.map((code, i) => {
    const attrs = { "data-key": `card-${code}`, "data-index": i, tabindex: i === 0 ? "0" : "-1" };
    let cls = "in-hand";
    let label = c.cardName(code);
    if (selecting) {
      const on = c.ui.selected.has(code);
      attrs["aria-pressed"] = on ? "true" : "false";
      attrs["data-select"] = code;
      if (on) cls += " selected";
      if (on) label = t("{card}, selected to discard", { card: label });
    } else if (playing) {
      const entry = c.plays.get(code);
      if (entry) {
        attrs["data-action"] = entry.index;
        attrs["data-type"] = "play";
        cls += " playable";
        label = t("Play {card}", { card: c.cardName(code, true) });
      } else {
        attrs["aria-disabled"] = "true";
        cls += " unplayable";
      }
    }
    return cardFace(code, c, { button: true, cls, attrs, label });
  });
}
