"""`pbem inbound` runs once per mail, so it loads only what handling the mail takes:
not the web app, the mail composer (cairosvg, Jinja), Alembic or ICU, and the Celery
app only when an answer is handed on; and the schema check that needs no Alembic
names the same head revision as Alembic."""

from __future__ import annotations

import subprocess
import sys

import pytest

from pbem.store import migrate

from support import Table

# what each run must not have loaded, by what it did
HEAVY = ("flask", "cairosvg", "jinja2", "alembic", "icu", "pbem.mail.compose", "pbem.web")
SCRIPT = (
    "import sys\n"
    "from pbem.cli import main\n"
    "try:\n"
    "    main(['inbound'])\n"
    "except SystemExit as done:\n"
    "    print('exit', done.code)\n"
    "heavy = " + repr((*HEAVY, "celery")) + "\n"
    "print(' '.join(sorted(m for m in heavy if m in sys.modules)))\n"
)


@pytest.fixture
def table(make_parts, clock, database_url):
    return Table(make_parts(clock, database_url=database_url))


def _inbound(table: Table, mail: bytes) -> list[str]:
    settings = table.parts.settings
    env = {
        "PBEM_DATABASE_URL": settings.database_url,
        "PBEM_SECRET_KEY": "web-secret",
        "PBEM_INSTANCE_DIR": str(settings.instance_dir),
        "PBEM_BROKER_URL": "filesystem://",
        "PATH": "",
    }
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], input=mail, env=env, capture_output=True, check=False
    )
    return done.stdout.decode().splitlines()[-2:]


def test_a_mail_with_nothing_to_act_on_loads_none_of_the_heavy_parts(table):
    assert _inbound(table, b"") == ["exit 67", ""]


def test_a_move_by_mail_loads_the_celery_app_only_to_hand_on_its_answer(table):
    said = _inbound(table, table.mail("outlook.eml", "money L"))
    assert said == ["exit 0", "celery"]
    assert table.seq() == 2 and len(table.answers()) == 1


def test_the_head_revision_read_from_the_scripts_is_alembics():
    assert migrate.head_revision() == migrate._alembic_head() is not None
