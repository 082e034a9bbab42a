// The turn, by pointing: pick a Dispenser tile and a lit cell of your mall, or an
// attraction (its footprint follows the pointer; Mirror flips it) or a bay. Every
// choice selects one of the form's legal actions and shows what it would do; the
// plain list of legal actions keeps working without this script.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("turn-data").textContent);
  var form = document.getElementById("turn-form");
  var preview = document.getElementById("preview");
  var picker = document.getElementById("picker");
  var mall = document.querySelector(".mall-card.yours svg");
  var dispenser = document.querySelector(".dispenser svg");
  var mode = null;

  document.querySelectorAll(".js-only").forEach(function (el) { el.hidden = false; });
  document.getElementById("all-actions").open = false;

  function targets() { return mall ? Array.prototype.slice.call(mall.querySelectorAll("rect.target")) : []; }
  function target(x, y) { return mall && mall.querySelector('rect.target[data-x="' + x + '"][data-y="' + y + '"]'); }
  function radio(text) {
    return Array.prototype.find.call(form.querySelectorAll('input[name="action"]'), function (r) { return r.value === text; });
  }
  function optionsWhere(test) { return data.options.filter(function (o) { return test(o.action); }); }

  function choose(option) {
    var input = radio(option.text);
    if (input) { input.checked = true; }
    document.getElementById("move").value = "";
    preview.textContent = option.text + " — " + option.preview;
    document.getElementById("confirm").focus({ preventScroll: true });
  }

  function clearMarks() {
    targets().forEach(function (t) {
      t.classList.remove("legal", "ghost", "ghost-legal");
      t.removeAttribute("tabindex"); t.removeAttribute("role"); t.removeAttribute("aria-label");
    });
    if (dispenser) dispenser.querySelectorAll("g.slot").forEach(function (s) { s.classList.remove("picked"); });
    picker.querySelectorAll("[aria-pressed]").forEach(function (b) { b.setAttribute("aria-pressed", "false"); });
    var chooser = document.getElementById("chooser");
    if (chooser) chooser.remove();
  }

  function light(cells, label) {
    cells.forEach(function (cell) {
      var t = target(cell[0], cell[1]);
      if (!t) return;
      t.classList.add("legal");
      t.setAttribute("tabindex", "0");
      t.setAttribute("role", "button");
      t.setAttribute("aria-label", label(cell));
    });
  }

  function button(text, onPress, pressable) {
    var b = document.createElement("button");
    b.type = "button";
    b.textContent = text;
    if (pressable) b.setAttribute("aria-pressed", "false");
    b.addEventListener("click", function () { onPress(b); });
    return b;
  }

  // -- the Dispenser: a slot, then a cell --------------------------------------------
  function pickSlot(slot, element) {
    clearMarks();
    var builds = optionsWhere(function (a) { return a.type === "build" && a.slot === slot; });
    if (!builds.length) { preview.textContent = "No cell of your mall can take the tile in " + slot + "."; return; }
    mode = { kind: "build", slot: slot, options: builds };
    if (element) element.classList.add("picked");
    var cells = builds.map(function (o) { return [o.action.x, o.action.y]; });
    light(cells, function (c) { return "Build " + slot + " at " + c[0] + "," + c[1]; });
    preview.textContent = "Now pick a lit cell of your mall for the tile in " + slot + ".";
  }

  if (dispenser) {
    dispenser.querySelectorAll("g.slot[data-slot]").forEach(function (slot) {
      var name = slot.getAttribute("data-slot");
      if (!optionsWhere(function (a) { return a.type === "build" && a.slot === name; }).length) return;
      slot.setAttribute("tabindex", "0");
      slot.setAttribute("role", "button");
      slot.setAttribute("aria-label", "Build the tile in " + name);
      slot.style.cursor = "pointer";
      slot.addEventListener("click", function () { pickSlot(name, slot); });
      slot.addEventListener("keydown", function (event) {
        if (event.key === "Enter" || event.key === " ") { event.preventDefault(); pickSlot(name, slot); }
      });
    });
  }

  function chooseCustomer(candidates) {
    var chooser = document.createElement("div");
    chooser.id = "chooser";
    chooser.className = "picker-row";
    chooser.setAttribute("role", "group");
    chooser.setAttribute("aria-label", "Which customer moves onto the store?");
    var label = document.createElement("span");
    label.textContent = "Several customers can reach it. Who moves? ";
    chooser.appendChild(label);
    candidates.forEach(function (o) {
      chooser.appendChild(button(o.action.customer, function () { choose(o); }));
    });
    picker.appendChild(chooser);
    chooser.querySelector("button").focus();
    preview.textContent = "Several customers can reach this cell: choose who moves.";
  }

  // -- attractions: the footprint follows the pointer --------------------------------
  function footprint(id, x, y, mirrored) {
    var cells = data.shapes[id][mirrored ? "mirrored" : "cells"];
    return cells.map(function (c) { return [x + c[0], y + c[1]]; });
  }

  function attractionAt(x, y) {
    return optionsWhere(function (a) {
      return a.type === "attraction" && a.id === mode.id && a.x === x && a.y === y && !!a.mirror === mode.mirror;
    })[0];
  }

  function showAttraction() {
    var places = optionsWhere(function (a) { return a.type === "attraction" && a.id === mode.id && !!a.mirror === mode.mirror; });
    light(places.map(function (o) { return [o.action.x, o.action.y]; }), function (c) {
      return mode.id + " with its corner at " + c[0] + "," + c[1];
    });
    preview.textContent = places.length
      ? "Point at a cell: the footprint of " + mode.id + " follows, its bottom-left corner there. Lit cells are legal corners."
      : "No place fits " + mode.id + (mode.mirror ? " mirrored" : "") + ".";
  }

  function ghost(x, y) {
    targets().forEach(function (t) { t.classList.remove("ghost", "ghost-legal"); });
    if (!mode || mode.kind !== "attraction") return;
    var legal = !!attractionAt(x, y);
    footprint(mode.id, x, y, mode.mirror).forEach(function (c) {
      var t = target(c[0], c[1]);
      if (t) t.classList.add(legal ? "ghost-legal" : "ghost");
    });
  }

  function pickAttraction(id, pressed) {
    clearMarks();
    mode = { kind: "attraction", id: id, mirror: false };
    pressed.setAttribute("aria-pressed", "true");
    var mirrors = optionsWhere(function (a) { return a.type === "attraction" && a.id === id && a.mirror; });
    if (mirrors.length) {
      var flip = button("Mirror", function (b) {
        mode.mirror = !mode.mirror;
        b.setAttribute("aria-pressed", String(mode.mirror));
        clearTargets();
        showAttraction();
      }, true);
      flip.id = "mirror";
      var row = document.createElement("div");
      row.className = "picker-row";
      row.id = "chooser";
      row.appendChild(flip);
      picker.appendChild(row);
    }
    showAttraction();
  }

  function clearTargets() {
    targets().forEach(function (t) {
      t.classList.remove("legal", "ghost", "ghost-legal");
      t.removeAttribute("tabindex"); t.removeAttribute("role");
    });
  }

  // -- bays ---------------------------------------------------------------------------
  function pickDock(id, pressed) {
    clearMarks();
    var places = optionsWhere(function (a) { return a.type === "dock" && a.id === id; });
    mode = { kind: "dock", id: id, options: places };
    pressed.setAttribute("aria-pressed", "true");
    var cells = [];
    places.forEach(function (o) { cells.push([o.action.x, 1], [o.action.x + 1, 1]); });
    light(cells, function (c) { return id + " on " + c[0] + ",1"; });
    preview.textContent = "Pick a lit cell on the ground floor for " + id + ".";
  }

  // -- clicks on cells ---------------------------------------------------------------
  function cellPressed(t) {
    var x = Number(t.getAttribute("data-x")), y = Number(t.getAttribute("data-y"));
    if (!mode) return;
    if (mode.kind === "build") {
      var here = mode.options.filter(function (o) { return o.action.x === x && o.action.y === y; });
      if (here.length === 1) choose(here[0]);
      else if (here.length > 1) chooseCustomer(here);
    } else if (mode.kind === "attraction") {
      var option = attractionAt(x, y);
      if (option) choose(option);
      else preview.textContent = mode.id + " cannot stand with its corner at " + x + "," + y + ".";
    } else if (mode.kind === "dock") {
      var bay = mode.options.filter(function (o) { return o.action.x === x || o.action.x + 1 === x; })[0];
      if (bay && y === 1) choose(bay);
    }
  }

  targets().forEach(function (t) {
    t.addEventListener("click", function () { cellPressed(t); });
    t.addEventListener("keydown", function (event) {
      if (event.key === "Enter" || event.key === " ") { event.preventDefault(); cellPressed(t); }
    });
    t.addEventListener("pointerenter", function () {
      ghost(Number(t.getAttribute("data-x")), Number(t.getAttribute("data-y")));
    });
    t.addEventListener("focus", function () {
      ghost(Number(t.getAttribute("data-x")), Number(t.getAttribute("data-y")));
    });
  });

  // -- the picker row: money, attractions, bays, pass ----------------------------------
  var row = document.createElement("div");
  row.className = "picker-row";
  row.setAttribute("role", "group");
  row.setAttribute("aria-label", "Other actions");
  optionsWhere(function (a) { return a.type === "money"; }).forEach(function (o) {
    row.appendChild(button("Take money from " + o.action.column, function () { clearMarks(); mode = null; choose(o); }));
  });
  var seen = {};
  optionsWhere(function (a) { return a.type === "attraction" || a.type === "dock"; }).forEach(function (o) {
    var id = o.action.id;
    if (seen[id]) return;
    seen[id] = true;
    var pick = o.action.type === "attraction" ? pickAttraction : pickDock;
    row.appendChild(button((o.action.type === "attraction" ? "Attraction " : "Bay ") + id, function (b) { pick(id, b); }, true));
  });
  optionsWhere(function (a) { return a.type === "pass"; }).forEach(function (o) {
    row.appendChild(button("Pass", function () { choose(o); }));
  });
  picker.appendChild(row);

  // -- the plain list and the typed move stay in step with the preview ---------------
  form.querySelectorAll('input[name="action"]').forEach(function (input) {
    input.addEventListener("change", function () {
      var option = data.options.filter(function (o) { return o.text === input.value; })[0];
      if (option) preview.textContent = option.text + " — " + option.preview;
    });
  });
  document.getElementById("move").addEventListener("input", function (event) {
    if (event.target.value) {
      form.querySelectorAll('input[name="action"]').forEach(function (r) { r.checked = false; });
      preview.textContent = "You typed: " + event.target.value;
    }
  });
})();
