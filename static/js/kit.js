// kit.js: what every part of the table draws with. No rule of Piquet: all is in the view.
import { t, fill as fillIn, say, cardName } from "./i18n.js";

/** A bonus by its kind ("repique"), in words. */
export const bonusName = (kind) => say({ code: `bonus.${kind}` });
export const categoryName = (c) => ({ point: t("Point"), sequence: t("Sequence"), set: t("Set") })[c];
/** The view just before a reviewed decision, if this page has it. */
export const positionOf = (ui, x) => (ui.reviews.get(x.deal) || {}).positions?.[x.step];
export const PROMINENT_BONUSES = ["carte_blanche", "carte_rouge", "repique", "pique", "capot"];
/** A legal entry's words (or a combination's, a shown card's, a log line's, a result's):
 * its phrase; a card to play, its name; a record made before phrases, its English. */
export const label = (e) => (e.say ? say(e.say) : e.card ? cardName(e.card) : e.label ?? e.what ?? e.text);

/** A stylesheet in the page, once it has loaded (or failed: drawn unstyled, not never). */
export function sheet(href) {
  const had = document.querySelector(`link[href="${href}"]`);
  if (had?.sheet) return Promise.resolve();
  const link = had || document.head.appendChild(h("link", { rel: "stylesheet", href }));
  return new Promise((done) => ["load", "error"].forEach((type) => link.addEventListener(type, done)));
}

/** A part of the page fetched when first used, not with the table: `ready()` resolves once
 * its module and stylesheet are both in (so it draws styled); `mod` is the module then.
 * Not fetched (offline): drawn without it, and fetched again when next asked for. */
export function onDemand(js, css) {
  const part = { mod: null, coming: null };
  part.ready = () => (part.coming ||= Promise.all([import(js), sheet(css)]).then(([m]) => (part.mod = m), () => (part.coming = null)));
  return part;
}

// The deal's and the partie's results and the score sheet: once something is scored.
export const results = onDemand("./results.js", "/static/css/results.css");
// The smaller calls' menu (sinking.js): once a call is offered.
export const sinking = onDemand("./sinking.js", "/static/css/sinking.css");
// The deal's notes beside the felt (dealinfo.js): once a deal is dealt (not at the cut).
export const dealNotes = onDemand("./dealinfo.js", "/static/css/dealinfo.css");

/** What a seat said in a category's dialogue: "You: Point of six". */
export const saidLine = (c, x) => t("{name}: {what}", { name: c.names[x.seat], what: say(x.say) });

/** h("button", {class: "x"}, "text", child): a tiny DOM builder. */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value == null || value === false) continue;
    if (key === "class") el.className = value;
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child == null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** `nodes` (nested; null and false left out) into `selector`, if there. */
export function fill(root, selector, nodes) {
  root.querySelector(selector)?.replaceChildren(...[nodes].flat(Infinity).filter((n) => n != null && n !== false));
}

/** What the drawing shares, worked out once per state. */
export function context(msg, ui) {
  const view = msg.view;
  const room = msg.room || {};
  // A watcher holds no seat: drawn from seat 0's side, both seats by name.
  const watching = view.seat == null;
  const me = watching ? 0 : view.seat;
  const opp = 1 - me;
  const seats = room.seats || [];
  // Names as the server gives them, but its words for the computer, you and a seat nobody
  // has named, said here in the page's language.
  const host = (i) => [t("Host"), t("Guest")][i];
  const named = (s, i) => (!s ? (watching ? host(i) : room.opponent === "computer" ? t("Computer") : t("Your friend")) : s.you ? t("You") : s.computer ? t("Computer") : s.unnamed ? (watching ? host(i) : t("Friend")) : s.name);
  const names = [];
  names[me] = watching ? named(seats[me], me) : t("You");
  names[opp] = named(seats[opp], opp);
  const legal = (view.legal || []).map((entry, index) => ({ ...entry, index }));
  const other = seats[opp];
  return {
    msg, view, room, ui, me, opp, names, watching, legal,
    discard: legal.find((a) => a.type === "discard") || null,
    plays: new Map(legal.filter((a) => a.type === "play").map((a) => [a.card, a])),
    // Once the partie is over nothing more is asked: no "See the …" either.
    sees: view.phase === "partie_over" ? [] : legal.filter((a) => a.type === "see"),
    buttons: legal.filter((a) => !["play", "discard", "see"].includes(a.type)),
    myTurn: legal.some((a) => a.type !== "see"),
    waitingForFriend: room.opponent === "friend" && !watching && !!other && !other.joined,
    /** "You deal" / "Computer deals": the first words, said to you, else the second
     * (the seat's {name}), filled from `a`. */
    verb(seat, you, other, a) {
      return fillIn(seat === me && !watching ? you : other, { name: names[seat], ...a });
    },
    cardName,
  };
}

export function parseCard(code) {
  return { rank: code.slice(0, -1), suit: code.slice(-1) };
}

/** A card's face: a control (the hand) or a named image; its suit by glyph and letter. */
export function cardFace(code, c, opts = {}) {
  const { rank, suit } = parseCard(code);
  const name = c.cardName(code);
  const classes = ["card", `suit-${suit}`, opts.cls || ""];
  const attrs = { class: classes.join(" ").trim(), "data-card": code, title: name };
  if (opts.button) {
    // Named by a hidden span, not aria-label: the visible "K S" is in the name (WCAG 2.5.3).
    Object.assign(attrs, { type: "button" }, opts.attrs || {});
  } else {
    Object.assign(attrs, { role: "img", "aria-label": name });
  }
  return h(
    opts.button ? "button" : "span",
    attrs,
    h(
      "span",
      { class: "card-index", "aria-hidden": "true" },
      h("span", { class: "card-rank" }, rank),
      h("span", { class: "g" })
    ),
    h("span", { class: "card-pip g", "aria-hidden": "true" }),
    h("span", { class: "card-letter", "aria-hidden": "true" }, suit),
    opts.button ? h("span", { class: "card-tip", "aria-hidden": "true" }, name) : null,
    opts.button ? h("span", { class: "visually-hidden sr-name" }, opts.label || name) : null
  );
}

export function cardRow(cards, c, cls = "") {
  return h("span", { class: `card-row ${cls}`.trim() }, cards.map((code) => cardFace(code, c, { cls: "mini" })));
}

export function back(cls = "") {
  return h("span", { class: `card back ${cls}`.trim(), "aria-hidden": "true" });
}

/** " · " between two parts of a line: seen as a dot, heard as a comma (never as nothing). */
export function sep() {
  return h("span", { class: "sep" }, h("span", { "aria-hidden": "true" }, " · "), h("span", { class: "visually-hidden" }, ", "));
}

/** A legal entry's button; a call's cards are listed for the ear and marked in the hand
 * (two suits can read "Point of four"). */
export function actionButton(entry, c, cls = "", which = "") {
  const cards = Array.isArray(entry.cards) ? entry.cards : null;
  const suits = cards ? [...new Set(cards.map((code) => parseCard(code).suit))] : [];
  const names = cards ? cards.map((code) => cardName(code)).join(", ") : "";
  const words = label(entry);
  return h(
    "button",
    {
      type: "button",
      class: `button action ${cls}`.trim(),
      "data-action": entry.index,
      "data-type": entry.type,
      "data-key": `act-${entry.index}-${entry.type}-${entry.label}`,
      "data-cards": cards ? cards.join(" ") : null,
      title: cards ? names : null,
      "aria-label": cards ? t("{label}: {cards}", { label: words, cards: names }) : null,
    },
    h("span", { class: "label" }, words),
    which ? h("span", { class: "which" }, ` (${which})`) : null,
    suits.length === 1 ? h("span", { class: `hint suit-${suits[0]}`, "aria-hidden": "true" }, h("span", { class: "g" })) : null
  );
}
