"""`pbem web`: serve the web app (the Flask server; at scale, gunicorn)."""

from __future__ import annotations

import click
from flask.helpers import get_debug_flag
from sqlalchemy.exc import OperationalError

from pbem import logs
from pbem.bootstrap import build
from pbem.config import ConfigError
from pbem.store import migrate


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=int, default=5000, show_default=True)
def web(host: str, port: int) -> None:
    """Serve the web app and the JSON API on the configured database."""
    from pbem.web.app import create_app

    try:
        parts = build()
        logs.configure("web", parts.settings.log_format, parts.settings.log_level)
    except ConfigError as error:
        raise click.ClickException(str(error)) from None
    try:
        migrate.upgrade(parts.database)
    except OperationalError as error:  # it serves all the same; /readyz says what is wrong
        why = str(error.orig).strip().splitlines()[0] if error.orig else type(error).__name__
        click.echo(f"the database cannot be upgraded now: {why}", err=True)
    shown = parts.settings.shown_database_url()
    click.echo(f"pbem web on http://{host}:{port}/ (database {shown})")
    # Never the Werkzeug debugger (it runs code for whoever sees it) outside dev mode.
    debug = parts.settings.dev and get_debug_flag()
    create_app(parts).run(host=host, port=port, threaded=True, use_reloader=False, debug=debug)
