// panels.js: the panels under the table: the score sheet, the discards and tricks, the log.

import { h, cardRow } from "./kit.js";

const PART_NAMES = { carte_blanche: "carte blanche", sequences: "sequences", sets: "sets", play: "play", cards: "the cards" };

/** "point 6 · play 11" */
function partsText(parts) {
  return Object.entries(parts || {}).map(([name, points]) => `${PART_NAMES[name] || name} ${points}`).join(" · ");
}

export function scoresPanel(c, withParts = false) {
  const sc = c.view.scores;
  const parts = sc.sheet_parts;
  const sheet = sc.sheet;
  const total = sc.partie;
  if (!sheet.length) return [h("p", {}, "Nothing has scored yet.")];
  return [
    h(
      "table",
      { class: "sheet" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Deal"), h("th", { scope: "col" }, c.names[c.me]), h("th", { scope: "col" }, c.names[c.opp]))),
      h(
        "tbody",
        {},
        sheet.map((row, i) =>
          h(
            "tr",
            { "data-deal": i + 1, class: i + 1 === c.view.deal_number && c.view.phase !== "deal_over" && c.view.phase !== "partie_over" ? "current" : "" },
            h("th", { scope: "row" }, `${i + 1}`),
            [c.me, c.opp].map((seat) =>
              h("td", { "data-seat": seat }, withParts ? [h("span", { class: "pts" }, row[seat]), h("small", { class: "parts" }, partsText((parts[i] || [])[seat]))] : row[seat])
            )
          )
        )
      ),
      h("tfoot", {}, h("tr", { "data-total": "" }, h("th", { scope: "row" }, "Total"), h("td", {}, total[c.me]), h("td", {}, total[c.opp])))
    ),
  ];
}

export function cardsPanel(c) {
  const v = c.view;
  const out = [];
  const discards = v.discards;
  if (!c.watching) {
    out.push(
      h("h2", { class: "mini-title" }, "Your discards (only you see these)"),
      discards.length ? cardRow(discards, c, "my-discards") : h("p", {}, "None yet this deal.")
    );
  }
  const tricks = v.tricks;
  out.push(h("h2", { class: "mini-title" }, "Tricks this deal"));
  if (!tricks.length) out.push(h("p", {}, "No trick played yet."));
  else {
    out.push(
      h(
        "ol",
        { class: "trick-list" },
        tricks.map((t) =>
          h(
            "li",
            { "data-trick": "" },
            cardRow(t.cards.map(([code]) => code), c),
            h("span", { class: "trick-won" }, ` ${c.verb(t.winner, "won", "won")}`)
          )
        )
      )
    );
  }
  const won = v.tricks_won;
  out.push(h("p", { class: "tricks-won" }, `Tricks won: ${c.watching ? c.names[c.me] : "you"} ${won[c.me]}, ${c.names[c.opp]} ${won[c.opp]}`));
  return out;
}

const UNSIGNED_KINDS = ["deal", "deal_end", "partie_end"];

export function logLineText(c, line) {
  const anon = line.seat == null || UNSIGNED_KINDS.includes(line.kind);
  const who = anon ? "" : `${c.names[line.seat]}: `;
  // "score" and "bonus" lines already say what they scored.
  const pts = line.points && line.kind !== "score" && line.kind !== "bonus" ? ` (+${line.points})` : "";
  return `${who}${line.text}${pts}`;
}

export function logPanel(c) {
  const log = c.view.log || [];
  const recent = log.slice(-60);
  if (!recent.length) return [h("p", {}, "Nothing yet.")];
  return [
    h(
      "ol",
      // It scrolls: reached by Tab like any control.
      { class: "log", start: log.length - recent.length + 1, tabindex: "0", "aria-label": "Log of recent play", "data-key": "log" },
      recent.map((line) => h("li", { class: `log-${line.kind}`, "data-kind": line.kind }, logLineText(c, line)))
    ),
  ];
}
