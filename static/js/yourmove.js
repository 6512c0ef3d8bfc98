// yourmove.js: this seat's move while the table's tab is in the background (issue 36),
// fetched when the tab first goes to the background or notifications are asked for. While
// the tab is hidden and the partie waits for this seat, the title starts with "(Your
// move)" and the site's icon shows a dot; when it becomes this seat's move, a notification
// says so, if the visitor allowed them: asked only when the table's button is pressed.

import { t } from "./i18n.js";

const AWAY = t("(Your move) {title}");
const icon = document.querySelector("link[rel=icon]");
const plain = icon?.getAttribute("href") || "";
// The site's icon (an inline SVG) with a red dot in its corner.
const dotted = plain.replace(/%3C\/svg%3E$/, "%3Ccircle cx='25' cy='7' r='6.5' fill='%23e0342b' stroke='%23fdfbf4' stroke-width='2'/%3E%3C/svg%3E");
const notifying = () => "Notification" in window && Notification.permission === "granted";

let ui = null;
let base = "";
let was = false; // the partie waited for this seat at the last look
let shown = null; // the notification on screen

/** Called once (table.js, with its state and the page's own title); then `update` after
 * every drawing of the table. */
export function start(state, title) {
  ui = state;
  base = title;
  was = !!ui.myTurn; // a move already waiting when the tab went away is no news
  document.addEventListener("visibilitychange", update);
  update();
  return { update, ask };
}

function update() {
  const mine = !!ui.myTurn;
  const away = document.hidden && mine;
  document.title = away ? AWAY.replace("{title}", base) : ui.title || base;
  if (icon) icon.setAttribute("href", away ? dotted : plain);
  if (away && !was && notifying()) notify();
  if (!document.hidden) shown?.close();
  was = mine;
}

function notify() {
  const room = ui.lastState?.room;
  const other = room?.seats?.[1 - room.seat]?.name;
  shown?.close();
  shown = new Notification(t("Your move"), {
    body: other ? t("It is your move at the table with {name}.", { name: other }) : t("It is your move at the table."),
    tag: `piquet-${room?.room_id}`,
  });
  shown.onclick = () => {
    window.focus();
    shown.close();
  };
}

/** The button's click: the browser asks the visitor (once; its answer is kept by the
 * browser), and the button gives way to what was decided. */
async function ask(button) {
  let answer = "unsupported";
  if ("Notification" in window) answer = Notification.permission === "default" ? await Notification.requestPermission() : Notification.permission;
  const said = document.createElement("span");
  said.setAttribute("role", "status");
  said.dataset.notify = answer;
  said.textContent = answer === "granted" ? t("You will be told when it is your move.") : answer === "unsupported" ? t("This browser cannot tell you of your move.") : t("Notifications are blocked for this site in your browser's settings.");
  button.replaceWith(said);
}
