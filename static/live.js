// Pages that update themselves. A page with [data-live] polls that address every
// [data-every] seconds (0: never) with If-None-Match (304 while nothing happened).
// When the game (or one of my games) moved, the page reloads, unless the player has a
// half-made choice on it or is at it (touched, typed or focused a control in the last
// few seconds): then a banner says so instead, and the page never moves under them. The game page also lists, at its top, what the
// others did since this browser last looked (the last seen seq is kept per game in
// localStorage), and the dashboard counts the games waiting in a favicon badge. When
// the turn arrives or leaves (or the dashboard's count moves) the tab's title, its
// favicon's mark and the header's count follow at once, even while a banner holds
// the reload back.
(function () {
  "use strict";
  var hook = document.querySelector("[data-live]");
  if (!hook) return;
  var EVERY = 1000 * parseInt(hook.getAttribute("data-every") || "3", 10);
  var BUSY = 15000; // a player who touched the page this recently is at it
  var touched = 0;
  ["pointerdown", "keydown", "input", "focusin"].forEach(function (kind) {
    document.addEventListener(kind, function () { touched = Date.now(); }, true);
  });
  var url = hook.getAttribute("data-live");
  var game = hook.getAttribute("data-game");
  var seq = hook.getAttribute("data-seq");
  var tag = hook.getAttribute("data-tag") || (seq && "seq-" + seq);
  // The words of the page's language (#page-words), English when the page has none.
  var counted = { one: "{n} new event since you last looked", other: "{n} new events since you last looked" };
  try {
    var words = JSON.parse(document.getElementById("page-words").textContent);
    if (typeof words.news_one === "string") counted.one = words.news_one;
    if (typeof words.news_other === "string") counted.other = words.news_other;
  } catch (e) { /* keep the English */ }

  var text = { your_turn: "(your turn)", title: document.title, waiting_one: "{n} game waiting for you", waiting_other: "{n} games waiting for you" };
  try {
    var said = JSON.parse(document.getElementById("page-words").textContent);
    Object.keys(text).forEach(function (k) { if (typeof said[k] === "string") text[k] = said[k]; });
  } catch (e) { /* keep the English */ }
  var icon = document.querySelector('link[rel="icon"]');
  var shown = {
    yours: !!icon && icon.getAttribute("data-yours") === "true",
    count: icon ? parseInt(icon.getAttribute("data-waiting") || "0", 10) || 0 : 0,
  };

  // The title, favicon and header say whose move it is (as base.html writes them).
  function retitle(yours, count) {
    if (yours === shown.yours && count === shown.count) return;
    shown = { yours: yours, count: count };
    document.title = (yours ? text.your_turn + " " : "") +
      (count && !(yours && count === 1) ? "(" + count + ") " : "") + text.title;
    if (icon) {
      var marked = game ? yours : count > 0;
      icon.href = icon.getAttribute(marked ? "data-turn" : "data-plain") || icon.href;
    }
    var nav = document.querySelector(".waiting-count");
    if (nav) {
      nav.hidden = !count;
      nav.querySelector(".badge").textContent = String(count);
      nav.querySelector(".sr-only").textContent = (count === 1 ? text.waiting_one : text.waiting_other).replace("{n}", String(count));
    }
  }

  function seenKey(id) { return "pbem.seen." + id; }

  function remembered(id) {
    try { return parseInt(localStorage.getItem(seenKey(id)) || "", 10); } catch (e) { return NaN; }
  }

  function remember(id, at) {
    try { localStorage.setItem(seenKey(id), String(at)); } catch (e) { /* private mode */ }
  }

  function halfMade() {
    var form = document.getElementById("turn-form");
    if (!form) return false;
    var changed = Array.prototype.some.call(form.elements, function (el) {
      if (el.type === "hidden" || el.type === "submit" || el.type === "button") return false;
      if (el.type === "radio" || el.type === "checkbox") return el.checked !== el.defaultChecked;
      if (el.tagName === "SELECT") {
        return Array.prototype.some.call(el.options, function (o) { return o.selected !== o.defaultSelected; });
      }
      return el.value !== el.defaultValue;
    });
    return changed || !!document.querySelector('#turn [aria-pressed="true"], .picked');
  }

  function atIt() {
    var active = document.activeElement;
    var inForm = active && active !== document.body && active.closest && active.closest("form, #turn");
    return Date.now() - touched < BUSY || !!inForm;
  }

  function movedOn() {
    if (halfMade() || atIt()) {
      var banner = document.getElementById("moved-on");
      if (banner) banner.hidden = false;
      return false;
    }
    window.location.reload();
    return true;
  }

  // A game page tells the server, on its first poll while in view, how far it has
  // shown the game: mails of what its player has seen here are then not sent.
  var acked = !game || !seq;

  function poll() {
    if (document.hidden) return schedule();
    var headers = tag ? { "If-None-Match": '"' + tag + '"' } : {};
    if (!acked) headers["X-Pbem-Seen"] = seq;
    fetch(url, { headers: headers, credentials: "same-origin", cache: "no-store" })
      .then(function (answer) {
        if (answer.status === 200 || answer.status === 304) acked = true;
        if (answer.status !== 200) return null;
        return answer.json();
      })
      .then(function (now) {
        if (now && game && now.seat !== null && now.seat !== undefined) {
          // the game waits on this seat: the one to move, or one of several at once
          var waiting = Array.isArray(now.waiting) ? now.waiting : [now.turn];
          var yours = now.status === "playing" && waiting.indexOf(now.seat) >= 0;
          retitle(yours, Math.max(0, shown.count - (shown.yours ? 1 : 0) + (yours ? 1 : 0)));
        } else if (now && !game && typeof now.waiting === "number") {
          retitle(false, now.waiting);
          badge(now.waiting);
        }
        var fresh = now && (now.tag ? now.tag : "seq-" + now.seq);
        if (fresh && fresh !== tag) {
          tag = fresh;
          if (movedOn()) return;
        }
        schedule();
      })
      .catch(schedule);
  }

  function schedule() { if (EVERY > 0) setTimeout(poll, EVERY); }

  function since() {
    var box = document.getElementById("since");
    var last = remembered(game);
    remember(game, seq);
    if (!box || isNaN(last) || last >= parseInt(seq, 10)) return;
    fetch(url + (url.indexOf("?") < 0 ? "?" : "&") + "since=" + last, { credentials: "same-origin" })
      .then(function (answer) { return answer.status === 200 ? answer.json() : null; })
      .then(function (now) {
        if (!now || !now.since.length) return;
        var list = box.querySelector("ul");
        now.since.forEach(function (h) {
          var item = document.createElement("li");
          item.textContent = h.text;
          list.appendChild(item);
        });
        box.hidden = false;
        outline(now.marks || []);
      })
      .catch(function () { /* the log below has it all */ });
  }

  // What the others built since the last visit, outlined on the board: the game
  // names the drawing's elements by CSS selectors, its stylesheet draws the mark.
  function outline(selectors) {
    var found = 0;
    selectors.forEach(function (selector) {
      try {
        document.querySelectorAll(selector).forEach(function (element) {
          element.classList.add("since-new");
          found += 1;
        });
      } catch (e) { /* not a selector this browser reads: nothing marked */ }
    });
    var hint = document.getElementById("since-outlined");
    if (hint && found) hint.hidden = false;
  }

  function badge(count) {
    var icon = document.querySelector('link[rel="icon"]');
    if (!icon || !count) return;
    var image = new Image();
    image.onload = function () {
      var canvas = document.createElement("canvas");
      canvas.width = canvas.height = 64;
      var pen = canvas.getContext("2d");
      pen.drawImage(image, 0, 0, 64, 64);
      pen.fillStyle = "#c0262d";
      pen.beginPath();
      pen.arc(42, 42, 22, 0, 2 * Math.PI);
      pen.fill();
      pen.fillStyle = "#fff";
      pen.font = "bold 32px sans-serif";
      pen.textAlign = "center";
      pen.textBaseline = "middle";
      pen.fillText(count > 9 ? "9+" : String(count), 42, 44);
      icon.href = canvas.toDataURL("image/png");
    };
    image.src = icon.href;
  }

  function news() {
    document.querySelectorAll("[data-game][data-seq]").forEach(function (row) {
      var id = row.getAttribute("data-game");
      var last = remembered(id);
      var now = parseInt(row.getAttribute("data-seq"), 10);
      var out = row.querySelector(".news");
      if (!out || isNaN(last) || last >= now) return;
      var n = now - last;
      out.textContent = (n > 1 ? counted.other : counted.one).replace("{n}", String(n));
      out.hidden = false;
    });
  }

  if (game) since();
  else news();
  badge(parseInt(hook.getAttribute("data-waiting") || "0", 10));
  schedule();
})();
