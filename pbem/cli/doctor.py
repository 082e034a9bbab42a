"""`pbem doctor`: check the settings and every part they name, one line each."""

from __future__ import annotations

import json
import os
import sys

import click
from sqlalchemy.exc import ArgumentError

from pbem import logs
from pbem.bootstrap import now
from pbem.config import ConfigError, load_settings
from pbem.service import checks
from pbem.store.database import Database

MARKS = {checks.OK: "ok  ", checks.WARN: "warn", checks.FAIL: "FAIL"}


@click.command()
@click.option("--json", "as_json", is_flag=True, help="One JSON object, for machines.")
def doctor(as_json: bool) -> None:
    """Check the configuration and every part it names: the secret key, the
    database and its schema, the broker, the SMTP relay, the IMAP mailbox (when
    PBEM_IMAP_HOST is set), the scheduler's and the workers' heartbeats, the
    outbox's backlog and failures. One line per check, ok, warn or FAIL, with what
    to do; exit 0 when none failed (a warning is worth a look and fails nothing),
    1 otherwise."""
    try:
        settings = load_settings()
        database = Database(settings.database_url, synchronous=settings.sqlite_synchronous)
    except (ConfigError, ValueError, ArgumentError) as error:  # or a URL SQLAlchemy refuses
        said = logs.redact(str(error))
        found = [checks.Check("settings", checks.FAIL, said, "fix the setting named")]
    else:
        found = [checks.Check("settings", checks.OK, "read")]
        found += checks.everything(settings, database, now(), os.environ)
        database.dispose()
    healthy = checks.passed(found)
    if as_json:
        answer = {"ok": healthy, "checks": [check.as_dict() for check in found]}
        click.echo(json.dumps(answer, indent=2))
    else:
        for check in found:
            advice = f" — {check.advice}" if check.advice and check.status != checks.OK else ""
            click.echo(f"{MARKS[check.status]}  {check.name}: {check.detail}{advice}")
        failed = sum(check.status == checks.FAIL for check in found)
        warned = sum(check.status == checks.WARN for check in found)
        click.echo(
            f"{failed} failed, {warned} to look at, {len(found) - failed - warned} ok"
            if failed or warned
            else f"all {len(found)} checks passed"
        )
    sys.exit(0 if healthy else 1)
