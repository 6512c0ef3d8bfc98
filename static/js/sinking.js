// sinking.js: the smaller calls, folded under the best ("Call less than you hold"): by
// category, a row per call, a button per suit. Fetched when a call is first offered
// (kit.js `sinking`), not with the table.

import { h, parseCard, categoryName, label } from "./kit.js";
import { t, nt, say } from "./i18n.js";

/** The smaller calls: by category, a row per call, a button per suit (or choice) in it. */
export function sinkingMenu(c, smaller) {
  const groups = new Map();
  for (const entry of smaller) {
    const rows = groups.get(entry.category) || new Map();
    groups.set(entry.category, rows);
    rows.set(entry.label, [...(rows.get(entry.label) || []), entry]);
  }
  return h(
    "details",
    { class: "sinking", "data-key": "sinking", open: c.ui.sinkingOpen ? true : null },
    h("summary", { class: "button", "data-key": "sinking-summary" }, nt("Call less than you hold ({n} way)", "Call less than you hold ({n} ways)", smaller.length)),
    h("p", { class: "sinking-help" }, t("Sinking: you may call less than you hold, or say “Nothing”, to keep your hand hidden. What you do not call cannot score.")),
    [...groups].map(([category, rows]) =>
      // Named by its category, not a heading: the menu is no section of the page.
      h(
        "div",
        { class: "sink-group", "data-category": category, role: "group", "aria-labelledby": `sink-${category}` },
        h("p", { class: "mini-title", id: `sink-${category}` }, categoryName(category)),
        [...rows].map(([key, entries]) =>
          h("div", { class: "sink-row", "data-label": key }, h("span", { class: "sink-label", "aria-hidden": "true" }, label(entries[0])), entries.map((entry) => sinkButton(entry, c)))
        )
      )
    )
  );
}

/** The suit (or the cards) in view, the full call for the ear. */
function sinkButton(entry, c) {
  const cards = entry.cards || [];
  const suits = [...new Set(cards.map((code) => parseCard(code).suit))];
  const names = cards.map((code) => c.cardName(code)).join(", ");
  const shown = suits.length === 1 ? say({ code: `suit.${suits[0]}` }) : cards.map((code) => parseCard(code).rank).join(" ");
  const words = label(entry);
  return h(
    "button",
    { type: "button", class: "button action small sink", "data-action": entry.index, "data-type": entry.type, "data-key": `act-${entry.index}-${entry.type}-${entry.label}`, "data-cards": cards.join(" "), title: t("{label}: {cards}", { label: words, cards: names }) },
    h("span", { class: "label visually-hidden" }, words),
    suits.length === 1 ? h("span", { class: `hint suit-${suits[0]}`, "aria-hidden": "true" }, h("span", { class: "g" })) : null,
    h("span", { "aria-hidden": suits.length === 1 ? null : "true" }, shown),
    h("span", { class: "visually-hidden" }, `: ${names}`)
  );
}
