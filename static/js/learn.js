// learn.js: learning at the table (issue 26): the Hint and Review buttons, the practice
// line, the replay link. The hint's marks, the reviews and the look back are coach.js's,
// fetched once a hint or a review is asked for or a deal ends. The server works it all out.

import { h, fill, onDemand } from "./kit.js";
import { t } from "./i18n.js";

const over = (v) => v.phase.endsWith("_over");

const coach = onDemand("./coach.js", "/static/css/coach.css");
/** coach.js and coach.css, fetched once; resolves when both are in, so drawn styled. */
export const coachReady = coach.ready;

/** Drawn with the rest of the table (render.js). */
export function learnParts(root, c) {
  const { ui, view: v, room } = c;
  if (!ui.reviews) return;
  const look = ui.lookBack;
  const button = (attrs, text) => root.querySelector("#actions").append(h("button", { type: "button", class: "button", ...attrs }, text));
  if (!look && !c.watching && !ui.replay) {
    const asking = ui.hintAsking === c.msg.version;
    if (room.hints && c.myTurn && !over(v)) button({ "data-hint": "", "data-key": "hint", "aria-keyshortcuts": "H", "aria-disabled": asking ? "true" : null }, asking ? t("Asking…") : t("Hint"));
    if (over(v)) button({ "data-review": v.deal_number, "data-key": "review" }, t("Review"));
    if (v.phase === "partie_over") button({ "data-review": 0, "data-key": "review-0" }, t("The partie's review"));
  }
  if (coach.mod) coach.mod.coachParts(root, c);
  else fill(root, "#coach", !!ui.hintNote && h("p", {}, ui.hintNote));
  const practice = root.querySelector("#practice-line");
  if (practice) practice.hidden = !room.practice;
  if (over(v) || v.deal_number > 1) root.querySelector("[data-replay-link]")?.removeAttribute("hidden");
  root.dataset.lookBack = !!look;
}
