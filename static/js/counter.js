// counter.js: the bar above the felt: the deal and who deals, the scores, "New match".

import { h, sep } from "./kit.js";

export function counterDeal(c) {
  const v = c.view;
  if (v.phase === "partie_over") return [h("strong", {}, "Partie over"), ` after ${v.deal_number} deals`];
  if (!v.deal_number) return [h("strong", {}, "The cut"), " for the first deal"];
  const parts = [h("strong", {}, `Deal ${v.deal_number} of ${v.deals_in_partie}`)];
  if (v.dealer != null) {
    parts.push(sep(), c.verb(v.dealer, "deal", "deals"));
    const role = c.watching ? `${c.names[v.elder]} is elder hand` : `you are ${v.elder === c.me ? "elder" : "younger"} hand`;
    parts.push(h("span", { class: "role-me" }, sep(), role));
  }
  return parts;
}

export function counterScores(c) {
  const total = c.view.scores.partie;
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
