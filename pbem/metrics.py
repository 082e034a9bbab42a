"""The Prometheus metrics every process counts into (prometheus-client): moves
accepted and refused, the submit latency, deliveries, inbound mails, Celery tasks
and the sweep's duration, each with labels from a small fixed set (never a game id
or an address), and how a process shows them. A leaf: it imports nothing of the
server, so every layer may count.

Under gunicorn every worker process writes its counts to files in
PROMETHEUS_MULTIPROC_DIR (the shipped gunicorn config sets it up), and whichever
process answers a scrape adds them all up; that variable must be set before this
module is first imported."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    disable_created_metrics,
    generate_latest,
    start_http_server,
)
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector

MULTIPROC_DIR = "PROMETHEUS_MULTIPROC_DIR"
disable_created_metrics()  # no `_created` series beside each counter
CONTENT_TYPE = CONTENT_TYPE_LATEST

# Why a move was refused: the rules forbid it (illegal), it could not be read
# (unreadable), the game moved on (stale), another seat is to move (not_your_turn),
# the game has ended (game_over), the token opens no seat (forbidden), no such game
# (no_game), or anything else the service refused (bad_request).
REFUSALS = (
    "illegal",
    "unreadable",
    "stale",
    "not_your_turn",
    "game_over",
    "forbidden",
    "no_game",
    "bad_request",
)
MOVERS = ("seat", "bot", "timeout")  # who played an accepted move
SUBMITTED_VIA = ("api", "page")
# What a delivery task made of each notice (pbem.service.outbox.Deliveries, and
# "error" when it could not finish one).
DELIVERY_OUTCOMES = ("sent", "pending", "failed", "skipped", "error")
# What became of an incoming mail (pbem.mail.inbound.Handled.status; "temporary"
# when the database or the broker was away and the mail server is to try again).
INBOUND_OUTCOMES = (
    "accepted",
    "illegal",
    "stale",
    "unreadable",
    "refused",
    "ignored",
    "duplicate",
    "in_hand",
    "help",
    "status",
    "legal",
    "undo",
    "said",
    "temporary",
)
TASKS = ("pbem.deliver", "pbem.play_bot", "pbem.time_out")
TASK_OUTCOMES = ("success", "failure", "retry")
OTHER = "other"  # a label value outside its set (a new outcome nobody listed yet)
# A game's name, a status, a kind or a channel: a lower-case word; anything else is OTHER.
_WORD = re.compile(r"[a-z][a-z0-9_]{0,31}")

MOVES_ACCEPTED = Counter(
    "pbem_moves_accepted",
    "Moves stored, by game and by who played them (a seat, a bot, a timeout).",
    ["game", "by"],
)
MOVES_REFUSED = Counter(
    "pbem_moves_refused",
    "A seat's moves refused, by game and reason.",
    ["game", "reason"],
)
SUBMIT_SECONDS = Histogram(
    "pbem_submit_seconds",
    "Time to answer a submitted move (the JSON API's or the game page's), refusals too.",
    ["via"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)
DELIVERIES = Counter(
    "pbem_deliveries",
    "Outbox notices a worker tried to deliver, by outcome (pending: to be tried again).",
    ["outcome"],
)
INBOUND_MAILS = Counter(
    "pbem_inbound_mails",
    "Incoming mails handled, by outcome.",
    ["outcome"],
)
CELERY_TASKS = Counter(
    "pbem_celery_tasks",
    "Celery tasks a worker finished, by task name and outcome.",
    ["task", "outcome"],
)
SWEEP_SECONDS = Histogram(
    "pbem_sweep_duration_seconds",
    "Time one sweep of the scheduler took (the scheduler process's own metrics).",
    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0),
)

# Every series of a known label set exists from the start (at 0), so a rate over
# it works before its first event.
for _via in SUBMITTED_VIA:
    SUBMIT_SECONDS.labels(via=_via)
for _outcome in DELIVERY_OUTCOMES:
    DELIVERIES.labels(outcome=_outcome)
for _outcome in INBOUND_OUTCOMES:
    INBOUND_MAILS.labels(outcome=_outcome)
for _task in TASKS:
    for _outcome in TASK_OUTCOMES:
        CELERY_TASKS.labels(task=_task, outcome=_outcome)


def one_of(value: str, allowed: Iterable[str]) -> str:
    """`value` when it is one of `allowed`, else OTHER: a label stays in its set."""
    return value if value in allowed else OTHER


def word(value: object) -> str:
    """A label value read from the database (a game's name, a status, a notice's
    kind or channel): a short lower-case word, else OTHER."""
    return value if isinstance(value, str) and _WORD.fullmatch(value) else OTHER


def game_label(name: str | None) -> str:
    """A game's name as a label ("unknown" when the game was not found)."""
    return "unknown" if name is None else word(name)


def accepted(game: str | None, by: str) -> None:
    MOVES_ACCEPTED.labels(game=game_label(game), by=one_of(by, MOVERS)).inc()


def refused(game: str | None, reason: str) -> None:
    MOVES_REFUSED.labels(game=game_label(game), reason=one_of(reason, REFUSALS)).inc()


def delivered(outcome: str) -> None:
    DELIVERIES.labels(outcome=one_of(outcome, DELIVERY_OUTCOMES)).inc()


def mail_handled(outcome: str) -> None:
    outcome = outcome.replace(" ", "_")  # "in hand"
    INBOUND_MAILS.labels(outcome=one_of(outcome, INBOUND_OUTCOMES)).inc()


def task_done(task: str, outcome: str) -> None:
    CELERY_TASKS.labels(task=one_of(task, TASKS), outcome=one_of(outcome, TASK_OUTCOMES)).inc()


def multiprocess() -> bool:
    """Whether this process counts into the shared folder (under gunicorn)."""
    return bool(os.environ.get(MULTIPROC_DIR))


def process_registry() -> CollectorRegistry:
    """The counts to show: every process's of the shared folder in multiprocess
    mode, else this process's own."""
    if not multiprocess():
        return REGISTRY
    registry = CollectorRegistry()
    MultiProcessCollector(registry)
    return registry


def exposition(*collectors: Collector) -> bytes:
    """The Prometheus text of the processes' counts and of `collectors` (gauges
    read at scrape time)."""
    text = generate_latest(process_registry())
    if collectors:
        extra = CollectorRegistry(auto_describe=False)
        for collector in collectors:
            extra.register(collector)
        text += generate_latest(extra)
    return text


def serve(port: int, host: str = "127.0.0.1") -> None:
    """Serve this process's metrics on http://host:port/metrics from a thread (a
    worker's or the scheduler's `--metrics-port`)."""
    start_http_server(port, addr=host, registry=process_registry())
