"""The Celery app, made inside the Flask app so that tasks run in its app context
(Flask's `celery_init_app` pattern), on the broker the settings name: a folder on
disk by default (no server), Redis at scale."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from celery import Celery, Task
from flask import Flask

from pbem.config import Settings
from pbem.service.service import Notice

log = logging.getLogger(__name__)

DELIVER, PLAY_BOT, TIME_OUT = "pbem.deliver", "pbem.play_bot", "pbem.time_out"


def celery_config(settings: Settings) -> dict[str, Any]:
    config: dict[str, Any] = {
        "broker_url": settings.broker_url,
        "task_ignore_result": True,
        "task_acks_late": True,  # a task a dying worker held is handed out again
        "task_reject_on_worker_lost": True,
        "worker_prefetch_multiplier": 1,
        "broker_connection_retry_on_startup": True,
        "include": ["worker.tasks"],
        "worker_hijack_root_logger": False,
    }
    if settings.broker_url.startswith("filesystem://"):
        folder = settings.instance_dir / "broker"
        folder.mkdir(parents=True, exist_ok=True)
        config["broker_transport_options"] = {
            "data_folder_in": str(folder),
            "data_folder_out": str(folder),
            "control_folder": str(folder / "control"),  # else kombu writes ./control
            "store_processed": False,
            "polling_interval": 0.2,
        }
        config["worker_enable_remote_control"] = False  # the folder has no broadcasts
    return config


def celery_init_app(app: Flask, settings: Settings) -> Celery:
    """The Celery app whose tasks run inside `app`'s app context."""

    class FlaskTask(Task):
        def __call__(self, *args: object, **kwargs: object) -> object:
            with app.app_context():
                return self.run(*args, **kwargs)

    celery = Celery(app.name, task_cls=FlaskTask)
    celery.config_from_object(celery_config(settings))
    celery.set_default()
    app.extensions["celery"] = celery
    return celery


def notifier(celery: Celery) -> Callable[[Notice], None]:
    """What the service tells after a commit, sent on as tasks. The broker being
    away loses nothing: the scheduler's sweep finds the same work in the database."""

    def notify(notice: Notice) -> None:
        try:
            if notice.mail_ids:
                celery.send_task(DELIVER, args=[list(notice.mail_ids)])
            if notice.bot_turn:
                seat, seq = notice.bot_turn
                celery.send_task(PLAY_BOT, args=[notice.game_id, seat, seq])
        except Exception as error:  # the sweep will hand it out
            log.warning("could not queue the work of game %s: %s", notice.game_id, error)

    return notify


def make_celery(app: Flask | None = None) -> Celery:
    """The worker's Celery app, over a Flask app built from the settings."""
    from pbem.web.app import create_app

    return (app or create_app()).extensions["celery"]
