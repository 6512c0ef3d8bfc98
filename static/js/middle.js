// middle.js: the felt's middle: the cut, the stock, the trick, the deal's score, the result.

import { h, cardFace, cardRow, back, sep } from "./kit.js";
import { scoresPanel } from "./panels.js";

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

function dealOverArea(c) {
  return h("div", { class: "summary", "data-area": "deal-over" }, lastDeal(c, "h2"));
}

function lastDeal(c, tag = "h3") {
  const v = c.view;
  const deal = v.scores.deal;
  return h(
    "div",
    { class: "last-deal", "data-area": "last-deal" },
    h(tag, { class: "area-title" }, `Deal ${v.deal_number} scored`),
    h("p", { class: "summary-scores" }, `${c.names[c.me]} ${deal[c.me]}`, sep(), `${c.names[c.opp]} ${deal[c.opp]}`),
    dealTable(c)
  );
}

// The deal as a score sheet tells it: each part, both seats (Law 67's order).
const ROWS = [
  ["carte_blanche", "Carte blanche"],
  ["point", "Point"],
  ["sequences", "Sequences"],
  ["sets", "Sets"],
  ["pique", "Pique, repique"],
  ["play", "Tricks (play)"],
  ["cards", "The cards"],
  ["capot", "Capot"],
];

function dealTable(c) {
  const sc = c.view.scores;
  const parts = sc.sheet_parts[c.view.deal_number - 1] || sc.parts;
  const of = (seat) => parts[seat] || {};
  const repique = of(0).repique || of(1).repique;
  const got = (seat, key) => of(seat)[key] || (key === "pique" && of(seat).repique) || 0;
  const row = (attrs, head, values) =>
    h("tr", attrs, h("th", { scope: "row" }, head), [c.me, c.opp].map((seat) => h("td", { "data-seat": seat }, values[seat])));
  const rows = ROWS.filter(([key]) => key !== "carte_blanche" || got(0, key) || got(1, key)).map(([key, name]) => {
    const said = key !== "pique" || !(got(0, key) || got(1, key)) ? name : repique ? "Repique" : "Pique";
    return row({ "data-part": key }, said, [got(0, key), got(1, key)]);
  });
  return h(
    "table",
    { class: "sheet deal-table", "data-area": "deal-table" },
    h("thead", {}, h("tr", {}, h("td", {}), [c.me, c.opp].map((seat) => h("th", { scope: "col" }, c.names[seat])))),
    h("tbody", {}, rows),
    h("tfoot", {}, row({ "data-total": "" }, "This deal", sc.deal), row({ "data-partie": "" }, "Partie", sc.partie))
  );
}

function resultArea(c) {
  const r = c.view.result || {};
  let title = "A draw";
  if (r.winner === c.me && !c.watching) title = "You win the partie";
  else if (r.winner != null) title = `${c.names[r.winner]} wins the partie`;
  const totals = r.totals || c.view.scores.partie;
  const out = h(
    "div",
    { class: "result", "data-area": "result", "data-winner": r.winner == null ? "" : r.winner },
    h("h2", { class: "result-title" }, title),
    c.view.deal_number ? lastDeal(c) : null,
    h("div", { class: "final-sheet", "data-area": "final-sheet" }, scoresPanel(c, true)),
    h("p", { class: "result-totals" }, `${c.names[c.me]} ${totals[c.me]} · ${c.names[c.opp]} ${totals[c.opp]}`),
    r.text ? h("p", { class: "result-text" }, "Rubicon: ", h("span", { "data-result-text": "" }, r.text)) : null
  );
  const asked = c.room.rematch || [];
  if (c.room.opponent === "friend" && !c.watching) {
    // A new partie once both press "Play again"; the other seat deals first.
    if (asked.includes(c.me)) out.append(h("p", { class: "rematch", "data-rematch": "asked" }, `Waiting for ${c.names[c.opp]} to press Play again…`));
    else {
      if (asked.includes(c.opp)) out.append(h("p", { class: "rematch", "data-rematch": "invited" }, `${c.names[c.opp]} wants to play again.`));
      out.append(h("button", { type: "button", class: "button primary", "data-new-match": "confirm", "data-key": "nm-final" }, "Play again"));
    }
  } else if (c.room.can_new_match) {
    out.append(h("button", { type: "button", class: "button primary", "data-new-match": "confirm", "data-key": "nm-final" }, "New match"));
  }
  return out;
}

export function middleArea(c) {
  const v = c.view;
  if (v.phase === "partie_over") return [resultArea(c)];
  if (c.waitingForFriend) return [h("p", { class: "waiting-text" }, "The cut is made once your friend sits down.")];
  if (v.phase === "cut" || !v.deal_number) return [cutArea(c) || h("p", { class: "waiting-text" }, "Waiting for the cut…")];
  if (v.phase === "deal_over") return [dealOverArea(c)];
  return [stockArea(c), trickArea(c)];
}
