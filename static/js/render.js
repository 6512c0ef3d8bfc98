// render.js: the table from one `state`, each region by its module, the focus kept. Every
// button is one of `view.legal` (data-action: its index).

import { h, context, fill, results, dealNotes } from "./kit.js";
import { counterDeal, counterScores, counterTools } from "./counter.js";
import { opponentArea, presenceLine } from "./opponent.js";
import { middleArea } from "./middle.js";
import { handArea } from "./hand.js";
import { promptText, actionsArea } from "./actions.js";
import { cardsPanel, logPanel } from "./panels.js";
import { learnParts } from "./learn.js";
import { t, say } from "./i18n.js";

function rememberFocus(root) {
  const active = document.activeElement;
  if (!active || !root.contains(active)) return null;
  return { key: active.getAttribute("data-key"), inHand: !!active.closest("#hand"), index: Number(active.getAttribute("data-index")) };
}

function restoreFocus(root, memo, c) {
  if (!memo) return;
  if (root.contains(document.activeElement) && document.activeElement !== document.body) return;
  let target = memo.key ? root.querySelector(`[data-key="${CSS.escape(memo.key)}"]`) : null;
  if (!target && memo.inHand) {
    const cards = root.querySelectorAll("#hand button.card");
    target = root.querySelector("#hand .playable") || cards[Math.min(memo.index, cards.length - 1)] || null;
  }
  if (!target && c.myTurn) target = root.querySelector("#hand .playable, #actions [data-action]");
  target?.focus({ preventScroll: true });
}

export function renderTable(root, msg, ui) {
  const c = context(msg, ui);
  const focus = rememberFocus(root);

  fill(root, "#counter-deal", counterDeal(c));
  fill(root, "#counter-scores", counterScores(c));
  fill(root, "#counter-tools", counterTools(c));
  fill(root, "#opponent", opponentArea(c));
  fill(root, "#middle", middleArea(c));
  fill(root, "#hand", handArea(c));
  fill(root, "#prompt", promptText(c));
  fill(root, "#actions", actionsArea(c));
  // This deal's notes once dealinfo.js is in (a deal dealt: table.js waits for it).
  fill(root, "#deal-info", dealNotes.mod?.dealInfo(c));
  // The score sheet once results.js is in (a deal over, or the panel opened: table.js).
  fill(root, "#scores-body", results.mod?.scoresPanel(c));
  fill(root, "#cards-body", cardsPanel(c));
  // The log keeps the reader's place (at its end, it follows).
  const old = root.querySelector("#log-body .log");
  const atEnd = old && old.scrollTop > 0 && old.scrollTop + old.clientHeight >= old.scrollHeight - 2;
  const top = old ? old.scrollTop : 0;
  fill(root, "#log-body", logPanel(c));
  const log = root.querySelector("#log-body .log");
  if (log) log.scrollTop = atEnd ? log.scrollHeight : top;
  renderPresence(root, msg, ui);
  learnParts(root, c);

  const v = c.view;
  // The partie's end opens the score sheet, once.
  if (v.phase === "partie_over" && root.dataset.phase !== "partie_over") root.querySelector("#panel-scores")?.setAttribute("open", "");
  root.dataset.phase = v.phase;
  root.dataset.step = v.step || "";
  root.dataset.myTurn = c.myTurn;
  root.dataset.toMove = v.to_move == null ? "" : v.to_move === c.me ? "me" : "opponent";
  root.dataset.selecting = !!c.discard;
  restoreFocus(root, focus, c);
  return c;
}

/** What a `presence` changes, and nothing else (the level: once a seat is the computer's). */
export function renderPresence(root, msg, ui) {
  const room = msg.room;
  if (!room || !room.seats) return;
  const slot = root.querySelector("#opponent .presence-slot");
  slot?.replaceChildren(...[presenceLine(context(msg, ui))].filter(Boolean));
  const line = root.querySelector("#level-line");
  if (line && room.level && line.dataset.level !== room.level) {
    line.dataset.level = room.level;
    // "The computer plays at the <strong>strong</strong> level.": the sentence around the level.
    const [before, after] = t("The computer plays at the {level} level.").split("{level}");
    line.replaceChildren(before, h("strong", {}, say({ code: `level.${room.level}.name` }, false)), after ?? "");
    line.hidden = false;
  }
  const seat = root.dataset.seat === "1" ? 1 : root.dataset.seat === "watch" ? null : 0;
  const other = room.seats[1 - seat];
  const invite = root.querySelector("#invite");
  if (invite && seat === 0) invite.hidden = room.opponent !== "friend" || !!other?.joined;
  root.dataset.opponentJoined = !!other?.joined;
  root.dataset.opponentConnected = !!other?.connected;
}
