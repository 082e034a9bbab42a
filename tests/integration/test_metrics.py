"""/metrics: Prometheus text for the admin key only (none set: no such page); moves
counted as accepted, or refused by reason; the submit latency; deliveries, inbound
mails and Celery tasks by outcome; games, the outbox's backlog, the last sweep, the
scheduler's heartbeat age and the workers read from the database at each scrape;
no secret, game id or address in it. Under gunicorn (the shipped config, two
workers) a move through one worker shows whichever worker answers. The shipped
Grafana dashboard asks only for metrics a real answer has. A request that came in
on the `metrics_bind` address needs no key."""

from __future__ import annotations

import json
import os
import queue
import re
import subprocess
import threading
import urllib.error
import urllib.request
from datetime import timedelta
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from pbem.config import ConfigError, load_settings
from pbem.store import heartbeats

from processes import gunicorn_command
from support import free_port

ROOT = Path(__file__).resolve().parents[2]
ADMIN_KEY = "metrics-admin-key-0815"
ADMIN = {"Authorization": f"Bearer {ADMIN_KEY}"}
PLAYERS = [{"name": "Ann", "email": "ann@example.com"}, {"name": "Ben", "email": "ben@example.com"}]


def samples(text: str) -> dict[tuple[str, frozenset], float]:
    """Every sample of a Prometheus text: (name, labels) -> value."""
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def value(found: dict, name: str, **labels: str) -> float:
    return found.get((name, frozenset(labels.items())), 0.0)


def scrape(client) -> dict:
    answer = client.get("/metrics", headers=ADMIN)
    assert answer.status_code == 200
    assert answer.content_type.startswith("text/plain; version=")
    return samples(answer.get_data(as_text=True))


def new_game(client, pile: int = 21) -> tuple[str, dict[int, str]]:
    answer = client.post(
        "/api/games",
        json={"game": "nim", "players": PLAYERS, "setup": {"pile": pile}},
        headers=ADMIN,
    )
    assert answer.status_code == 201, answer.json
    return answer.json["id"], {s["seat"]: s["token"] for s in answer.json["seats"]}


def play(client, game_id: str, token: str, action: str, seq: int | None = None) -> int:
    body: dict = {"action": action}
    if seq is not None:
        body["expected_seq"] = seq
    headers = {"Authorization": f"Bearer {token}"}
    return client.post(f"/api/games/{game_id}/actions", json=body, headers=headers).status_code


def test_a_metrics_bind_is_an_address_and_port(tmp_path):
    for wrong in ("9100", "localhost:", "127.0.0.1:http", "127.0.0.1:70000"):
        with pytest.raises(ConfigError, match="metrics_bind"):
            load_settings({"PBEM_INSTANCE_DIR": str(tmp_path)}, metrics_bind=wrong)
    assert load_settings({}, metrics_bind="[::1]:9100").metrics_bind == "[::1]:9100"


def test_metrics_need_the_admin_key_and_none_set_means_no_page(make_web):
    app, _ = make_web(admin_key="")
    answer = app.test_client().get("/metrics", headers=ADMIN)
    assert answer.status_code == 404 and answer.json["error"]
    app, _ = make_web(admin_key=ADMIN_KEY)
    client = app.test_client()
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": ADMIN_KEY}):
        answer = client.get("/metrics", headers=headers)
        assert answer.status_code == 401 and answer.json["error"]
        assert answer.headers["WWW-Authenticate"].startswith("Bearer")
    assert client.get("/metrics", headers=ADMIN).status_code == 200


def test_moves_are_counted_accepted_or_refused_by_reason(make_web):
    app, _ = make_web(admin_key=ADMIN_KEY)
    client = app.test_client()
    game_id, tokens = new_game(client)
    over_id, over_tokens = new_game(client, pile=1)
    before = scrape(client)
    assert play(client, game_id, tokens[1], "take 2", seq=1) == 201
    assert play(client, game_id, tokens[1], "take 1") == 422  # seat 2 is to move
    assert play(client, game_id, tokens[2], "take 1", seq=1) == 409
    assert play(client, game_id, tokens[2], "take 7") == 422
    assert play(client, game_id, tokens[2], "dance a jig") == 422
    assert play(client, game_id, "not-a-token", "take 1") == 403
    assert play(client, "nosuchgame", tokens[2], "take 1") == 404
    assert play(client, over_id, over_tokens[1], "take 1") == 201
    assert play(client, over_id, over_tokens[2], "take 1") == 422  # the pile is gone
    after = scrape(client)

    def more(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert more("pbem_moves_accepted_total", game="nim", by="seat") == 2
    refused = "pbem_moves_refused_total"
    assert more(refused, game="nim", reason="not_your_turn") == 1
    assert more(refused, game="nim", reason="stale") == 1
    assert more(refused, game="nim", reason="illegal") == 1
    assert more(refused, game="nim", reason="unreadable") == 1
    assert more(refused, game="nim", reason="forbidden") == 1
    assert more(refused, game="unknown", reason="no_game") == 1
    assert more(refused, game="nim", reason="game_over") == 1
    assert more("pbem_submit_seconds_count", via="api") == 9
    assert more("pbem_submit_seconds_bucket", via="api", le="+Inf") == 9


def test_the_database_gauges_are_read_at_each_scrape(make_web, clock):
    app, parts = make_web(admin_key=ADMIN_KEY)
    client = app.test_client()
    game_id, tokens = new_game(client)
    over_id, over_tokens = new_game(client, pile=1)
    assert play(client, over_id, over_tokens[1], "take 1") == 201  # the game ends
    db = parts.database
    heartbeats.record_sweep(db, "host:1", clock(), 0.25, {"mails": 3, "time_outs": 1})
    heartbeats.beat(db, "scheduler", "host:1", clock() - timedelta(seconds=12), sweep_seconds=10)
    heartbeats.beat(db, "worker:a:1", "a:1", clock(), broker="ok")
    heartbeats.beat(db, "worker:b:2", "b:2", clock(), broker="unreachable: refused")
    found = scrape(client)
    assert value(found, "pbem_database_up") == 1
    assert value(found, "pbem_games", game="nim", status="playing") == 1
    assert value(found, "pbem_games", game="nim", status="finished") == 1
    invitations = {"kind": "invitation", "channel": "email", "status": "pending"}
    assert value(found, "pbem_outbox_backlog", **invitations) == 4
    assert value(found, "pbem_sweep_last_duration_seconds") == 0.25
    assert value(found, "pbem_sweep_last_found", what="mails") == 3
    assert value(found, "pbem_sweep_last_found", what="time_outs") == 1
    assert value(found, "pbem_sweep_last_failed") == 0
    assert value(found, "pbem_sweep_last_started_timestamp_seconds") == clock().timestamp()
    assert value(found, "pbem_scheduler_heartbeat_age_seconds") == 12
    assert value(found, "pbem_workers", broker="ok") == 1
    assert value(found, "pbem_workers", broker="unreachable") == 1
    text = client.get("/metrics", headers=ADMIN).get_data(as_text=True)
    for secret in (game_id, over_id, *tokens.values(), "ann@example.com", ADMIN_KEY, "host:1"):
        assert secret not in text


def test_with_the_database_away_the_metrics_say_so_without_its_password(tmp_path):
    from test_health import PASSWORD, app_on, dead_postgres

    app, parts = app_on(tmp_path, database_url=dead_postgres(), admin_key=ADMIN_KEY)
    answer = app.test_client().get("/metrics", headers=ADMIN)
    assert answer.status_code == 200
    text = answer.get_data(as_text=True)
    assert value(samples(text), "pbem_database_up") == 0
    assert PASSWORD not in text and ADMIN_KEY not in text
    parts.database.dispose()


def test_deliveries_inbound_mails_and_tasks_are_counted_by_outcome(make_web):
    from worker.tasks import deliver_mail

    app, parts = make_web(admin_key=ADMIN_KEY, smtp_url=f"smtp://127.0.0.1:{free_port()}")
    client = app.test_client()
    new_game(client)
    before = scrape(client)
    row_ids = parts.outbox.take_due()[:2]  # as the sweep hands them out
    assert deliver_mail.apply(args=[row_ids]).get() == ["pending", "pending"]  # no SMTP there
    handled = parts.inbound.handle(b"Subject: hello\r\n\r\nnot for any game\r\n")
    after = scrape(client)

    def more(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert more("pbem_deliveries_total", outcome="pending") == 2
    assert more("pbem_deliveries_total", outcome="sent") == 0
    assert more("pbem_celery_tasks_total", task="pbem.deliver", outcome="success") == 1
    assert handled.status in ("refused", "ignored")
    assert more("pbem_inbound_mails_total", outcome=handled.status) == 1


def test_the_dashboard_asks_only_for_metrics_a_real_answer_has(make_web, clock):
    dashboard = json.loads((ROOT / "config" / "grafana" / "pbem.json").read_text())
    queries = [t["expr"] for p in dashboard["panels"] for t in p["targets"]]
    used = {name for q in queries for name in re.findall(r"\bpbem_[a-z0-9_]+", q)}
    assert len(used) >= 12
    app, parts = make_web(admin_key=ADMIN_KEY)
    client = app.test_client()
    game_id, tokens = new_game(client)
    assert play(client, game_id, tokens[2], "take 1") == 422  # seat 1 is to move
    assert play(client, game_id, tokens[1], "take 1") == 201
    heartbeats.record_sweep(parts.database, "host:1", clock(), 0.1, {"mails": 0})
    heartbeats.beat(parts.database, "scheduler", "host:1", clock(), sweep_seconds=10)
    exposed = {name for name, _ in scrape(client)}
    assert used - exposed == set()
    for panel in ("Moves per second", "Refused moves by reason", "Submit latency"):
        assert panel in {p["title"] for p in dashboard["panels"]}


def _get(port: int, path: str, headers: dict | None = None) -> tuple[int, str]:
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=120) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def _post(port: int, path: str, body: dict, headers: dict) -> tuple[int, dict]:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", **headers},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=120) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


@pytest.mark.slow
def test_under_gunicorn_every_worker_answers_every_worker_s_counts(tmp_path, database_url):
    port, metrics_port = free_port(), free_port()
    metrics_dir = tmp_path / "metrics"
    metrics_dir.mkdir()
    (metrics_dir / "counter_1.db").write_bytes(b"a dead server's counts")  # emptied at start
    env = {
        **os.environ,
        "PBEM_INSTANCE_DIR": str(tmp_path),
        "PBEM_DATABASE_URL": database_url,
        "PBEM_SECRET_KEY": "gunicorn-secret",
        "PBEM_ADMIN_KEY": ADMIN_KEY,
        "PBEM_BROKER_URL": "",
        "PBEM_METRICS_BIND": f"127.0.0.1:{metrics_port}",
    }
    env.pop("PBEM_DEV", None)
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    server = subprocess.Popen(
        gunicorn_command(
            "-w",
            "2",
            "-b",
            f"127.0.0.1:{port}",
            "-b",
            f"127.0.0.1:{metrics_port}",  # where /metrics needs no key
            "--access-logformat",
            "answered-by %(p)s %(r)s",
        ),
        env=env,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    assert server.stdout is not None
    reader = threading.Thread(target=lambda: [lines.put(line) for line in server.stdout])
    reader.start()
    try:
        booted = 0
        while booted < 2:  # the master listens before its workers boot
            booted += "Booting worker" in lines.get(timeout=120)
        status, created = _post(port, "/api/games", {"game": "nim", "players": PLAYERS}, ADMIN)
        assert status == 201, created
        token = {s["seat"]: s["token"] for s in created["seats"]}[1]
        game = created["id"]
        bearer = {"Authorization": f"Bearer {token}"}
        assert _post(port, f"/api/games/{game}/actions", {"action": "take 1"}, bearer)[0] == 201
        assert _post(port, f"/api/games/{game}/actions", {"action": "take 1"}, bearer)[0] == 422
        answered_by: set[str] = set()
        for n in range(400):  # until each of the two workers has answered a scrape
            status, text = _get(port, f"/metrics?n={n}", ADMIN)
            assert status == 200, text
            found = samples(text)
            assert value(found, "pbem_moves_accepted_total", game="nim", by="seat") == 1
            assert value(found, "pbem_moves_refused_total", game="nim", reason="not_your_turn") == 1
            assert value(found, "pbem_submit_seconds_count", via="api") == 2
            assert value(found, "pbem_games", game="nim", status="playing") == 1
            answered_by.add(_answered_by(lines, f"/metrics?n={n} "))
            if len(answered_by) == 2:
                break
        assert len(answered_by) == 2, "one worker answered every scrape"
        assert not (metrics_dir / "counter_1.db").exists()
        assert sorted(p.name.split("_")[0] for p in metrics_dir.glob("*.db"))
        # the metrics bind answers without the key; the site's bind still wants it
        status, text = _get(metrics_port, "/metrics")
        assert status == 200 and "pbem_moves_accepted_total" in text
        assert _get(port, "/metrics")[0] == 401
        assert _get(port, "/metrics", {"Host": f"127.0.0.1:{metrics_port}"})[0] == 401
    finally:
        server.terminate()
        server.wait(timeout=120)
        reader.join()


def _answered_by(lines: queue.Queue[str], request: str) -> str:
    """The pid of the worker whose access log line shows `request` (gunicorn logs a
    request after answering it: waited for, never guessed)."""
    while True:
        line = lines.get(timeout=120)
        found = re.search(r"answered-by <?(\d+)>? GET (\S+ )", line)
        if found and found[2] == request:
            return found[1]
