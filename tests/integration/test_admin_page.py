"""The operator's page, /admin: nothing there without an admin key; a sign-in with
the key (CSRF-protected, rate limited, lasting 12 hours) or the key as a bearer
token; each section lists its rows; Retry puts a failed mail back so that it goes
again with the same Message-ID, and refuses any other row."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from aiosmtpd.controller import Controller

from pbem.service.delivery import deliver_due
from pbem.store import heartbeats

from support import CSRF, Kept, csrf, free_port, two_players

KEY = "the-admin-key-of-this-server"
BEARER = {"Authorization": f"Bearer {KEY}"}


class Refusing(Kept):
    """An SMTP server that refuses every recipient (550) until told to take them."""

    def __init__(self) -> None:
        super().__init__()
        self.refuse = True

    async def handle_RCPT(self, server, session, envelope, address, options) -> str:
        if self.refuse:
            return "550 5.1.1 no such mailbox here"
        envelope.rcpt_tos.append(address)
        return "250 OK"


@pytest.fixture
def smtp() -> Iterator[Refusing]:
    kept = Refusing()
    server = Controller(kept, hostname="127.0.0.1", port=free_port())
    server.start()
    kept.url = f"smtp://127.0.0.1:{server.port}"
    yield kept
    server.stop()


@pytest.fixture
def admin_web(make_web, smtp):
    app, parts = make_web(admin_key=KEY, smtp_url=smtp.url)
    return app, parts, smtp


def signed_in(app):
    client = app.test_client()
    token = csrf(client, "/admin/sign-in")
    answer = client.post("/admin/sign-in", data={"csrf_token": token, "key": KEY})
    assert answer.status_code == 303 and answer.location.endswith("/admin")
    return client


def test_without_an_admin_key_there_is_no_admin_page(make_web):
    app, _ = make_web(admin_key="")
    client = app.test_client()
    for path in ("/admin", "/admin/sign-in", "/admin/nothing"):
        assert client.get(path).status_code == 404
        assert client.get(path, headers={"Authorization": "Bearer "}).status_code == 404
    assert client.post("/admin/sign-in", data={"key": ""}).status_code == 404
    assert client.post("/admin/mail/1/retry").status_code == 404


def test_a_wrong_key_is_refused_and_the_tries_are_limited(admin_web):
    app, _, _ = admin_web
    client = app.test_client()
    answer = client.get("/admin")
    assert answer.status_code == 303 and answer.location.endswith("/admin/sign-in")
    token = csrf(client, "/admin/sign-in")
    for _ in range(5):
        answer = client.post("/admin/sign-in", data={"csrf_token": token, "key": "guess"})
        assert answer.status_code == 403
        assert "That is not the admin key." in answer.get_data(as_text=True)
    assert client.get("/admin").status_code == 303  # still not signed in
    answer = client.post("/admin/sign-in", data={"csrf_token": token, "key": KEY})
    assert answer.status_code == 429  # even the right key, until the window passes
    assert client.get("/admin").status_code == 303


def test_the_sign_in_form_needs_its_csrf_token(admin_web):
    app, _, _ = admin_web
    client = app.test_client()
    client.get("/admin/sign-in")
    assert client.post("/admin/sign-in", data={"key": KEY}).status_code == 400
    assert client.get("/admin").status_code == 303


def test_a_sign_in_lasts_twelve_hours_and_ends_with_a_new_key(admin_web, make_web, clock):
    app, _, _ = admin_web
    client = signed_in(app)
    assert client.get("/admin").status_code == 200
    clock.advance(hours=11, minutes=59)
    assert client.get("/admin").status_code == 200
    clock.advance(minutes=2)
    assert client.get("/admin").status_code == 303
    client = signed_in(app)
    other, _ = make_web(admin_key=KEY + "-new", smtp_url="smtp://127.0.0.1:1")
    with client.session_transaction() as held:
        cookie = dict(held)
    stranger = other.test_client()
    with stranger.session_transaction() as held:
        held.update(cookie)
    assert stranger.get("/admin").status_code == 303


def test_a_script_reads_the_page_with_the_key_as_bearer(admin_web):
    app, _, _ = admin_web
    client = app.test_client()
    assert client.get("/admin", headers=BEARER).status_code == 200
    wrong = {"Authorization": "Bearer not-the-key"}
    assert client.get("/admin", headers=wrong).status_code == 303


def test_each_section_shows_its_rows_and_nothing_hidden(admin_web, clock):
    app, parts, _ = admin_web
    service = parts.service
    stuck = two_players(service, {"seed": "stuck"}, hours_per_turn=24)
    replaced = two_players(service, {"seed": "replaced"}, timeout_policy="replace", replace_after=1)
    state = service.state_at(replaced.game_id)
    service.time_out(replaced.game_id, state["turn"], state["seq"])
    deliver_due(parts.outbox, parts.channels)  # refused: 550, failed for good
    clock.advance(hours=25)
    heartbeats.record_sweep(
        parts.database, "host-a:11", clock(), 0.125, {"mails": 3, "failed_games": 2}, "boom"
    )
    heartbeats.beat(parts.database, "worker:host-b:12", "host-b:12", clock(), broker="ok")

    page = signed_in(app).get("/admin").get_data(as_text=True)
    stuck_part = page.split('id="stuck"')[1].split("</section>")[0]
    assert stuck.game_id in stuck_part
    failed_part = page.split('id="failed"')[1].split("</section>")[0]
    assert "ann@example.com" in failed_part and "no such mailbox here" in failed_part
    assert failed_part.count("/retry") == len(parts.outbox.failures())
    skipped_part = page.split('id="skipped"')[1].split("</section>")[0]
    assert "boom" in skipped_part and "<td>2</td>" in skipped_part
    sweeps_part = page.split('id="sweeps"')[1].split("</section>")[0]
    assert "host-a:11" in sweeps_part and "failed_games 2, mails 3" in sweeps_part
    processes_part = page.split('id="processes"')[1].split("</section>")[0]
    assert "worker:host-b:12" in processes_part and "broker: ok" in processes_part
    replaced_part = page.split('id="replaced"')[1].split("</section>")[0]
    assert replaced.game_id in replaced_part and "bot:" in replaced_part
    assert stuck.game_id not in replaced_part
    for created in (stuck, replaced):
        for seat in created.seats:
            assert seat.token not in page
    assert "play+" not in page


def test_an_error_naming_a_reply_address_shows_it_without_its_signature(admin_web):
    app, parts, _ = admin_web
    two_players(parts.service)
    (first, *_) = parts.outbox.take_due()
    address = f"play+{'a' * 16}.1.2.{'b' * 24}@pbem.test"
    parts.outbox.failed(first, f"550 relaying to <{address}> denied", permanent=True)
    page = app.test_client().get("/admin", headers=BEARER).get_data(as_text=True)
    assert address not in page
    assert f"play+{'a' * 16}.1.2.[hidden]@pbem.test" in page


def test_retry_sends_a_failed_mail_again_with_the_same_message_id(admin_web):
    app, parts, smtp = admin_web
    two_players(parts.service)
    deliver_due(parts.outbox, parts.channels)
    (failed, *others) = parts.outbox.failures()
    assert smtp.mails == [] and failed.delivery_id
    client = signed_in(app)

    page = client.get("/admin").get_data(as_text=True)
    token = CSRF.search(page)[1]
    assert client.post(f"/admin/mail/{failed.id}/retry").status_code == 400  # no CSRF token
    assert parts.outbox.status(failed.id) == "failed"

    answer = client.post(f"/admin/mail/{failed.id}/retry", data={"csrf_token": token})
    assert answer.status_code == 303 and answer.location.endswith("/admin#failed")
    row = parts.outbox.get(failed.id)
    assert (row.status, row.attempts, row.delivery_id) == ("pending", 0, failed.delivery_id)
    assert f"Mail {failed.id} is pending again" in client.get("/admin").get_data(as_text=True)

    smtp.refuse = False
    assert deliver_due(parts.outbox, parts.channels) == 1
    assert parts.outbox.status(failed.id) == "sent"
    assert [m["Message-ID"] for m in smtp.mails] == [failed.delivery_id]

    answer = client.post(f"/admin/mail/{failed.id}/retry", data={"csrf_token": token})
    assert answer.status_code == 400
    assert "not failed" in answer.get_data(as_text=True)
    assert parts.outbox.status(failed.id) == "sent"
    assert client.post("/admin/mail/999999/retry", data={"csrf_token": token}).status_code == 404

    # a script with the key needs no CSRF token (it sends no cookie to forge)
    other = others[0]
    scripted = app.test_client().post(f"/admin/mail/{other.id}/retry", headers=BEARER)
    assert scripted.status_code == 303
    assert parts.outbox.status(other.id) == "pending"


def test_a_page_number_must_be_a_small_whole_number(admin_web):
    app, _, _ = admin_web
    client = app.test_client()
    assert client.get("/admin?failed=x", headers=BEARER).status_code == 400
    assert client.get("/admin?stuck=-1", headers=BEARER).status_code == 400
    assert client.get("/admin?replaced=2", headers=BEARER).status_code == 200
