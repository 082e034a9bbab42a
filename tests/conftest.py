"""Databases for the store, service and abuse tests: every test that takes `database_url`
(or what is built on it) runs on SQLite and on PostgreSQL. PostgreSQL is the server
PBEM_TEST_DATABASE_URL names (its user must be allowed to create databases);
without it those tests skip, saying why, except under CI, where they fail."""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import settings as hypothesis_settings
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ProgrammingError

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
_numbers = itertools.count()


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


def _postgres_database(worker: str) -> str:
    """A new, empty database on the test server; its URL."""
    base = make_url(PG_URL).set(drivername="postgresql+psycopg")
    name = f"pbem_t_{worker}_{os.getpid()}_{next(_numbers)}"
    admin = create_engine(base, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    admin.dispose()
    return base.set(database=name).render_as_string(hide_password=False)


def _drop_postgres_database(url: str) -> None:
    parsed = make_url(url)
    admin = create_engine(
        make_url(PG_URL).set(drivername="postgresql+psycopg"), isolation_level="AUTOCOMMIT"
    )
    drop = text(f'DROP DATABASE IF EXISTS "{parsed.database}" WITH (FORCE)')
    try:
        for attempt in range(20):
            try:
                with admin.connect() as connection:
                    connection.execute(drop)
                return
            except ProgrammingError:
                # FORCE may not end a server process of another role (an autovacuum
                # worker passing by): it is gone a moment later
                if attempt == 19:
                    raise
                time.sleep(0.25)
    finally:
        admin.dispose()


def _need_postgres() -> None:
    if PG_URL:
        return
    if os.environ.get("CI"):
        pytest.fail("CI must run the PostgreSQL tests: set PBEM_TEST_DATABASE_URL")
    pytest.skip("PostgreSQL tests need PBEM_TEST_DATABASE_URL (.ci/run sets it)")


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request, tmp_path) -> Iterator[str]:
    """The URL of a new, empty, migrated database of each kind."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'pbem.sqlite3'}"
    else:
        _need_postgres()
        url = _postgres_database(os.environ.get("PYTEST_XDIST_WORKER", "main"))
    database = Database(url)
    migrate.upgrade(database)
    database.dispose()
    yield url
    if request.param == "postgresql":
        _drop_postgres_database(url)


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
def make_parts(tmp_path):
    """Builds the server's parts on a migrated database (default: a new SQLite file)
    with the given settings over a test's defaults; disposes of them afterwards."""
    from pbem.bootstrap import build

    built = []

    def make(clock=None, **overrides):
        values = {
            "database_url": f"sqlite:///{tmp_path / f'parts{len(built)}.sqlite3'}",
            "secret_key": "web-secret",
            "base_url": "http://pbem.test",
            **overrides,
        }
        settings = load_settings({"PBEM_INSTANCE_DIR": str(tmp_path / "instance")}, **values)
        parts = build(settings, clock)
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
