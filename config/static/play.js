// Play a seat in the browser through the polling API, as any client does: take a seat
// (POST .../join/), long-poll the seat (GET .../seats/N/?wait=25 with the ETag), act (POST
// .../seats/N/actions/ with the version seen), and redraw the seat from the page (?partial=1).
// A long group of actions is built from its cards and values instead of picked from a list.
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
  // What has the keyboard's focus in the seat, by a name that survives a redraw (its id,
  // name or action), so that a redraw gives the focus back to the same control.
  var KEYS = ["id", "name", "data-action", "data-join", "data-card", "data-built"];
  function focused() {
    var el = document.activeElement;
    if (!el || el === box || !box.contains(el)) { return null; }
    for (var i = 0; i < KEYS.length; i++) {
      if (el.hasAttribute(KEYS[i])) {
        return "[" + KEYS[i] + '="' + CSS.escape(el.getAttribute(KEYS[i])) + '"]';
      }
    }
    return null;
  }
  // The move panel folded by the person stays folded when the seat is drawn again.
  function folded() {
    var panel = box.querySelector("details.move-panel");
    return panel ? !panel.open : box.dataset.folded === "1";
  }
  function redraw() {
    return fetch("?partial=1", { credentials: "same-origin", cache: "no-store" })
      .then(function (answer) { return answer.text(); })
      .then(function (html) {
        var selector = focused();
        box.dataset.folded = folded() ? "1" : "";
        box.innerHTML = html;
        var panel = box.querySelector("details.move-panel");
        if (panel && box.dataset.folded) { panel.open = false; }
        var again = selector && box.querySelector(selector);
        if (again) { again.focus(); }
      });
  }
  // The seat as the page shows it already: a poll answer at this version and status changes
  // nothing on screen (the first poll, which has no ETag yet, most often).
  function shown(body) {
    var frame = box.querySelector(".seat-frame");
    return frame && frame.dataset.version === String(body.version) &&
      frame.dataset.status === body.status;
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
    } else if (button.dataset.built) {
      act(button.dataset.built);
    } else if (button.dataset.card) {
      button.setAttribute("aria-pressed", button.getAttribute("aria-pressed") === "true" ? "false" : "true");
      rebuild(button.closest("[data-builder]"));
    }
  });
  box.addEventListener("change", function (event) {
    var builder = event.target.closest("[data-builder]");
    if (builder) { rebuild(builder); }
  });
  // A long group built from controls (games/action_builder.py): what is pressed and picked,
  // as canonical JSON (keys sorted, as the server wrote each legal action), is looked up among
  // the legal actions; only a legal one can be played.
  function canonical(value) {
    if (Array.isArray(value)) { return "[" + value.map(canonical).join(",") + "]"; }
    if (value && typeof value === "object") {
      return "{" + Object.keys(value).sort().map(function (key) {
        return JSON.stringify(key) + ":" + canonical(value[key]);
      }).join(",") + "}";
    }
    return JSON.stringify(value);
  }
  function rebuild(builder) {
    var action = { type: builder.dataset.type };
    Array.prototype.forEach.call(builder.querySelectorAll("select[data-field]"), function (pick) {
      action[pick.dataset.field] = JSON.parse(pick.value);
    });
    Array.prototype.forEach.call(builder.querySelectorAll(".build-cards"), function (row) {
      var cards = {};
      Array.prototype.forEach.call(row.querySelectorAll('[aria-pressed="true"]'), function (card) {
        cards[card.dataset.card] = (cards[card.dataset.card] || 0) + 1;
      });
      action[row.dataset.field] = cards;
    });
    var text = canonical(action), index = JSON.parse(builder.dataset.legal).indexOf(text);
    var play = builder.querySelector("[data-built]"), note = builder.querySelector("[data-built-note]");
    play.disabled = index < 0;
    if (index >= 0) {
      play.dataset.built = text;
      builder.querySelector("[data-built-label]").textContent = JSON.parse(builder.dataset.labels)[index];
      note.textContent = "";
    } else {
      note.textContent = "Not a legal move: press other cards or pick other values.";
    }
  }
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
          return answer.json().then(function (body) {
            return shown(body) ? null : redraw();
          }).then(poll);
        }
        window.setTimeout(poll, answer.status === 304 ? 0 : 3000);
      })
      .catch(function () { window.setTimeout(poll, 3000); });
  }
  if (box.dataset.seat) { poll(); }
})();
