// strangers.js: a table anyone may sit down at (issue 37), fetched only there: its place
// in the lobby (its maker's page), a player who is away, and a partie ended as abandoned.
// Drawn after the table, from the same state; the server decides everything.

import { h, sheet } from "./kit.js";
import { t, nt } from "./i18n.js";

const LISTED = {
  listed: t("Your table waits in the lobby for {wait}: anyone may sit down."),
  expired: t("Nobody sat down in {wait}, so your table left the lobby. Wait again, or play the computer."),
  unlisted: t("Your table is not in the lobby. List it again, or play the computer."),
  elsewhere: t("You sat down at another table, so this one left the lobby."),
};

let styled = null;
let last = null; // the state drawn last, for the clock and the buttons
let send = null;
let awaySince = null; // when the other seat went away, by this page's clock
let ticking = null;

export function decorate(root, msg, socket) {
  styled ||= sheet("/static/css/strangers.css");
  if (!send) listen(root, socket);
  last = msg;
  if (msg.room.seating === "open") wording(root);
  listing(root, msg.room);
  absence(root, msg);
  abandoned(root, msg);
}

function listing(root, room) {
  const status = root.querySelector("#listing-status");
  const toggle = root.querySelector("#listing-toggle");
  if (!status || !toggle || !room.listing) return;
  status.dataset.listing = room.listing;
  status.textContent = LISTED[room.listing].replace("{wait}", status.dataset.wait);
  toggle.dataset.listed = room.listing === "listed";
  toggle.textContent = room.listing === "listed" ? t("Take it out of the lobby") : t("Wait again in the lobby");
}

/** A stranger, not a friend, is awaited. */
function wording(root) {
  const waiting = root.querySelector("[data-presence=waiting]");
  if (!waiting) return;
  waiting.textContent = t("Waiting for someone to sit down…");
  const cut = root.querySelector("#middle .waiting-text");
  if (cut) cut.textContent = t("The cut is made once someone sits down.");
  const prompt = root.querySelector("#prompt")?.firstChild;
  if (prompt?.nodeType === Node.TEXT_NODE) prompt.data = t("Waiting for someone to sit down…");
}

async function setListed(root, listed) {
  const status = root.querySelector("#listing-status");
  try {
    const answer = await fetch(`/r/${encodeURIComponent(root.dataset.roomId)}/listing`, {
      method: "POST",
      credentials: "same-origin",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ listed }),
    });
    if (!answer.ok) status.textContent = (await answer.json()).detail || t("That was refused.");
  } catch (err) {
    status.textContent = t("Not connected: try again in a moment.");
  }
}

function listen(root, socket) {
  send = socket;
  root.addEventListener("click", (event) => {
    const target = event.target.closest("#listing-toggle, [data-away]");
    if (!target || !last) return;
    if (target.id === "listing-toggle") return setListed(root, target.dataset.listed !== "true");
    if (target.dataset.away === "abandon") send.change("abandon", last.version);
    else send.computerSeat(last.version, root.querySelector("#computer-level")?.value || "basic");
  });
}

/** The other seat's absence: after a minute, the computer may take it; after three, the
 * partie may end, abandoned by it. A seat's own page only; redrawn as the minutes pass. */
function absence(root, msg) {
  const box = root.querySelector("#away");
  const me = msg.room.seat;
  const other = me == null ? null : msg.room.seats[1 - me];
  const away = other && other.joined && !other.connected && msg.room.opponent === "friend" ? other.away ?? 0 : null;
  awaySince = away == null ? null : Math.min(awaySince ?? Infinity, Date.now() - away * 1000);
  clearTimeout(ticking);
  if (!box) return;
  // After these, the other may give the seat to the computer, then end the partie.
  const [awayAfter, abandonAfter] = [+box.dataset.awayAfter, +box.dataset.abandonAfter];
  const seconds = awaySince == null ? 0 : (Date.now() - awaySince) / 1000;
  box.hidden = seconds < awayAfter;
  if (box.hidden) {
    if (awaySince != null) ticking = setTimeout(() => absence(root, last), (awayAfter - seconds) * 1000 + 50);
    return box.replaceChildren();
  }
  const name = other.name;
  const minutes = Math.floor(seconds / 60);
  const over = msg.view.phase === "partie_over";
  box.replaceChildren(
    h("p", {}, minutes < 1 ? t("{name} is away from the table.", { name }) : nt("{name} has been away for a minute.", "{name} has been away for {n} minutes.", minutes, { name })),
    h("button", { type: "button", class: "button", "data-away": "computer" }, t("Give {name}'s seat to the computer", { name })),
    seconds >= abandonAfter && !over ? h("button", { type: "button", class: "button", "data-away": "abandon" }, t("End the partie: {name} abandoned it", { name })) : null
  );
  ticking = setTimeout(() => absence(root, last), Math.min(15, Math.max(1, abandonAfter - seconds)) * 1000);
}

function abandoned(root, msg) {
  const seat = msg.view.result?.abandoned;
  const text = root.querySelector("#middle .result-text");
  if (seat == null || !text) return;
  const name = msg.room.seats[seat]?.name;
  text.dataset.abandoned = seat;
  text.textContent = seat === msg.room.seat ? t("You left the table, so the partie ended: abandoned by you.") : t("{name} left the table, so the partie ended: abandoned by {name}.", { name });
}
