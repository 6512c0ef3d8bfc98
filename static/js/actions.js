// actions.js: what to do now: the prompt, the discard's confirm, a button per legal entry.

import { h, parseCard, actionButton, CATEGORY_NAMES } from "./kit.js";
import { saidLine } from "./dealinfo.js";

const DECLARING = "is declaring";
const DECLARE = "Your declaration:";
const LESSER = "Add your lesser combinations, or say you are done:";
// Each step: what the seat to move is doing, as the other seat is told; what its player is asked.
const STEPS = {
  choose_dealer: ["won the cut and is choosing who deals", "You won the cut. Who deals the first hand?"],
  carte_blanche: ["is deciding on carte blanche", "You hold carte blanche: no king, queen or jack. Announce it?"],
  elder_exchange: ["is exchanging"],
  younger_discard: ["is discarding"],
  younger_exchange: ["is exchanging"],
  elder_call: [DECLARING, DECLARE],
  younger_answer: ["is answering", "Your answer:"],
  elder_lesser: [DECLARING, LESSER],
  younger_call: [DECLARING, DECLARE],
  younger_lesser: [DECLARING, LESSER],
  lead: ["to lead", "Your lead: play a card."],
  follow: ["to play", "Your turn to play a card."],
  deal_over: [null, "The hand is scored."],
};

function saidSoFar(c, seat) {
  const out = [];
  for (const line of [...(c.view.log || [])].reverse()) {
    if (line.seat !== seat || !["call", "answer", "score", "bonus"].includes(line.kind)) break;
    if (line.kind === "call" || line.kind === "answer") out.unshift(line.text);
  }
  return out;
}

/** "Computer is declaring: Point of four, Quart…" */
function doing(c, seat) {
  const v = c.view;
  const what = STEPS[v.step]?.[0];
  if (!what) return `Waiting for ${c.names[seat]}…`;
  const said = what === DECLARING ? saidSoFar(c, seat) : [];
  const hold = v.step === "lead" && !c.watching && c.room.opponent === "computer" && v.tricks.length;
  return `${c.names[seat]} ${what}${said.length ? `: ${said.join(", ")}` : ""}…${hold ? " (click or press a key to go on)" : ""}`;
}

function saidNow(c) {
  const at = c.view.declaring;
  const d = at && c.view.declarations.find((x) => x.category === at.category);
  if (!d || !d.said || !d.said.length) return null;
  return h("p", { class: "said-now", "data-area": "said-now" }, h("strong", {}, `${CATEGORY_NAMES[d.category]}: `), d.said.map((line) => saidLine(c, line)).join(" · "));
}

export function promptText(c) {
  const v = c.view;
  if (c.watching) {
    const who = v.to_move == null || v.phase === "partie_over" ? "" : ` ${doing(c, v.to_move)}`;
    return `You are watching: you see what is public, never a hand.${who}`;
  }
  if (v.phase === "partie_over") return "The partie is over.";
  if (c.waitingForFriend) return "Waiting for your friend to open the link…";
  const offer = c.legal.some((a) => a.type === "carte_blanche");
  if (c.discard) {
    const n = c.ui.selected.size;
    const lead = offer ? "You hold carte blanche: announce it, or discard without announcing. " : "";
    return `${lead}${c.discard.label}. ${n} selected.`;
  }
  if (c.myTurn) return [saidNow(c), STEPS[v.step]?.[1] || "Your turn."];
  if (v.phase === "deal_over") return `Waiting for the next deal…`;
  return doing(c, c.opp);
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
        n ? `Discard ${n} and draw ${n}` : d.min ? "Choose cards to discard" : "Stand pat"
      )
    );
  }
  // Calls come best first: the first of each category in view, the smaller ones folded.
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
  const comboIds = new Set(c.view.combos.map((x) => x.id));
  for (const entry of c.sees) if (!comboIds.has(entry.combo)) out.push(actionButton(entry, c, "see"));
  return out;
}

/** The smaller calls: by category, a row per call, a button per suit (or choice) in it. */
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
      // Named by its category, not a heading: the menu is no section of the page.
      h(
        "div",
        { class: "sink-group", "data-category": category, role: "group", "aria-labelledby": `sink-${category}` },
        h("p", { class: "mini-title", id: `sink-${category}` }, CATEGORY_NAMES[category]),
        [...rows].map(([label, entries]) =>
          h("div", { class: "sink-row", "data-label": label }, h("span", { class: "sink-label", "aria-hidden": "true" }, label), entries.map((entry) => sinkButton(entry, c)))
        )
      )
    )
  );
}

/** The suit (or the cards) in view, the full call for the ear. */
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
