"""The embedded default broker: kombu's filesystem transport with its one race removed.

kombu's ``Channel._put`` creates the message file under its final name and only then writes
it, while a worker lists the folder and takes every ``*.<queue>.msg`` file without the lock:
a worker that looks in between reads an empty file and dies on the JSON (``make run``'s
housekeeping worker did, once the folder was polled every 20 ms instead of every second).
Here a message is written under a name no consumer takes and renamed into place, which is
atomic within a folder: a worker sees a whole message or none. ``settings.py`` names this
transport (``CELERY_BROKER_TRANSPORT``) whenever the broker URL is ``filesystem://``.
"""

from __future__ import annotations

import os
import uuid
from time import monotonic
from typing import Any

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps

#: Appended to a message's name while it is written: ``<n>_<uuid>.<queue>.msg.partial`` is not
#: a ``<queue>.msg`` file to kombu's consumer, its purge or its size.
PARTIAL = ".partial"


class Channel(filesystem.Channel):
    def _put(self, queue: str, payload: Any, **kwargs: Any) -> None:
        """Put ``payload`` on ``queue``: written in full, then renamed into the folder."""
        name = f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
        path = os.path.join(self.data_folder_out, name)
        try:
            with open(path + PARTIAL, "wb") as file:
                file.write(str_to_bytes(dumps(payload)))
            os.replace(path + PARTIAL, path)
        except OSError as exc:
            raise ChannelError(f"Cannot add file {path!r} to directory") from exc


class Transport(filesystem.Transport):
    Channel = Channel
