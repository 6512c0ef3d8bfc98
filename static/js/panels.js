// panels.js: the panels under the table: the discards and tricks, the log (the score sheet
// is results.js's).

import { h, cardRow } from "./kit.js";

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
