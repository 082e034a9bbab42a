"""The disk broker (`filesystem://`): kombu's filesystem transport, with each task
written whole before a worker can see it.

kombu creates a task's file under its final name and then writes it, holding an
advisory lock that a worker's move does not honour: a worker listing the folder in
between took an empty file, could not read it as JSON, and stopped. Here the task is
written under a name no worker takes (`.part` after the queue's `.msg`) and then
renamed into place, which is atomic on one filesystem."""

from __future__ import annotations

import os
import uuid
from time import monotonic
from typing import Any

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps


class Channel(filesystem.Channel):
    # typed as kombu's filesystem channel has it, which its base class's types do not
    def _put(self, queue: str, payload: dict[str, Any], **kwargs: Any) -> None:  # type: ignore[override]
        """Put `payload` onto `queue`, whole or not at all."""
        name = f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        partial = f"{final}.part"  # not "<queue>.msg" after the first dot: never taken
        try:
            with open(partial, "wb") as file:
                file.write(str_to_bytes(dumps(payload)))
            os.replace(partial, final)
        except OSError as error:
            raise ChannelError(f"Cannot add file {final!r} to directory") from error


class Transport(filesystem.Transport):
    Channel = Channel
