"""Every page of open tables, and its refusals, speak German to a German browser:
no English word is left on the list, a table's page, the join link's page, the
creator's page, or the answers to a join."""

from __future__ import annotations

import re

from german import english_left, visible_text
from sqlalchemy import select

from pbem.service import PlayerSpec, rows
from pbem.service.joining import join_token

GERMAN = {"Accept-Language": "de-DE,de;q=0.9"}
PEOPLE = frozenset({"Anna", "Bernd"})
CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')


def page(client, url: str, status: int = 200, **form: str) -> str:
    if form:
        token = CSRF.search(client.get("/my-games", headers=GERMAN).get_data(as_text=True))[1]
        answer = client.post(url, data={"csrf_token": token, **form}, headers=GERMAN)
    else:
        answer = client.get(url, headers=GERMAN)
    assert answer.status_code == status, (url, answer.status_code)
    text = answer.get_data(as_text=True)
    assert '<html lang="de">' in text
    assert english_left(visible_text(text), allowed=PEOPLE) == [], url
    return text


def test_open_tables_speak_german(web):
    app, parts = web
    opened = parts.service.open_table(
        [PlayerSpec("Anna", "anna@example.com")], 2, {"public": True}, game="nim"
    )
    table = f"/open/{opened.table_id}"
    client = app.test_client()
    assert "Offene Tische" in page(client, "/open")
    assert "An diesen Tisch setzen" in page(client, table)
    sent = page(client, f"{table}/join", name="Bernd", email="bernd@example.com")
    assert "unterwegs" in sent
    page(client, f"{table}/join", 400, name="ANNA", email="carla@example.com")
    with parts.database.reading() as conn:
        payload = conn.execute(
            select(rows.OUTBOX.c.payload).where(rows.OUTBOX.c.kind == "join_confirm")
        ).scalar_one()
    link = f"/open/join/{join_token(parts.settings.signing_key(), payload['nonce'])}"
    assert "Meinen Platz einnehmen" in page(client, link)
    page(client, "/open/join/forged.link", 403)
    manage = f"{table}/manage/{opened.manage}"
    assert "Mit Bots beginnen" in page(client, manage)
    cancelled = client.post(
        f"{manage}/cancel",
        data={"csrf_token": CSRF.search(page(client, manage))[1]},
        headers=GERMAN,
        follow_redirects=True,
    ).get_data(as_text=True)
    assert "Der Tisch ist abgesagt" in cancelled
    assert english_left(visible_text(cancelled), allowed=PEOPLE) == []
    page(client, link, 409, **{"x": "y"})
