// actions.js: what to do now: the prompt (your turn and what for, or what the other
// seat is doing), and its controls: the discard's confirm button (and the expose
// choice), one button per legal entry, and the smaller calls sinking allows, folded.

import { h, cap, parseCard, actionButton, CATEGORY_NAMES } from "./kit.js";

const WAITING = {
  choose_dealer: (c) => `${c.names[c.opp]} won the cut and is choosing who deals…`,
  carte_blanche: (c) => `${c.names[c.opp]} is deciding on carte blanche…`,
  elder_exchange: (c) => `${c.names[c.opp]} is exchanging…`,
  younger_discard: (c) => `${c.names[c.opp]} is discarding…`,
  younger_exchange: (c) => `${c.names[c.opp]} is exchanging…`,
  elder_call: (c) => `${c.names[c.opp]} is declaring…`,
  younger_answer: (c) => `Waiting for ${c.names[c.opp]}'s answer…`,
  elder_lesser: (c) => `${c.names[c.opp]} is declaring…`,
  younger_call: (c) => `${c.names[c.opp]} is declaring…`,
  younger_lesser: (c) => `${c.names[c.opp]} is declaring…`,
  lead: (c) => `${c.names[c.opp]} to lead…`,
  follow: (c) => `${c.names[c.opp]} to play…`,
};

const MINE = {
  choose_dealer: () => "You won the cut. Who deals the first hand?",
  carte_blanche: () => "You hold carte blanche: no king, queen or jack. Announce it?",
  elder_call: () => "Your declaration:",
  younger_answer: (c) => {
    const said = lastSaid(c);
    return said ? `${c.names[c.opp]} says “${said}”. Your answer:` : "Your answer:";
  },
  elder_lesser: () => "Add your lesser combinations, or say you are done:",
  younger_call: () => "Your declaration:",
  younger_lesser: () => "Add your lesser combinations, or say you are done:",
  lead: () => "Your lead: play a card.",
  follow: () => "Your turn to play a card.",
  deal_over: () => "The hand is scored.",
};

/** What the opponent last said in the declaring, without its "Elder: " prefix. */
function lastSaid(c) {
  const decl = (c.view.declarations || []).filter((d) => d.said && d.said.length);
  const last = decl[decl.length - 1];
  if (!last) return "";
  const line = last.said[last.said.length - 1];
  const m = /^(Elder|Younger): (.*)$/.exec(line);
  return m ? m[2] : line;
}

export function promptText(c) {
  const v = c.view;
  if (c.watching) {
    const who = v.to_move === null || v.to_move === undefined ? "" : ` ${c.names[v.to_move]} to play.`;
    return `You are watching: you see what is public, never a hand.${v.phase === "partie_over" ? "" : who}`;
  }
  if (v.phase === "partie_over") return "The partie is over.";
  if (c.waitingForFriend) return "Waiting for your friend to open the link…";
  const offer = c.legal.some((a) => a.type === "carte_blanche");
  if (c.discard) {
    const n = c.ui.selected.size;
    const lead = offer ? "You hold carte blanche: announce it, or discard without announcing. " : "";
    return `${lead}${c.discard.label}. ${n} selected.`;
  }
  if (c.myTurn) {
    const f = MINE[v.step];
    return f ? f(c) : "Your turn.";
  }
  if (v.phase === "deal_over") return `Waiting for the next deal…`;
  const f = WAITING[v.step];
  return f ? f(c) : `Waiting for ${c.names[c.opp]}…`;
}

export function actionsArea(c) {
  const out = [];
  const d = c.discard;
  if (d) {
    const n = c.ui.selected.size;
    const ok = n >= d.min && n <= d.max;
    if (d.expose_choice) {
      out.push(
        h(
          "label",
          { class: "check" },
          h("input", { type: "checkbox", "data-expose": "", "data-key": "expose", checked: c.ui.expose }),
          " Turn the cards I leave face up after the first lead"
        )
      );
    }
    out.push(
      h(
        "button",
        {
          type: "button",
          class: "button primary action",
          "data-confirm-discard": "",
          "data-min": d.min,
          "data-max": d.max,
          "data-action": d.index,
          "data-type": "discard",
          "data-key": "confirm-discard",
          "aria-disabled": ok ? null : "true",
        },
        n ? `Discard ${n} and draw ${n}` : "Choose cards to discard"
      )
    );
  }
  // The engine lists calls best first. The first call of each category stays in
  // view; the smaller calls that sinking allows fold out, so the choice stays calm.
  const firstOfCategory = new Set();
  const smaller = [];
  for (const entry of c.buttons) {
    if (entry.type === "call" && firstOfCategory.has(entry.category)) {
      smaller.push(entry);
      continue;
    }
    if (entry.type === "call") firstOfCategory.add(entry.category);
    out.push(actionButton(entry, c, entry.type === "next_deal" ? "primary" : ""));
  }
  if (smaller.length) out.push(sinkingMenu(c, smaller));
  // `see` entries that match no listed combination still get a button here.
  const comboIds = new Set((c.view.combos || []).map((x) => x.id));
  for (const entry of c.sees) if (!comboIds.has(entry.combo)) out.push(actionButton(entry, c, "see"));
  return out;
}

/**
 * The smaller calls sinking allows, grouped by category, then by what is said ("Point of
 * four"): one row per call, a small button per suit (or per choice of cards) in it.
 */
function sinkingMenu(c, smaller) {
  const groups = new Map();
  for (const entry of smaller) {
    const rows = groups.get(entry.category) || new Map();
    groups.set(entry.category, rows);
    rows.set(entry.label, [...(rows.get(entry.label) || []), entry]);
  }
  return h(
    "details",
    { class: "sinking", "data-key": "sinking", open: c.ui.sinkingOpen ? true : null },
    h("summary", { class: "button", "data-key": "sinking-summary" }, `Call less than you hold (${smaller.length} ways)`),
    h("p", { class: "sinking-help" }, "Sinking: you may call less than you hold, or say “Nothing”, to keep your hand hidden. What you do not call cannot score."),
    [...groups].map(([category, rows]) =>
      h(
        "div",
        { class: "sink-group", "data-category": category },
        h("h3", { class: "mini-title" }, CATEGORY_NAMES[category] || cap(category)),
        [...rows].map(([label, entries]) =>
          h("div", { class: "sink-row", "data-label": label }, h("span", { class: "sink-label", "aria-hidden": "true" }, label), entries.map((entry) => sinkButton(entry, c)))
        )
      )
    )
  );
}

/** A compact call button: the suit (or the cards) in view, the full call for the ear. */
function sinkButton(entry, c) {
  const cards = entry.cards || [];
  const suits = [...new Set(cards.map((code) => parseCard(code).suit))];
  const names = cards.map((code) => c.cardName(code)).join(", ");
  const suitWord = { S: "Spades", H: "Hearts", D: "Diamonds", C: "Clubs" };
  const shown = suits.length === 1 ? suitWord[suits[0]] : cards.map((code) => parseCard(code).rank).join(" ");
  return h(
    "button",
    { type: "button", class: "button action small sink", "data-action": entry.index, "data-type": entry.type, "data-key": `act-${entry.index}-${entry.type}-${entry.label}`, "data-cards": cards.join(" "), title: `${entry.label}: ${names}` },
    h("span", { class: "label visually-hidden" }, entry.label),
    suits.length === 1 ? h("span", { class: `hint suit-${suits[0]}`, "aria-hidden": "true" }, h("span", { class: "g" })) : null,
    h("span", { "aria-hidden": suits.length === 1 ? null : "true" }, shown),
    h("span", { class: "visually-hidden" }, `: ${names}`)
  );
}
