// learn.js: learning at the table (issue 26), as the server works it out (docs/record.md):
// the Hint button and the hint's words, what it would do marked on the table (its cards
// outlined, its button ringed, its card raised), the Review buttons and a deal's review,
// whose items each put that position back on the table, read-only. No rule here: a hint's
// action is found among `view.legal` by its JSON.

import { h } from "./kit.js";

const WHERE = { exchange: "the exchange", call: "a declaration", answer: "an answer", lesser: "a lesser call" };

/** An action or legal entry as compared: no label or index, keys sorted, cards as a set. */
function same(action) {
  const out = {};
  for (const k of Object.keys(action).sort()) if (k !== "label" && k !== "index") out[k] = k === "cards" ? [...action[k]].sort() : action[k];
  return JSON.stringify(out);
}

/** Marks what `action` does on the drawn table with class `cls`: its cards, its button. */
function mark(root, c, action, cls) {
  if (!action) return;
  for (const code of action.cards || [action.card]) root.querySelector(`#hand [data-card="${CSS.escape(String(code))}"]`)?.classList.add(cls);
  const entry = c.legal.find((e) => e.type !== "discard" && same(e) === same(action));
  const el = entry && root.querySelector(`[data-action="${entry.index}"]`);
  el?.classList.add(cls);
  el?.closest("details")?.setAttribute("open", ""); // a smaller call, folded away
}

const over = (v) => v.phase === "deal_over" || v.phase === "partie_over";
const cost = (x) => `${x.exact ? "" : "about "}−${Math.round(x.cost)}`;

/** "deal 2, trick 4": where a reviewed decision was made. */
export const whereOf = (x) => `deal ${x.deal}, ${x.trick ? `trick ${x.trick}` : WHERE[x.kind]}`;

/** The view just before a reviewed decision, when this page has it. */
export const positionOf = (ui, x) => (ui.reviews.get(x.deal) || {}).positions?.[x.step];

function reviewItems(items, ui, withDeal) {
  return h(
    "ol",
    { class: "review-items" },
    items.map((x) => {
      const where = withDeal ? whereOf(x) : x.trick ? `trick ${x.trick}` : WHERE[x.kind];
      const known = ui.replay || positionOf(ui, x);
      return h(
        "li",
        {},
        h(
          known ? "button" : "div",
          { type: known ? "button" : null, class: "review-item", "data-review-item": `${x.deal}:${x.step}`, "data-key": `ri-${withDeal ? "top-" : ""}${x.deal}-${x.step}`, "aria-current": ui.lookBack && ui.lookBack.item.deal === x.deal && ui.lookBack.item.step === x.step ? "step" : null },
          h("strong", {}, where[0].toUpperCase() + where.slice(1)),
          h("span", {}, `You: ${x.you.label}`),
          h("span", {}, `The strong level: ${x.strong.label}`),
          h("span", { class: "review-cost" }, cost(x))
        )
      );
    })
  );
}

/** A deal's review, or the partie's summary (deal 0), its items to click. */
function reviewOf(ui, n) {
  const r = ui.reviews.get(n);
  const head = h("h2", { id: `review-title-${n}`, class: "review-title", tabindex: "-1", "data-key": `review-title-${n}` }, n ? `Review of deal ${n}` : "Review of the partie");
  if (!r) return [head, h("p", { "data-review-coming": "" }, "The review is being worked out: it comes here in a moment.")];
  if (!n) {
    const s = r.summary || {};
    return [
      head,
      h("p", {}, s.text),
      h("ul", { class: "review-deals" }, (s.deals || []).map((d) => h("li", {}, `Deal ${d.deal}: about ${Math.round(d.points_left)} points left`))),
      (s.biggest || []).length ? [h("h3", { class: "mini-title" }, "The biggest three"), reviewItems(s.biggest, ui, true)] : null,
    ];
  }
  const items = r.items || [];
  return [head, h("p", { "data-review-text": "" }, r.text), items.length ? [h("p", {}, "Choose one to see that position again."), reviewItems(items, ui)] : null];
}

function hintParts(c, hint) {
  if (!hint) return c.ui.hintNote ? [h("p", { class: "hint-note" }, c.ui.hintNote)] : [];
  const others = (hint.options || []).slice(1);
  return [
    h("p", { "data-hint-kind": hint.kind }, h("strong", {}, "Hint: "), hint.why),
    others.length ? h("ul", { class: "hint-options", "aria-label": "Also weighed" }, others.map((o) => h("li", { "data-points": o.points }, h("strong", {}, o.label), `: ${o.why}`))) : null,
  ];
}

/** The learning parts of the table, drawn with the rest of it (render.js). */
export function learnParts(root, c) {
  const { ui, view: v, room } = c;
  if (!ui.reviews) return;
  const look = ui.lookBack;
  const byId = (id) => root.querySelector(`#${id}`);
  const actions = byId("actions");
  if (look) byId("prompt").replaceChildren(`You: ${look.item.you.label}. The strong level: ${look.item.strong.label} (${cost(look.item)}).`);
  else if (!c.watching && !ui.replay) {
    if (room.hints && c.myTurn && !over(v)) {
      const asking = ui.hintAsking === c.msg.version;
      actions.append(h("button", { type: "button", class: "button hint-ask", "data-hint": "", "data-key": "hint", "aria-keyshortcuts": "H", "aria-disabled": asking ? "true" : null }, asking ? "Asking…" : "Hint"));
    }
    if (over(v)) actions.append(h("button", { type: "button", class: "button", "data-review": v.deal_number, "data-key": "review" }, "Review"));
    if (v.phase === "partie_over") actions.append(h("button", { type: "button", class: "button", "data-review": 0, "data-key": "review-0" }, "The partie's review"));
  }
  const hint = !look && ui.hint && ui.hint.version === c.msg.version ? ui.hint.hint : null;
  byId("coach")?.replaceChildren(...hintParts(c, hint).filter(Boolean));
  mark(root, c, look ? look.item.strong.action : hint && hint.action, "advised");
  if (look) mark(root, c, look.item.you.action, "yours");
  const review = byId("review");
  const open = ui.reviewOpen;
  review.hidden = open === null || open === undefined;
  review.setAttribute("aria-labelledby", `review-title-${open}`);
  review.replaceChildren(...(review.hidden ? [] : [reviewOf(ui, open), ui.summaryToo && ui.reviews.has(0) ? reviewOf(ui, 0) : null].flat(Infinity).filter(Boolean)));
  const back = byId("look-back");
  if (back) {
    back.hidden = !look;
    back.replaceChildren(...(look ? [h("strong", {}, `Looking back at ${whereOf(look.item)}`), h("button", { type: "button", class: "button small", "data-back": "", "data-key": "back", "aria-keyshortcuts": "Escape" }, "Back to the table")] : []));
  }
  const practice = byId("practice-line");
  if (practice) practice.hidden = !room.practice;
  const replay = root.querySelector("[data-replay-link]");
  if (replay && (over(v) || v.deal_number > 1)) replay.hidden = false;
  root.dataset.lookBack = look ? "true" : "false";
}
