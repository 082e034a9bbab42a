// Deadlines in the reader's own time zone: every <time class="countdown"> holds a
// UTC ISO time (readable as it is without JavaScript); this shows the time left and
// the local day and hour, "2 h 14 min left — Tue 14:00", and keeps it ticking.
(function () {
  "use strict";
  var dayAndTime = new Intl.DateTimeFormat(undefined, {
    weekday: "short", hour: "2-digit", minute: "2-digit", hourCycle: "h23"
  });
  var fullDate = new Intl.DateTimeFormat(undefined, {
    weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit",
    hourCycle: "h23", timeZoneName: "short"
  });

  function left(ms) {
    if (ms <= 0) return "time is up";
    var minutes = Math.floor(ms / 60000);
    var days = Math.floor(minutes / 1440);
    var hours = Math.floor((minutes % 1440) / 60);
    var mins = minutes % 60;
    if (days > 0) return days + " d " + hours + " h left";
    if (hours > 0) return hours + " h " + mins + " min left";
    return (mins || "<1") + " min left";
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
