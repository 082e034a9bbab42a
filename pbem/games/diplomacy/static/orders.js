// Orders by clicking the map: click a unit of yours, then where it moves (or the
// unit again: it holds); the kind buttons switch to supports (the unit, the unit it
// supports, then where that one moves or it again to hold) and convoys (the fleet,
// the army, where it goes), in retreats to Retreat and Disband, in adjustments to
// builds and disbands. An order is written into the orders box only when it is one
// of the seat's possible orders (the page gives them, and nobody else's); a line
// for the same unit is replaced. Where several coasts are possible the script asks
// which. The box stays the way to write anything, by keyboard too.
(function () {
  "use strict";
  var holder = document.getElementById("turn-data");
  var map = document.querySelector(".dip-board .dip-map");
  var box = document.getElementById("move");
  if (!holder || !map || !box) return;
  var data = JSON.parse(holder.textContent);
  // The words this script shows, in the page's language (places written %(name)s).
  function say(key, values) {
    return (data.words[key] || key).replace(/%\((\w+)\)s/g, function (all, name) {
      return values && name in values ? String(values[name]) : all;
    });
  }
  var status = document.getElementById("dip-status");
  var coasts = document.getElementById("dip-coasts");
  var buttons = Array.prototype.slice.call(document.querySelectorAll(".dip-mode"));
  document.querySelectorAll(".js-only").forEach(function (el) { el.hidden = false; });
  map.classList.add("dip-clickable");

  // An order of the package's notation, in parts: "A PAR - BUR", "A PAR S A MAR - BUR",
  // "F NTH C A LON - NWY", "A MUN R BOH", "A MUN D", "F STP/NC B", "A LON - NWY VIA".
  function parse(text) {
    var w = text.split(" ");
    var order = { text: text, unit: w[0] + " " + w[1], loc: w[1].slice(0, 3), op: w[2] };
    if (order.op === "-" || order.op === "R") {
      order.dest = w[3];
      order.via = w[4] === "VIA";
    } else if (order.op === "S" || order.op === "C") {
      order.other = w[4].slice(0, 3);
      if (w[5] === "-") order.dest = w[6];
    }
    return order;
  }
  var possible = {}; // location -> its possible orders, in parts
  Object.keys(data.possible).forEach(function (loc) {
    possible[loc] = data.possible[loc].map(parse);
  });

  // Which orders each kind button stands for.
  var KINDS = {
    move: function (o) { return o.op === "-" || o.op === "H"; },
    support: function (o) { return o.op === "S"; },
    convoy: function (o) { return o.op === "C"; },
    retreat: function (o) { return o.op === "R"; },
    disband: function (o) { return o.op === "D"; },
    build_army: function (o) { return o.op === "B" && o.unit.charAt(0) === "A"; },
    build_fleet: function (o) { return o.op === "B" && o.unit.charAt(0) === "F"; }
  };
  var FIRST_CLICK_ENDS = { disband: true, build_army: true, build_fleet: true };
  var mode = buttons.length ? buttons[0].getAttribute("data-mode") : "move";
  var unit = null; // the location of the unit ordered, once clicked
  var other = null; // the unit it supports or convoys, once clicked

  function ofKind(loc) { return (possible[loc] || []).filter(KINDS[mode]); }
  function province(where) { return where ? where.slice(0, 3) : null; }

  // The orders the clicks so far lead to with one more click on `loc`.
  function ending(loc) {
    var orders = ofKind(unit);
    if (mode === "move" && loc === unit) {
      return orders.filter(function (o) { return o.op === "H"; });
    }
    if (mode === "move" || mode === "retreat") {
      var found = orders.filter(function (o) { return o.op !== "H" && province(o.dest) === loc; });
      var direct = found.filter(function (o) { return !o.via; });
      return direct.length ? direct : found;
    }
    return orders.filter(function (o) {
      if (o.other !== other) return false;
      return mode === "support" && loc === other ? !o.dest : province(o.dest) === loc;
    });
  }
  function supported(loc) { // the supports or convoys of the unit for the unit in `loc`
    return ofKind(unit).filter(function (o) { return o.other === loc; });
  }

  // The provinces a click would take further: lit on the map.
  function lit() {
    var found = {};
    if (unit === null) {
      Object.keys(possible).forEach(function (loc) { if (ofKind(loc).length) found[loc] = true; });
    } else if (other === null && (mode === "support" || mode === "convoy")) {
      ofKind(unit).forEach(function (o) { found[o.other] = true; });
    } else {
      ofKind(unit).forEach(function (o) {
        if (other !== null && o.other !== other) return;
        if (o.op === "H" || (o.op === "S" && !o.dest)) found[other || unit] = true;
        else if (o.dest) found[province(o.dest)] = true;
      });
    }
    return found;
  }
  function show() {
    var light = lit();
    map.querySelectorAll("path[data-province]").forEach(function (shape) {
      var loc = shape.getAttribute("data-province");
      var chosen = loc === unit || loc === other;
      shape.classList.toggle("dip-chosen", chosen);
      shape.classList.toggle("dip-lit", !chosen && !!light[loc]);
      if (chosen) shape.parentNode.appendChild(shape); // its outline above its neighbours'
    });
  }
  function tell(text) { status.textContent = text; }
  function unitOf(loc) { return possible[loc][0].unit; }

  function offer(orders, loc) { // several coasts: a button for each order
    coasts.textContent = "";
    orders.forEach(function (o) {
      var button = document.createElement("button");
      button.type = "button";
      button.textContent = o.text;
      button.addEventListener("click", function () { write(o); });
      coasts.appendChild(button);
    });
    coasts.hidden = false;
    tell(say("which_coast", { loc: loc }));
    coasts.firstChild.focus();
  }
  function closeOffer() {
    coasts.hidden = true;
    coasts.textContent = "";
  }

  // The order into the box: a line for the same location goes, and "hold" (no orders).
  var NO_ORDERS = /^\s*(hold|holds|no orders|none)\s*$/i;
  var LINE_LOC = /^\s*(?:(?:A|F|ARMY|FLEET)\s+)?([A-Z]{3})(?![A-Z])/i;
  function write(order) {
    var lines = box.value.split("\n").filter(function (line) {
      if (!line.trim() || NO_ORDERS.test(line)) return false;
      var found = LINE_LOC.exec(line);
      return !(found && found[1].toUpperCase() === order.loc);
    });
    lines.push(order.text);
    box.value = lines.join("\n");
    box.dispatchEvent(new Event("input", { bubbles: true }));
    closeOffer();
    unit = other = null;
    if (mode === "support" || mode === "convoy") setMode("move");
    show();
    tell(say("written", { order: order.text }));
  }
  function finish(orders, loc) {
    if (orders.length === 1) write(orders[0]);
    else offer(orders, loc);
  }

  function start(loc) {
    if (!possible[loc]) { tell(say("not_yours", { loc: loc })); return; }
    var orders = ofKind(loc);
    if (!orders.length) { tell(say("none_here", { loc: loc })); return; }
    if (FIRST_CLICK_ENDS[mode]) { finish(orders, loc); return; }
    unit = loc;
    show();
    tell(say(mode + "_from", { unit: unitOf(loc), loc: loc }));
  }

  function click(loc) {
    closeOffer();
    if (unit === null) { start(loc); return; }
    if ((mode === "support" || mode === "convoy") && other === null) {
      if (supported(loc).length) {
        other = loc;
        show();
        tell(say(mode === "support" ? "support_whom" : "convoy_whom", { unit: unitOf(unit), loc: loc }));
      } else if (possible[loc] && loc !== unit && ofKind(loc).length) {
        start(loc); // another unit of yours to give this kind of order
      } else {
        tell(say("no_such", { unit: unitOf(unit), loc: loc }));
      }
      return;
    }
    var orders = ending(loc);
    if (orders.length) finish(orders, loc);
    else if (other === null && possible[loc] && loc !== unit && ofKind(loc).length) start(loc);
    else tell(say("no_such", { unit: unitOf(unit), loc: loc }));
  }

  function setMode(chosen) {
    mode = chosen;
    buttons.forEach(function (b) {
      b.setAttribute("aria-pressed", b.getAttribute("data-mode") === mode ? "true" : "false");
    });
  }
  buttons.forEach(function (button) {
    button.addEventListener("click", function () {
      setMode(button.getAttribute("data-mode"));
      closeOffer();
      var keep = unit;
      unit = other = null;
      if (keep !== null && ofKind(keep).length) {
        start(keep); // the unit chosen stays chosen, for the new kind of order
      } else {
        show();
        tell(say("start_" + mode));
      }
    });
  });

  map.addEventListener("click", function (event) {
    var hit = event.target.closest("[data-province]");
    if (hit) click(hit.getAttribute("data-province"));
  });
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape" || (unit === null && coasts.hidden)) return;
    if (document.querySelector("dialog[open]")) return; // the dialog's own Escape
    closeOffer();
    unit = other = null;
    show();
    tell(say("cancelled"));
  });
  show();
  tell(say("start_" + mode));
})();
