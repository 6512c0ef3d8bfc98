// counter.js: the bar above the felt: the deal and who deals, the scores, "New match".

import { h, sep } from "./kit.js";

// The rules in a word or two each, said first when they are not Rubicon Piquet's own.
const OPTION_WORDS = [["cards_towards_pique", "cards towards pique"], ["carte_rouge", "carte rouge"]];
function rulesWords(r = {}) {
  const words = OPTION_WORDS.filter(([key]) => r[key]).map(([, word]) => word);
  if (r.tie === "one_more") words.push("one more deal");
  if (r.game !== "au_cent" && !words.length) return [];
  return [r.game === "au_cent" ? "Au cent" : "Rubicon", ...words].flatMap((word) => [word, sep()]);
}

export function counterDeal(c) {
  const v = c.view;
  const g = v.games;
  const rules = rulesWords(v.rules);
  if (v.phase === "partie_over") return [...rules, h("strong", {}, "Partie over"), g ? ` after ${g.finished.length} games` : ` after ${v.deal_number} deals`];
  if (!v.deal_number) return [...rules, h("strong", {}, "The cut"), " for the first deal"];
  // Au cent: the game under way and the games won; Rubicon: the deal of six.
  const parts = [...rules, ...(g ? [h("strong", {}, `Game ${g.number}`), sep(), `games ${g.won[c.me]}–${g.won[c.opp]}`] : [h("strong", {}, `Deal ${v.deal_number} of ${v.deals_in_partie}`)])];
  if (v.dealer != null) {
    parts.push(sep(), c.verb(v.dealer, "deal", "deals"));
    const role = c.watching ? `${c.names[v.elder]} is elder hand` : `you are ${v.elder === c.me ? "elder" : "younger"} hand`;
    parts.push(h("span", { class: "role-me" }, sep(), role));
  }
  return parts;
}

export function counterScores(c) {
  // Au cent: this game's scores (at the end, the games won); Rubicon: the partie's.
  const g = c.view.games;
  const total = g ? (c.view.phase === "partie_over" ? g.won : g.scores) : c.view.scores.partie;
  return [c.me, c.opp].map((seat) =>
    h(
      "span",
      { class: `score ${seat === c.me ? "mine" : "theirs"}`, "data-seat": seat },
      h("span", { class: "score-name" }, c.names[seat]),
      " ",
      h("span", { class: "score-points", "data-score": seat }, total[seat])
    )
  );
}

export function counterTools(c) {
  const out = [];
  const room = c.room;
  if (room.can_new_match) {
    if (c.ui.confirmNewMatch && c.view.phase !== "partie_over") {
      out.push(
        h("span", { class: "confirm-text" }, "Abandon this partie?"),
        h("button", { type: "button", class: "button small danger", "data-new-match": "confirm", "data-key": "nm-yes" }, "Start a new match"),
        h("button", { type: "button", class: "button small", "data-new-match": "cancel", "data-key": "nm-no" }, "Keep playing")
      );
    } else if (c.view.phase !== "partie_over") {
      out.push(h("button", { type: "button", class: "button small", "data-new-match": "ask", "data-key": "nm-ask" }, "New match"));
    }
  }
  return out;
}
