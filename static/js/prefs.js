// prefs.js: the high-contrast switch and the lobby's computer level, kept on this device.
// A classic script in <head>, so the setting applies before the first paint.
{
  const KEY = "piquet.highContrast";
  const LEVEL_KEY = "piquet.level";
  // (Private mode: for this session only.)
  const get = (key) => {
    try {
      return localStorage.getItem(key);
    } catch (e) {
      return null;
    }
  };
  const set = (key, value) => {
    try {
      localStorage.setItem(key, value);
    } catch (e) {}
  };
  const apply = (on) => {
    document.documentElement.classList.toggle("hc", on);
    for (const button of document.querySelectorAll("[data-contrast-toggle]")) button.setAttribute("aria-pressed", on);
  };

  apply(get(KEY) === "1");
  document.addEventListener("DOMContentLoaded", () => {
    apply(get(KEY) === "1");
    for (const radio of document.querySelectorAll("[data-level-choice]")) if (radio.value === get(LEVEL_KEY)) radio.checked = true;
    document.addEventListener("change", (event) => event.target.hasAttribute?.("data-level-choice") && set(LEVEL_KEY, event.target.value));
    document.addEventListener("click", (event) => {
      if (!event.target.closest?.("[data-contrast-toggle]")) return;
      const on = !document.documentElement.classList.contains("hc");
      set(KEY, on ? "1" : "0");
      apply(on);
    });
  });
}
