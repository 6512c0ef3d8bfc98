// actions.js: what to do now: the prompt, the discard's confirm, a button per legal entry.

import { h, actionButton, categoryName, label, saidLine, sinking } from "./kit.js";
import { t, nt, fill, say } from "./i18n.js";

const DECLARING = t("{name} is declaring…");
const DECLARE = t("Your declaration:");
const LESSER = t("Add your lesser combinations, or say you are done:");
// Each step: what the seat to move is doing, as the other seat is told; what its player is asked.
const STEPS = {
  choose_dealer: [t("{name} won the cut and is choosing who deals…"), t("You won the cut. Who deals the first hand?")],
  carte_blanche: [t("{name} is deciding on carte blanche…"), t("You hold carte blanche: no king, queen or jack. Announce it?")],
  elder_exchange: [t("{name} is exchanging…")],
  younger_discard: [t("{name} is discarding…")],
  younger_exchange: [t("{name} is exchanging…")],
  elder_call: [DECLARING, DECLARE],
  younger_answer: [t("{name} is answering…"), t("Your answer:")],
  elder_lesser: [DECLARING, LESSER],
  younger_call: [DECLARING, DECLARE],
  younger_lesser: [DECLARING, LESSER],
  lead: [t("{name} to lead…"), t("Your lead: play a card.")],
  follow: [t("{name} to play…"), t("Your turn to play a card.")],
  deal_over: [null, t("The hand is scored.")],
};

function saidSoFar(c, seat) {
  const out = [];
  for (const line of [...(c.view.log || [])].reverse()) {
    if (line.seat !== seat || !["call", "answer", "score", "bonus"].includes(line.kind)) break;
    if (line.kind === "call" || line.kind === "answer") out.unshift(label(line));
  }
  return out;
}

/** "Computer is declaring: Point of four, Quart…" */
function doing(c, seat) {
  const v = c.view;
  const what = STEPS[v.step]?.[0];
  const name = c.names[seat];
  if (!what) return t("Waiting for {name}…", { name });
  const said = what === DECLARING ? saidSoFar(c, seat) : [];
  const hold = v.step === "lead" && !c.watching && c.room.opponent === "computer" && v.tricks.length;
  const now = said.length ? t("{name} is declaring: {said}…", { name, said: said.join(", ") }) : fill(what, { name });
  return hold ? t("{doing} (click or press a key to go on)", { doing: now }) : now;
}

function saidNow(c) {
  const at = c.view.declaring;
  const d = at && c.view.declarations.find((x) => x.category === at.category);
  if (!d || !d.said.length) return null;
  return h("p", { class: "said-now", "data-area": "said-now" }, h("strong", {}, t("{category}: ", { category: categoryName(d.category) })), (d.says?.map((x) => saidLine(c, x)) || d.said).join(" · "));
}

export function promptText(c) {
  const v = c.view;
  if (c.watching) {
    const who = v.to_move == null || v.phase === "partie_over" ? "" : ` ${doing(c, v.to_move)}`;
    return t("You are watching: you see what is public, never a hand.") + who;
  }
  if (v.phase === "partie_over") return t("The partie is over.");
  if (c.waitingForFriend) return t("Waiting for your friend to open the link…");
  const offer = c.legal.some((a) => a.type === "carte_blanche");
  if (c.discard) {
    const n = c.ui.selected.size;
    const lead = offer ? t("You hold carte blanche: announce it, or discard without announcing.") + " " : "";
    const selected = nt("{n} selected.", "{n} selected.", n);
    return lead + t("{label}. {selected}", { label: label(c.discard), selected });
  }
  if (c.myTurn) return [saidNow(c), STEPS[v.step]?.[1] || t("Your turn.")];
  if (v.phase === "deal_over") return t("Waiting for the next deal…");
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
          " " + t("Turn the cards I leave face up after the first lead")
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
        n ? nt("Discard {n} and draw {n}", "Discard {n} and draw {n}", n) : d.min ? t("Choose cards to discard") : t("Stand pat")
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
  // (sinking.js is in by the time a call is offered: table.js waits for it.)
  if (smaller.length) out.push(sinking.mod?.sinkingMenu(c, smaller));
  // `see` entries that match no listed combination still get a button here.
  const comboIds = new Set(c.view.combos.map((x) => x.id));
  for (const entry of c.sees) if (!comboIds.has(entry.combo)) out.push(actionButton(entry, c, "see"));
  return out;
}
