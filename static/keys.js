// The game page's keys: a letter goes to a part of the page (the element whose
// aria-keyshortcuts names it: t the turn, and the game's own parts), landing on the
// part's first control (the roving tab stop of a drawing in it) so that Enter acts
// at once; ? opens the list of keys (a dialog, Escape closes it). No key is taken while typing in a field, with Ctrl, Alt or Cmd
// held, or while the list is open. The skip links land the same way.
(function () {
  "use strict";
  var dialog = document.getElementById("keys");
  var opener = document.getElementById("keys-open");
  var line = opener && opener.closest(".keys-line");
  if (line) line.hidden = false;

  function typing(element) {
    if (!element || element === document.body) return false;
    if (element.isContentEditable) return true;
    var tag = element.tagName;
    if (tag === "TEXTAREA" || tag === "SELECT") return true;
    if (tag !== "INPUT") return false;
    return ["button", "submit", "reset", "checkbox", "radio", "range", "color", "file", "image"].indexOf(element.type) < 0;
  }

  function visible(element) {
    return element.getClientRects().length > 0 && !element.closest("[hidden], details:not([open]) > :not(summary)");
  }

  // The part's first stop: the roving tab stop of a drawing in it (the controls the
  // turn script lit), else the part itself.
  function land(part) {
    if (!part) return false;
    var stops = Array.prototype.filter.call(part.querySelectorAll('svg [tabindex="0"]'), visible);
    var into = part.getAttribute("aria-keyshortcuts") !== "t" && stops.length ? stops[0] : part;
    if (into === part && !part.hasAttribute("tabindex")) part.setAttribute("tabindex", "-1");
    var fold = into.closest("details:not([open])");
    if (fold) fold.open = true;
    into.focus({ preventScroll: true });
    (into.getBBox ? into : part).scrollIntoView({ block: "nearest" });
    return true;
  }

  var back = null; // where the focus was before the list opened
  function openList() {
    if (!dialog || dialog.open) return;
    back = document.activeElement;
    if (typeof dialog.showModal === "function") dialog.showModal();
    else dialog.setAttribute("open", "");
    var close = document.getElementById("keys-close");
    if (close) close.focus();
  }
  if (opener) opener.addEventListener("click", openList);
  if (dialog) {
    // The browser gives the focus back as the list closes; only where it found no
    // place for it (the close event comes later, after the player may have moved on).
    dialog.addEventListener("close", function () {
      var now = document.activeElement;
      if (now && now !== document.body) return;
      var to = back && back !== document.body && back.isConnected ? back : opener;
      if (to) to.focus();
    });
  }

  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.ctrlKey || event.altKey || event.metaKey) return;
    if (dialog && dialog.open) return; // the dialog's own keys (Escape closes it)
    if (typing(event.target)) return;
    if (event.key === "?") {
      event.preventDefault();
      openList();
      return;
    }
    if (event.key.length !== 1 || event.shiftKey) return;
    var part = document.querySelector('[aria-keyshortcuts="' + event.key.toLowerCase() + '"]');
    if (part && event.key === event.key.toLowerCase() && /^[a-z]$/.test(event.key) && land(part)) {
      event.preventDefault();
    }
  });

  // Skip links: to the part, landing on its first control as its key does.
  document.querySelectorAll("a[data-skip]").forEach(function (link) {
    link.addEventListener("click", function (event) {
      var part = document.getElementById(link.getAttribute("href").slice(1));
      if (part && land(part)) event.preventDefault();
    });
  });
})();
