"""Web Push, end to end on a real push service of the loopback: a seat subscribes from
its page (CSRF, its seat session), a move writes a push row into the outbox, the
push channel delivers it the way a worker does, and the service receives it signed
with the instance's VAPID key and encrypted to the browser's keys, in the seat's
language, saying nothing hidden. A gone subscription (404, 410) is dropped; 429 and
5xx are tried again; a hostile subscription is refused and changes nothing."""

from __future__ import annotations

import dataclasses
import json
import re
import stat

import pytest
from push_service import Device, PushService, b64
from sqlalchemy import select

from pbem.push.channel import reaches_public
from pbem.push.keys import FILE, application_server_key, subject
from pbem.service import PlayerSpec, rows
from pbem.service.delivery import deliver
from pbem.service.push import MOST_PER_SCOPE, SUBSCRIPTIONS

PANEL_CSRF = re.compile(r'data-csrf="([^"]+)"')


@pytest.fixture
def push_service():
    service = PushService()
    yield service
    service.stop()


@pytest.fixture
def site(make_web):
    app, parts = make_web(push_loopback_http=True)
    return app, parts


def _nim(parts, pile: int = 3):
    return parts.service.create_game(
        [
            PlayerSpec("Anna", "anna@example.com"),
            PlayerSpec("Bernd", "bernd@example.com", language="de"),
        ],
        None,
        {"pile": pile},
        game="nim",
    )


def _seated(app, created, seat: int):
    """A browser holding the seat (its personal link opened), and the page's token."""
    client = app.test_client()
    answer = client.get(f"/g/{created.game_id}/{created.seats[seat - 1].token}")
    assert answer.status_code == 302
    page = client.get(f"/g/{created.game_id}").get_data(as_text=True)
    return client, PANEL_CSRF.search(page)[1]


def _subscribe(client, token: str, url: str, body, **how):
    data = body if isinstance(body, str | bytes) else json.dumps(body)
    headers = {"Content-Type": "application/json", "X-CSRFToken": token, **how}
    return client.post(url, data=data, headers=headers)


def _push_rows(parts, game_id: str):
    out = rows.OUTBOX.c
    with parts.database.reading() as conn:
        query = select(rows.OUTBOX).where(out.game_id == game_id, out.channel == "push")
        return list(conn.execute(query.order_by(out.id)).all())


def _subscriptions(parts):
    with parts.database.reading() as conn:
        return list(conn.execute(select(SUBSCRIPTIONS).order_by(SUBSCRIPTIONS.c.id)).all())


def _deliver(parts, row_id: int) -> str:
    """What a worker does with the row: claim it and hand it to its channel."""
    return deliver(parts.outbox, parts.channels, row_id)


def test_a_turn_and_the_end_are_pushed_signed_encrypted_and_in_the_seats_language(
    site, push_service
):
    app, parts = site
    created = _nim(parts, pile=2)
    game_id = created.game_id
    bernd = Device(push_service.endpoint("bernd"))
    client, token = _seated(app, created, 2)
    answer = _subscribe(client, token, f"/g/{game_id}/push", bernd.subscription())
    assert answer.status_code == 201, answer.get_data(as_text=True)

    parts.service.submit_action(game_id, created.seats[0].token, "take 1", 1)
    (turn,) = _push_rows(parts, game_id)
    assert (turn.kind, turn.seat, turn.language) == ("your_turn", 2, "de")
    assert _deliver(parts, turn.id) == "sent"

    (push,) = push_service.pushes
    assert push.path == "/push/bernd"
    assert push.headers["ttl"] == "86400"
    assert push.headers["urgency"] == "high"
    key, contact = application_server_key(parts.settings), subject(parts.settings)
    assert contact == "mailto:noreply@pbem.localhost"  # derived from the site's sender
    # Exactly this: a title, a line, the seat's page (no token), a tag; no game state.
    assert bernd.read(push, key, contact) == {
        "title": "Du bist am Zug",
        "body": "Anna gegen Bernd: Du bist am Zug.",
        "url": f"http://pbem.test/g/{game_id}",
        "tag": f"{game_id}:your_turn",
    }

    parts.service.submit_action(game_id, created.seats[1].token, "take 1", 3)
    over = _push_rows(parts, game_id)[-1]
    assert (over.kind, over.seat) == ("game_over", 2)
    assert _deliver(parts, over.id) == "sent"
    notice = bernd.read(push_service.pushes[-1], key, contact)
    assert notice["title"] == "Partie beendet"
    assert notice["body"] == "Anna gegen Bernd ist zu Ende: Sieh dir die Endwertung an."
    # the key pair was made once, readable by its owner only
    pem = parts.settings.instance_dir / FILE
    assert stat.S_IMODE(pem.stat().st_mode) == 0o600


@pytest.mark.parametrize("status", [404, 410])
def test_a_subscription_the_push_service_says_is_gone_is_dropped_and_not_retried(
    site, push_service, status
):
    app, parts = site
    created = _nim(parts)
    device = Device(push_service.endpoint("gone"))
    client, token = _seated(app, created, 2)
    assert (
        _subscribe(client, token, f"/g/{created.game_id}/push", device.subscription()).status_code
        == 201
    )
    push_service.answers["/push/gone"] = status

    parts.service.submit_action(created.game_id, created.seats[0].token, "take 1", 1)
    (row,) = _push_rows(parts, created.game_id)
    assert _deliver(parts, row.id) == "skipped"

    assert _subscriptions(parts) == []
    after = parts.outbox.get(row.id)
    assert (after.status, after.attempts) == ("skipped", 1)
    assert f"({status})" in after.last_error
    assert len(push_service.pushes) == 1
    parts.service.submit_action(created.game_id, created.seats[1].token, "take 1", 3)
    assert len(_push_rows(parts, created.game_id)) == 1  # no more rows for it


@pytest.mark.parametrize(
    ("status", "after"), [(500, "pending"), (503, "pending"), (429, "pending"), (400, "failed")]
)
def test_a_push_service_away_is_tried_again_and_a_refusal_fails(
    site, push_service, clock, status, after
):
    app, parts = site
    created = _nim(parts)
    device = Device(push_service.endpoint("busy"))
    client, token = _seated(app, created, 2)
    _subscribe(client, token, f"/g/{created.game_id}/push", device.subscription())
    push_service.answers["/push/busy"] = status

    parts.service.submit_action(created.game_id, created.seats[0].token, "take 1", 1)
    (row,) = _push_rows(parts, created.game_id)
    assert _deliver(parts, row.id) == after
    found = parts.outbox.get(row.id)
    assert (found.status, found.attempts) == (after, 1)
    assert found.last_error == f"the push service answered {status}"
    assert len(_subscriptions(parts)) == 1  # kept
    if after == "pending":
        assert found.next_attempt_at > row.next_attempt_at  # backing off
        push_service.answers["/push/busy"] = 201
        clock.advance(minutes=1)  # the first backoff
        assert _deliver(parts, row.id) == "sent"
        assert len(push_service.pushes) == 2


def _with_keys(device: Device, **keys) -> dict:
    body = device.subscription()
    body["keys"] = {**body["keys"], **keys}
    return body


HOSTILE = {
    "not JSON": "endpoint=x",
    "a list": [1, 2],
    "no keys": {"endpoint": "http://127.0.0.1:9/push/x"},
    "keys not an object": {"endpoint": "http://127.0.0.1:9/push/x", "keys": "p256dh"},
    "http to a public host": {"endpoint": "http://push.example.com/x"},
    "https to a private address": {"endpoint": "https://10.0.0.7/x"},
    "https to the metadata address": {"endpoint": "https://169.254.169.254/latest"},
    "https to a local name": {"endpoint": "https://printer.local/x"},
    "https on another port": {"endpoint": "https://push.example.com:8443/x"},
    "a user in the endpoint": {"endpoint": "https://me:pw@push.example.com/x"},
    "javascript": {"endpoint": "javascript:alert(1)"},
    "ftp": {"endpoint": "ftp://push.example.com/x"},
    "an endpoint too long": {"endpoint": "https://push.example.com/" + "a" * 1010},
    "an endpoint not text": {"endpoint": 7},
    "a p256dh of 64 bytes": {"p256dh": b64(b"\x04" + b"\x01" * 63)},
    "a p256dh not a point": {"p256dh": b64(b"\x02" + b"\x01" * 64)},
    "a p256dh not base64url": {"p256dh": "!" * 87},
    "an auth of 15 bytes": {"auth": b64(b"\x01" * 15)},
    "an auth too long": {"auth": "A" * 4000},
    "an auth not text": {"auth": ["x"]},
}


WHOLE = {"not JSON", "a list", "no keys", "keys not an object"}  # bodies as they are


@pytest.mark.parametrize("what", sorted(HOSTILE))
def test_a_hostile_subscription_is_refused_and_changes_nothing(
    make_parts, clock, what, push_service
):
    from pbem.web.app import create_app

    parts = make_parts(clock, push_loopback_http=True)
    app = create_app(parts)
    app.testing = True
    created = _nim(parts)
    device = Device(push_service.endpoint("d"))
    hostile = HOSTILE[what]
    if what in WHOLE or not isinstance(hostile, dict):
        body = hostile
    elif "endpoint" in hostile:
        body = {**device.subscription(), **hostile}
    else:
        body = _with_keys(device, **hostile)
    client, token = _seated(app, created, 2)
    answer = _subscribe(client, token, f"/g/{created.game_id}/push", body)
    assert answer.status_code == 400, (what, answer.get_data(as_text=True)[:300])
    assert _subscriptions(parts) == []


def test_only_the_seats_own_browser_may_subscribe_and_only_its_holder_is_pushed(
    make_parts, clock, push_service
):
    from pbem.web.app import create_app

    parts = make_parts(clock, push_loopback_http=True)
    app = create_app(parts)
    app.testing = True
    created, other = _nim(parts), _nim(parts)
    device = Device(push_service.endpoint("stranger"))
    url = f"/g/{created.game_id}/push"
    stranger = app.test_client()
    page = stranger.get(f"/g/{other.game_id}/{other.seats[0].token}") and stranger.get(
        f"/g/{other.game_id}"
    )
    token = PANEL_CSRF.search(page.get_data(as_text=True))[1]
    # no seat session in this game: refused (a seat of another game counts for nothing)
    assert _subscribe(stranger, token, url, device.subscription()).status_code == 403
    # no CSRF token: refused
    client, good = _seated(app, created, 2)
    assert _subscribe(client, "forged", url, device.subscription()).status_code == 400
    assert _subscribe(client, good, "/my-games/push", device.subscription()).status_code == 403
    assert _subscriptions(parts) == []

    assert _subscribe(client, good, url, device.subscription()).status_code == 201
    # the seat handed to someone else: its old holder's device is pushed no more
    parts.service.replace_seat(created.game_id, 2, "human", name="Clara", email="clara@example.com")
    parts.service.submit_action(created.game_id, created.seats[0].token, "take 1")
    assert _push_rows(parts, created.game_id) == []


def test_off_ends_the_pushes_and_a_seat_has_at_most_a_few_devices(make_parts, clock, push_service):
    from pbem.web.app import create_app

    parts = make_parts(clock, push_loopback_http=True)
    app = create_app(parts)
    app.testing = True
    created = _nim(parts)
    client, token = _seated(app, created, 2)
    url = f"/g/{created.game_id}/push"
    devices = [Device(push_service.endpoint(f"d{n}")) for n in range(MOST_PER_SCOPE + 1)]
    for device in devices[:-1]:
        assert _subscribe(client, token, url, device.subscription()).status_code == 201
    assert _subscribe(client, token, url, devices[-1].subscription()).status_code == 400
    assert len(_subscriptions(parts)) == MOST_PER_SCOPE
    # the same device again is the same subscription
    assert _subscribe(client, token, url, devices[0].subscription()).status_code == 201
    assert len(_subscriptions(parts)) == MOST_PER_SCOPE

    for device in devices[1:-1]:
        off = _subscribe(client, token, f"{url}/off", {"endpoint": device.endpoint})
        assert off.status_code == 200
    state = _subscribe(client, token, f"{url}/state", {"endpoint": devices[0].endpoint})
    assert state.get_json() == {"push": "on"}
    state = _subscribe(client, token, f"{url}/state", {"endpoint": devices[1].endpoint})
    assert state.get_json() == {"push": "off"}
    parts.service.submit_action(created.game_id, created.seats[0].token, "take 1", 1)
    assert [r.address for r in _push_rows(parts, created.game_id)] == [
        f"push:{_subscriptions(parts)[0].id}"
    ]


def test_http_endpoints_are_refused_unless_the_loopback_setting_is_on(make_parts, clock):
    from pbem.web.app import create_app

    parts = make_parts(clock)  # push_loopback_http off, as in production
    app = create_app(parts)
    app.testing = True
    created = _nim(parts)
    client, token = _seated(app, created, 2)
    device = Device("http://127.0.0.1:9/push/x")
    answer = _subscribe(client, token, f"/g/{created.game_id}/push", device.subscription())
    assert answer.status_code == 400
    assert _subscriptions(parts) == []


def test_an_undo_asked_of_a_seat_is_pushed_naming_who_asks(site, push_service):
    app, parts = site
    created = _nim(parts, pile=9)
    game_id = created.game_id
    bernd = Device(push_service.endpoint("bernd"))
    client, token = _seated(app, created, 2)
    assert _subscribe(client, token, f"/g/{game_id}/push", bernd.subscription()).status_code == 201
    parts.service.submit_action(game_id, created.seats[0].token, "take 1")
    parts.service.submit_action(game_id, created.seats[1].token, "take 1")
    parts.service.undo(game_id, created.seats[0].token)

    *earlier, asked = _push_rows(parts, game_id)
    assert (asked.kind, asked.seat, asked.payload["asked_by"]) == ("undo_request", 2, 1)
    # a device's pushes go in order: the turn pushed before it first (moot by now)
    assert [_deliver(parts, row.id) for row in earlier] == ["skipped"]
    assert _deliver(parts, asked.id) == "sent"
    push = push_service.pushes[-1]
    assert push.headers["urgency"] == "normal"
    notice = bernd.read(push, application_server_key(parts.settings), subject(parts.settings))
    assert (notice["title"], notice["body"]) == (
        "Bitte um Rücknahme",
        "Anna gegen Bernd: Anna möchte einen Zug zurücknehmen.",
    )


def test_a_seat_that_chose_no_mail_for_a_topic_is_not_pushed_for_it(site, push_service):
    app, parts = site
    created = _nim(parts, pile=9)
    game_id = created.game_id
    client, token = _seated(app, created, 2)
    device = Device(push_service.endpoint("quiet"))
    assert _subscribe(client, token, f"/g/{game_id}/push", device.subscription()).status_code == 201
    parts.service.set_mail_preference(
        game_id, created.seats[1].token, "turn=none,round=every,other=every"
    )
    parts.service.submit_action(game_id, created.seats[0].token, "take 1")
    assert _push_rows(parts, game_id) == []
    parts.service.say(game_id, created.seats[0].token, "hello")
    assert [r.kind for r in _push_rows(parts, game_id)] == ["chat"]


def test_forgetting_the_seat_in_the_browser_ends_its_pushes(site, push_service):
    app, parts = site
    created = _nim(parts, pile=9)
    game_id = created.game_id
    client, token = _seated(app, created, 2)
    device = Device(push_service.endpoint("shared"))
    assert _subscribe(client, token, f"/g/{game_id}/push", device.subscription()).status_code == 201
    assert client.post(f"/g/{game_id}/forget", data={"csrf_token": token}).status_code == 302
    parts.service.submit_action(game_id, created.seats[0].token, "take 1")
    assert _push_rows(parts, game_id) == []


def test_the_service_worker_is_served_at_the_root_as_a_script_of_this_site(site):
    app, _parts = site
    answer = app.test_client().get("/push-sw.js")
    assert answer.status_code == 200
    assert answer.mimetype == "text/javascript"
    assert answer.headers["Cache-Control"] == "no-cache"  # a new worker is seen at once
    assert "worker-src 'self'" in answer.headers["Content-Security-Policy"]
    assert b"notificationclick" in answer.get_data()


def test_a_key_pair_that_cannot_be_had_leaves_the_page_without_the_panel(make_parts, clock):
    from pbem.web.app import create_app

    parts = make_parts(clock)
    (parts.settings.instance_dir / FILE).mkdir(parents=True)  # not a key: a folder
    app = create_app(parts)
    app.testing = True
    created = _nim(parts)
    client = app.test_client()
    client.get(f"/g/{created.game_id}/{created.seats[1].token}")
    page = client.get(f"/g/{created.game_id}")
    assert page.status_code == 200
    assert "Your seat" in page.get_data(as_text=True)
    assert "data-push-key" not in page.get_data(as_text=True)


def test_a_push_service_that_sends_the_push_elsewhere_is_not_followed(site, push_service):
    app, parts = site
    created = _nim(parts)
    device = Device(push_service.endpoint("moved"))
    client, token = _seated(app, created, 2)
    _subscribe(client, token, f"/g/{created.game_id}/push", device.subscription())
    push_service.answers["/push/moved"] = 307

    parts.service.submit_action(created.game_id, created.seats[0].token, "take 1")
    (row,) = _push_rows(parts, created.game_id)
    assert _deliver(parts, row.id) == "failed"
    assert parts.outbox.get(row.id).last_error == "the push service answered with a redirect"
    assert [p.path for p in push_service.pushes] == ["/push/moved"]  # nothing went elsewhere


def test_the_devices_of_a_browser_that_forgot_the_seat_count_no_more(site, push_service):
    app, parts = site
    created = _nim(parts, pile=9)
    url = f"/g/{created.game_id}/push"
    old, token = _seated(app, created, 2)
    for n in range(MOST_PER_SCOPE):
        device = Device(push_service.endpoint(f"old{n}"))
        assert _subscribe(old, token, url, device.subscription()).status_code == 201
    assert old.post(f"/g/{created.game_id}/forget", data={"csrf_token": token}).status_code == 302

    new, token = _seated(app, created, 2)
    device = Device(push_service.endpoint("new"))
    assert _subscribe(new, token, url, device.subscription()).status_code == 201
    assert [s.endpoint for s in _subscriptions(parts)] == [device.endpoint]


def test_an_endpoint_that_resolves_into_the_servers_own_network_is_never_posted_to(
    site, push_service
):
    """Checked once more when sent, on the addresses its host resolves to then (a name
    that was public when subscribed may point inside later): nothing is posted, the
    subscription is dropped, the notice skipped."""
    app, parts = site
    created = _nim(parts)
    device = Device(push_service.endpoint("inside"))
    client, token = _seated(app, created, 2)
    subscribed = _subscribe(client, token, f"/g/{created.game_id}/push", device.subscription())
    assert subscribed.status_code == 201
    channel = parts.channels["push"]
    channel.settings = dataclasses.replace(channel.settings, push_loopback_http=False)

    parts.service.submit_action(created.game_id, created.seats[0].token, "take 1", 1)
    (row,) = _push_rows(parts, created.game_id)
    assert _deliver(parts, row.id) == "skipped"
    assert push_service.pushes == []
    assert _subscriptions(parts) == []
    assert "no public address" in parts.outbox.get(row.id).last_error


@pytest.mark.parametrize(
    ("endpoint", "loopback", "public"),
    [
        ("https://localhost/x", False, False),
        ("https://127.0.0.1/x", False, False),
        ("https://[::1]/x", False, False),
        ("https://10.1.2.3/x", False, False),
        ("https://169.254.169.254/latest", False, False),
        ("https://[fe80::1]/x", False, False),
        ("https://127.0.0.1/x", True, True),
        ("https://10.1.2.3/x", True, False),
        ("https://8.8.8.8/x", False, True),
        ("https://[2606:4700::1111]/x", False, True),
    ],
)
def test_only_global_addresses_are_reached(endpoint, loopback, public):
    assert reaches_public(endpoint, loopback=loopback) is public
