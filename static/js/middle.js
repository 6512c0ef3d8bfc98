// middle.js: the felt's middle: the cut, the stock, the trick; the deal's score and the
// result once one is in (results.js, fetched when a deal ends: table.js waits for it).

import { h, cardFace, cardRow, back, sep, results } from "./kit.js";

function cutArea(c) {
  const cut = c.view.cut;
  if (!cut || !cut.cards) return null;
  const winner = cut.winner;
  return h(
    "div",
    { class: "cut", "data-area": "cut" },
    h("h2", { class: "area-title" }, "The cut"),
    h(
      "div",
      { class: "cut-cards" },
      [c.me, c.opp].map((seat) =>
        h(
          "figure",
          { class: `played ${seat === winner ? "winner" : ""}`.trim() },
          cardFace(cut.cards[seat], c),
          h("figcaption", {}, seat === c.me && !c.watching ? "Your cut" : `${c.names[seat]}'s cut`)
        )
      )
    ),
    winner == null
      ? null
      : h(
          "p",
          { class: "cut-result" },
          `${c.verb(winner, "win", "wins")} the cut and ${winner === c.me && !c.watching ? "choose" : "chooses"} who deals.`
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
    if (took[seat] != null) lines.push(h("li", {}, c.verb(seat, `took ${took[seat]}`, `took ${took[seat]}`)));
  }
  const up = v.exposed_stock;
  return h(
    "div",
    { class: "stock", "data-area": "stock" },
    up.length
      ? h("div", { class: "stock-pile exposed", "data-area": "exposed-stock" }, h("h2", { class: "mini-title" }, "Left in the stock, face up"), cardRow(up, c))
      : h(
          "div",
          { class: "stock-pile", role: "img", "aria-label": `Stock: ${n} card${n === 1 ? "" : "s"}` },
          n > 0 ? back("stock-card") : h("span", { class: "card empty", "aria-hidden": "true" }),
          h("span", { class: "count-badge", "data-count": "stock", "aria-hidden": "true" }, `Stock ${n}`)
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
    caption = c.verb(last.winner, "won the trick", "won the trick");
  } else if (current) {
    caption = c.verb(current.leader, "led", "led");
  }
  const trickNo = current ? finished.length + 1 : finished.length;
  return h(
    "div",
    { class: `trick ${stale ? "finished" : ""}`.trim(), "data-area": "trick", role: "group", "aria-label": stale ? "Last trick" : "Current trick" },
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
        : h("p", { class: "trick-empty" }, v.phase === "play" ? "No card led yet" : "")
    ),
    h(
      "p",
      { class: "trick-caption", "data-trick-winner": stale && last ? last.winner : "" },
      trickNo ? h("span", { class: "trick-no" }, `Trick ${trickNo} of 12`) : null,
      caption ? sep() : null,
      caption ? h("span", { class: "trick-what" }, caption) : null
    )
  );
}

export function middleArea(c) {
  const v = c.view;
  const scored = results.mod;
  if (v.phase === "partie_over") return scored ? [scored.resultArea(c)] : [];
  if (c.waitingForFriend) return [h("p", { class: "waiting-text" }, "The cut is made once your friend sits down.")];
  if (v.phase === "cut" || !v.deal_number) return [cutArea(c) || h("p", { class: "waiting-text" }, "Waiting for the cut…")];
  if (v.phase === "deal_over") return scored ? [scored.dealOverArea(c)] : [];
  return [stockArea(c), trickArea(c)];
}
