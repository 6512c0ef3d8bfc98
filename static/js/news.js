// news.js: what just happened, beyond the redraw: a card moves in, a trick leans to its
// winner, the opponent's words are read out, a pique or capot lands as a toast.

import { h, context, bonusName, PROMINENT_BONUSES } from "./kit.js";
import { logLineText } from "./panels.js";
import { t } from "./i18n.js";

/** CSS animations only, so prefers-reduced-motion (base.css) turns them off. */
export function animate(root, before, now) {
  const trick = root.querySelector("#middle .trick");
  const played = (v) => (v.trick ? v.trick.cards.length : 0) + v.tricks.length * 2;
  if (before.deal_number !== now.deal_number || !trick || played(now) <= played(before)) return;
  const me = now.seat ?? 0;
  const last = [...trick.querySelectorAll(".played")].pop();
  last?.classList.add(Number(last.dataset.seat) === me ? "arrive-mine" : "arrive-theirs");
  if (!now.trick && now.tricks.length > before.tricks.length) trick.classList.add(now.tricks.at(-1).winner === me ? "won-mine" : "won-theirs");
}

export function announce(announcer, msg, ui) {
  const c = context(msg, ui);
  const said = (msg.new_log || []).filter((line) => line.seat === c.opp || ["bonus", "deal_end", "partie_end"].includes(line.kind));
  if (!said.length) return;
  announcer.append(h("p", {}, said.map((line) => logLineText(c, line)).join(t(". "))));
  while (announcer.childElementCount > 4) announcer.firstElementChild.remove();
}

let toastTimer = null;
export function celebrate(toast, previous, msg, ui) {
  const before = previous.view.deal_number === msg.view.deal_number ? previous.view.bonuses : [];
  const fresh = msg.view.bonuses.slice(before.length).filter((b) => PROMINENT_BONUSES.includes(b.kind));
  if (!fresh.length) return;
  const c = context(msg, ui);
  toast.replaceChildren(...fresh.map((b) => h("div", { class: `toast-item bonus-${b.kind}`, "data-bonus": b.kind }, h("strong", {}, t("{bonus}!", { bonus: bonusName(b.kind) })), h("span", {}, c.verb(b.seat, t("You score {points}"), t("{name} scores {points}"), { points: b.points })))));
  toast.classList.add("show");
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => toast.classList.remove("show"), 3600);
}
