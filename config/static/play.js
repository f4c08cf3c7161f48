// Play a seat in the browser through the polling API, as any client does: take a seat
// (POST .../join/), long-poll the seat (GET .../seats/N/?wait=25 with the ETag), act (POST
// .../seats/N/actions/ with the version seen), and redraw the seat from the page (?partial=1).
(function () {
  "use strict";
  var box = document.getElementById("play");
  if (!box) { return; }
  var api = "/api/matches/" + box.dataset.match + "/";
  var csrf = box.dataset.csrf;
  var etag = null;

  function post(url, body) {
    return fetch(url, { method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf },
      body: JSON.stringify(body || {}) });
  }
  function redraw() {
    return fetch("?partial=1", { credentials: "same-origin", cache: "no-store" })
      .then(function (answer) { return answer.text(); })
      .then(function (html) { box.innerHTML = html; });
  }
  function failed(answer) {
    return answer.json().then(function (body) {
      var line = box.querySelector(".error");
      line.textContent = (body.code || "error") + ": " + (body.detail || answer.status);
      line.hidden = false;
    });
  }
  function act(action) {
    var frame = box.querySelector(".seat-frame");
    post(api + "seats/" + box.dataset.seat + "/actions/",
         { version: Number(frame.dataset.version), action: JSON.parse(action) })
      .then(function (answer) { return answer.ok ? redraw() : failed(answer).then(redraw); });
  }
  box.addEventListener("click", function (event) {
    var button = event.target.closest("button");
    if (!button) { return; }
    if (button.dataset.join) {
      post(api + "join/").then(function (answer) {
        if (answer.ok) { window.location.reload(); } else { failed(answer); }
      });
    } else if (button.dataset.action) {
      act(button.dataset.action);
    }
  });
  box.addEventListener("submit", function (event) {
    event.preventDefault();
    var chosen = event.target.querySelector("select").value;
    if (chosen) { act(chosen); }
  });
  // A long list of one type of action: show only the options holding every word typed, and
  // keep one of them chosen, so Enter or Play plays what is seen.
  box.addEventListener("input", function (event) {
    if (!event.target.matches("[data-filter]")) { return; }
    var form = event.target.closest("form");
    var select = form.querySelector("select");
    var words = event.target.value.toLowerCase().split(/\s+/).filter(Boolean);
    var shown = 0;
    Array.prototype.forEach.call(select.options, function (option) {
      var text = option.text.toLowerCase();
      option.hidden = !words.every(function (word) { return text.indexOf(word) >= 0; });
      if (!option.hidden) { shown += 1; }
    });
    var current = select.selectedOptions[0];
    if (!current || current.hidden) {
      var first = Array.prototype.find.call(select.options, function (o) { return !o.hidden; });
      select.value = first ? first.value : "";
    }
    form.querySelector("[data-shown]").textContent =
      shown + " of " + select.options.length + " shown";
  });
  function poll() {
    var frame = box.querySelector(".seat-frame");
    if (!box.dataset.seat || (frame && frame.dataset.status === "finished")) { return; }
    var headers = etag ? { "If-None-Match": etag } : {};
    fetch(api + "seats/" + box.dataset.seat + "/?wait=25", { credentials: "same-origin", headers: headers })
      .then(function (answer) {
        if (answer.status === 200) {
          etag = answer.headers.get("ETag");
          return redraw().then(poll);
        }
        window.setTimeout(poll, answer.status === 304 ? 0 : 3000);
      })
      .catch(function () { window.setTimeout(poll, 3000); });
  }
  if (box.dataset.seat) { poll(); }
})();
