// counter.js: the bar above the felt: the deal and who deals, the scores, "New match".

import { h, sep } from "./kit.js";
import { t, nt } from "./i18n.js";

// The rules in a word or two each, said first when they are not Rubicon Piquet's own.
function rulesWords(r = {}) {
  const words = [];
  if (r.cards_towards_pique) words.push(t("cards towards pique"));
  if (r.carte_rouge) words.push(t("carte rouge"));
  if (r.tie === "one_more") words.push(t("one more deal"));
  if (r.game !== "au_cent" && !words.length) return [];
  return [r.game === "au_cent" ? t("Au cent") : t("Rubicon"), ...words].flatMap((word) => [word, sep()]);
}

export function counterDeal(c) {
  const v = c.view;
  const g = v.games;
  const rules = rulesWords(v.rules);
  if (v.phase === "partie_over") return [...rules, h("strong", {}, t("Partie over")), " ", g ? nt("after {n} game", "after {n} games", g.finished.length) : nt("after {n} deal", "after {n} deals", v.deal_number)];
  if (!v.deal_number) return [...rules, h("strong", {}, t("The cut")), " ", t("for the first deal")];
  // Au cent: the game under way and the games won; Rubicon: the deal of six.
  const parts = [...rules, ...(g ? [h("strong", {}, t("Game {n}", { n: g.number })), sep(), t("games {mine}–{theirs}", { mine: g.won[c.me], theirs: g.won[c.opp] })] : [h("strong", {}, t("Deal {n} of {deals}", { n: v.deal_number, deals: v.deals_in_partie }))])];
  if (v.dealer != null) {
    parts.push(sep(), c.verb(v.dealer, t("You deal"), t("{name} deals")));
    const role = c.watching ? t("{name} is elder hand", { name: c.names[v.elder] }) : v.elder === c.me ? t("you are elder hand") : t("you are younger hand");
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
        h("span", { class: "confirm-text" }, t("Abandon this partie?")),
        h("button", { type: "button", class: "button small danger", "data-new-match": "confirm", "data-key": "nm-yes" }, t("Start a new match")),
        h("button", { type: "button", class: "button small", "data-new-match": "cancel", "data-key": "nm-no" }, t("Keep playing"))
      );
    } else if (c.view.phase !== "partie_over") {
      out.push(h("button", { type: "button", class: "button small", "data-new-match": "ask", "data-key": "nm-ask" }, t("New match")));
    }
  }
  return out;
}
