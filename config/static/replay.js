// The replay viewer: step through a match's log without reloading the page. Buttons, the
// turn box and the keys (left/right arrows, Home, End) fetch that turn's frame; the address
// keeps ?turn=N, so every turn has a deep link.
(function () {
  "use strict";
  var nav = document.querySelector("nav.replay");
  var frame = document.getElementById("frame");
  if (!nav || !frame) { return; }
  var last = Number(nav.dataset.last);
  var box = nav.querySelector("input[name=turn]");
  function current() { return Number(frame.querySelector(".frame").dataset.turn); }
  function show(turn) {
    turn = Math.max(0, Math.min(last, turn));
    fetch("?turn=" + turn + "&partial=1", { headers: { "Accept": "text/html" } })
      .then(function (answer) { return answer.ok ? answer.text() : null; })
      .then(function (html) {
        if (html === null) { return; }
        frame.innerHTML = html;
        box.value = turn;
        var links = nav.querySelectorAll("a.step");
        links[1].dataset.turn = Math.max(turn - 1, 0);
        links[2].dataset.turn = Math.min(turn + 1, last);
        links[1].href = "?turn=" + links[1].dataset.turn;
        links[2].href = "?turn=" + links[2].dataset.turn;
        window.history.replaceState(null, "", "?turn=" + turn);
      });
  }
  nav.addEventListener("click", function (event) {
    var link = event.target.closest("a.step");
    if (!link) { return; }
    event.preventDefault();
    show(Number(link.dataset.turn));
  });
  nav.querySelector("form").addEventListener("submit", function (event) {
    event.preventDefault();
    show(Number(box.value));
  });
  document.addEventListener("keydown", function (event) {
    if (event.target === box) { return; }
    var keys = { ArrowLeft: current() - 1, ArrowRight: current() + 1, Home: 0, End: last };
    if (event.key in keys) { event.preventDefault(); show(keys[event.key]); }
  });
})();
