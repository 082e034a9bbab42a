"""Hostile use of public profiles: nobody but a signed-in person turns one on or
off (for their own address only), a made-up or withdrawn slug is the same 404, and
a name must be fit to show."""

from __future__ import annotations

import pytest
from test_profiles import PROFILE, nim, signed_in, turn_on

from support import csrf


@pytest.fixture
def site(make_web):
    return make_web(dev=True)


def test_a_browser_not_signed_in_turns_no_profile_on_or_off(site):
    app, parts = site
    nim(parts, "ann@example.com", "ben@example.com")
    client = app.test_client()
    token = csrf(client, "/my-games")
    assert (
        client.post("/my-games/profile", data={"name": "X", "csrf_token": token}).status_code == 403
    )
    assert client.post("/my-games/profile/off", data={"csrf_token": token}).status_code == 403
    with parts.database.reading() as conn:
        from sqlalchemy import text

        assert conn.execute(text("SELECT count(*) FROM profiles")).scalar() == 0


def test_a_profile_form_without_its_csrf_token_changes_nothing(site):
    app, parts = site
    nim(parts, "ann@example.com", "ben@example.com")
    client = signed_in(app, parts, "ann@example.com")
    assert client.post("/my-games/profile", data={"name": "X"}).status_code == 400
    assert PROFILE.search(client.get("/my-games").get_data(as_text=True)) is None


# a well-formed slug nobody has (fixed: the parallel runners must collect the same tests)
UNKNOWN = "Zq3-vB8_kT1mW0pX"


@pytest.mark.parametrize("slug", ["x", "A" * 16, UNKNOWN, "../admin", "%00" * 6, "a" * 5000])
def test_an_unknown_slug_is_404(site, slug):
    app, _ = site
    assert app.test_client().get(f"/players/{slug}").status_code == 404


@pytest.mark.parametrize("name", ["", "   ", "a" * 101, "\u200b"])
def test_a_name_unfit_to_show_is_refused(site, name):
    app, parts = site
    nim(parts, "ann@example.com", "ben@example.com")
    client = signed_in(app, parts, "ann@example.com")
    assert turn_on(client, name).status_code == 400
    assert PROFILE.search(client.get("/my-games").get_data(as_text=True)) is None


def test_one_persons_sign_in_turns_off_only_their_own_profile(site):
    app, parts = site
    nim(parts, "ann@example.com", "ben@example.com")
    ann = signed_in(app, parts, "ann@example.com")
    ben = signed_in(app, parts, "ben@example.com")
    turn_on(ann, "Ann")
    path = PROFILE.search(ann.get("/my-games").get_data(as_text=True))[1]
    ben.post("/my-games/profile/off", data={"csrf_token": csrf(ben, "/my-games")})
    assert app.test_client().get(path).status_code == 200


def test_a_name_is_shown_without_invisible_or_bidi_characters(site):
    app, parts = site
    nim(parts, "ann@example.com", "ben@example.com")
    client = signed_in(app, parts, "ann@example.com")
    turn_on(client, "\u202eAnn\u200b the  Great")
    path = PROFILE.search(client.get("/my-games").get_data(as_text=True))[1]
    assert "<h1>Ann the Great</h1>" in app.test_client().get(path).get_data(as_text=True)
