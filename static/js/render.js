// render.js: draws the table from one server `state` message (docs/protocol.md).
// It holds no rule of Piquet: what it shows comes from the view, and every button
// it offers is one of `view.legal` (the one template, `discard`, becomes a card
// selection plus a confirm button). Hooks for tests: data-action (index into
// view.legal), data-type, data-card, and data-version on the table root.

const SUITS = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
const BONUS_NAMES = {
  carte_blanche: "Carte blanche",
  repique: "Repique",
  pique: "Pique",
  capot: "Capot",
  cards: "The cards",
};
const CATEGORY_NAMES = { point: "Point", sequence: "Sequence", set: "Set" };
export const PROMINENT_BONUSES = ["carte_blanche", "repique", "pique", "capot"];
// "QH" -> "Queen of Hearts", for all 32 cards: sent once with the page (#card-names),
// since state messages write cards by code only.
const CARD_NAMES = JSON.parse(document.getElementById("card-names")?.textContent || "{}");

/** h("button", {class: "x", "data-action": 2}, "text", child): a tiny DOM builder. */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") el.className = value;
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

function cap(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : "";
}

/** Everything the drawing functions share, worked out once per state message. */
export function context(msg, ui) {
  const view = msg.view;
  const room = msg.room || {};
  // A watcher holds no seat: drawn from seat 0's side, both seats by name.
  const watching = view.seat === null || view.seat === undefined;
  const me = watching ? 0 : view.seat;
  const opp = 1 - me;
  const seats = room.seats || [];
  const oppName =
    (seats[opp] && seats[opp].name) || (room.opponent === "computer" ? "Computer" : "Your friend");
  const names = [];
  names[me] = watching ? (seats[me] && seats[me].name) || "Host" : "You";
  names[opp] = oppName;
  const legal = (view.legal || []).map((entry, index) => ({ ...entry, index }));
  return {
    msg,
    view,
    room,
    ui,
    me,
    opp,
    names,
    watching,
    legal,
    discard: legal.find((a) => a.type === "discard") || null,
    plays: new Map(legal.filter((a) => a.type === "play").map((a) => [a.card, a])),
    sees: legal.filter((a) => a.type === "see"),
    buttons: legal.filter((a) => !["play", "discard", "see"].includes(a.type)),
    myTurn: legal.some((a) => a.type !== "see"),
    /** "You deal" / "Computer deals" */
    verb(seat, youForm, otherForm) {
      return seat === me && !watching ? `You ${youForm}` : `${names[seat]} ${otherForm}`;
    },
    cardName(code) {
      return CARD_NAMES[code] || code;
    },
  };
}

function parseCard(code) {
  return { rank: code.slice(0, -1), suit: code.slice(-1) };
}

/**
 * One card face. `button` makes it a control (the hand); otherwise it is an image
 * with its name. The suit shows as glyph + letter, never by colour alone.
 */
export function cardFace(code, c, opts = {}) {
  const { rank, suit } = parseCard(code);
  const name = c.cardName(code);
  const classes = ["card", `suit-${suit}`, SUITS[suit] ? "" : "suit-unknown", opts.cls || ""];
  const attrs = { class: classes.join(" ").trim(), "data-card": code, title: name };
  if (opts.button) {
    // Named by its content (a hidden span), not aria-label: the visible "K S" is then no
    // name that differs from what is read ("King of Spades"), per WCAG 2.5.3.
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

function cardRow(cards, c, cls = "") {
  return h("span", { class: `card-row ${cls}`.trim() }, cards.map((code) => cardFace(code, c, { cls: "mini" })));
}

function back(cls = "") {
  return h("span", { class: `card back ${cls}`.trim(), "aria-hidden": "true" });
}

const GLYPHS = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };

/**
 * A button for one legal entry: its label, as the engine words it. An entry that
 * names cards (a call) also lists them for screen readers and marks them in the hand
 * on hover or focus, since two suits can give the same words ("Point of four").
 */
function actionButton(entry, c, cls = "") {
  const cards = Array.isArray(entry.cards) ? entry.cards : null;
  const suits = cards ? [...new Set(cards.map((code) => parseCard(code).suit))] : [];
  const names = cards ? cards.map((code) => c.cardName(code)).join(", ") : "";
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
      "aria-label": cards ? `${entry.label}: ${names}` : null,
    },
    h("span", { class: "label" }, entry.label),
    suits.length === 1 ? h("span", { class: `hint suit-${suits[0]}`, "aria-hidden": "true" }, h("span", { class: "g" })) : null
  );
}

// ---- the counter above the cards ----------------------------------------------------

function counterDeal(c) {
  const v = c.view;
  if (v.phase === "partie_over") return [h("strong", {}, "Partie over"), ` after ${v.deal_number} deals`];
  if (!v.deal_number) return [h("strong", {}, "The cut"), " for the first deal"];
  const parts = [h("strong", {}, `Deal ${v.deal_number} of ${v.deals_in_partie}`)];
  if (v.dealer !== null && v.dealer !== undefined && !c.watching) {
    parts.push(h("span", { class: "sep", "aria-hidden": "true" }, " · "), c.verb(v.dealer, "deal", "deals"));
    parts.push(
      h(
        "span",
        { class: "role-me" },
        h("span", { class: "sep", "aria-hidden": "true" }, " · "),
        v.elder === c.me ? "you are elder hand" : "you are younger hand"
      )
    );
  }
  return parts;
}

function counterScores(c) {
  const total = (c.view.scores && c.view.scores.partie) || [0, 0];
  return [c.me, c.opp].map((seat) =>
    h(
      "span",
      { class: `score ${seat === c.me ? "mine" : "theirs"}`, "data-seat": seat },
      h("span", { class: "score-name" }, c.names[seat]),
      " ",
      h("span", { class: "score-points", "data-score": seat }, total[seat])
    )
  );
}

function counterTools(c) {
  const out = [];
  const room = c.room;
  if (room.can_new_match) {
    if (c.ui.confirmNewMatch && c.view.phase !== "partie_over") {
      out.push(
        h("span", { class: "confirm-text" }, "Abandon this partie?"),
        h("button", { type: "button", class: "button small danger", "data-new-match": "confirm", "data-key": "nm-yes" }, "Start a new match"),
        h("button", { type: "button", class: "button small", "data-new-match": "cancel", "data-key": "nm-no" }, "Keep playing")
      );
    } else if (c.view.phase !== "partie_over") {
      out.push(h("button", { type: "button", class: "button small", "data-new-match": "ask", "data-key": "nm-ask" }, "New match"));
    }
  }
  return out;
}

// ---- presence (friend tables) ----------------------------------------------------------

function presenceLine(c) {
  const seat = (c.room.seats || [])[c.opp];
  if (!seat) return null;
  const n = c.room.watchers || 0;
  const watchers = n ? h("span", { class: "watchers", "data-watchers": n }, `${n} watching`) : null;
  if (c.room.opponent === "computer" || c.watching) return watchers;
  return h("span", { class: "presence-line" }, presenceOf(c, seat), watchers);
}

function presenceOf(c, seat) {
  if (!seat.joined) return h("span", { class: "presence waiting", "data-presence": "waiting" }, "Waiting for your friend…");
  if (seat.connected) return h("span", { class: "presence online", "data-presence": "connected" }, `${c.names[c.opp]} is connected`);
  return h("span", { class: "presence offline", "data-presence": "disconnected" }, `${c.names[c.opp]} is not connected`);
}

// ---- the opponent's side ---------------------------------------------------------------

function roleOf(c, seat) {
  const v = c.view;
  if (v.elder === null || v.elder === undefined || !v.deal_number) return "";
  return seat === v.elder ? "elder hand" : "younger hand";
}

function opponentArea(c) {
  const v = c.view;
  const count = (c.watching ? (v.hand_counts || [])[c.opp] : v.opponent_hand_count) || 0;
  if (!v.deal_number || v.phase === "partie_over") return [h("div", { class: "seat-label" }, h("span", { class: "seat-name" }, c.names[c.opp]), presenceLine(c))];
  const backs = [];
  for (let i = 0; i < count; i += 1) backs.push(back());
  const role = roleOf(c, c.opp);
  return [
    h(
      "div",
      { class: "seat-label" },
      h("span", { class: "seat-name" }, c.names[c.opp]),
      role ? h("span", { class: "seat-role" }, role) : null,
      presenceLine(c)
    ),
    h(
      "div",
      { class: "opp-hand", role: "img", "aria-label": `${c.names[c.opp]} holds ${count} card${count === 1 ? "" : "s"}` },
      h("span", { class: "fan", "aria-hidden": "true" }, backs),
      h("span", { class: "count-badge", "data-count": "opponent", "aria-hidden": "true" }, `${count} card${count === 1 ? "" : "s"}`)
    ),
  ];
}

// ---- the middle: cut, stock, trick, result --------------------------------------------

function cutArea(c) {
  const cut = c.view.cut;
  if (!cut || !cut.cards) return null;
  const winner = cut.winner;
  return h(
    "div",
    { class: "cut", "data-area": "cut" },
    h("h2", { class: "area-title" }, "The cut"),
    h(
      "div",
      { class: "cut-cards" },
      [c.me, c.opp].map((seat) =>
        h(
          "figure",
          { class: `played ${seat === winner ? "winner" : ""}`.trim() },
          cardFace(cut.cards[seat], c),
          h("figcaption", {}, seat === c.me ? "Your cut" : `${c.names[seat]}'s cut`)
        )
      )
    ),
    winner === null || winner === undefined
      ? null
      : h(
          "p",
          { class: "cut-result" },
          winner === c.me ? "You win the cut and choose who deals." : `${c.names[winner]} wins the cut and chooses who deals.`
        )
  );
}

function stockArea(c) {
  const v = c.view;
  const n = v.stock_count || 0;
  const took = v.took || [null, null];
  const lines = [];
  const elder = v.elder;
  const order = elder === null || elder === undefined ? [] : [elder, 1 - elder];
  for (const seat of order) {
    if (took[seat] !== null && took[seat] !== undefined) lines.push(h("li", {}, c.verb(seat, `took ${took[seat]}`, `took ${took[seat]}`)));
  }
  // Younger's leftovers, once turned up, lie face up where the stock is: drawn once.
  const up = v.exposed_stock || [];
  return h(
    "div",
    { class: "stock", "data-area": "stock" },
    up.length
      ? h("div", { class: "stock-pile exposed", "data-area": "exposed-stock" }, h("h2", { class: "mini-title" }, "Left in the stock, face up"), cardRow(up, c))
      : h(
          "div",
          { class: "stock-pile", role: "img", "aria-label": `Stock: ${n} card${n === 1 ? "" : "s"}` },
          n > 0 ? back("stock-card") : h("span", { class: "card empty", "aria-hidden": "true" }),
          h("span", { class: "count-badge", "data-count": "stock", "aria-hidden": "true" }, `Stock ${n}`)
        ),
    lines.length ? h("ul", { class: "took" }, lines) : null
  );
}

function trickArea(c) {
  const v = c.view;
  const current = v.trick && v.trick.cards && v.trick.cards.length ? v.trick : null;
  const finished = v.tricks || [];
  const last = finished.length ? finished[finished.length - 1] : null;
  let shown = current;
  let caption = "";
  let stale = false;
  if (!current && last) {
    shown = last;
    stale = true;
    caption = last.winner === c.me ? "You won the trick" : `${c.names[last.winner]} won the trick`;
  } else if (current) {
    caption = current.leader === c.me ? "You led" : `${c.names[current.leader]} led`;
  }
  const trickNo = current ? finished.length + 1 : finished.length;
  return h(
    "div",
    { class: `trick ${stale ? "finished" : ""}`.trim(), "data-area": "trick", role: "group", "aria-label": stale ? "Last trick" : "Current trick" },
    h(
      "div",
      { class: "trick-cards" },
      shown
        ? shown.cards.map(([code, seat]) =>
            h(
              "figure",
              { class: `played ${stale && seat === shown.winner ? "winner" : ""}`.trim(), "data-seat": seat },
              cardFace(code, c),
              h("figcaption", {}, c.names[seat])
            )
          )
        : h("p", { class: "trick-empty" }, v.phase === "play" ? "No card led yet" : "")
    ),
    h(
      "p",
      { class: "trick-caption", "data-trick-winner": stale && last ? last.winner : "" },
      trickNo ? h("span", { class: "trick-no" }, `Trick ${trickNo} of 12`) : null,
      caption ? h("span", { class: "sep", "aria-hidden": "true" }, " · ") : null,
      caption ? h("span", { class: "trick-what" }, caption) : null
    )
  );
}

function dealOverArea(c) {
  return h("div", { class: "summary", "data-area": "deal-over" }, lastDeal(c, "h2"));
}

function lastDeal(c, tag = "h3") {
  const v = c.view;
  const deal = (v.scores && v.scores.deal) || [0, 0];
  return h(
    "div",
    { class: "last-deal", "data-area": "last-deal" },
    h(tag, { class: "area-title" }, `Deal ${v.deal_number} scored`),
    h(
      "p",
      { class: "summary-scores" },
      `${c.names[c.me]} ${deal[c.me]}`,
      h("span", { class: "sep", "aria-hidden": "true" }, " · "),
      `${c.names[c.opp]} ${deal[c.opp]}`
    ),
    bonusBadges(c)
  );
}

function resultArea(c) {
  const r = c.view.result || {};
  let title = "A draw";
  if (r.winner === c.me && !c.watching) title = "You win the partie";
  else if (r.winner !== null && r.winner !== undefined) title = `${c.names[r.winner]} wins the partie`;
  const totals = r.totals || (c.view.scores && c.view.scores.partie) || [0, 0];
  const out = h(
    "div",
    { class: "result", "data-area": "result", "data-winner": r.winner === null || r.winner === undefined ? "" : r.winner },
    h("h2", { class: "result-title" }, title),
    // The last deal's result stays in view, then the whole sheet and the Rubicon sum.
    c.view.deal_number ? lastDeal(c) : null,
    h("div", { class: "final-sheet", "data-area": "final-sheet" }, scoresPanel(c, true)),
    h("p", { class: "result-totals" }, `${c.names[c.me]} ${totals[c.me]} · ${c.names[c.opp]} ${totals[c.opp]}`),
    r.text ? h("p", { class: "result-text" }, "Rubicon: ", h("span", { "data-result-text": "" }, r.text)) : null
  );
  const asked = c.room.rematch || [];
  if (c.room.opponent === "friend" && !c.watching) {
    // A new partie once both press "Play again"; the other seat deals first.
    if (asked.includes(c.me)) out.append(h("p", { class: "rematch", "data-rematch": "asked" }, `Waiting for ${c.names[c.opp]} to press Play again…`));
    else {
      if (asked.includes(c.opp)) out.append(h("p", { class: "rematch", "data-rematch": "invited" }, `${c.names[c.opp]} wants to play again.`));
      out.append(h("button", { type: "button", class: "button primary", "data-new-match": "confirm", "data-key": "nm-final" }, "Play again"));
    }
  } else if (c.room.can_new_match) {
    out.append(h("button", { type: "button", class: "button primary", "data-new-match": "confirm", "data-key": "nm-final" }, "New match"));
  }
  return out;
}

function waitingForFriend(c) {
  const other = (c.room.seats || [])[c.opp];
  return c.room.opponent === "friend" && !c.watching && !!other && !other.joined;
}

function middleArea(c) {
  const v = c.view;
  if (v.phase === "partie_over") return [resultArea(c)];
  if (waitingForFriend(c)) return [h("p", { class: "waiting-text" }, "The cut is made once your friend sits down.")];
  if (v.phase === "cut" || !v.deal_number) return [cutArea(c) || h("p", { class: "waiting-text" }, "Waiting for the cut…")];
  const out = [stockArea(c)];
  if (v.phase === "deal_over") out.push(dealOverArea(c));
  else out.push(trickArea(c));
  return out;
}

// ---- your hand and your choices -------------------------------------------------------

function handArea(c) {
  const v = c.view;
  if (c.watching) {
    const n = (v.hand_counts || [])[c.me] || 0;
    return n ? [h("span", { class: "fan watched", role: "img", "aria-label": `${c.names[c.me]} holds ${n} cards` }, Array.from({ length: n }, () => back()))] : [];
  }
  const hand = v.hand || [];
  const selecting = !!c.discard;
  const playing = c.plays.size > 0;
  return hand.map((code, i) => {
    const attrs = { "data-key": `card-${code}`, "data-index": i, tabindex: i === 0 ? "0" : "-1" };
    let cls = "in-hand";
    let label = c.cardName(code);
    if (selecting) {
      const on = c.ui.selected.has(code);
      attrs["aria-pressed"] = on ? "true" : "false";
      attrs["data-select"] = code;
      if (on) cls += " selected";
      label = `${label}${on ? ", selected to discard" : ""}`;
    } else if (playing) {
      const entry = c.plays.get(code);
      if (entry) {
        attrs["data-action"] = entry.index;
        attrs["data-type"] = "play";
        cls += " playable";
        label = entry.label && entry.label !== c.cardName(code) ? `${c.cardName(code)}: ${entry.label}` : `Play the ${c.cardName(code)}`;
      } else {
        attrs["aria-disabled"] = "true";
        cls += " unplayable";
      }
    }
    return cardFace(code, c, { button: true, cls, attrs, label });
  });
}

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

function promptText(c) {
  const v = c.view;
  if (c.watching) {
    const who = v.to_move === null || v.to_move === undefined ? "" : ` ${c.names[v.to_move]} to play.`;
    return `You are watching: you see what is public, never a hand.${v.phase === "partie_over" ? "" : who}`;
  }
  if (v.phase === "partie_over") return "The partie is over.";
  if (waitingForFriend(c)) return "Waiting for your friend to open the link…";
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

function actionsArea(c) {
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

// ---- this deal: exchange, declarations, what scored, what was shown ---------------

function bonusBadges(c) {
  const bonuses = c.view.bonuses || [];
  if (!bonuses.length) return null;
  return h(
    "ul",
    { class: "bonuses", "data-area": "bonuses" },
    bonuses.map((b) =>
      h(
        "li",
        { class: `bonus bonus-${b.kind}`, "data-bonus": b.kind },
        h("strong", {}, `${bonusName(b.kind)}:`),
        ` ${c.names[b.seat]} +${b.points}`
      )
    )
  );
}

/** "Elder: Point of six" -> "You: Point of six" (the engine words roles; we name seats). */
function saidLine(c, line) {
  const m = /^(Elder|Younger): (.*)$/.exec(line);
  if (!m || c.view.elder === null || c.view.elder === undefined) return line;
  const seat = m[1] === "Elder" ? c.view.elder : 1 - c.view.elder;
  return `${c.names[seat]}: ${m[2]}`;
}

function outcomeText(c, outcome) {
  if (outcome === "elder" || outcome === "younger") {
    const seat = outcome === "elder" ? c.view.elder : 1 - c.view.elder;
    return c.verb(seat, "win", "wins");
  }
  if (outcome === "equal") return "Equal: nobody scores";
  if (outcome === "none") return "Nobody";
  return outcome ? cap(String(outcome).replace(/_/g, " ")) : "";
}

function dealInfo(c) {
  const v = c.view;
  if (!v.deal_number) return [];
  const out = [];
  const badges = bonusBadges(c);
  if (badges && v.phase !== "deal_over" && v.phase !== "partie_over") out.push(badges);

  const decl = (v.declarations || []).filter((d) => d.said && d.said.length);
  if (decl.length) {
    out.push(
      h("h2", { class: "mini-title" }, "Declarations"),
      h(
        "ul",
        { class: "declarations" },
        decl.map((d) =>
          h(
            "li",
            { "data-category": d.category },
            h("span", { class: "decl-cat" }, CATEGORY_NAMES[d.category] || cap(d.category)),
            " ",
            d.outcome && d.outcome !== "pending" ? h("span", { class: "decl-outcome" }, outcomeText(c, d.outcome)) : null,
            h("ul", { class: "decl-said" }, d.said.map((line) => h("li", {}, saidLine(c, line))))
          )
        )
      )
    );
  }

  const combos = v.combos || [];
  const seeByCombo = new Map(c.sees.map((s) => [s.combo, s]));
  if (combos.length) {
    out.push(
      h("h2", { class: "mini-title" }, "Scored and tied"),
      h(
        "ul",
        { class: "combos" },
        combos.map((x) => {
          const see = seeByCombo.get(x.id);
          return h(
            "li",
            { "data-combo": x.id, "data-shown": x.shown ? "true" : "false" },
            h("span", { class: "combo-who" }, `${c.names[x.seat]}:`),
            " ",
            h("span", { class: "combo-label" }, x.label),
            h("span", { class: "combo-points" }, x.status === "scored" ? ` +${x.points}` : ` (${x.status})`),
            x.shown && x.cards ? cardRow(x.cards, c, "combo-cards") : null,
            see ? actionButton(see, c, "small see") : null
          );
        })
      )
    );
  }

  // A combination already shown above is not repeated; carte blanche and the like are.
  const shownCombos = new Set(combos.filter((x) => x.shown && x.cards).map((x) => [...x.cards].sort().join(" ")));
  shownCombos.add([...(v.exposed_stock || [])].sort().join(" ")); // on the stock already
  for (const s of v.shown || []) {
    if (shownCombos.has([...(s.cards || [])].sort().join(" "))) continue;
    out.push(
      h(
        "div",
        { class: "shown", "data-area": "shown", "data-seat": s.seat },
        h("h2", { class: "mini-title" }, `${s.seat === c.me ? "You showed" : `${c.names[s.seat]} showed`}: ${s.what}`),
        cardRow(s.cards || [], c)
      )
    );
  }

  const seen = v.seen_stock || [];
  if (seen.length) {
    out.push(
      h(
        "div",
        { class: "seen-stock", "data-area": "seen-stock" },
        h("h2", { class: "mini-title" }, "The rest of your five (only you see these)"),
        cardRow(seen, c)
      )
    );
  }
  return out;
}

// ---- the three panels -----------------------------------------------------------------

const PART_NAMES = { carte_blanche: "carte blanche", sequences: "sequences", sets: "sets", play: "play", cards: "the cards" };

/** "point 6 · play 11": what one seat scored in one deal, part by part. */
function partsText(parts) {
  return Object.entries(parts || {}).map(([name, points]) => `${PART_NAMES[name] || name} ${points}`).join(" · ");
}

function scoresPanel(c, withParts = false) {
  const sc = c.view.scores || {};
  const parts = sc.sheet_parts || [];
  const sheet = sc.sheet || [];
  const total = sc.partie || [0, 0];
  if (!sheet.length) return [h("p", {}, "Nothing has scored yet.")];
  return [
    h(
      "table",
      { class: "sheet" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Deal"), h("th", { scope: "col" }, c.names[c.me]), h("th", { scope: "col" }, c.names[c.opp]))),
      h(
        "tbody",
        {},
        sheet.map((row, i) =>
          h(
            "tr",
            { "data-deal": i + 1, class: i + 1 === c.view.deal_number && c.view.phase !== "deal_over" && c.view.phase !== "partie_over" ? "current" : "" },
            h("th", { scope: "row" }, `${i + 1}`),
            [c.me, c.opp].map((seat) =>
              h("td", { "data-seat": seat }, withParts ? [h("span", { class: "pts" }, row[seat]), h("small", { class: "parts" }, partsText((parts[i] || [])[seat]))] : row[seat])
            )
          )
        )
      ),
      h("tfoot", {}, h("tr", { "data-total": "" }, h("th", { scope: "row" }, "Total"), h("td", {}, total[c.me]), h("td", {}, total[c.opp])))
    ),
  ];
}

function cardsPanel(c) {
  const v = c.view;
  const out = [];
  const discards = v.discards || [];
  if (!c.watching) {
    out.push(
      h("h3", { class: "mini-title" }, "Your discards (only you see these)"),
      discards.length ? cardRow(discards, c, "my-discards") : h("p", {}, "None yet this deal.")
    );
  }
  const tricks = v.tricks || [];
  out.push(h("h3", { class: "mini-title" }, "Tricks this deal"));
  if (!tricks.length) out.push(h("p", {}, "No trick played yet."));
  else {
    out.push(
      h(
        "ol",
        { class: "trick-list" },
        tricks.map((t) =>
          h(
            "li",
            { "data-trick": "" },
            cardRow(t.cards.map(([code]) => code), c),
            h("span", { class: "trick-won" }, ` ${t.winner === c.me ? "You won" : `${c.names[t.winner]} won`}`)
          )
        )
      )
    );
  }
  const won = v.tricks_won || [0, 0];
  out.push(h("p", { class: "tricks-won" }, `Tricks won: you ${won[c.me]}, ${c.names[c.opp]} ${won[c.opp]}`));
  return out;
}

const UNSIGNED_KINDS = ["deal", "deal_end", "partie_end"];

export function logLineText(c, line) {
  const anon = line.seat === null || line.seat === undefined || UNSIGNED_KINDS.includes(line.kind);
  const who = anon ? "" : `${c.names[line.seat]}: `;
  // "score" and "bonus" lines already say what they scored.
  const pts = line.points && line.kind !== "score" && line.kind !== "bonus" ? ` (+${line.points})` : "";
  return `${who}${line.text}${pts}`;
}

function logPanel(c) {
  const log = c.view.log || [];
  const recent = log.slice(-60);
  if (!recent.length) return [h("p", {}, "Nothing yet.")];
  return [
    h(
      "ol",
      { class: "log", start: log.length - recent.length + 1 },
      recent.map((line) => h("li", { class: `log-${line.kind}`, "data-kind": line.kind }, logLineText(c, line)))
    ),
  ];
}

// ---- putting it together ----------------------------------------------------------------

function fill(root, selector, nodes) {
  const el = root.querySelector(selector);
  if (el) el.replaceChildren(...[nodes].flat(Infinity).filter((n) => n !== null && n !== undefined && n !== false));
}

function rememberFocus(root) {
  const active = document.activeElement;
  if (!active || !root.contains(active)) return null;
  const key = active.getAttribute("data-key");
  const inHand = active.closest("#hand");
  const index = inHand ? Number(active.getAttribute("data-index")) : -1;
  return { key, inHand: !!inHand, index, inTable: true };
}

function restoreFocus(root, memo, c) {
  if (!memo || !memo.inTable) return;
  if (root.contains(document.activeElement) && document.activeElement !== document.body) return;
  let target = memo.key ? root.querySelector(`[data-key="${CSS.escape(memo.key)}"]`) : null;
  if (!target && memo.inHand) {
    const cards = root.querySelectorAll("#hand button.card");
    target = root.querySelector("#hand .playable") || cards[Math.min(memo.index, cards.length - 1)] || null;
  }
  if (!target && c.myTurn) target = root.querySelector("#hand .playable, #actions [data-action]");
  if (target) target.focus({ preventScroll: true });
}

/** Redraws every region of the table from one state message. */
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
  fill(root, "#deal-info", dealInfo(c));
  fill(root, "#scores-body", scoresPanel(c));
  fill(root, "#cards-body", cardsPanel(c));
  fill(root, "#log-body", logPanel(c));
  renderPresence(root, msg.room, ui);

  const v = c.view;
  root.dataset.phase = v.phase;
  root.dataset.step = v.step || "";
  root.dataset.myTurn = c.myTurn ? "true" : "false";
  root.dataset.toMove = v.to_move === null || v.to_move === undefined ? "" : v.to_move === c.me ? "me" : "opponent";
  root.dataset.selecting = c.discard ? "true" : "false";
  restoreFocus(root, focus, c);
  return c;
}

/** The invite panel and presence line, also redrawn on `presence` messages. */
export function renderPresence(root, room, ui) {
  if (!room || !room.seats) return;
  const seat = root.dataset.seat === "1" ? 1 : root.dataset.seat === "watch" ? null : 0;
  const other = room.seats[1 - seat];
  const invite = root.querySelector("#invite");
  if (invite && seat === 0) {
    invite.hidden = room.opponent !== "friend" || !!(other && other.joined);
  }
  root.dataset.opponentJoined = other && other.joined ? "true" : "false";
  root.dataset.opponentConnected = other && other.connected ? "true" : "false";
}

export function bonusName(kind) {
  return BONUS_NAMES[kind] || cap(String(kind).replace(/_/g, " "));
}
