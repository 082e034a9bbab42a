"""The disk broker hands a worker a task only once it is written whole: kombu's own
filesystem transport let a worker take a file it had created but not yet written,
which the worker could not read as JSON, and the worker stopped."""

from __future__ import annotations

import os
from queue import Empty

import pytest
from kombu import Connection
from kombu.transport import filesystem

from pbem.config import load_settings
from worker import diskbroker
from worker.app import celery_config


def _channel(folder, transport: str):
    options = {"data_folder_in": str(folder), "data_folder_out": str(folder)}
    connection = Connection("filesystem://", transport=transport, transport_options=options)
    return connection, connection.default_channel


def _look(channel) -> str:
    """What a worker listing the folder now takes: nothing, a task, or a file it
    cannot read."""
    try:
        return f"a task: {channel._get('celery')}"
    except Empty:
        return "nothing"
    except ValueError as error:  # JSONDecodeError
        return f"an unreadable file: {error}"


def test_a_worker_looking_while_a_task_is_written_takes_nothing(tmp_path, monkeypatch):
    connection, channel = _channel(tmp_path, "worker.diskbroker:Transport")
    seen = []
    put_in_place = os.replace

    def a_worker_looks_first(src, dst):  # the task written, not yet in place
        seen.append(_look(channel))
        put_in_place(src, dst)

    monkeypatch.setattr(diskbroker.os, "replace", a_worker_looks_first)
    channel._put("celery", {"body": "the task"})
    monkeypatch.undo()
    assert seen == ["nothing"]
    assert _look(channel) == "a task: {'body': 'the task'}"
    assert _look(channel) == "nothing"
    connection.release()


def test_kombus_own_transport_hands_out_a_file_it_is_still_writing(tmp_path, monkeypatch):
    """Why the broker is ours: the same look at the same moment in kombu's."""
    connection, channel = _channel(tmp_path, "filesystem")
    seen = []
    real_lock = filesystem.lock

    def a_worker_looks_first(file, flags):  # the file made, nothing written yet
        seen.append(_look(channel))
        real_lock(file, flags)

    monkeypatch.setattr(filesystem, "lock", a_worker_looks_first)
    channel._put("celery", {"body": "the task"})
    assert seen[0].startswith("an unreadable file")
    connection.release()


@pytest.mark.parametrize("url", ["filesystem://", "redis://127.0.0.1:6379/0"])
def test_the_app_takes_the_disk_broker_for_a_folder_and_kombus_for_redis(url, tmp_path):
    settings = load_settings({"PBEM_INSTANCE_DIR": str(tmp_path)}, broker_url=url, secret_key="k")
    config = celery_config(settings)
    expected = "worker.diskbroker:Transport" if url.startswith("filesystem") else None
    assert config.get("broker_transport") == expected
