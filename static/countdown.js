// Deadlines in the reader's own time zone: every <time class="countdown"> holds a
// UTC ISO time (readable as it is without JavaScript); this shows the time left and
// the local day and hour, "2 h 14 min left — Tue 14:00", and keeps it ticking. Its
// words come from the page (#page-words, in the page's language); days and months
// are written the way of the page's language (<html lang>).
(function () {
  "use strict";
  var words = { up: "time is up", days: "{d} d {h} h left", hours: "{h} h {m} min left", minutes: "{m} min left" };
  try {
    var given = JSON.parse(document.getElementById("page-words").textContent);
    Object.keys(words).forEach(function (key) { if (typeof given[key] === "string") words[key] = given[key]; });
  } catch (e) { /* a page without its words keeps the English ones */ }
  var language = document.documentElement.lang || undefined;
  var dayAndTime = new Intl.DateTimeFormat(language, {
    weekday: "short", hour: "2-digit", minute: "2-digit", hourCycle: "h23"
  });
  var fullDate = new Intl.DateTimeFormat(language, {
    weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit",
    hourCycle: "h23", timeZoneName: "short"
  });

  function fill(text, values) {
    return text.replace(/\{(\w)\}/g, function (all, key) { return key in values ? values[key] : all; });
  }

  function left(ms) {
    if (ms <= 0) return words.up;
    var minutes = Math.floor(ms / 60000);
    var days = Math.floor(minutes / 1440);
    var hours = Math.floor((minutes % 1440) / 60);
    var mins = minutes % 60;
    if (days > 0) return fill(words.days, { d: days, h: hours });
    if (hours > 0) return fill(words.hours, { h: hours, m: mins });
    return fill(words.minutes, { m: mins || "<1" });
  }

  function show(element, now) {
    var when = new Date(element.getAttribute("datetime"));
    if (isNaN(when.getTime())) return;
    var ms = when.getTime() - now;
    var local = ms < 6 * 86400000 ? dayAndTime.format(when) : fullDate.format(when);
    element.textContent = left(ms) + " — " + local;
    element.title = fullDate.format(when);
    element.classList.toggle("urgent", ms < 6 * 3600000);
  }

  function tick() {
    var now = Date.now();
    document.querySelectorAll("time.countdown").forEach(function (t) { show(t, now); });
  }

  tick();
  setInterval(tick, 20000);
})();
