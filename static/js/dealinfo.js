// dealinfo.js: this deal, beside the felt: bonuses, calls, what scored, what was shown.
// Fetched when the first deal is dealt (kit.js `dealNotes`), not with the table.

import { h, cardRow, actionButton, bonusName, categoryName, label, saidLine } from "./kit.js";
import { t } from "./i18n.js";

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
        h("strong", {}, t("{bonus}:", { bonus: bonusName(b.kind) })),
        t(" {name} +{points}", { name: c.names[b.seat], points: b.points })
      )
    )
  );
}

function outcomeText(c, outcome) {
  if (outcome === "equal") return t("Equal: nobody scores");
  if (outcome === "none") return t("Nobody");
  return c.verb(outcome === "elder" ? c.view.elder : 1 - c.view.elder, t("You win"), t("{name} wins"));
}

/** The declarations so far, by category: what each said, and who won it. */
function declarationsList(c) {
  const decl = c.view.declarations.filter((d) => d.said.length);
  if (!decl.length) return [];
  return [
    h("h2", { class: "mini-title" }, t("Declarations")),
    h(
      "ul",
      { class: "declarations" },
      decl.map((d) =>
        h(
          "li",
          { "data-category": d.category },
          h("span", { class: "decl-cat" }, categoryName(d.category)),
          " ",
          d.outcome && d.outcome !== "pending" ? h("span", { class: "decl-outcome" }, outcomeText(c, d.outcome)) : null,
          h("ul", { class: "decl-said" }, (d.says?.map((x) => saidLine(c, x)) || d.said).map((line) => h("li", {}, line)))
        )
      )
    ),
  ];
}

/** "first", "second"… among one seat's combinations of the same name; "" when it is alone. */
function whichOfAlike(combos, x) {
  const alike = combos.filter((y) => y.seat === x.seat && y.label === x.label);
  if (alike.length < 2) return "";
  const i = alike.indexOf(x);
  return [t("first"), t("second"), t("third"), t("fourth")][i] || t("number {n}", { n: i + 1 });
}

/** One combination: whose, what, its points (or why none), its cards once shown, its See. */
function comboItem(c, x, which, see) {
  return h(
    "li",
    { "data-combo": x.id, "data-shown": x.shown ? "true" : "false" },
    h("span", { class: "combo-who" }, t("{name}:", { name: c.names[x.seat] })),
    " ",
    h("span", { class: "combo-label" }, label(x), which ? ` (${which})` : ""),
    h("span", { class: "combo-points" }, x.status === "scored" ? ` +${x.points}` : t(" (tied)")),
    x.shown && x.cards ? cardRow(x.cards, c, "combo-cards") : null,
    see ? actionButton(see, c, "small see", which) : null
  );
}

/** The combinations that scored, and those tied. */
function scoredAndTied(c) {
  const combos = c.view.combos;
  if (!combos.length) return [];
  const seeByCombo = new Map(c.sees.map((s) => [s.combo, s]));
  return [
    h("h2", { class: "mini-title" }, t("Scored and tied")),
    h("ul", { class: "combos" }, combos.map((x) => comboItem(c, x, whichOfAlike(combos, x), seeByCombo.get(x.id)))),
  ];
}

/** Cards a seat showed, but for those shown with a combination or on the stock already. */
function cardsShown(c) {
  const v = c.view;
  const key = (cards) => [...cards].sort().join(" ");
  const already = new Set(v.combos.filter((x) => x.shown && x.cards).map((x) => key(x.cards)));
  already.add(key(v.exposed_stock));
  return v.shown
    .filter((s) => !already.has(key(s.cards)))
    .map((s) =>
      h(
        "div",
        { class: "shown", "data-area": "shown", "data-seat": s.seat },
        h("h2", { class: "mini-title" }, c.verb(s.seat, t("You showed: {what}"), t("{name} showed: {what}"), { what: label(s) })),
        cardRow(s.cards, c)
      )
    );
}

/** The stock's cards the elder left and looked at: only that player sees them. */
function restOfFive(c) {
  const seen = c.view.seen_stock;
  if (!seen.length) return [];
  return [
    h(
      "div",
      { class: "seen-stock", "data-area": "seen-stock" },
      h("h2", { class: "mini-title" }, t("The rest of your five (only you see these)")),
      cardRow(seen, c)
    ),
  ];
}

/** This deal beside the felt: its bonuses (until it is scored), its declarations, what
 * scored, what was shown, the rest of the five. */
export function dealInfo(c) {
  const v = c.view;
  if (!v.deal_number) return [];
  const badges = v.phase !== "deal_over" && v.phase !== "partie_over" ? bonusBadges(c) : null;
  return [...(badges ? [badges] : []), ...declarationsList(c), ...scoredAndTied(c), ...cardsShown(c), ...restOfFive(c)];
}
