"""Settings: `config/defaults.toml`, then an instance file, then PBEM_* environment
variables; one frozen object built once by the composition root and passed down.
The instance folder is PBEM_INSTANCE_DIR, else `instance/` in the current directory."""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from pbem import logs, resources

PROJECT = resources.CHECKOUT  # the repository's root, for tools run from a checkout
DEFAULTS = resources.CONFIG / "defaults.toml"
DEV_SECRET_KEY = "dev-only-not-secret"
# A site name longer than this would crowd a page title and a mail's sender.
SITE_NAME_LONGEST = 60
# The receiving server's authserv-id (RFC 8601): a host or domain name, its labels
# letters, digits, hyphens (and underscores, which some hosts' names carry).
_AUTHSERV_ID = re.compile(r"(?!-)[\w-]{1,63}(?<!-)(?:\.(?!-)[\w-]{1,63}(?<!-))*")

# The most lines of talk a setting may let one chat of a game hold.
TALK_LINES_MOST = 100_000


class ConfigError(ValueError):
    """A setting that is missing or malformed; the message names it."""


@dataclass(frozen=True)
class Settings:
    dev: bool
    database_url: str
    sqlite_synchronous: str
    secret_key: str
    admin_key: str
    inbound_secret: str
    site_name: str
    base_url: str
    mail_domain: str
    authserv_id: str
    smtp_url: str
    snapshot_every: int
    talk_lines_per_game: int
    talk_lines_per_writer: int
    broker_url: str
    sweep_seconds: int
    live_poll_seconds: int
    digest_hour: int
    trusted_proxies: int
    rate_limit_storage: str
    log_format: str
    log_level: str
    heartbeat_seconds: int
    metrics_bind: str
    vapid_subject: str  # web push: the operator's mailto: or https: contact
    push_loopback_http: bool  # tests and development only: see config/defaults.toml
    clock_file: str  # tests only: see config/defaults.toml
    instance_dir: Path

    def shown_database_url(self) -> str:
        """The database URL for messages and logs: its password never shows."""
        from sqlalchemy.engine import make_url
        from sqlalchemy.exc import ArgumentError

        try:
            return make_url(self.database_url).render_as_string(hide_password=True)
        except ArgumentError:
            return "(a database URL that cannot be read)"

    def signing_key(self) -> bytes:
        """The secret key; outside dev mode it must be set."""
        if self.secret_key:
            return self.secret_key.encode("utf-8")
        if self.dev:
            return DEV_SECRET_KEY.encode("utf-8")
        raise ConfigError("PBEM_SECRET_KEY must be set (only dev mode has a default)")


def _coerce(name: str, kind: type, value: Any) -> Any:
    if kind is bool and isinstance(value, str):
        if value.lower() in ("1", "true", "yes", "on"):
            return True
        if value.lower() in ("0", "false", "no", "off", ""):
            return False
        raise ConfigError(f"{name}: {value!r} is not a yes or no")
    if kind is int and not isinstance(value, int):
        try:
            return int(value)
        except ValueError:
            raise ConfigError(f"{name}: {value!r} is not a whole number") from None
    if kind is str and not isinstance(value, str):
        raise ConfigError(f"{name}: {value!r} is not text")
    return value


def _check_talk(per_game: int, per_writer: int) -> None:
    """The totals of talk: each chat of a game holds 1 to TALK_LINES_MOST lines, and
    one writer says at most as many as the chat holds."""
    if not 1 <= per_game <= TALK_LINES_MOST:
        raise ConfigError(
            f"talk_lines_per_game: 1 to {TALK_LINES_MOST} lines in each chat of a game,"
            f" not {per_game}"
        )
    if not 1 <= per_writer <= per_game:
        raise ConfigError(
            f"talk_lines_per_writer: 1 to talk_lines_per_game ({per_game}) lines, not {per_writer}"
        )


def _check_metrics_bind(bind: str) -> None:
    """Empty, or the HOST:PORT of one of the web server's binds."""
    host, _, port = bind.rpartition(":")
    if bind and not (host and port.isdigit() and 1 <= int(port) <= 65535):
        raise ConfigError(f"metrics_bind: HOST:PORT of one of the server's binds, not {bind!r}")


def instance_folder(environ: Mapping[str, str] | None = None) -> Path:
    """The instance's folder: PBEM_INSTANCE_DIR, or ./instance."""
    environ = os.environ if environ is None else environ
    return Path(environ.get("PBEM_INSTANCE_DIR") or Path.cwd() / "instance").absolute()


def load_settings(environ: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
    """Settings from the defaults, the instance file and the environment, then any
    keyword overrides (for tests)."""
    environ = os.environ if environ is None else environ
    values: dict[str, Any] = tomllib.loads(DEFAULTS.read_text(encoding="utf-8"))
    instance = instance_folder(environ)
    instance_file = Path(environ.get("PBEM_INSTANCE_FILE", instance / "pbem.toml"))
    if instance_file.exists():
        values.update(tomllib.loads(instance_file.read_text(encoding="utf-8")))
    elif "PBEM_INSTANCE_FILE" in environ:
        raise ConfigError(f"PBEM_INSTANCE_FILE: {instance_file} does not exist")
    kinds = {f.name: str(f.type) for f in fields(Settings)}  # annotations are strings here
    for name in kinds:
        key = f"PBEM_{name.upper()}"
        if key in environ:
            values[name] = environ[key]
    values.update(overrides)
    unknown = sorted(set(values) - set(kinds))
    if unknown:
        raise ConfigError(f"unknown settings: {', '.join(unknown)}")
    values["instance_dir"] = instance
    types = {"bool": bool, "int": int, "str": str}
    for name, kind in kinds.items():
        if name != "instance_dir":
            values[name] = _coerce(name, types[kind], values[name])
    if not 0 <= values["live_poll_seconds"] <= 3600:
        raise ConfigError("live_poll_seconds: 0 (pages do not poll) to 3600 seconds")
    if values["trusted_proxies"] < 0:
        raise ConfigError("trusted_proxies: the number of proxies in front of the app, 0 or more")
    _check_talk(values["talk_lines_per_game"], values["talk_lines_per_writer"])
    try:
        values["log_format"], values["log_level"] = logs.check(
            values["log_format"], values["log_level"]
        )
    except ValueError as error:
        raise ConfigError(str(error)) from None
    if not 1 <= values["heartbeat_seconds"] <= 3600:
        raise ConfigError("heartbeat_seconds: 1 to 3600 seconds between a worker's heartbeats")
    name = values["site_name"]
    if not name.strip() or len(name) > SITE_NAME_LONGEST or not name.isprintable():
        raise ConfigError(
            f"site_name: 1 to {SITE_NAME_LONGEST} printable characters, not {name[:80]!r}"
        )
    authserv_id = values["authserv_id"].strip()
    if authserv_id and not (len(authserv_id) <= 253 and _AUTHSERV_ID.fullmatch(authserv_id)):
        raise ConfigError(
            "authserv_id: the authserv-id your receiving mail server writes first in its "
            f"Authentication-Results header (a host name, e.g. mx.example.org), "
            f"not {authserv_id[:80]!r}"
        )
    values["authserv_id"] = authserv_id
    _check_metrics_bind(values["metrics_bind"])
    subject = values["vapid_subject"].strip()
    if subject and not (subject.startswith(("mailto:", "https://")) and subject.isprintable()):
        raise ConfigError(f"vapid_subject: a mailto: or https:// contact, not {subject[:80]!r}")
    values["vapid_subject"] = subject
    values["database_url"] = values["database_url"].replace("{instance}", str(instance))
    return Settings(**values)
