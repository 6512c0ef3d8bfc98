// prefs.js: the high-contrast switch and the computer's level, remembered on this device.
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

  // The lobby's computer level, remembered the same way.
  var LEVEL_KEY = "piquet.level";
  function restoreLevel() {
    var level = null;
    try { level = window.localStorage.getItem(LEVEL_KEY); } catch (e) { /* private mode */ }
    var radios = document.querySelectorAll("[data-level-choice]");
    for (var i = 0; i < radios.length; i++) {
      if (radios[i].value === level) radios[i].checked = true;
    }
  }

  apply(stored());
  document.addEventListener("DOMContentLoaded", function () {
    apply(stored());
    restoreLevel();
    document.addEventListener("change", function (event) {
      var radio = event.target;
      if (!radio || !radio.hasAttribute || !radio.hasAttribute("data-level-choice")) return;
      try { window.localStorage.setItem(LEVEL_KEY, radio.value); } catch (e) { /* session only */ }
    });
    document.addEventListener("click", function (event) {
      var button = event.target.closest && event.target.closest("[data-contrast-toggle]");
      if (!button) return;
      var on = !root.classList.contains("hc");
      store(on);
      apply(on);
    });
  });
})();
