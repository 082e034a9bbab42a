"""Creating games cannot be abused: every option and setup number is bounded (no
request can stop the scheduler or brick a game through date arithmetic), nobody
can mail-bomb an address through invitations, only the admin chooses the hidden
information (and a chosen setup says so), and the new-game form creates a game
once per submission (POST/redirect/GET)."""

from __future__ import annotations

import itertools
import json
import re
import secrets
import threading
from pathlib import Path

import pytest
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import update
from sqlmodel import func, select

from pbem.games import GAMES
from pbem.service import BadRequest, PlayerSpec
from pbem.service.errors import TooMany
from pbem.service.outbox import Outbox
from pbem.service.sweep import Sweeper
from pbem.store.tables import Event, Game
from pbem.store.tables import Outbox as OutboxRow

from abuse import examples
from support import SHORT, play_out, token, two_players

ADMIN = {"Authorization": "Bearer admin-key"}
PLAYERS = [{"name": "Ann", "email": "ann@example.com"}, {"name": "Ben", "email": "ben@example.com"}]
CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')
FORM_KEY = re.compile(r'name="form_key" value="([^"]+)"')
_addresses = (f"10.{n // 65536 % 256}.{n // 256 % 256}.{n % 256}" for n in itertools.count(1))


class ManyClients(FlaskClient):
    """A test client whose every request comes from another address, as an abuser
    with many addresses would send them: the per-client rate limit never decides,
    so the limits under test here do."""

    def open(self, *args, **kwargs):
        self.environ_base["REMOTE_ADDR"] = next(_addresses)
        return super().open(*args, **kwargs)


@pytest.fixture
def web(web):
    app, parts = web
    app.test_client_class = ManyClients
    return app, parts


def _counts(parts) -> tuple[int, int]:
    """(games, outbox rows)."""
    with parts.database.read() as s:
        mails = s.exec(select(func.count()).select_from(OutboxRow)).one()
    return len(parts.service.games()), mails


def _created_payload(service, game_id: str) -> dict:
    with service.db.read() as s:
        event = s.exec(select(Event).where(Event.game_id == game_id, Event.seq == 1)).one()
        return event.payload


def _refused(client, parts, body, status: int, *, headers=None, raw: str | None = None):
    before = _counts(parts)
    if raw is not None:
        answer = client.post(
            "/api/games", data=raw, content_type="application/json", headers=headers
        )
    else:
        answer = client.post("/api/games", json=body, headers=headers)
    assert answer.status_code == status, answer.get_data(as_text=True)
    assert _counts(parts) == before  # no game, no mail
    return answer.json["error"]


# -- 13: options are bounded -----------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "rule"),
    [
        ({"reminders": [1e9]}, "reminders is a list of at most 5"),
        ({"reminders": [1] * 5000}, "at most 5"),
        ({"reminders": [1, 2, 3, 4, 5, 6]}, "at most 5"),
        ({"reminders": [0]}, "above 0"),
        ({"reminders": [-3]}, "above 0"),
        ({"hours_per_turn": 48, "reminders": [48]}, "not below 48"),
        ({"hours_per_turn": None, "reminders": [1441]}, "reminders"),
        ({"reminders": [True]}, "reminders"),
        ({"reminders": "24"}, "reminders"),
        ({"hours_per_turn": 1441}, "hours_per_turn is a number of hours from 1 to 1440"),
        ({"hours_per_turn": 10**30}, "hours_per_turn"),
        ({"hours_per_turn": True}, "hours_per_turn"),
        ({"vacation_days": 5000000}, "vacation_days is a whole number from 0 to 60"),
        ({"vacation_days": 61}, "vacation_days"),
        ({"vacation_days": 10**400}, "vacation_days"),
        ({"vacation_days": 2.5}, "vacation_days"),
        ({"replace_after": 21}, "replace_after is a whole number from 1 to 20"),
        ({"replace_after": False}, "replace_after"),
        ({"public": 1}, "public is true or false"),
    ],
)
def test_options_out_of_bounds_are_refused_with_the_rule(web, options, rule):
    app, parts = web
    error = _refused(app.test_client(), parts, {"players": PLAYERS, "options": options}, 400)
    assert rule in error


@pytest.mark.parametrize(
    "raw",
    [
        '{"players": %s, "options": {"reminders": [NaN]}}',
        '{"players": %s, "options": {"reminders": [Infinity]}}',
        '{"players": %s, "options": {"hours_per_turn": 1e999}}',
        '{"players": %s, "options": {"vacation_days": -Infinity}}',
        '{"players": %s, "options": {"replace_after": NaN}}',
        '{"players": %s, "options": {"hours_per_turn": 1' + "0" * 400 + "}}",
        '{"players": %s, "options": [1, 2]}',
    ],
)
def test_non_finite_and_huge_numbers_are_refused_everywhere(web, raw):
    app, parts = web
    body = raw % json.dumps(PLAYERS)
    _refused(app.test_client(), parts, None, 400, raw=body)


def test_more_than_four_seats_are_refused(web):
    app, parts = web
    players = [{"name": f"P{i}", "email": f"p{i}@example.com"} for i in range(5000)]
    error = _refused(app.test_client(), parts, {"players": players}, 400)
    assert "2 to 4 players" in error
    nim = {"players": players[:5], "game": "nim"}
    assert "2 to 4 players" in _refused(app.test_client(), parts, nim, 400)


# -- 14: dates never overflow ------------------------------------------------------------

LARGEST = {
    "hours_per_turn": 1440,
    "reminders": [1439.5, 1000, 100, 10, 0.5],
    "vacation_days": 60,
    "replace_after": 20,
    "timeout_policy": "replace",
}
NEXT_UP = [
    {"hours_per_turn": 1441},
    {"reminders": [1440]},
    {"reminders": [1439.5, 1000, 100, 10, 0.5, 0.25]},
    {"vacation_days": 61},
    {"replace_after": 21},
]


def test_every_date_input_at_its_largest_keeps_the_game_and_the_sweep_working(service, clock):
    created = two_players(service, **LARGEST)
    game_id = created.game_id
    sweeper = Sweeper(service, Outbox(service.db, clock), clock)
    assert sweeper.sweep().failed == []
    service.take_vacation(game_id, token(created, 1), 60)  # the largest vacation
    assert sweeper.sweep().failed == []
    clock.advance(days=60 + 60)  # past the vacation and the longest turn
    work = sweeper.sweep()
    assert work.failed == [] and work.time_outs == [(game_id, 1, 2)]
    service.time_out(game_id, 1, 2)
    state = service.state_at(game_id)
    legal = service.legal(game_id, state["turn"])[0]
    service.submit_action(game_id, token(created, state["turn"]), legal, state["seq"])
    for bad in NEXT_UP:
        with pytest.raises(BadRequest):
            two_players(service, **{**LARGEST, **bad})


def test_a_vacation_cannot_brick_a_game(service, clock):
    created = two_players(service, vacation_days=60)
    game_id = created.game_id
    for days in (61, 2_912_107, 10**30, True, 1.5, "3"):
        with pytest.raises(BadRequest):
            service.take_vacation(game_id, token(created, 1), days)
    # A game stored before the bounds existed, with a huge allowance: still bounded.
    with service.db.writing() as conn:
        games = Game.__table__
        options = {**service.options(game_id), "vacation_days": 5_000_000}
        conn.execute(update(games).where(games.c.id == game_id).values(options=options))
    with pytest.raises(BadRequest, match="at most 60"):
        service.take_vacation(game_id, token(created, 1), 2_912_107)
    service.take_vacation(game_id, token(created, 1), 60)
    state = service.state_at(game_id)
    legal = service.legal(game_id, 1)[0]
    assert service.submit_action(game_id, token(created, 1), legal, state["seq"]).seq == 3


# -- 15: setup numbers are bounded; invitations per address are limited ------------------


@pytest.mark.parametrize(
    ("body", "rule"),
    [
        ({"game": "nim", "setup": {"pile": 10**12}}, "pile"),
        ({"game": "nim", "setup": {"pile": 10_001}}, "pile"),
        ({"game": "nim", "setup": {"pile": 1e9}}, "pile"),
        ({"setup": {"seed": "x" * 10_000}}, "seed"),
        ({"setup": {"seed": 10**200}}, "seed"),
        ({"setup": {"seed": 1.5}}, "seed"),
        ({"setup": {"supply": ["Y01"] * 100_000}}, "supply"),
        ({"setup": {"supply": "Y01"}}, "supply"),
        ({"setup": {"supply": ["Y" * 5000]}}, "supply"),
        ({"setup": {"commons": ["aqua-dome"] * 1000}}, "commons"),
        ({"setup": {"secrets": {str(i): "O3" for i in range(1000)}}}, "secrets"),
        ({"setup": {"secrets": ["O3"]}}, "secrets"),
        ({"setup": {"rng": "x" * 10_000}}, "setup"),
        ({"setup": {"players": ["x"]}}, "setup"),
    ],
)
def test_setup_numbers_and_lists_are_bounded(web, body, rule):
    app, parts = web
    error = _refused(app.test_client(), parts, {"players": PLAYERS, **body}, 400, headers=ADMIN)
    assert rule in error and len(error) < 500


def test_the_largest_nim_pile_is_accepted(web):
    app, _ = web
    body = {"players": PLAYERS, "game": "nim", "setup": {"pile": 10_000}}
    assert app.test_client().post("/api/games", json=body, headers=ADMIN).status_code == 201


def test_the_spellings_of_an_internationalised_domain_share_one_invitation_limit(web):
    """müller.de, MÜLLER.DE and xn--mller-kva.de are one domain: spelling it another
    way does not buy an address ten more invitations."""
    app, parts = web
    client = app.test_client()
    spellings = ["vic@müller.de", "Vic@MÜLLER.DE", "vic@xn--mller-kva.de", "VIC@Xn--Mller-Kva.De"]
    for number in range(10):
        victim = {"name": "Vic", "email": spellings[number % len(spellings)]}
        body = {"players": [victim, {"name": f"P{number}", "email": f"p{number}@example.com"}]}
        assert client.post("/api/games", json=body).status_code == 201
    for spelling in spellings:
        body = {"players": [{"name": "Vic", "email": spelling}, {"name": "Q", "email": "q@x.org"}]}
        error = _refused(client, parts, body, 429)
        assert "vic@xn--mller-kva.de" in error.lower() and "24 hours" in error


def test_one_address_gets_at_most_ten_invitations_a_day(web, clock):
    app, parts = web
    client = app.test_client()
    victim = {"name": "Vic", "email": "victim@example.com"}
    for number in range(9):
        body = {"players": [victim, {"name": f"P{number}", "email": f"p{number}@example.com"}]}
        assert client.post("/api/games", json=body).status_code == 201
    twice = {"players": [{"name": "V", "email": "Victim@Example.COM"}, victim]}  # 11 invitations
    error = _refused(client, parts, twice, 429)
    assert "victim@example.com" in error.lower() and "24 hours" in error
    bot = {"name": "Robo", "bot": "greedy"}
    assert client.post("/api/games", json={"players": [victim, bot]}).status_code == 201  # 10th
    error = _refused(
        client, parts, {"players": [bot, {"name": "V", "email": "VICTIM@example.com"}]}, 429
    )
    assert "victim@example.com" in error.lower()
    form = client.get("/new").get_data(as_text=True)
    before = _counts(parts)
    page = client.post(
        "/new",
        data={
            "csrf_token": CSRF.search(form)[1],
            "form_key": FORM_KEY.search(form)[1],
            "kind1": "person",
            "name1": "Vic",
            "email1": "victim@example.com",
            "kind2": "greedy",
        },
    )
    assert page.status_code == 429 and "victim@example.com" in page.get_data(as_text=True)
    assert _counts(parts) == before
    clock.advance(hours=24, seconds=1)
    assert client.post("/api/games", json={"players": [victim, bot]}).status_code == 201


def test_the_invitation_limit_holds_in_the_service_on_every_database(service):
    for _ in range(5):
        service.create_game(
            [PlayerSpec("A", "a@example.com"), PlayerSpec("A2", "a@example.com")], None, SHORT
        )
    with pytest.raises(TooMany, match=r"a@example\.com") as refused:
        service.create_game([PlayerSpec("A", "a@example.com"), PlayerSpec("B", bot="greedy")])
    assert refused.value.status == 429


# -- 16: only the admin chooses the hidden information -----------------------------------


@pytest.mark.parametrize(
    "setup",
    [{"seed": "4711"}, SHORT, {"secrets": {"1": "O3", "2": "O5"}}, {"pile": 5}, {"x": 1}],
)
def test_only_the_admin_may_give_a_setup(web, setup):
    app, parts = web
    error = _refused(app.test_client(), parts, {"players": PLAYERS, "setup": setup}, 403)
    assert "setup" in error and "admin" in error


def test_a_chosen_setup_says_so_in_its_event_and_its_log(web):
    app, parts = web
    client = app.test_client()
    chosen = client.post(
        "/api/games", json={"players": PLAYERS, "setup": {"seed": "4711"}}, headers=ADMIN
    ).json["id"]
    served = client.post("/api/games", json={"players": PLAYERS}).json["id"]
    assert _created_payload(parts.service, chosen)["setup_chosen"] is True
    payload = _created_payload(parts.service, served)
    assert payload["setup_chosen"] is False
    assert re.fullmatch(r"[0-9a-f]{48}", payload["setup"]["seed"])  # 192 random bits
    logs = {g: client.get(f"/api/games/{g}/log", headers=ADMIN).json for g in (chosen, served)}
    assert logs[chosen]["game"]["setup_chosen"] is True
    assert logs[served]["game"]["setup_chosen"] is False


def test_an_imported_log_with_a_weak_seed_is_marked_chosen(service):
    created = service.create_game([PlayerSpec("Ann"), PlayerSpec("Ben")])
    play_out(service, created)
    finished = service.export_log(created.game_id)
    assert finished["game"]["setup_chosen"] is False
    assert service.export_log(service.import_log(finished).game_id)["game"]["setup_chosen"] is False
    strong = secrets.token_hex(16)
    for seed, chosen in (
        ("4711", True),
        ("a" * 40, True),
        ("0123456789abcdef" * 2, True),
        ("integration", True),
        (strong, False),
        (strong.upper(), False),
    ):
        doc = {"format": "pbem.mall/1", "setup": {"players": ["Ann", "Ben"], "seed": seed}}
        game_id = service.import_log(doc).game_id
        assert service.export_log(game_id)["game"]["setup_chosen"] is chosen, seed
        assert _created_payload(service, game_id)["setup_chosen"] is chosen
    dealt = {"format": "pbem.mall/1", "setup": {"players": ["Ann", "Ben"], **SHORT}}
    assert service.export_log(service.import_log(dealt).game_id)["game"]["setup_chosen"] is True


def test_an_old_created_event_without_the_flag_reads_as_not_chosen(service):
    recorded = Path(__file__).parent.parent / "integration" / "recorded" / "mall_v1_events.json"
    rows = json.loads(recorded.read_text(encoding="utf-8"))
    assert "setup_chosen" not in rows[0]["payload"]
    with service.db.write() as s:
        for row in rows:
            s.add(Event(**{**row, "game_id": "recordedvaaaaaaa"}))  # an id of today's alphabet
    service.rebuild()
    assert service.export_log("recordedvaaaaaaa")["game"]["setup_chosen"] is False


# -- 17: the new-game form creates a game once per submission ----------------------------


def _new_game_form(client) -> dict[str, str]:
    form = client.get("/new").get_data(as_text=True)
    return {
        "csrf_token": CSRF.search(form)[1],
        "form_key": FORM_KEY.search(form)[1],
        "kind1": "person",
        "name1": "Ann",
        "email1": "ann@example.com",
        "kind2": "greedy",
    }


def test_the_new_game_form_redirects_and_a_second_submission_creates_nothing(web):
    app, parts = web
    client = app.test_client()
    data = _new_game_form(client)
    answer = client.post("/new", data=data)
    assert answer.status_code == 303
    where = answer.headers["Location"]
    (row,) = parts.service.games()
    page = client.get(where).get_data(as_text=True)
    assert row.id in page and "seat 1, Ann: to ann@example.com" in page
    assert client.get(where).get_data(as_text=True) == page  # a reload shows, creates nothing
    again = client.post("/new", data=data)  # the browser resubmits the same form
    assert again.status_code == 303 and again.headers["Location"] == where
    assert [g.id for g in parts.service.games()] == [row.id]
    assert _counts(parts) == (1, 1)  # one invitation, which tells Ann's first turn too
    fresh = client.post("/new", data=_new_game_form(client))
    assert fresh.status_code == 303 and fresh.headers["Location"] != where
    assert len(parts.service.games()) == 2
    assert client.get("/new/created/not-a-key").status_code == 404


def test_a_creation_key_makes_one_game_even_when_sent_twice_at_once(service):
    people = [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", bot="greedy")]
    key = secrets.token_urlsafe(24)
    first = service.create_game(people, key=key)
    again = service.create_game(people, key=key)
    assert (again.game_id, again.replayed, first.replayed) == (first.game_id, True, False)
    assert [g.id for g in service.games()] == [first.game_id]
    racing = secrets.token_urlsafe(24)
    answers, barrier = [], threading.Barrier(2)

    def create() -> None:
        barrier.wait()
        answers.append(service.create_game(people, key=racing).game_id)

    threads = [threading.Thread(target=create) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(answers) == 2 and answers[0] == answers[1]
    assert len(service.games()) == 2
    with service.db.read() as s:
        invitations = s.exec(select(OutboxRow).where(OutboxRow.kind == "invitation")).all()
    assert len(invitations) == 2  # one per game: the second creation mailed nobody
    for bad in ("short", "x" * 201, "\x00" * 20):
        with pytest.raises(BadRequest, match="creation key"):
            service.create_game(people, key=bad)


def test_the_form_says_which_seat_needs_what(web):
    app, parts = web
    client = app.test_client()
    data = {**_new_game_form(client), "name1": "", "email1": "", "kind2": "person"}
    page = client.post("/new", data=data)
    text = page.get_data(as_text=True)
    assert page.status_code == 400
    assert "Seat 1" in text and "seat 2" in text and "email" in text
    assert parts.service.games() == []


# -- names -----------------------------------------------------------------------------


def test_control_characters_are_removed_from_names(service):
    created = service.create_game(
        [
            PlayerSpec("A\x1b[31mnn\x07\x00", "ann@example.com"),
            PlayerSpec("\u202eBen\u200f\x85\u2066", bot="greedy"),
        ],
        None,
        SHORT,
    )
    assert [s.name for s in created.seats] == ["A[31mnn", "Ben"]
    assert [p["name"] for p in service.state_at(created.game_id)["players"]] == ["A[31mnn", "Ben"]
    with pytest.raises(BadRequest, match="name"):
        service.create_game([PlayerSpec("\x00\x1b"), PlayerSpec("Ben")], None, SHORT)


# -- properties: never a 5xx; a refusal creates nothing and mails nobody -----------------

_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
_number = st.one_of(
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    st.text(max_size=5),
    st.none(),
)
_options = (
    st.fixed_dictionaries(
        {},
        optional={
            "hours_per_turn": _number,
            "reminders": st.lists(_number, max_size=8) | _json,
            "vacation_days": _number,
            "replace_after": _number,
            "timeout_policy": st.sampled_from(["bot_plays", "replace", "x"]),
            "public": _json,
            "any_sender": _json,
        },
    )
    | _json
)
_setup = (
    st.fixed_dictionaries(
        {},
        optional={
            "seed": _json,
            "pile": _number,
            "supply": st.lists(st.sampled_from(["Y01", "B01", "R13", "Z9", ""]), max_size=20)
            | _json,
            "commons": st.lists(st.sampled_from(["aqua-dome", "haunted-hotel", "x"]), max_size=5),
            "secrets": st.dictionaries(st.text(max_size=3), st.sampled_from(["O3", "O5", "X"])),
        },
    )
    | _json
)
_player = st.fixed_dictionaries(
    {},
    optional={
        "name": st.text(max_size=30) | _json,
        "email": st.sampled_from(["ann@example.com", "b@x.org", "", "bad", "a@b@c"]) | _json,
        "bot": st.sampled_from(["greedy", "random", "clever"]) | _json,
    },
)
_body = st.fixed_dictionaries(
    {"players": st.lists(_player, max_size=6) | _json},
    optional={
        "options": _options,
        "setup": _setup,
        "game": st.sampled_from([*sorted(GAMES), "go"]),
    },
)


@settings(max_examples=examples(150), deadline=None, suppress_health_check=list(HealthCheck))
@given(body=_body, admin=st.booleans())
def test_creating_through_the_api_never_fails_with_a_5xx(web, body, admin):
    app, parts = web
    before = _counts(parts)
    answer = app.test_client().post("/api/games", json=body, headers=ADMIN if admin else None)
    assert answer.status_code < 500, answer.get_data(as_text=True)
    if answer.status_code != 201:
        assert _counts(parts) == before


_field = st.text(max_size=12) | st.sampled_from(
    ["1e999", "nan", "inf", "-1", "1" + "0" * 30, "1.5"]
)


@settings(max_examples=examples(100), deadline=None, suppress_health_check=list(HealthCheck))
@given(
    fields=st.fixed_dictionaries(
        {},
        optional={
            **{
                f"kind{s}": st.sampled_from(["person", "greedy", "random", "nobody", "x"])
                for s in range(1, 5)
            },
            **{f"name{s}": st.text(max_size=12) for s in range(1, 5)},
            **{
                f"email{s}": st.sampled_from(["ann@example.com", "", "bad", "b@x.org"])
                for s in range(1, 5)
            },
            "hours_per_turn": _field,
            "reminders": _field,
            "replace_after": _field,
            "vacation_days": _field,
            "timeout_policy": _field,
            "public": _field,
        },
    )
)
def test_the_new_game_form_never_fails_with_a_5xx(web, fields):
    app, parts = web
    client = app.test_client()
    data = {**_new_game_form(client), **fields}
    before = _counts(parts)
    answer = client.post("/new", data=data)
    assert answer.status_code < 500, answer.get_data(as_text=True)
    if answer.status_code != 303:
        assert _counts(parts) == before
