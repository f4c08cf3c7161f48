// Copy buttons: <button data-copy="ID"> copies the value (or text) of the element #ID and says
// so in <span data-copied="ID">. The clipboard API where the page may use it (https or
// localhost), else the input's text is selected and copied the old way.
(function () {
  "use strict";
  function said(id, text) {
    var out = document.querySelector('[data-copied="' + id + '"]');
    if (out) { out.textContent = text; }
  }
  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-copy]");
    if (!button) { return; }
    var id = button.dataset.copy, source = document.getElementById(id);
    if (!source) { return; }
    var text = "value" in source ? source.value : source.textContent;
    function fallback() {
      if (source.select) { source.select(); }
      var done = false;
      try { done = document.execCommand("copy"); } catch (e) { done = false; }
      said(id, done ? "Copied." : "Selected: press Ctrl+C (⌘C) to copy.");
    }
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(function () { said(id, "Copied."); }, fallback);
    } else {
      fallback();
    }
  });
})();
