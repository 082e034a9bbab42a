"""gunicorn settings for the pbem web app:

    gunicorn -c "$(python -m pbem.resources)/config/gunicorn.conf.py" -w 4 \
        -b 0.0.0.0:8000 'pbem.web.app:create_app()'

(`python -m pbem.resources` prints where the shipped data lives: the checkout, or
pbem/_data/ in an installed wheel.)

The access log hides the secret part of every address (a seat's personal link, a
sign-in link, a feed, a new game's key: the app's routes declare which) and of secret
query parameters, and any Authorization or Cookie header, whatever access_log_format
asks for. gunicorn's control socket
(gunicornc) is the instance folder's gunicorn.ctl: gunicorn's own default is one path
per user, which a second server takes over from the first.

/metrics adds up the counts of every worker process: each writes them to files in
PROMETHEUS_MULTIPROC_DIR, the instance folder's metrics/ unless the environment
names another folder. The master empties it as it starts (counts begin at zero with
each server) and lets go of a dead worker's live gauges."""

import os
from pathlib import Path
from typing import Any

from pbem.config import instance_folder

logger_class = "pbem.web.redact.GunicornLogger"
accesslog = "-"
control_socket = str(instance_folder() / "gunicorn.ctl")

# Set before any worker imports prometheus_client (the mode is chosen at its import).
os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR", str(instance_folder() / "metrics"))


def on_starting(server: object) -> None:
    """Empty the metrics folder: the counts of a server that stopped are not ours."""
    folder = Path(os.environ["PROMETHEUS_MULTIPROC_DIR"])
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob("*.db"):
        stale.unlink(missing_ok=True)


def child_exit(server: object, worker: Any) -> None:
    """A worker that ended: its live gauges go (its counts stay in the sums)."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)
