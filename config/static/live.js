// Live pages (a running tournament, a league night being played): every few seconds the page
// is fetched again and its <main> swapped in, until it is no longer live. No framework, and
// nothing fetched but the page itself (same origin). A page whose form has the focus is left
// as it is until the next time.
(function () {
  "use strict";
  var seconds = Number(document.body.dataset.live || 0);
  if (!seconds) { return; }
  function refresh() {
    fetch(window.location.href, { headers: { "Accept": "text/html" }, cache: "no-store" })
      .then(function (answer) { return answer.ok ? answer.text() : null; })
      .then(function (html) {
        if (!html) { window.setTimeout(refresh, seconds * 2000); return; }  // try again later
        var page = new DOMParser().parseFromString(html, "text/html");
        var fresh = page.querySelector("main"), focus = document.activeElement;
        // Not while a person is filling a form in the page (an organiser's): next time.
        var typing = focus && focus.closest && focus.closest("main form");
        if (fresh && !typing) { document.querySelector("main").innerHTML = fresh.innerHTML; }
        if (page.body.dataset.live) { window.setTimeout(refresh, seconds * 1000); }
        else { delete document.body.dataset.live; }  // over: no more refreshing
      })
      .catch(function () { window.setTimeout(refresh, seconds * 2000); });
  }
  window.setTimeout(refresh, seconds * 1000);
})();
