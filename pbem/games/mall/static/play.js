// The turn, by pointing: pick a Dispenser tile and a lit cell of your mall, or an
// attraction (its footprint follows the pointer; Mirror flips it) or a bay. Every
// choice selects one of the form's legal actions and shows what it would do; the
// plain list of legal actions keeps working without this script. The keyboard works
// as well as a pointer: the Dispenser's tiles and the lit cells are each one tab stop
// (arrows move within them), Enter or Space chooses, Escape lets go. On a phone the
// preview and Play ride in a bar along the bottom of the screen while choosing.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("turn-data").textContent);
  // The words this script shows, in the page's language (pages.py gives them, with
  // places written %(name)s).
  function say(key, values) {
    return (data.words[key] || key).replace(/%\((\w+)\)s/g, function (all, name) {
      return values && name in values ? String(values[name]) : all;
    });
  }
  var form = document.getElementById("turn-form");
  var preview = document.getElementById("preview");
  var picker = document.getElementById("picker");
  var mall = document.querySelector(".mall-card.yours svg");
  // A thumb-wide cell on a phone (mall.css): the drawing names its width in CSS px.
  if (mall && mall.dataset.touchWidth) {
    mall.style.setProperty("--touch-width", mall.dataset.touchWidth + "px");
  }
  var dispenser = document.querySelector(".dispenser svg");
  var mode = null;
  var origin = null; // what was pressed to start choosing: Escape returns focus to it

  document.querySelectorAll(".js-only").forEach(function (el) { el.hidden = false; });
  document.getElementById("all-actions").open = false;

  // The preview and Play in one bar (mall.css pins it to the bottom of a phone's screen).
  var bar = document.createElement("div");
  bar.className = "turn-bar";
  preview.parentNode.insertBefore(bar, preview);
  bar.appendChild(preview);
  bar.appendChild(document.getElementById("confirm").parentNode);
  function choosing(on) { document.body.classList.toggle("choosing", on); }

  // Drawings that take key presses are groups of controls, not pictures.
  [mall, dispenser].forEach(function (svg) { if (svg) svg.setAttribute("role", "group"); });

  // One tab stop in a set of elements: `element` takes it, the others keep -1.
  function rove(elements, element) {
    elements.forEach(function (e) { e.setAttribute("tabindex", e === element ? "0" : "-1"); });
  }

  // The element of `elements` nearest `from` in the direction of an arrow key, by
  // `place` (x to the right, y upwards); null when none lies that way.
  var ARROWS = { ArrowRight: [1, 0], ArrowLeft: [-1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1] };
  function nearest(elements, from, key, place) {
    var way = ARROWS[key], here = place(from), best = null, score = Infinity;
    elements.forEach(function (e) {
      if (e === from) return;
      var there = place(e);
      var dx = there[0] - here[0], dy = there[1] - here[1];
      var along = dx * way[0] + dy * way[1], across = Math.abs(dx * way[1]) + Math.abs(dy * way[0]);
      if (along <= 0) return;
      var s = along + 2 * across;
      if (s < score) { score = s; best = e; }
    });
    return best;
  }
  function cellPlace(t) { return [Number(t.getAttribute("data-x")), Number(t.getAttribute("data-y"))]; }
  function litCells() { return targets().filter(function (t) { return t.classList.contains("legal"); }); }

  function targets() { return mall ? Array.prototype.slice.call(mall.querySelectorAll("rect.target")) : []; }
  function target(x, y) { return mall && mall.querySelector('rect.target[data-x="' + x + '"][data-y="' + y + '"]'); }
  function radio(text) {
    return Array.prototype.find.call(form.querySelectorAll('input[name="action"]'), function (r) { return r.value === text; });
  }
  function optionsWhere(test) { return data.options.filter(function (o) { return test(o.action); }); }

  function choose(option, note, cell) {
    targets().forEach(function (t) { t.classList.remove("chosen"); t.removeAttribute("aria-pressed"); });
    if (cell) { cell.classList.add("chosen"); cell.setAttribute("aria-pressed", "true"); }
    choosing(true);
    var input = radio(option.text);
    if (input) { input.checked = true; }
    document.getElementById("move").value = "";
    preview.textContent = option.text + (note ? " (" + note + ")" : "") + " — " + option.preview;
    document.getElementById("confirm").focus({ preventScroll: true });
    if (cell && cell.scrollIntoView) cell.scrollIntoView({ block: "nearest", inline: "nearest" });
  }

  function clearMarks() {
    targets().forEach(function (t) {
      t.classList.remove("legal", "ghost", "ghost-legal", "chosen");
      t.removeAttribute("tabindex"); t.removeAttribute("role"); t.removeAttribute("aria-label");
      t.removeAttribute("aria-pressed");
    });
    if (dispenser) dispenser.querySelectorAll("g.slot").forEach(function (s) { s.classList.remove("picked"); });
    picker.querySelectorAll("[aria-pressed]").forEach(function (b) { b.setAttribute("aria-pressed", "false"); });
    var chooser = document.getElementById("chooser");
    if (chooser) chooser.remove();
    scrollStop();
  }

  function light(cells, label) {
    cells.forEach(function (cell) {
      var t = target(cell[0], cell[1]);
      if (!t) return;
      t.classList.add("legal");
      t.setAttribute("role", "button");
      t.setAttribute("aria-label", label(cell));
    });
    var lit = litCells();
    rove(lit, lit[0]);
    choosing(lit.length > 0);
    scrollStop();
  }

  // Escape: let go of the tile or offer; nothing is lit, focus goes back where it began.
  function cancel() {
    if (!mode) return;
    clearMarks();
    mode = null;
    choosing(false);
    scrollStop();
    preview.textContent = "";
    if (origin && origin.isConnected) origin.focus();
  }
  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && mode) { event.preventDefault(); cancel(); }
  });

  // A button with its explanation below it, shown on hover, focus and tap (mall.css).
  function explained(b, id) {
    var wrap = document.createElement("span");
    var tip = document.createElement("span");
    wrap.className = "term-wrap";
    tip.className = "term-tip";
    tip.id = "tip-offer-" + id;
    tip.setAttribute("role", "tooltip");
    tip.textContent = data.explain[id] || "";
    b.setAttribute("aria-describedby", tip.id);
    b.setAttribute("data-offer", id);
    wrap.appendChild(b);
    wrap.appendChild(tip);
    return wrap;
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
    origin = element || null;
    var builds = optionsWhere(function (a) { return a.type === "build" && a.slot === slot; });
    if (!builds.length) { preview.textContent = say("no_cell", { slot: slot }); return; }
    mode = { kind: "build", slot: slot, options: builds };
    if (element) element.classList.add("picked");
    var cells = builds.map(function (o) { return [o.action.x, o.action.y]; });
    light(cells, function (c) { return say("build_at", { slot: slot, x: c[0], y: c[1] }); });
    preview.textContent = say("pick_cell", { slot: slot });
  }

  if (dispenser) {
    var slots = [];
    dispenser.querySelectorAll("g.slot[data-slot]").forEach(function (slot) {
      var name = slot.getAttribute("data-slot");
      if (!optionsWhere(function (a) { return a.type === "build" && a.slot === name; }).length) return;
      slots.push(slot);
      slot.setAttribute("role", "button");
      var title = slot.querySelector("title");
      slot.setAttribute("aria-label", title ? say("build_tile", { tile: title.textContent }) : say("build_slot", { slot: name }));
      slot.style.cursor = "pointer";
      slot.addEventListener("click", function () { pickSlot(name, slot); });
    });
    // The drawing's y runs downwards, so up is a smaller y. The free row 1, at the
    // bottom, comes first.
    var slotPlace = function (s) { var box = s.getBBox(); return [box.x, -box.y]; };
    slots.sort(function (a, b) { var p = slotPlace(a), q = slotPlace(b); return p[1] - q[1] || p[0] - q[0]; });
    rove(slots, slots[0]);
    dispenser.parentNode.addEventListener("keydown", function (event) {
      var slot = event.target.closest && event.target.closest("g.slot[role=button]");
      if (!slot) return;
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        pickSlot(slot.getAttribute("data-slot"), slot);
      } else if (ARROWS[event.key]) {
        event.preventDefault();
        var next = nearest(slots, slot, event.key, slotPlace);
        if (next) { rove(slots, next); next.focus(); }
      }
    });
  }

  function chooseCustomer(candidates, cell) {
    var chooser = document.createElement("div");
    chooser.id = "chooser";
    chooser.className = "picker-row";
    chooser.setAttribute("role", "group");
    chooser.setAttribute("aria-label", say("which_customer"));
    var label = document.createElement("span");
    label.textContent = say("who_moves") + " ";
    chooser.appendChild(label);
    candidates.forEach(function (o) {
      chooser.appendChild(button(o.words || o.action.customer, function () { choose(o, o.words, cell); }));
    });
    picker.appendChild(chooser);
    chooser.querySelector("button").focus();
    preview.textContent = say("choose_who");
  }

  // -- attractions: the footprint follows the pointer --------------------------------
  // The pointer holds the shape by its base plate (its lowest, leftmost B cell), a cell
  // of the shape itself: the footprint is drawn where it will land, never offset by
  // the empty corner of its bounding box. The action names that box's corner.
  function cellsOf(id, mirrored) { return data.shapes[id][mirrored ? "mirrored" : "cells"]; }

  function handle(id, mirrored) {
    var bases = cellsOf(id, mirrored).filter(function (c) { return c[2] === "B"; });
    bases.sort(function (a, b) { return a[1] - b[1] || a[0] - b[0]; });
    return bases[0] || cellsOf(id, mirrored)[0];
  }

  function footprint(id, x, y, mirrored) {
    var h = handle(id, mirrored);
    return cellsOf(id, mirrored).map(function (c) { return [x - h[0] + c[0], y - h[1] + c[1]]; });
  }

  function attractionAt(x, y) {
    var h = handle(mode.id, mode.mirror);
    return optionsWhere(function (a) {
      return a.type === "attraction" && a.id === mode.id && a.x === x - h[0] && a.y === y - h[1] && !!a.mirror === mode.mirror;
    })[0];
  }

  function showAttraction() {
    var name = data.names[mode.id] || mode.id;
    var h = handle(mode.id, mode.mirror);
    var places = optionsWhere(function (a) { return a.type === "attraction" && a.id === mode.id && !!a.mirror === mode.mirror; });
    light(places.map(function (o) { return [o.action.x + h[0], o.action.y + h[1]]; }), function (c) {
      return say("attraction_at", { name: name, x: c[0], y: c[1] });
    });
    preview.textContent = places.length
      ? (data.explain[mode.id] || "") + " " + say("point_at")
      : say(mode.mirror ? "no_place_mirrored" : "no_place", { name: name });
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
    origin = pressed;
    mode = { kind: "attraction", id: id, mirror: false };
    pressed.setAttribute("aria-pressed", "true");
    var mirrors = optionsWhere(function (a) { return a.type === "attraction" && a.id === id && a.mirror; });
    if (mirrors.length) {
      var flip = button(say("mirror"), function (b) {
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
      t.classList.remove("legal", "ghost", "ghost-legal", "chosen");
      t.removeAttribute("tabindex"); t.removeAttribute("role"); t.removeAttribute("aria-pressed");
    });
  }

  // -- bays ---------------------------------------------------------------------------
  function pickDock(id, pressed) {
    clearMarks();
    origin = pressed;
    var places = optionsWhere(function (a) { return a.type === "dock" && a.id === id; });
    mode = { kind: "dock", id: id, options: places };
    pressed.setAttribute("aria-pressed", "true");
    var cells = [];
    places.forEach(function (o) { cells.push([o.action.x, 1], [o.action.x + 1, 1]); });
    var name = data.names[id] || id;
    light(cells, function (c) { return say("dock_at", { name: name, x: c[0] }); });
    preview.textContent = (data.explain[id] || "") + " " + say("pick_ground", { name: name });
  }

  // -- clicks on cells ---------------------------------------------------------------
  function cellPressed(t) {
    var x = Number(t.getAttribute("data-x")), y = Number(t.getAttribute("data-y"));
    if (!mode) return;
    if (mode.kind === "build") {
      var here = mode.options.filter(function (o) { return o.action.x === x && o.action.y === y; });
      if (here.length === 1) choose(here[0], null, t);
      else if (here.length > 1) chooseCustomer(here, t);
    } else if (mode.kind === "attraction") {
      var option = attractionAt(x, y);
      var named = data.names[mode.id] || mode.id;
      if (option) choose(option, say("base_on", { name: named, x: x, y: y }), t);
      else preview.textContent = say("cannot_stand", { name: named, x: x, y: y });
    } else if (mode.kind === "dock") {
      var bay = mode.options.filter(function (o) { return o.action.x === x || o.action.x + 1 === x; })[0];
      if (bay && y === 1) choose(bay, null, t);
    }
  }

  // Keys and focus are heard on the card around the drawing: Chromium makes an SVG
  // element with a focus listener of its own a tab stop, lit or not.
  targets().forEach(function (t) {
    t.addEventListener("click", function () { cellPressed(t); });
    t.addEventListener("pointerenter", function () {
      ghost(Number(t.getAttribute("data-x")), Number(t.getAttribute("data-y")));
    });
  });
  var card = mall && mall.closest(".mall-card");
  // On a phone the mall scrolls sideways inside its card (mall.css): while nothing in
  // it is lit, the scrolling drawing itself takes the focus, so arrows can scroll it.
  var drawing = mall && mall.closest(".drawing");
  function scrollStop() {
    if (!drawing) return;
    var over = drawing.scrollWidth > drawing.clientWidth || drawing.scrollHeight > drawing.clientHeight + 1;
    var scrolls = over && !litCells().length;
    if (scrolls) {
      drawing.setAttribute("tabindex", "0");
      drawing.setAttribute("role", "region");
      drawing.setAttribute("aria-label", say("wider"));
    } else {
      ["tabindex", "role", "aria-label"].forEach(function (a) { drawing.removeAttribute(a); });
    }
  }
  scrollStop();
  window.addEventListener("resize", scrollStop);
  if (card) {
    card.addEventListener("focusin", function (event) {
      var t = event.target;
      if (!t.classList || !t.classList.contains("target")) return;
      rove(litCells(), t);
      ghost(Number(t.getAttribute("data-x")), Number(t.getAttribute("data-y")));
    });
    card.addEventListener("keydown", function (event) {
      var t = event.target;
      if (!t.classList || !t.classList.contains("legal")) return;
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        cellPressed(t);
      } else if (ARROWS[event.key]) {
        event.preventDefault();
        var next = nearest(litCells(), t, event.key, cellPlace);
        if (next) next.focus();
      }
    });
  }

  // -- the picker row: money, attractions, bays, pass ----------------------------------
  var row = document.createElement("div");
  row.className = "picker-row";
  row.setAttribute("role", "group");
  row.setAttribute("aria-label", say("other_actions"));
  optionsWhere(function (a) { return a.type === "money"; }).forEach(function (o) {
    row.appendChild(button(say("take_money", { column: o.action.column }), function () { clearMarks(); mode = null; choose(o); }));
  });
  var seen = {};
  optionsWhere(function (a) { return a.type === "attraction" || a.type === "dock"; }).forEach(function (o) {
    var id = o.action.id;
    if (seen[id]) return;
    seen[id] = true;
    var pick = o.action.type === "attraction" ? pickAttraction : pickDock;
    row.appendChild(explained(button(data.names[id] || id, function (b) { pick(id, b); }, true), id));
  });
  optionsWhere(function (a) { return a.type === "pass"; }).forEach(function (o) {
    row.appendChild(button(say("pass"), function () { choose(o); }));
  });
  picker.appendChild(row);

  // -- the plain list and the typed move stay in step with the preview ---------------
  form.querySelectorAll('input[name="action"]').forEach(function (input) {
    input.addEventListener("change", function () {
      var option = data.options.filter(function (o) { return o.text === input.value; })[0];
      if (option) { preview.textContent = option.text + " — " + option.preview; choosing(true); }
    });
  });
  document.getElementById("move").addEventListener("input", function (event) {
    if (event.target.value) {
      form.querySelectorAll('input[name="action"]').forEach(function (r) { r.checked = false; });
      preview.textContent = say("typed", { move: event.target.value });
    }
  });
})();
