// A game page on a small screen folds what the turn does not need (details.fold: the
// log, the seat's settings, and what the game folds), each a tap away; a fold the
// player opens or closes stays so on their next visit (localStorage). On a wider
// screen a drawing with [data-min-scale] keeps at least that scale of its own units,
// so its labels stay readable, and scrolls inside its frame, which then takes the
// focus and a name ([data-turn-frame]: the turn script looks after that one).
(function () {
  "use strict";
  var small = window.matchMedia("(max-width: 40rem)");

  function key(fold) { return "pbem.fold." + fold.getAttribute("data-fold"); }
  function kept(fold) { try { return localStorage.getItem(key(fold)); } catch (e) { return null; } }
  function keep(fold) { try { localStorage.setItem(key(fold), fold.open ? "open" : "closed"); } catch (e) { /* private mode */ } }

  var folds = document.querySelectorAll("details.fold[data-fold]");
  var setting = false;
  function fold() {
    setting = true;
    folds.forEach(function (f) { f.open = !small.matches || kept(f) === "open"; });
    setting = false;
  }
  folds.forEach(function (f) {
    f.addEventListener("toggle", function () { if (!setting && small.matches) keep(f); });
  });
  fold();
  if (small.addEventListener) small.addEventListener("change", fold);

  var managed = document.getElementById("turn-data") ? document.querySelector(".drawing[data-turn-frame]") : null;
  var frames = Array.prototype.slice.call(document.querySelectorAll(".drawing[data-min-scale]"));
  function frame(box) {
    var svg = box.querySelector("svg");
    var view = svg && svg.viewBox && svg.viewBox.baseVal;
    if (view && view.width) {
      var least = view.width * parseFloat(box.getAttribute("data-min-scale"));
      svg.style.setProperty("--least-width", Math.round(least) + "px");
    }
    if (box === managed) return;
    var scrolls = box.scrollWidth > box.clientWidth + 1 || box.scrollHeight > box.clientHeight + 1;
    if (scrolls) {
      box.setAttribute("tabindex", "0");
      box.setAttribute("role", "region");
      box.setAttribute("aria-label", box.getAttribute("data-frame-label") || "");
    } else {
      ["tabindex", "role", "aria-label"].forEach(function (a) { box.removeAttribute(a); });
    }
  }
  function frameAll() { frames.forEach(frame); }
  frameAll();
  // The turn script (run before this one) measured its drawing before its least
  // width was set: again, now.
  if (managed) window.dispatchEvent(new Event("resize"));
  window.addEventListener("resize", frameAll);
  folds.forEach(function (f) { f.addEventListener("toggle", frameAll); });
})();
