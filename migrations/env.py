"""Alembic environment: migrates the database the settings (or the caller) name."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from pbem.store import people  # noqa: F401 - its tables join the metadata
from pbem.store.tables import SQLModel

config = context.config
target_metadata = SQLModel.metadata


def run_offline() -> None:
    context.configure(
        url=config.get_main_option("sqlalchemy.url"),
        target_metadata=target_metadata,
        literal_binds=True,
        render_as_batch=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    connection = config.attributes.get("connection")
    if connection is None:
        engine = create_engine(config.get_main_option("sqlalchemy.url"))
        with engine.begin() as connection:
            _migrate(connection)
        engine.dispose()
    else:
        _migrate(connection)


def _migrate(connection: object) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
