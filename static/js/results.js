// results.js: what a table shows once something is scored: the deal's result, the end of a
// game of Piquet au cent, the partie's result, and the score sheet. Fetched when first
// needed (a deal over, the score sheet opened: kit.js `results`), not with the table.

import { h, sep, label } from "./kit.js";
import { t } from "./i18n.js";

// A deal's parts, as the sheet and the deal's table name them.
const PART_NAMES = { carte_blanche: t("carte blanche"), point: t("point"), carte_rouge: t("carte rouge"), sequences: t("sequences"), sets: t("sets"), play: t("play"), cards: t("the cards"), capot: t("capot"), pique: t("pique"), repique: t("repique") };

/** "point 6 · play 11" */
function partsText(parts) {
  return Object.entries(parts || {}).map(([name, points]) => t("{part} {points}", { part: PART_NAMES[name] || name, points })).join(" · ");
}

const cells = (c, values, attrs = (seat) => ({ "data-seat": seat })) => [c.me, c.opp].map((seat) => h("td", attrs(seat), values[seat]));

/** Au cent: the deal after which each finished game ended, and that game. */
function gameEnds(v) {
  const ends = new Map();
  let deals = 0;
  for (const [i, game] of (v.games ? v.games.finished : []).entries()) ends.set((deals += game.deals), { ...game, number: i + 1 });
  return ends;
}

/** Au cent: the game this deal ended, if it ended one. */
const gameJustWon = (v) => gameEnds(v).get(v.deal_number) || null;

/** The score sheet: a row per deal (with each part, at the partie's end); under au cent,
 * each game's score after its last deal, and the game under way (the games won, at the
 * end) at the foot. */
export function scoresPanel(c, withParts = false) {
  const v = c.view;
  const sc = v.scores;
  const parts = sc.sheet_parts;
  if (!sc.sheet.length) return [h("p", {}, t("Nothing has scored yet."))];
  const g = v.games;
  const ends = gameEnds(v);
  const over = v.phase === "deal_over" || v.phase === "partie_over";
  const foot = !g ? [t("Total"), sc.partie] : v.phase === "partie_over" ? [t("Games won"), g.won] : [t("Game {n}", { n: g.number }), g.scores];
  const rows = sc.sheet.flatMap((row, i) => {
    const deal = h(
      "tr",
      { "data-deal": i + 1, class: i + 1 === v.deal_number && !over ? "current" : "" },
      h("th", { scope: "row" }, `${i + 1}`),
      cells(c, withParts ? [0, 1].map((seat) => [h("span", { class: "pts" }, row[seat]), h("small", { class: "parts" }, partsText((parts[i] || [])[seat]))]) : row)
    );
    const game = ends.get(i + 1);
    return game ? [deal, h("tr", { class: "game-row", "data-game": game.number }, h("th", { scope: "row" }, t("Game {n}", { n: game.number })), cells(c, game.scores))] : [deal];
  });
  return [
    h(
      "table",
      { class: "sheet" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("Deal")), h("th", { scope: "col" }, c.names[c.me]), h("th", { scope: "col" }, c.names[c.opp]))),
      h("tbody", {}, rows),
      h("tfoot", {}, h("tr", { "data-total": "" }, h("th", { scope: "row" }, foot[0]), cells(c, foot[1], () => ({}))))
    ),
  ];
}

// The deal as a score sheet tells it: each part, both seats (Law 67's order).
const ROWS = [
  ["carte_blanche", t("Carte blanche")],
  ["point", t("Point")],
  ["sequences", t("Sequences")],
  ["sets", t("Sets")],
  ["carte_rouge", t("Carte rouge")],
  ["pique", t("Pique, repique")],
  ["play", t("Tricks (play)")],
  ["cards", t("The cards")],
  ["capot", t("Capot")],
];
// Rows shown only when they scored: the rare ones.
const RARE = ["carte_blanche", "carte_rouge"];

function dealTable(c) {
  const v = c.view;
  const sc = v.scores;
  const parts = sc.sheet_parts[v.deal_number - 1] || sc.parts;
  const of = (seat) => parts[seat] || {};
  const repique = of(0).repique || of(1).repique;
  const got = (seat, key) => of(seat)[key] || (key === "pique" && of(seat).repique) || 0;
  const row = (attrs, head, values) => h("tr", attrs, h("th", { scope: "row" }, head), cells(c, values));
  const rows = ROWS.filter(([key]) => !RARE.includes(key) || got(0, key) || got(1, key)).map(([key, name]) => {
    const said = key !== "pique" || !(got(0, key) || got(1, key)) ? name : repique ? t("Repique") : t("Pique");
    return row({ "data-part": key }, said, [got(0, key), got(1, key)]);
  });
  // Au cent: the game's score (the game this deal won, if it won one); Rubicon: the partie's.
  const game = v.games && (gameJustWon(v) || v.games);
  return h(
    "table",
    { class: "sheet deal-table", "data-area": "deal-table" },
    h("thead", {}, h("tr", {}, h("td", {}), [c.me, c.opp].map((seat) => h("th", { scope: "col" }, c.names[seat])))),
    h("tbody", {}, rows),
    h("tfoot", {}, row({ "data-total": "" }, t("This deal"), sc.deal), game ? row({ "data-game": "" }, t("Game"), game.scores) : row({ "data-partie": "" }, t("Partie"), sc.partie))
  );
}

function lastDeal(c, tag = "h3") {
  const v = c.view;
  const deal = v.scores.deal;
  return h(
    "div",
    { class: "last-deal", "data-area": "last-deal" },
    h(tag, { class: "area-title" }, t("Deal {n} scored", { n: v.deal_number })),
    h("p", { class: "summary-scores" }, `${c.names[c.me]} ${deal[c.me]}`, sep(), `${c.names[c.opp]} ${deal[c.opp]}`),
    dealTable(c)
  );
}

/** Au cent: the game this deal ended: who won it, its score, whether a double, the games. */
function gameOver(c, game) {
  const won = c.view.games.won;
  const title = c.verb(game.winner, t("You win game {n}"), t("{name} wins game {n}"), { n: game.number });
  return h(
    "div",
    { class: "game-over", "data-area": "game-over", "data-winner": game.winner, "data-double": String(game.double) },
    h("h2", { class: "result-title" }, title),
    h("p", { class: "summary-scores" }, `${c.names[c.me]} ${game.scores[c.me]}`, sep(), `${c.names[c.opp]} ${game.scores[c.opp]}`),
    game.double ? h("p", { class: "double", "data-area": "double" }, t("A double: the loser had under 50, so the game counts two.")) : null,
    h("p", { class: "games-won", "data-area": "games-won" }, t("Games won: {name} {n}", { name: c.names[c.me], n: won[c.me] }), sep(), `${c.names[c.opp]} ${won[c.opp]}`)
  );
}

export function dealOverArea(c) {
  const game = gameJustWon(c.view);
  return h("div", { class: "summary", "data-area": "deal-over" }, game ? gameOver(c, game) : null, lastDeal(c, game ? "h3" : "h2"));
}

/** Au cent, the partie over: each game, its score, who won it and whether a double. */
function gamesTable(c) {
  const g = c.view.games;
  return h(
    "table",
    { class: "sheet games-table", "data-area": "games" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("Game")), [c.me, c.opp].map((seat) => h("th", { scope: "col" }, c.names[seat])), h("th", { scope: "col" }, t("Won by")))),
    h(
      "tbody",
      {},
      g.finished.map((x, i) =>
        h("tr", { "data-game": i + 1, "data-double": String(x.double) }, h("th", { scope: "row" }, `${i + 1}`), cells(c, x.scores), h("td", {}, x.double ? t("{name}, a double", { name: c.names[x.winner] }) : c.names[x.winner]))
      )
    ),
    h("tfoot", {}, h("tr", { "data-total": "" }, h("th", { scope: "row" }, t("Games won")), cells(c, g.won, () => ({})), h("td", {})))
  );
}

export function resultArea(c) {
  const v = c.view;
  const r = v.result || {};
  const g = v.games;
  const title = r.winner == null ? t("A draw") : c.verb(r.winner, t("You win the partie"), t("{name} wins the partie"));
  const totals = r.totals || v.scores.partie;
  const out = h(
    "div",
    { class: "result", "data-area": "result", "data-winner": r.winner == null ? "" : r.winner },
    h("h2", { class: "result-title" }, title),
    v.deal_number ? lastDeal(c) : null,
    g ? gamesTable(c) : h("div", { class: "final-sheet", "data-area": "final-sheet" }, scoresPanel(c, true)),
    g ? null : h("p", { class: "result-totals" }, `${c.names[c.me]} ${totals[c.me]} · ${c.names[c.opp]} ${totals[c.opp]}`),
    r.text ? h("p", { class: "result-text" }, g ? t("Games:") : t("Rubicon:"), " ", h("span", { "data-result-text": "" }, label(r))) : null
  );
  const asked = c.room.rematch || [];
  if (c.room.opponent === "friend" && !c.watching) {
    // A new partie once both press "Play again"; the other seat deals first.
    if (asked.includes(c.me)) out.append(h("p", { class: "rematch", "data-rematch": "asked" }, t("Waiting for {name} to press Play again…", { name: c.names[c.opp] })));
    else {
      if (asked.includes(c.opp)) out.append(h("p", { class: "rematch", "data-rematch": "invited" }, t("{name} wants to play again.", { name: c.names[c.opp] })));
      out.append(h("button", { type: "button", class: "button primary", "data-new-match": "confirm", "data-key": "nm-final" }, t("Play again")));
    }
  } else if (c.room.can_new_match) {
    out.append(h("button", { type: "button", class: "button primary", "data-new-match": "confirm", "data-key": "nm-final" }, t("New match")));
  }
  return out;
}
