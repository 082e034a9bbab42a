"""The API against its own OpenAPI document: schemathesis generates requests for
every operation, and every answer must be documented, well-formed and no server
error."""

from __future__ import annotations

import tempfile
from pathlib import Path

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from pbem.bootstrap import build
from pbem.config import load_settings
from pbem.store import migrate
from pbem.web.app import create_app

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


def _app():
    """The app on a database of its own (the schema is loaded at collection time)."""
    folder = Path(tempfile.mkdtemp(prefix="pbem-openapi-"))
    settings = load_settings(
        {"PBEM_INSTANCE_DIR": str(folder)},
        database_url=f"sqlite:///{folder / 'api.sqlite3'}",
        secret_key="openapi-secret",
    )
    parts = build(settings)
    migrate.upgrade(parts.database)
    return create_app(parts)


schema = schemathesis.openapi.from_wsgi("/api/openapi.json", _app())


@schema.parametrize()
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
def test_every_answer_matches_the_openapi_document(case):
    case.call_and_validate(checks=CHECKS)
