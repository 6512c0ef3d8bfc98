// prefs.js: the high-contrast switch, remembered on this device.
// A classic script loaded in <head> so the setting applies before the first paint.
(function () {
  "use strict";
  var KEY = "piquet.highContrast";
  var root = document.documentElement;

  function stored() {
    try { return window.localStorage.getItem(KEY) === "1"; } catch (e) { return false; }
  }
  function store(on) {
    try { window.localStorage.setItem(KEY, on ? "1" : "0"); } catch (e) { /* private mode: session only */ }
  }
  function apply(on) {
    root.classList.toggle("hc", on);
    var buttons = document.querySelectorAll("[data-contrast-toggle]");
    for (var i = 0; i < buttons.length; i++) {
      buttons[i].setAttribute("aria-pressed", on ? "true" : "false");
    }
  }

  apply(stored());
  document.addEventListener("DOMContentLoaded", function () {
    apply(stored());
    document.addEventListener("click", function (event) {
      var button = event.target.closest && event.target.closest("[data-contrast-toggle]");
      if (!button) return;
      var on = !root.classList.contains("hc");
      store(on);
      apply(on);
    });
  });
})();
