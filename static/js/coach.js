// coach.js: the hint marked on the table and its words; a deal's review; a reviewed
// decision's position put back on the table, read-only. Fetched on first use (learn.js).

import { h, fill, positionOf, label } from "./kit.js";
import { t, nt, say } from "./i18n.js";

const WHERE = { exchange: t("the exchange"), call: t("a declaration"), answer: t("an answer"), lesser: t("a lesser call") };
// Whole points as the review's text has them ("{:.0f}": a half to the even).
const whole = (n) => (Math.abs(n % 1) === 0.5 ? 2 * Math.round(n / 2) : Math.round(n));
const cost = (x) => (x.exact ? t("−{cost}", { cost: whole(x.cost) }) : t("about −{cost}", { cost: whole(x.cost) }));
/** "deal 2, trick 4" */
function whereOf(x, deal = true) {
  const where = x.trick ? t("trick {n}", { n: x.trick }) : WHERE[x.kind];
  return deal ? t("deal {deal}, {where}", { deal: x.deal, where }) : where;
}

/** An action or legal entry as compared: no label, phrase or index, cards as a set. */
function same(action) {
  const out = {};
  for (const k of Object.keys(action).sort()) if (k !== "label" && k !== "say" && k !== "index") out[k] = k === "cards" ? [...action[k]].sort() : action[k];
  return JSON.stringify(out);
}

/** Marks `action` on the table with `cls`: its cards, its button. */
function mark(root, c, action, cls) {
  if (!action) return;
  for (const code of action.cards || [action.card]) root.querySelector(`#hand [data-card="${code}"]`)?.classList.add(cls, action.card ? `${cls}-play` : cls);
  const entry = c.legal.find((e) => e.type !== "discard" && same(e) === same(action));
  const el = entry && root.querySelector(`[data-action="${entry.index}"]`);
  el?.classList.add(cls);
  el?.closest("details")?.setAttribute("open", ""); // a smaller call, folded away
}

function reviewItems(items, ui, deal) {
  const now = ui.lookBack && ui.lookBack.item;
  return h(
    "ol",
    { class: "review-items" },
    items.map((x) => {
      const where = whereOf(x, deal);
      const known = ui.replay || positionOf(ui, x);
      const attrs = { type: "button", class: "button review-item", "data-review-item": `${x.deal}:${x.step}`, "data-key": `ri-${deal ? "top-" : ""}${x.deal}-${x.step}` };
      return h("li", {}, h(known ? "button" : "p", known ? { ...attrs, "aria-current": now && now.deal === x.deal && now.step === x.step ? "step" : null } : { class: "review-item" }, h("strong", {}, where[0].toUpperCase() + where.slice(1)), h("span", {}, t("You: {label}", { label: label(x.you) })), h("span", {}, t("The strong level: {label}", { label: label(x.strong) })), h("span", { class: "review-cost" }, cost(x))));
    })
  );
}

/** A deal's review, or the partie's (0). */
function reviewOf(ui, n) {
  const r = ui.reviews.get(n);
  const head = h("h2", { id: `review-title-${n}`, class: "review-title", tabindex: "-1", "data-key": `review-title-${n}` }, n ? t("Review of deal {n}", { n }) : t("Review of the partie"));
  if (!r) return [head, h("p", { "data-review-coming": "" }, t("The review is being worked out: it comes here in a moment."))];
  const s = r.summary;
  if (s) return [head, h("p", {}, label(s)), h("ul", { class: "review-deals" }, s.deals.map((d) => h("li", {}, nt("Deal {deal}: about {n} point left", "Deal {deal}: about {n} points left", whole(d.points_left), { deal: d.deal })))), s.biggest.length ? [h("h3", { class: "mini-title" }, t("The biggest three")), reviewItems(s.biggest, ui, true)] : null];
  return [head, h("p", { "data-review-text": "" }, label(r)), r.items.length ? [h("p", {}, t("Choose one to see that position again.")), reviewItems(r.items, ui, false)] : null];
}

const why = (o) => (o.why_say ? say(o.why_say) : o.why);

/** Drawn by learnParts (learn.js), once fetched. */
export function coachParts(root, c) {
  const { ui } = c;
  const look = ui.lookBack;
  const $ = (id) => root.querySelector(`#${id}`);
  if (look) $("prompt").replaceChildren(t("You: {you}. The strong level: {strong} ({cost}).", { you: label(look.item.you), strong: label(look.item.strong), cost: cost(look.item) }));
  const hint = !look && ui.hint && ui.hint.version === c.msg.version ? ui.hint.hint : null;
  const others = hint ? hint.options.slice(1) : [];
  fill(root, "#coach", [
    hint ? h("p", { "data-hint-kind": hint.kind }, h("strong", {}, t("Hint:")), " ", why(hint)) : !!ui.hintNote && h("p", {}, ui.hintNote),
    others.length > 0 && h("ul", { class: "hint-options", "aria-label": t("Also weighed") }, others.map((o) => h("li", { "data-points": o.points }, h("strong", {}, o.label_say ? say(o.label_say) : o.label), t(": {why}", { why: why(o) })))),
  ]);
  mark(root, c, look ? look.item.strong.action : hint && hint.action, "advised");
  if (look) mark(root, c, look.item.you.action, "yours");
  const review = $("review");
  const open = ui.reviewOpen;
  review.hidden = open == null;
  review.setAttribute("aria-labelledby", `review-title-${open}`);
  fill(root, "#review", [!review.hidden && reviewOf(ui, open), ui.summaryToo && ui.reviews.has(0) && reviewOf(ui, 0)]);
  const back = $("look-back");
  if (back) back.hidden = !look;
  fill(root, "#look-back", look && [h("strong", {}, t("Looking back at {where}", { where: whereOf(look.item) })), h("button", { type: "button", class: "button small", "data-back": "", "data-key": "back", "aria-keyshortcuts": "Escape" }, t("Back to the table"))]);
}
