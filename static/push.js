// Notifications on this device (templates/_push.html): on "Notify me", registers
// the service worker (/push-sw.js), subscribes with the server's key, and posts the
// subscription to the page's endpoint (with the page's CSRF token); "Stop" takes it
// off this page's seat (or address) only: one browser's subscription may serve
// other games too.
(function () {
  "use strict";
  var panel = document.querySelector("[data-push-key]");
  if (!panel || !("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window)) {
    return;
  }
  var state = panel.querySelector(".push-state");
  var on = panel.querySelector(".push-turn-on");
  var off = panel.querySelector(".push-turn-off");

  function key(text) {
    var padded = (text + "===".slice((text.length + 3) % 4)).replace(/-/g, "+").replace(/_/g, "/");
    var raw = atob(padded);
    var bytes = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) { bytes[i] = raw.charCodeAt(i); }
    return bytes;
  }

  function show(which) {
    state.textContent = panel.getAttribute("data-said-" + which);
    on.hidden = which === "on";
    off.hidden = which !== "on";
  }

  function post(url, body) {
    return fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": panel.getAttribute("data-csrf") },
      body: JSON.stringify(body)
    }).then(function (answer) {
      if (!answer.ok) { throw new Error("the server answered " + answer.status); }
      return answer.json();
    });
  }

  // The worker is registered when a device is turned on, not for every visit; a
  // subscription needs it active (ready), not only installing.
  function registered() {
    return navigator.serviceWorker.register(panel.getAttribute("data-push-worker"), { scope: "/" })
      .then(function () { return navigator.serviceWorker.ready; });
  }

  function subscription() {
    return navigator.serviceWorker.getRegistration("/").then(function (registration) {
      return registration ? registration.pushManager.getSubscription() : null;
    });
  }

  on.addEventListener("click", function () {
    on.disabled = true;
    Notification.requestPermission().then(function (permission) {
      if (permission !== "granted") { show("blocked"); return null; }
      return registered().then(function (registration) {
        return registration.pushManager.subscribe({
          userVisibleOnly: true,
          applicationServerKey: key(panel.getAttribute("data-push-key"))
        });
      }).then(function (found) {
        return post(panel.getAttribute("data-push-on"), found.toJSON());
      }).then(function () { show("on"); });
    }).catch(function () { show("failed"); }).then(function () { on.disabled = false; });
  });

  off.addEventListener("click", function () {
    off.disabled = true;
    subscription().then(function (found) {
      return found ? post(panel.getAttribute("data-push-off"), { endpoint: found.endpoint }) : null;
    }).then(function () { show("off"); }).catch(function () { show("failed"); })
      .then(function () { off.disabled = false; });
  });

  panel.hidden = false;
  if (Notification.permission === "denied") { show("blocked"); return; }
  subscription().then(function (found) {
    if (!found) { show("off"); return; }
    return post(panel.getAttribute("data-push-state"), { endpoint: found.endpoint }).then(function (answer) {
      show(answer.push === "on" ? "on" : "off");
    });
  }).catch(function () { show("off"); });
}());
