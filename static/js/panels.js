// panels.js: the panels under the table: the discards and tricks, the log (the score sheet
// is results.js's).

import { h, cardRow, label } from "./kit.js";
import { t } from "./i18n.js";

export function cardsPanel(c) {
  const v = c.view;
  const out = [];
  const discards = v.discards;
  if (!c.watching) {
    out.push(
      h("h2", { class: "mini-title" }, t("Your discards (only you see these)")),
      discards.length ? cardRow(discards, c, "my-discards") : h("p", {}, t("None yet this deal."))
    );
  }
  const tricks = v.tricks;
  out.push(h("h2", { class: "mini-title" }, t("Tricks this deal")));
  if (!tricks.length) out.push(h("p", {}, t("No trick played yet.")));
  else {
    out.push(
      h(
        "ol",
        { class: "trick-list" },
        tricks.map((x) => h("li", { "data-trick": "" }, cardRow(x.cards.map(([code]) => code), c), " ", h("span", { class: "trick-won" }, c.verb(x.winner, t("You won"), t("{name} won")))))
      )
    );
  }
  const won = v.tricks_won;
  const mine = { mine: won[c.me], name: c.names[c.opp], theirs: won[c.opp] };
  out.push(h("p", { class: "tricks-won" }, c.watching ? t("Tricks won: {me} {mine}, {name} {theirs}", { ...mine, me: c.names[c.me] }) : t("Tricks won: you {mine}, {name} {theirs}", mine)));
  return out;
}

const UNSIGNED_KINDS = ["deal", "deal_end", "partie_end"];

/** A log line in words: who, what (its phrase), and the points it made. */
export function logLineText(c, line) {
  const what = label(line);
  // "score" and "bonus" lines already say what they scored.
  const pts = line.points && line.kind !== "score" && line.kind !== "bonus";
  const anon = line.seat == null || UNSIGNED_KINDS.includes(line.kind);
  if (anon) return pts ? t("{what} (+{points})", { what, points: line.points }) : what;
  const name = c.names[line.seat];
  return pts ? t("{name}: {what} (+{points})", { name, what, points: line.points }) : t("{name}: {what}", { name, what });
}

export function logPanel(c) {
  const log = c.view.log || [];
  const recent = log.slice(-60);
  if (!recent.length) return [h("p", {}, t("Nothing yet."))];
  return [
    h(
      "ol",
      // It scrolls: reached by Tab like any control.
      { class: "log", start: log.length - recent.length + 1, tabindex: "0", "aria-label": t("Log of recent play"), "data-key": "log" },
      recent.map((line) => h("li", { class: `log-${line.kind}`, "data-kind": line.kind }, logLineText(c, line)))
    ),
  ];
}
