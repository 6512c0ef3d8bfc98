// news.js: what just happened, told beyond the redraw: a card played moves in from its
// player's side and a trick won leans to its winner, the opponent's words are read out
// (a polite live region), and pique, repique, capot or carte blanche lands as a toast.

import { context, bonusName, PROMINENT_BONUSES } from "./kit.js";
import { logLineText } from "./panels.js";

/**
 * A card just played moves onto the table from its player's side; a trick just won
 * leans towards its winner and stays in view until the next card. CSS animations only,
 * so prefers-reduced-motion (base.css) turns them off.
 */
export function animate(root, before, now) {
  if (before.deal_number !== now.deal_number) return;
  const trick = root.querySelector("#middle .trick");
  if (!trick) return;
  const me = now.seat === null || now.seat === undefined ? 0 : now.seat;
  const played = (v) => (v.trick ? v.trick.cards.length : 0) + (v.tricks || []).length * 2;
  if (played(now) <= played(before)) return;
  const figures = trick.querySelectorAll(".played");
  const last = figures[figures.length - 1];
  if (last) last.classList.add(Number(last.dataset.seat) === me ? "arrive-mine" : "arrive-theirs");
  if (!now.trick && (now.tricks || []).length > (before.tricks || []).length) {
    const won = now.tricks[now.tricks.length - 1];
    trick.classList.add(won.winner === me ? "won-mine" : "won-theirs");
  }
}

/** The opponent's announcements, read out politely. */
export function announce(announcer, msg, ui) {
  const lines = msg.new_log || [];
  if (!lines.length) return;
  const c = context(msg, ui);
  const said = lines.filter((line) => line.seat === c.opp || line.kind === "bonus" || line.kind === "deal_end" || line.kind === "partie_end");
  if (!said.length) return;
  const p = document.createElement("p");
  p.textContent = said.map((line) => logLineText(c, line)).join(". ");
  announcer.append(p);
  while (announcer.childElementCount > 4) announcer.firstElementChild.remove();
}

/** Pique, repique, capot and carte blanche shown on the felt the moment they land. */
let toastTimer = null;
export function celebrate(toast, previous, msg, ui) {
  const before = previous.view.deal_number === msg.view.deal_number ? previous.view.bonuses || [] : [];
  const now = msg.view.bonuses || [];
  const fresh = now.slice(before.length).filter((b) => PROMINENT_BONUSES.includes(b.kind));
  if (!fresh.length) return;
  const c = context(msg, ui);
  toast.replaceChildren(
    ...fresh.map((b) => {
      const el = document.createElement("div");
      el.className = `toast-item bonus-${b.kind}`;
      el.dataset.bonus = b.kind;
      const strong = document.createElement("strong");
      strong.textContent = `${bonusName(b.kind)}!`;
      const small = document.createElement("span");
      small.textContent = `${c.verb(b.seat, "score", "scores")} ${b.points}`;
      el.append(strong, small);
      return el;
    })
  );
  toast.classList.add("show");
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => toast.classList.remove("show"), 3600);
}
