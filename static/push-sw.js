// The service worker of Web Push: shows each push (a title, a line, the address of
// the seat's page, a tag that lets a newer notice replace an older one) and, on a
// click, focuses a window already on that page or opens it. Only addresses of this
// site are ever opened. It handles no fetch: the pages load as without it.
"use strict";

self.addEventListener("install", function () { self.skipWaiting(); });
self.addEventListener("activate", function (event) { event.waitUntil(self.clients.claim()); });

function ours(url) {
  try {
    var found = new URL(url, self.location.origin);
    return found.origin === self.location.origin ? found.href : self.location.origin + "/";
  } catch (error) {
    return self.location.origin + "/";
  }
}

self.addEventListener("push", function (event) {
  var notice = {};
  try { notice = event.data ? event.data.json() : {}; } catch (error) { notice = {}; }
  var title = typeof notice.title === "string" ? notice.title : self.location.host;
  event.waitUntil(self.registration.showNotification(title, {
    body: typeof notice.body === "string" ? notice.body : "",
    tag: typeof notice.tag === "string" ? notice.tag : undefined,
    icon: "/static/favicon.svg",
    data: { url: ours(notice.url || "/") }
  }));
});

self.addEventListener("notificationclick", function (event) {
  event.notification.close();
  var url = ours(event.notification.data && event.notification.data.url);
  event.waitUntil(self.clients.matchAll({ type: "window", includeUncontrolled: true }).then(function (open) {
    for (var i = 0; i < open.length; i++) {
      if (open[i].url === url && "focus" in open[i]) { return open[i].focus(); }
    }
    return self.clients.openWindow(url);
  }));
});
