"""Databases for the store, service and abuse tests: every test that takes `database_url`
(or what is built on it) runs on SQLite and on PostgreSQL. PostgreSQL is the server
PBEM_TEST_DATABASE_URL names (its user must be allowed to create databases);
without it those tests skip, saying why, except under CI, where they fail."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import databases
import pytest
from hypothesis import settings as hypothesis_settings

from pbem.config import load_settings
from pbem.service import Service
from pbem.store import migrate
from pbem.store.database import Database

PG_URL = os.environ.get("PBEM_TEST_DATABASE_URL")

# Under CI every property and fuzz test draws the same examples, so a red build is
# one anyone can repeat; elsewhere (and in `make abuse`) they draw new ones.
hypothesis_settings.register_profile("ci", derandomize=True)
if os.environ.get("CI") and not os.environ.get("PBEM_ABUSE_FACTOR"):
    hypothesis_settings.load_profile("ci")


def pytest_configure(config: pytest.Config) -> None:
    # `pytest -m "not slow"` is the quick loop; CI and `make test` still run every test.
    config.addinivalue_line(
        "markers", "slow: takes more than about 5 seconds alone (deselect: -m 'not slow')"
    )
    config.addinivalue_line(
        "markers",
        "live_pages: the browser test's site lets pages poll for moves (the others' pages "
        "stay still, so that no reload ever lands in the middle of a test's clicks)",
    )


def _need_postgres() -> None:
    if PG_URL:
        return
    if os.environ.get("CI"):
        pytest.fail("CI must run the PostgreSQL tests: set PBEM_TEST_DATABASE_URL")
    pytest.skip("PostgreSQL tests need PBEM_TEST_DATABASE_URL (.ci/run sets it)")


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory) -> Path:
    """A SQLite database migrated once in this test process; tests copy it."""
    return databases.migrated_sqlite(tmp_path_factory.mktemp("template") / "migrated.sqlite3")


@pytest.fixture(scope="session")
def postgres_template(worker_id) -> Iterator[databases.PostgresTemplate]:
    """A PostgreSQL database migrated once in this test process (at the first test
    on PostgreSQL); tests copy it."""
    template = databases.PostgresTemplate(worker_id)
    yield template
    template.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request, tmp_path) -> Iterator[str]:
    """The URL of a new, empty, migrated database of each kind (a copy of the
    process's migrated template: the same schema, made in a fraction of the time)."""
    if request.param == "sqlite":
        template = request.getfixturevalue("sqlite_template")
        yield databases.copy_sqlite(template, tmp_path / "pbem.sqlite3")
        return
    _need_postgres()
    postgres = request.getfixturevalue("postgres_template")
    url = postgres.new()
    yield url
    postgres.done_with(url)


@pytest.fixture
def database(database_url) -> Iterator[Database]:
    database = Database(database_url)
    yield database
    database.dispose()


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def settings(database_url):
    return load_settings({}, database_url=database_url, secret_key="test-secret", snapshot_every=5)


@pytest.fixture
def service(database, settings, clock) -> Service:
    return Service(database, settings, clock)


@pytest.fixture
def make_parts(tmp_path, sqlite_template):
    """Builds the server's parts on a migrated database (default: a new SQLite file,
    a copy of the migrated template) with the given settings over a test's defaults;
    disposes of them afterwards."""
    from pbem.bootstrap import build

    built = []

    def make(clock=None, **overrides):
        values = {
            "secret_key": "web-secret",
            "base_url": "http://pbem.test",
            **overrides,
        }
        if "database_url" not in values:
            new = tmp_path / f"parts{len(built)}.sqlite3"
            values["database_url"] = databases.copy_sqlite(sqlite_template, new)
        settings = load_settings({"PBEM_INSTANCE_DIR": str(tmp_path / "instance")}, **values)
        parts = build(settings, clock)
        if "database_url" in overrides:
            migrate.upgrade(parts.database)
        built.append(parts)
        return parts

    yield make
    for parts in built:
        parts.database.dispose()


@pytest.fixture
def make_web(make_parts, clock, database_url):
    """Makes the web app on the test's database of each kind (SQLite and PostgreSQL),
    with the given settings over a test's defaults: (app, parts)."""
    from pbem.web.app import create_app

    def make(**overrides):
        parts = make_parts(clock, database_url=database_url, **overrides)
        app = create_app(parts)
        app.testing = True
        return app, parts

    return make


@pytest.fixture
def web(make_parts, clock):
    """The web app on a new SQLite database (dev mode, an admin key), and its parts."""
    from pbem.web.app import create_app

    parts = make_parts(clock, admin_key="admin-key", inbound_secret="hook-secret", dev=True)
    app = create_app(parts)
    app.testing = True
    return app, parts
