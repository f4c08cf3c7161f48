// Times a person must act by: each <time data-countdown> shows its date and time in the
// viewer's own time zone and how long is left, counting down every second (parts of a page
// redrawn later are found at the next tick).
(function () {
  "use strict";
  var format = { weekday: "short", day: "numeric", month: "short", year: "numeric",
                 hour: "2-digit", minute: "2-digit", second: "2-digit", timeZoneName: "short" };
  function left(ms) {
    if (ms <= 0) { return "passed"; }
    var s = Math.round(ms / 1000), h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60);
    s = s % 60;
    return "in " + (h ? h + " h " : "") + (h || m ? m + " min " : "") + s + " s";
  }
  function tick() {
    Array.prototype.forEach.call(document.querySelectorAll("time[data-countdown]"), function (el) {
      var at = new Date(el.getAttribute("datetime"));
      if (isNaN(at)) { return; }
      if (!el.dataset.local) {
        el.dataset.local = at.toLocaleString(undefined, format);
        el.title = el.textContent;  // the server's text (UTC) stays readable on hover
      }
      el.textContent = el.dataset.local + " (" + left(at - Date.now()) + ")";
    });
  }
  tick();
  window.setInterval(tick, 1000);
})();
