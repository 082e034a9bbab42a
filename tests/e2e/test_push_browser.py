"""Web Push in Chromium: a seat turns notifications on from its game page; the page
registers the service worker (/push-sw.js, scope "/"), subscribes with the
server's application key and posts the subscription with its CSRF token; the
other seat's move is then pushed by the site's delivery to a push service on the
loopback, which checks its VAPID signature and decrypts it with the device's keys.

One part is a stand-in, and only one: Chromium's pushManager.subscribe asks its
own push service (Google's FCM) for an endpoint, which a test without the
internet cannot reach, so the page's `subscribe` and `getSubscription` are replaced
(an init script) by ones that answer with a subscription to the test's push
service, under keys the test made. Everything else is the browser's and the
server's own: the worker's registration, the permission, the page's script and
its request, the outbox, the channel and the push."""

from __future__ import annotations

import json
import time

from playwright.sync_api import expect
from push_service import Device, PushService, unb64
from sqlalchemy import select

from pbem.push.keys import application_server_key, subject
from pbem.service.push import SUBSCRIPTIONS

STUB = """
(() => {
  const made = %s;
  const kept = () => localStorage.getItem("test-push") === "on";
  const subscription = () => ({ endpoint: made.endpoint, toJSON: () => made });
  PushManager.prototype.subscribe = function (options) {
    window.testPushOptions = {
      userVisibleOnly: options.userVisibleOnly,
      key: Array.from(new Uint8Array(options.applicationServerKey)),
    };
    localStorage.setItem("test-push", "on");
    return Promise.resolve(subscription());
  };
  PushManager.prototype.getSubscription = function () {
    return Promise.resolve(kept() ? subscription() : null);
  };
})();
"""


def _subscriptions(site) -> list:
    with site.parts.database.reading() as conn:
        return list(conn.execute(select(SUBSCRIPTIONS)).all())


def test_a_seat_turns_notifications_on_and_its_device_is_pushed_the_next_turn(site, browser, shoot):
    service = PushService()
    try:
        device = Device(service.endpoint("chromium"))
        body = site.ann_and_ben()
        game_id = body["id"]
        tokens = {s["seat"]: s["token"] for s in body["seats"]}
        context = browser.new_context(viewport={"width": 1100, "height": 900})
        context.grant_permissions(["notifications"], origin=site.url)
        context.add_init_script(script=STUB % json.dumps(device.subscription()))
        page = context.new_page()
        page.goto(f"{site.url}/g/{game_id}/{tokens[2]}")

        panel = page.locator(".push")
        expect(panel).to_be_visible()
        expect(panel.locator(".push-state")).to_have_text("Notifications on this device: off.")
        page.click(".push-turn-on")
        expect(panel.locator(".push-state")).to_have_text("Notifications on this device: on.")
        shoot(page, "push-on", ".push")

        key = application_server_key(site.parts.settings)
        options = page.evaluate("window.testPushOptions")
        assert options == {"userVisibleOnly": True, "key": list(unb64(key))}
        worker = page.evaluate(
            """navigator.serviceWorker.ready.then(r => [r.scope, r.active.scriptURL])"""
        )
        assert worker == [f"{site.url}/", f"{site.url}/push-sw.js"]
        (kept,) = _subscriptions(site)
        assert (kept.game_id, kept.seat, kept.endpoint) == (game_id, 2, device.endpoint)

        legal = site.parts.service.legal(game_id, 1)[0]
        site.parts.service.submit_action(game_id, tokens[1], legal)
        deadline = time.monotonic() + 15
        while not service.pushes and time.monotonic() < deadline:
            time.sleep(0.1)
        (push,) = service.pushes
        notice = device.read(push, key, subject(site.parts.settings))
        assert notice["title"] == "Your turn"
        assert notice["url"] == f"{site.url}/g/{game_id}"

        page.reload()  # the page asks the server whether this device is on for the seat
        expect(panel.locator(".push-state")).to_have_text("Notifications on this device: on.")
        page.click(".push-turn-off")
        expect(panel.locator(".push-state")).to_have_text("Notifications on this device: off.")
        assert _subscriptions(site) == []
        context.close()
    finally:
        service.stop()
