"""Hostile use of the deadline feeds: the address is a random id that tells nothing
(no game, seat or session in it, however it is decoded), a made-up, forged or revoked
id gets the same 404, no spelling of an id fails the server, and an address of the
old, signed kind (which carried games and sessions readably) is answered 410 Gone."""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import re
import secrets
import urllib.parse
import zlib

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from itsdangerous import URLSafeSerializer

from pbem.service import PlayerSpec

from abuse import examples
from support import SHORT, csrf, feed_of

FEED = re.compile(r'href="/feeds/([^"]+)\.atom"')


@pytest.fixture
def site(make_web):
    return make_web()


def new_game(parts):
    created = parts.service.create_game(
        [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")],
        {"hours_per_turn": 24},
        SHORT,
    )
    return created.game_id, {s.seat: s.token for s in created.seats}


def with_feed(app, games):
    """A browser holding seat 1 of each game, and its feed's id."""
    client = app.test_client()
    for game_id, tokens in games:
        client.get(f"/g/{game_id}/{tokens[1]}")
    feed = feed_of(client)
    assert feed is not None
    return client, feed


def seat_sessions(app, client) -> dict[str, str]:
    """The browser's seat session ids (its cookie, as the server reads it)."""
    cookie = client.get_cookie("session")
    return app.session_interface.get_signing_serializer(app).loads(cookie.value)["seats"]


def decodings(text: str) -> list[bytes]:
    """Every reading of `text` an attacker would try: itself, base64 (both
    alphabets, any padding), base32, hex, each also inflated as zlib."""
    found = [text.encode()]
    body = text.lstrip(".")
    for part in {body, *re.split(r"[.\-_]", body)}:
        for decode in (
            lambda t: base64.urlsafe_b64decode(t + "=" * (-len(t) % 4)),
            lambda t: base64.b64decode(t + "=" * (-len(t) % 4)),
            lambda t: base64.b32decode(t.upper() + "=" * (-len(t) % 8)),
            bytes.fromhex,
        ):
            try:
                raw = decode(part)
            except (binascii.Error, ValueError):
                continue
            found.append(raw)
            with contextlib.suppress(zlib.error):
                found.append(zlib.decompress(raw))
    return found


def test_the_feed_address_is_a_random_id_that_tells_nothing(site):
    app, parts = site
    games = [new_game(parts), new_game(parts)]
    client, feed = with_feed(app, games)
    sessions = seat_sessions(app, client)
    told = [g.encode() for g, _ in games]
    for session_id in sessions.values():
        digest = hashlib.sha256(session_id.encode()).digest()
        told += [session_id.encode(), digest, digest.hex().encode()]
    told += [tokens[1].encode() for _, tokens in games]

    assert re.fullmatch(r"[A-Za-z0-9_-]{32}", feed)  # 24 random bytes: 192 bits
    for reading in decodings(feed):
        for secret in told:
            assert secret not in reading
    assert client.get(f"/feeds/{feed}.atom").status_code == 200


def test_a_made_up_forged_or_revoked_id_gets_the_same_404(site):
    app, parts = site
    client, revoked = with_feed(app, [new_game(parts)])
    client.post("/feeds/new", data={"csrf_token": csrf(client, "/my-games")})
    live = FEED.search(client.get("/my-games").get_data(as_text=True))[1]
    forged = live[:-1] + ("A" if live[-1] != "A" else "B")
    made_up = secrets.token_urlsafe(24)

    for ending in ("atom", "ics"):
        answers = {}
        for name, feed in (("revoked", revoked), ("forged", forged), ("made up", made_up)):
            answer = app.test_client().get(f"/feeds/{feed}.{ending}")
            body = answer.get_data(as_text=True).replace(feed, "FEED")
            # every header but the request's own id (new for each request, whatever
            # it asked) says the same
            headers = sorted((k, v) for k, v in answer.headers.items() if k != "X-Request-ID")
            answers[name] = (answer.status_code, headers, body)
        assert answers["revoked"][0] == 404
        assert answers["revoked"] == answers["forged"] == answers["made up"]
    assert app.test_client().get(f"/feeds/{live}.atom").status_code == 200


HOSTILE = [
    "x" * 100_000,
    "x" * 50_000 + "." + "y" * 50,  # shaped like an old signed address
    "é" * 32,
    "😀" * 32,
    "A" * 31 + "é",
    "\x00" * 32,
    "A" * 31 + "\x1b",
    "..",
    "=" * 32,
    "A" * 33,
    "e30.e30",
    "W10.bm90LWEtc2lnbmF0dXJl",
]


@pytest.mark.parametrize("feed", HOSTILE, ids=range(len(HOSTILE)))
def test_a_hostile_feed_id_gets_a_404(site, feed):
    app, _ = site
    client = app.test_client()
    for ending in ("atom", "ics"):
        answer = client.get(f"/feeds/{urllib.parse.quote(feed, safe='')}.{ending}")
        assert answer.status_code == 404, feed[:40]


@settings(
    max_examples=examples(60),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(feed=st.text(st.characters(codec="utf-8", exclude_characters="/"), min_size=1, max_size=300))
@example(feed="A" * 32)
def test_no_spelling_of_a_feed_id_fails_the_server(site, feed):
    app, _ = site
    answer = app.test_client().get(f"/feeds/{urllib.parse.quote(feed, safe='')}.ics")
    assert answer.status_code == 404


def test_an_old_signed_feed_address_is_gone_and_tells_nothing(site):
    """The addresses of before carried games and seat sessions readably: they now
    answer 410 Gone (a feed reader may stop asking), with nothing of the feed."""
    app, parts = site
    game_id, tokens = new_game(parts)
    client, _ = with_feed(app, [(game_id, tokens)])
    session_id = seat_sessions(app, client)[game_id]
    named = [[game_id, 1, hashlib.sha256(session_id.encode()).hexdigest()]]
    key = parts.settings.signing_key()
    old = URLSafeSerializer(key, salt="pbem deadline feed").dumps(named)
    other_key = URLSafeSerializer(b"another key", salt="pbem deadline feed").dumps(named)
    body, _, signature = old.rpartition(".")
    tampered = f"{body}.{signature[:-1]}{'A' if signature[-1] != 'A' else 'B'}"

    for ending in ("atom", "ics"):
        gone = app.test_client().get(f"/feeds/{old}.{ending}")
        assert gone.status_code == 410
        assert game_id not in gone.get_data(as_text=True).replace(old, "")
        assert "no longer served" in gone.get_data(as_text=True)
        for forged in (other_key, tampered, f"{body}x.{signature}"):
            assert app.test_client().get(f"/feeds/{forged}.{ending}").status_code == 404
