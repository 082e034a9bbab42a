"""The server's processes on the command line: the Celery worker, the scheduler, the
local mail catcher, and `pbem dev`, which starts all of them with the web app."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from urllib.parse import urlsplit

import click

from pbem import logs
from pbem.bootstrap import Parts, build
from pbem.config import load_settings
from pbem.service.checks import broker_problem
from pbem.store import migrate
from worker.app import PbemCelery

from .parts import checked_parts, logged


def _celery(parts: Parts) -> PbemCelery:
    """The process's Celery app, or a readable refusal when no broker is set, its
    URL is not one this server speaks, or the broker cannot be reached."""
    if parts.celery is None:
        raise click.ClickException(
            "no broker: set PBEM_BROKER_URL (filesystem:// for one machine, redis://... at scale)"
        )
    problem = broker_problem(parts.settings.broker_url, parts.settings.instance_dir)
    if problem:
        shown = logs.redact(parts.settings.broker_url)
        raise click.ClickException(f"the broker {shown}: {problem}")
    return parts.celery


METRICS_PORT = click.option(
    "--metrics-port",
    type=click.IntRange(1, 65535),
    help="Serve this process's Prometheus metrics on http://HOST:PORT/metrics.",
)
METRICS_HOST = click.option(
    "--metrics-host", default="127.0.0.1", show_default=True, help="Where --metrics-port listens."
)


def _serve_metrics(port: int | None, host: str) -> None:
    if port is not None:
        from pbem import metrics

        try:
            metrics.serve(port, host)
        except OSError as error:
            raise click.ClickException(f"metrics on {host}:{port}: {error.strerror}") from None


@click.command()
@click.option("--concurrency", type=int, default=4, show_default=True)
@click.option("--loglevel", help="Default: the log_level setting (PBEM_LOG_LEVEL).")
@METRICS_PORT
@METRICS_HOST
def worker(
    concurrency: int, loglevel: str | None, metrics_port: int | None, metrics_host: str
) -> None:
    """Run a Celery worker: mail delivery, bot turns, timeouts. Exits 1 when it
    stops on an unrecoverable error (its broker gone for good)."""
    from celery import signals

    parts = checked_parts()
    settings = parts.settings
    level = (loglevel or settings.log_level).upper()
    if level not in logs.LEVELS:
        raise click.BadParameter(f"one of {', '.join(logs.LEVELS)}", param_hint="--loglevel")
    logs.configure("worker", settings.log_format, level)  # its warnings at start too
    celery = _celery(parts)
    _serve_metrics(metrics_port, metrics_host)

    def our_logging(**_signal: object) -> None:  # Celery then configures none of its own
        logs.configure("worker", settings.log_format, level)

    signals.setup_logging.connect(our_logging, weak=False)
    quiet = ["--quiet"] if settings.log_format == "json" else []  # no banner among the lines
    argv = [*quiet, "worker", f"--concurrency={concurrency}", "--pool=threads"]
    argv += [f"--loglevel={level}", "--without-mingle", "--without-gossip"]
    # Celery's own worker_main drops the exit code its worker ended with.
    returned: object = celery.start(argv)
    sys.exit(celery.ending.status(returned if isinstance(returned, int) else None))


@click.command()
@METRICS_PORT
@METRICS_HOST
def scheduler(metrics_port: int | None, metrics_host: str) -> None:
    """Run the scheduler (exactly one per installation): sweeps deadlines,
    reminders, bot turns and the outbox, and hands the work to the workers."""
    from worker import scheduler as schedule

    parts = checked_parts()
    logged("scheduler", parts)
    celery = _celery(parts)
    _serve_metrics(metrics_port, metrics_host)

    def stop(signum: int, frame: object) -> None:
        raise SystemExit(0)  # the scheduler gives its leader lock up on the way out

    signal.signal(signal.SIGTERM, stop)
    schedule.run(parts, celery)


@click.command(name="mail-catcher")
@click.option("--port", type=int, help="Default: the port of PBEM_SMTP_URL.")
def mail_catcher(port: int | None) -> None:
    """Run a local SMTP server that keeps every mail in instance/mail (dev mode shows
    them on /dev/mail)."""
    from pbem.mail import catcher

    settings = load_settings()
    address = urlsplit(settings.smtp_url)
    port = port or address.port or 8025
    folder = settings.instance_dir / "mail"
    controller = catcher.start(folder, host=address.hostname or "127.0.0.1", port=port)
    click.echo(
        f"pbem mail-catcher on smtp://{controller.hostname}:{port}, keeping mail in {folder}"
    )
    try:
        signal.sigwait({signal.SIGINT, signal.SIGTERM})
    finally:
        controller.stop()


@click.command()
@click.option("--port", type=int, default=5000, show_default=True)
def dev(port: int) -> None:
    """Start everything on the embedded defaults — the web app, a Celery worker on a
    broker that needs no server, the scheduler and a local mail catcher — and stop
    them all on Ctrl-C."""
    env = dict(os.environ)
    env.setdefault("PBEM_DEV", "1")
    env.setdefault("PBEM_SWEEP_SECONDS", "2")
    env.setdefault("PBEM_BASE_URL", f"http://127.0.0.1:{port}")
    os.environ.update(env)
    parts = build(load_settings())
    migrate.upgrade(parts.database)
    me = [sys.executable, "-m", "pbem.cli"]
    commands = {
        "mail catcher": [*me, "mail-catcher"],
        "web": [*me, "web", "--port", str(port)],
        "worker": [*me, "worker", "--concurrency", "2", "--loglevel", "WARNING"],
        "scheduler": [*me, "scheduler"],
    }
    children = {name: subprocess.Popen(command, env=env) for name, command in commands.items()}

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt  # a SIGTERM stops everything, as Ctrl-C does

    signal.signal(signal.SIGTERM, stop)
    click.echo(
        f"\npbem is running: http://127.0.0.1:{port}/\n"
        f"  mail the server sends lands on http://127.0.0.1:{port}/dev/mail\n"
        f"  database {parts.settings.shown_database_url()}; Ctrl-C stops everything\n"
    )
    try:
        while all(child.poll() is None for child in children.values()):
            time.sleep(0.5)
        dead = [name for name, child in children.items() if child.poll() is not None]
        click.echo(f"stopping: the {', '.join(dead)} process ended", err=True)
    except KeyboardInterrupt:
        click.echo("\nstopping")
    finally:
        for child in children.values():
            if child.poll() is None:
                child.send_signal(signal.SIGTERM)
        for child in children.values():
            try:
                child.wait(timeout=10)
            except subprocess.TimeoutExpired:
                child.kill()


@click.group()
def mail() -> None:
    """The outbox."""


@mail.command()
def failures() -> None:
    """Mails given up on, with their last error."""
    parts = checked_parts()
    rows = parts.outbox.failures()
    for row in rows:
        tried = f"after {row.attempts} attempts"
        click.echo(f"{row.id}  {row.kind}  to {row.address}  {tried}: {row.last_error}")
    counts = parts.outbox.counts()
    click.echo(", ".join(f"{n} {status}" for status, n in sorted(counts.items())) or "no mail yet")
