// invite.js: the maker copies the link; the friend's first visit takes the seat.
import { t } from "./i18n.js";

export async function copyLink() {
  const input = document.getElementById("invite-url");
  const status = document.getElementById("copy-status");
  if (!input) return;
  let ok = false;
  try {
    await navigator.clipboard.writeText(input.value);
    ok = true;
  } catch (err) {
    input.focus();
    input.select();
    try {
      ok = document.execCommand("copy");
    } catch (err2) {
      ok = false;
    }
  }
  if (status) status.textContent = ok ? t("Link copied. Send it to your friend.") : t("Select the link and copy it.");
}

// The page, not the GET that loaded it, takes the free seat: a chat app previewing the link
// takes nothing (docs/protocol.md). Seat gone or table gone: the server's page says so.
// At a table under variants the friend reads the rules first, and sits by pressing "Take
// the seat" (RULES.md §8: agreed before the cut, which taking the seat makes).
export async function claimSeat(root, then) {
  const sit = root.querySelector("[data-sit]");
  if (sit && !sit.disabled) {
    sit.addEventListener("click", () => ((sit.disabled = true), claimSeat(root, then)), { once: true });
    return;
  }
  const again = () => setTimeout(() => claimSeat(root, then), 2000);
  let response;
  try {
    response = await fetch(`/r/${encodeURIComponent(root.dataset.roomId)}/seat`, {
      method: "POST",
      credentials: "same-origin",
    });
  } catch (err) {
    again(); // offline for a moment: try again
    return;
  }
  if (response.status === 404 || response.status === 409) {
    location.reload();
    return;
  }
  if (response.status === 422) {
    // A name like the other player's: said, with the way to another name.
    const banner = document.getElementById("conn-banner");
    document.getElementById("conn-text").textContent = (await response.json()).detail;
    const link = Object.assign(document.createElement("a"), { className: "button conn-action", href: "/#name", textContent: t("Choose another name") });
    banner.append(link);
    banner.classList.add("fatal");
    banner.hidden = false;
    return;
  }
  if (!response.ok) {
    again();
    return;
  }
  delete root.dataset.claim;
  root.querySelector("#sit")?.remove();
  root.querySelector("#rules-here")?.removeAttribute("open");
  then();
}
