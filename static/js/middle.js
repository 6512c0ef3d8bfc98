// middle.js: the felt's middle: the cut, the stock, the trick; the deal's score and the
// result once one is in (results.js, fetched when a deal ends: table.js waits for it).

import { h, cardFace, cardRow, back, sep, results } from "./kit.js";
import { t, nt } from "./i18n.js";

function cutArea(c) {
  const cut = c.view.cut;
  if (!cut || !cut.cards) return null;
  const winner = cut.winner;
  return h(
    "div",
    { class: "cut", "data-area": "cut" },
    h("h2", { class: "area-title" }, t("The cut")),
    h(
      "div",
      { class: "cut-cards" },
      [c.me, c.opp].map((seat) =>
        h(
          "figure",
          { class: `played ${seat === winner ? "winner" : ""}`.trim() },
          cardFace(cut.cards[seat], c),
          h("figcaption", {}, c.verb(seat, t("Your cut"), t("{name}'s cut")))
        )
      )
    ),
    winner == null
      ? null
      : h(
          "p",
          { class: "cut-result" },
          c.verb(winner, t("You win the cut and choose who deals."), t("{name} wins the cut and chooses who deals."))
        )
  );
}

function stockArea(c) {
  const v = c.view;
  const n = v.stock_count;
  const took = v.took;
  const lines = [];
  const elder = v.elder;
  const order = elder == null ? [] : [elder, 1 - elder];
  for (const seat of order) {
    if (took[seat] != null) lines.push(h("li", {}, c.verb(seat, t("You took {n}"), t("{name} took {n}"), { n: took[seat] })));
  }
  const up = v.exposed_stock;
  return h(
    "div",
    { class: "stock", "data-area": "stock" },
    up.length
      ? h("div", { class: "stock-pile exposed", "data-area": "exposed-stock" }, h("h2", { class: "mini-title" }, t("Left in the stock, face up")), cardRow(up, c))
      : h(
          "div",
          { class: "stock-pile", role: "img", "aria-label": nt("Stock: {n} card", "Stock: {n} cards", n) },
          n > 0 ? back("stock-card") : h("span", { class: "card empty", "aria-hidden": "true" }),
          h("span", { class: "count-badge", "data-count": "stock", "aria-hidden": "true" }, t("Stock {n}", { n }))
        ),
    lines.length ? h("ul", { class: "took" }, lines) : null
  );
}

function trickArea(c) {
  const v = c.view;
  const current = v.trick && v.trick.cards && v.trick.cards.length ? v.trick : null;
  const finished = v.tricks;
  const last = finished.length ? finished[finished.length - 1] : null;
  let shown = current;
  let caption = "";
  let stale = false;
  if (!current && last) {
    shown = last;
    stale = true;
    caption = c.verb(last.winner, t("You won the trick"), t("{name} won the trick"));
  } else if (current) {
    caption = c.verb(current.leader, t("You led"), t("{name} led"));
  }
  const trickNo = current ? finished.length + 1 : finished.length;
  return h(
    "div",
    { class: `trick ${stale ? "finished" : ""}`.trim(), "data-area": "trick", role: "group", "aria-label": stale ? t("Last trick") : t("Current trick") },
    h(
      "div",
      { class: "trick-cards" },
      shown
        ? shown.cards.map(([code, seat]) =>
            h(
              "figure",
              { class: `played ${stale && seat === shown.winner ? "winner" : ""}`.trim(), "data-seat": seat },
              cardFace(code, c),
              h("figcaption", {}, c.names[seat])
            )
          )
        : h("p", { class: "trick-empty" }, v.phase === "play" ? t("No card led yet") : "")
    ),
    h(
      "p",
      { class: "trick-caption", "data-trick-winner": stale && last ? last.winner : "" },
      trickNo ? h("span", { class: "trick-no" }, t("Trick {n} of 12", { n: trickNo })) : null,
      caption ? sep() : null,
      caption ? h("span", { class: "trick-what" }, caption) : null
    )
  );
}

export function middleArea(c) {
  const v = c.view;
  const scored = results.mod;
  if (v.phase === "partie_over") return scored ? [scored.resultArea(c)] : [];
  if (c.waitingForFriend) return [h("p", { class: "waiting-text" }, t("The cut is made once your friend sits down."))];
  if (v.phase === "cut" || !v.deal_number) return [cutArea(c) || h("p", { class: "waiting-text" }, t("Waiting for the cut…"))];
  if (v.phase === "deal_over") return scored ? [scored.dealOverArea(c)] : [];
  return [stockArea(c), trickArea(c)];
}
