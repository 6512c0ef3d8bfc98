// dealinfo.js: this deal, beside the felt: bonuses, calls, what scored, what was shown.

import { h, cardRow, actionButton, BONUS_NAMES, CATEGORY_NAMES } from "./kit.js";

function bonusBadges(c) {
  const bonuses = c.view.bonuses;
  if (!bonuses.length) return null;
  return h(
    "ul",
    { class: "bonuses", "data-area": "bonuses" },
    bonuses.map((b) =>
      h(
        "li",
        { class: `bonus bonus-${b.kind}`, "data-bonus": b.kind },
        h("strong", {}, `${BONUS_NAMES[b.kind]}:`),
        ` ${c.names[b.seat]} +${b.points}`
      )
    )
  );
}

const ORDINALS = ["first", "second", "third", "fourth"];

/** "Elder: Point of six" -> "You: Point of six". */
export function saidLine(c, line) {
  const m = /^(Elder|Younger): (.*)$/.exec(line);
  if (!m || c.view.elder == null) return line;
  const seat = m[1] === "Elder" ? c.view.elder : 1 - c.view.elder;
  return `${c.names[seat]}: ${m[2]}`;
}

function outcomeText(c, outcome) {
  if (outcome === "equal") return "Equal: nobody scores";
  if (outcome === "none") return "Nobody";
  return c.verb(outcome === "elder" ? c.view.elder : 1 - c.view.elder, "win", "wins");
}

export function dealInfo(c) {
  const v = c.view;
  if (!v.deal_number) return [];
  const out = [];
  const badges = bonusBadges(c);
  if (badges && v.phase !== "deal_over" && v.phase !== "partie_over") out.push(badges);

  const decl = v.declarations.filter((d) => d.said.length);
  if (decl.length) {
    out.push(
      h("h2", { class: "mini-title" }, "Declarations"),
      h(
        "ul",
        { class: "declarations" },
        decl.map((d) =>
          h(
            "li",
            { "data-category": d.category },
            h("span", { class: "decl-cat" }, CATEGORY_NAMES[d.category]),
            " ",
            d.outcome && d.outcome !== "pending" ? h("span", { class: "decl-outcome" }, outcomeText(c, d.outcome)) : null,
            h("ul", { class: "decl-said" }, d.said.map((line) => h("li", {}, saidLine(c, line))))
          )
        )
      )
    );
  }

  const combos = v.combos;
  const seeByCombo = new Map(c.sees.map((s) => [s.combo, s]));
  if (combos.length) {
    out.push(
      h("h2", { class: "mini-title" }, "Scored and tied"),
      h(
        "ul",
        { class: "combos" },
        combos.map((x) => {
          const see = seeByCombo.get(x.id);
          const alike = combos.filter((y) => y.seat === x.seat && y.label === x.label);
          const which = alike.length > 1 ? ORDINALS[alike.indexOf(x)] || `number ${alike.indexOf(x) + 1}` : "";
          return h(
            "li",
            { "data-combo": x.id, "data-shown": x.shown ? "true" : "false" },
            h("span", { class: "combo-who" }, `${c.names[x.seat]}:`),
            " ",
            h("span", { class: "combo-label" }, x.label, which ? ` (${which})` : ""),
            h("span", { class: "combo-points" }, x.status === "scored" ? ` +${x.points}` : ` (${x.status})`),
            x.shown && x.cards ? cardRow(x.cards, c, "combo-cards") : null,
            see ? actionButton(see, c, "small see", which) : null
          );
        })
      )
    );
  }

  // What was shown above is not repeated.
  const shownCombos = new Set(combos.filter((x) => x.shown && x.cards).map((x) => [...x.cards].sort().join(" ")));
  shownCombos.add([...v.exposed_stock].sort().join(" ")); // on the stock already
  for (const s of v.shown) {
    if (shownCombos.has([...s.cards].sort().join(" "))) continue;
    out.push(
      h(
        "div",
        { class: "shown", "data-area": "shown", "data-seat": s.seat },
        h("h2", { class: "mini-title" }, `${c.verb(s.seat, "showed", "showed")}: ${s.what}`),
        cardRow(s.cards, c)
      )
    );
  }

  const seen = v.seen_stock;
  if (seen.length) {
    out.push(
      h(
        "div",
        { class: "seen-stock", "data-area": "seen-stock" },
        h("h2", { class: "mini-title" }, "The rest of your five (only you see these)"),
        cardRow(seen, c)
      )
    );
  }
  return out;
}
