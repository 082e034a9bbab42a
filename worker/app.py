"""The Celery app, built from the settings alone (no Flask), on the broker they name:
a folder on disk by default (no server), Redis at scale. The composition root of the
process (pbem.bootstrap) hands it the parts its tasks run on."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any, Protocol
from uuid import uuid4

from celery import Celery, signals

import pbem.logs as logs
from pbem.config import Settings
from pbem.metrics import task_done
from pbem.service import Service
from pbem.service.notices import Channel
from pbem.service.outbox import Outbox
from pbem.service.service import Notice

from .liveness import Ending, Pulse

log = logging.getLogger(__name__)

DELIVER, PLAY_BOT, TIME_OUT = "pbem.deliver", "pbem.play_bot", "pbem.time_out"


class WorkerParts(Protocol):
    """What the tasks and the scheduler take from the composition root."""

    @property
    def settings(self) -> Settings: ...

    @property
    def service(self) -> Service: ...

    @property
    def outbox(self) -> Outbox: ...

    @property
    def channels(self) -> Mapping[str, Channel]: ...


class PbemCelery(Celery):
    """The Celery app of one process, with the parts its tasks run on."""

    def __init__(
        self,
        settings: Settings | None = None,
        parts: Callable[[], WorkerParts] | None = None,
        **options: Any,
    ) -> None:
        super().__init__(options.pop("main", "pbem"), **options)
        if settings is not None:
            self.config_from_object(celery_config(settings))
        self._parts = parts
        # worker_init comes from any app's worker: each app its own receiver, which
        # looks at its own workers only (as Celery's Django fixup does)
        uid = uuid4().hex
        signals.worker_init.connect(self._warm, dispatch_uid=f"pbem.warm.{uid}")
        signals.worker_ready.connect(self._ready, dispatch_uid=f"pbem.ready.{uid}")
        signals.worker_shutdown.connect(self._shutdown, dispatch_uid=f"pbem.shutdown.{uid}")
        signals.task_prerun.connect(self._task_begins, dispatch_uid=f"pbem.prerun.{uid}")
        signals.task_postrun.connect(self._task_ends, dispatch_uid=f"pbem.postrun.{uid}")
        self.pulse: Pulse | None = None
        self.ending = Ending()

    def _warm(self, sender: Any = None, **_signal: Any) -> None:
        """As a worker of this app starts: every channel readies itself (see
        Channel.warm); trouble is logged and the worker starts anyway."""
        if getattr(sender, "app", None) is not self or self._parts is None:
            return
        for channel in self.parts().channels.values():
            try:
                channel.warm()
            except Exception:
                log.exception(
                    "channel %s could not get ready; it will at its first notice", channel.name
                )

    def _ready(self, sender: Any = None, **_signal: Any) -> None:
        """As a worker of this app is ready: its heartbeat thread starts."""
        if getattr(sender, "app", None) is not self or self._parts is None or self.pulse:
            return
        parts = self.parts()
        settings = parts.settings
        self.pulse = Pulse(
            parts.service.db,
            parts.service.clock,
            settings.broker_url,
            settings.heartbeat_seconds,
            settings.instance_dir,
        )
        self.pulse.start()

    def _shutdown(self, sender: Any = None, **_signal: Any) -> None:
        """As a worker of this app stops: its heartbeat goes, its exit code is kept."""
        if getattr(sender, "app", None) is not self:
            return
        self.ending.saw(sender)
        if self.pulse is not None:
            self.pulse.stop(clean=not self.ending.exitcode)
            self.pulse = None

    def _task_begins(self, sender: Any = None, args: Any = None, **_signal: Any) -> None:
        """The lines a task logs carry its game, seat and seq."""
        logs.clear()
        if getattr(sender, "name", None) in (PLAY_BOT, TIME_OUT) and args and len(args) == 3:
            logs.bind(game_id=args[0], seat=args[1], seq=args[2])

    def _task_ends(self, **_signal: Any) -> None:
        logs.clear()

    def parts(self) -> WorkerParts:
        """The parts of this process (built by pbem.bootstrap)."""
        if self._parts is None:
            raise RuntimeError("this Celery app was not built by pbem.bootstrap: it has no parts")
        return self._parts()


def celery_config(settings: Settings) -> dict[str, Any]:
    config: dict[str, Any] = {
        "broker_url": settings.broker_url,
        "task_ignore_result": True,
        "task_acks_late": True,  # a task a dying worker held is handed out again
        "task_reject_on_worker_lost": True,
        "worker_prefetch_multiplier": 1,
        "broker_connection_retry_on_startup": True,
        # A worker whose broker stays away (about 30 s: 2 + 4 + ... + 10) stops
        # with exit status 1, and its service manager starts it again.
        "broker_connection_max_retries": 5,
        "include": ["worker.tasks"],
        "worker_hijack_root_logger": False,
    }
    if settings.broker_url.startswith("filesystem://"):
        folder = settings.instance_dir / "broker"
        folder.mkdir(parents=True, exist_ok=True)
        config["broker_transport"] = "worker.diskbroker:Transport"  # tasks written whole
        config["broker_transport_options"] = {
            "data_folder_in": str(folder),
            "data_folder_out": str(folder),
            "control_folder": str(folder / "control"),  # else kombu writes ./control
            "store_processed": False,
            # a worker looks for new tasks this often (a listing of the folder):
            # at 0.2 s, a worker whose threads all finished waited a tenth of a
            # second on average before it took the next tasks
            "polling_interval": 0.05,
        }
        config["worker_enable_remote_control"] = False  # the folder has no broadcasts
    return config


def celery_app(settings: Settings, parts: Callable[[], WorkerParts] | None = None) -> PbemCelery:
    """The Celery app on the settings' broker; its tasks run on `parts()`."""
    celery = PbemCelery(settings, parts)
    celery.set_default()
    return celery


def _count(outcome: str) -> Callable[..., None]:
    """A receiver of a Celery task signal that counts the task's outcome."""

    def count(sender: Any = None, **_signal: Any) -> None:
        task_done(str(getattr(sender, "name", sender)), outcome)

    return count


# Every task of any pbem app in this process, counted by name and outcome.
for _signal, _outcome in (
    (signals.task_success, "success"),
    (signals.task_failure, "failure"),
    (signals.task_retry, "retry"),
):
    _signal.connect(_count(_outcome), weak=False, dispatch_uid=f"pbem.metrics.{_outcome}")


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
