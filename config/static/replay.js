// The replay viewer: step through a match's log without reloading the page, and follow a
// running match live. Keys (left/right arrows, Home, End), buttons, the turn box, the move list
// and autoplay all set the turn wanted, absolutely: 20 quick presses of → go 20 turns on,
// whatever frame is on screen meanwhile, and only the answer for the latest turn wanted is
// drawn (asked again if its request fails). The address keeps ?turn=N, so every turn has a
// deep link; the scrubber (a range)
// drags to any turn. A running match is followed
// through the public view API's long poll (?wait= with the ETag, or after= the last version
// known): a new version extends the log and the move list, a viewer at the last turn moves on
// with it, and the end of the match redraws the head and the frame (every hand face up).
(function () {
  "use strict";
  var nav = document.querySelector("nav.replay");
  var frame = document.getElementById("frame");
  if (!nav || !frame) { return; }
  var last = Number(nav.dataset.last);
  var box = nav.querySelector("input[name=turn]");
  var scrub = nav.querySelector("input[data-scrub]");  // the turn scrubber: drag to any turn
  var moves = document.getElementById("moves");
  var api = "/api/matches/" + nav.dataset.match + "/view/";
  var wanted = Number(frame.querySelector(".frame").dataset.turn);
  var asked = 0;  // the latest frame request: answers to older ones are dropped
  var etag = null;
  var timer = null;

  function get(url) {
    return fetch(url, { headers: { "Accept": "text/html" }, cache: "no-store" })
      .then(function (answer) { return answer.ok ? answer.text() : null; });
  }
  function steps() {
    var to = { first: 0, back: Math.max(wanted - 1, 0), forward: Math.min(wanted + 1, last),
               last: last };
    Array.prototype.forEach.call(nav.querySelectorAll("a.step"), function (link) {
      link.href = "?turn=" + to[link.dataset.step];
    });
    if (!moves) { return; }
    var before = moves.querySelector("a.current");
    if (before) { before.classList.remove("current"); before.removeAttribute("aria-current"); }
    var now = moves.querySelector('a[data-turn="' + wanted + '"]');
    if (!now) { return; }
    now.classList.add("current");
    now.setAttribute("aria-current", "step");
    var list = now.closest("ol");  // keep the current move in sight, the page itself unmoved
    var item = now.parentNode;
    if (item.offsetTop < list.scrollTop || item.offsetTop + item.offsetHeight > list.scrollTop + list.clientHeight) {
      list.scrollTop = item.offsetTop - list.clientHeight / 2;
    }
  }
  function show(turn) {
    wanted = Math.max(0, Math.min(last, turn));
    box.value = wanted;
    if (scrub) { scrub.value = wanted; }
    steps();
    window.history.replaceState(null, "", "?turn=" + wanted);
    return load(++asked, 0);
  }
  // The frame of the latest turn wanted, drawn even when its request fails on the way (a
  // server busy for a moment, a dropped connection): asked again after 0.3, 0.6 and 1.2 s,
  // then the whole page is loaded at that turn, so a viewer never stays on an older frame
  // with the newer turn in the box. An answer to an older request is never drawn.
  var RETRIES = 3;
  function load(mine, tries) {
    function failed() {
      if (mine !== asked) { return; }
      if (tries >= RETRIES) { window.location.assign("?turn=" + wanted); return; }
      return new Promise(function (done) { window.setTimeout(done, 300 * Math.pow(2, tries)); })
        .then(function () { if (mine === asked) { return load(mine, tries + 1); } });
    }
    return get("?turn=" + wanted + "&partial=1").then(function (html) {
      if (mine !== asked) { return; }
      if (html === null) { return failed(); }
      swapFrame(html);
    }, failed);
  }
  // A seat's own view unfolded stays unfolded from turn to turn.
  function swapFrame(html) {
    var open = Array.prototype.map.call(frame.querySelectorAll("details.seat-view[open]"),
                                        function (d) { return d.dataset.seat; });
    var spectator = frame.querySelector("details.spectator[open]");
    frame.innerHTML = html;
    open.forEach(function (seat) {
      var d = frame.querySelector('details.seat-view[data-seat="' + seat + '"]');
      if (d) { d.open = true; }
    });
    var again = spectator && frame.querySelector("details.spectator");
    if (again) { again.open = true; }
  }
  if (scrub) {
    scrub.addEventListener("input", function () { stop(); show(Number(scrub.value)); });
  }
  function target(step) {
    return { first: 0, back: wanted - 1, forward: wanted + 1, last: last }[step];
  }
  nav.addEventListener("click", function (event) {
    var link = event.target.closest("a.step");
    if (link) { event.preventDefault(); stop(); show(target(link.dataset.step)); return; }
    var play = event.target.closest("button[data-play]");
    if (play) { if (timer) { stop(); } else { start(); } }
  });
  nav.querySelector("form").addEventListener("submit", function (event) {
    event.preventDefault();
    stop();
    show(Number(box.value));
  });
  if (moves) {
    moves.addEventListener("click", function (event) {
      var link = event.target.closest("a[data-turn]");
      if (!link) { return; }
      event.preventDefault();
      stop();
      show(Number(link.dataset.turn));
    });
  }
  document.addEventListener("keydown", function (event) {
    if (event.target === box || event.target === scrub || event.target.tagName === "SELECT") { return; }
    var keys = { ArrowLeft: "back", ArrowRight: "forward", Home: "first", End: "last" };
    if (event.key in keys) { event.preventDefault(); stop(); show(target(keys[event.key])); }
  });

  // Autoplay: one turn per tick at the speed chosen, until the last turn (then it waits
  // there for a live match's next move).
  var button = nav.querySelector("button[data-play]");
  var speed = nav.querySelector("select[data-speed]");
  function tick() { if (wanted < last) { show(wanted + 1); } else if (nav.dataset.status === "finished") { stop(); } }
  function start() {
    if (wanted >= last && nav.dataset.status === "finished") { show(0); }
    timer = window.setInterval(tick, 1000 / Number(speed.value));
    button.textContent = "❚❚ pause";
  }
  function stop() {
    if (!timer) { return; }
    window.clearInterval(timer);
    timer = null;
    button.textContent = "▷ play";
  }
  if (speed) { speed.addEventListener("change", function () { if (timer) { stop(); start(); } }); }

  // Following a match that is not over.
  function swap(html, selector) {
    var fresh = new DOMParser().parseFromString(html, "text/html").querySelector(selector);
    var old = document.querySelector(selector);
    if (fresh && old) { old.innerHTML = fresh.innerHTML; }
  }
  function deadline(view) {  // the clock of the move due now, from the API's answer
    var due = document.querySelector("[data-deadline]");
    if (!due) { return; }
    var time = due.querySelector("time");
    if (view.status === "running" && view.deadline) {
      if (time.getAttribute("datetime") !== view.deadline) {
        time.setAttribute("datetime", view.deadline);
        delete time.dataset.local;
      }
      due.hidden = false;
    } else {
      due.hidden = true;
    }
  }
  function update(view) {
    deadline(view);
    var statusChanged = view.status !== nav.dataset.status;
    if (view.version === last && !statusChanged) { return Promise.resolve(); }
    var following = wanted === last;
    last = view.version;
    nav.dataset.last = last;
    nav.dataset.status = view.status;
    box.max = last;
    if (scrub) { scrub.max = last; }
    nav.querySelector("span[data-last]").textContent = last;
    var done = [];
    if (moves && statusChanged) {  // now disclosed: every entry again, with its action
      done.push(get("?partial=moves").then(function (html) { if (html !== null) { moves.innerHTML = html; steps(); } }));
    } else if (moves) {  // only the entries not listed yet
      var list = moves.querySelector("ol");
      done.push(get("?partial=moves&since=" + list.children.length).then(function (html) {
        if (html !== null) { list.insertAdjacentHTML("beforeend", html); steps(); }
      }));
    }
    if (statusChanged) {
      done.push(get("?turn=" + last).then(function (html) { if (html !== null) { swap(html, "#match-head"); } }));
      if (view.status === "finished") {
        var badge = nav.querySelector("[data-live]");
        if (badge) { badge.remove(); }
      }
    }
    if (following || statusChanged) { done.push(show(following ? last : wanted)); }
    else { steps(); }
    return Promise.all(done);
  }
  var GAP = 250;  // ms at least between two polls: a fast match stays under the spectate rate
  var polled = 0;
  function follow() {
    if (nav.dataset.status === "finished") { return; }
    var wait = polled + GAP - Date.now();
    if (wait > 0) { window.setTimeout(follow, wait); return; }
    polled = Date.now();
    var headers = etag ? { "If-None-Match": etag } : {};
    fetch(api + "?wait=25&after=" + last, { headers: headers, cache: "no-store" })
      .then(function (answer) {
        if (answer.status === 304) { return follow(); }
        if (!answer.ok) { throw new Error("status " + answer.status); }
        etag = answer.headers.get("ETag");
        return answer.json().then(update).then(follow);
      })
      .catch(function () { window.setTimeout(follow, 3000); });
  }
  steps();
  follow();
})();
