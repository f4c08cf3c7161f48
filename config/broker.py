"""kombu's transports with their flaws removed: the embedded default broker (kombu's filesystem
transport with its one race removed) and Redis's (a worker exits when the broker goes away).

kombu's ``Channel._put`` creates the message file under its final name and only then writes
it, while a worker lists the folder and takes every ``*.<queue>.msg`` file without the lock:
a worker that looks in between reads an empty file and dies on the JSON (``make run``'s
housekeeping worker did, once the folder was polled every 20 ms instead of every second).
Here a message is written under a name no consumer takes and renamed into place, which is
atomic within a folder: a worker sees a whole message or none. ``settings.py`` names this
transport (``CELERY_BROKER_TRANSPORT``) whenever the broker URL is ``filesystem://``.

The Redis transport (``RedisTransport``, named whenever the broker URL is ``redis://``) has a
flaw of its own: when the broker goes away, Celery first collects the connection (closing the
channel, which may fail half-way when the channel was waiting in ``BRPOP``: the channel stays
open) and drops the transport's connection parameters, then closes the connection again; that
second close gives the channel's unacknowledged messages back to Redis, builds a client from
the dropped parameters, and dies on ``AttributeError: 'NoneType' object has no attribute
'hostname'``, which Celery treats as unrecoverable: the worker exits (seen with threads pools
in ``tests/tournaments/test_hosts.py``, a broker restarted while both hosts' workers held
unacknowledged messages). Here a channel whose transport has lost its connection gives nothing
back and acknowledges nothing: it cannot reach Redis anyway, the messages are still in Redis's
unacked set if Redis kept them (and delivered again after the visibility timeout), and gone
with Redis otherwise (the database sweeps queue their work again).
"""

from __future__ import annotations

import os
import uuid
from time import monotonic
from typing import Any

from kombu.exceptions import ChannelError
from kombu.transport import filesystem, redis, virtual
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


def _disconnected(channel: Any) -> bool:
    """Whether ``channel``'s transport has been closed (Celery dropped its connection)."""
    return getattr(channel.connection, "client", None) is None


class RedisQoS(redis.QoS):
    def restore_unacked(self, client: Any = None) -> None:
        """Give the unacknowledged messages back to Redis, unless the connection is gone: they
        stay in Redis's unacked set (delivered again after the visibility timeout) or went with
        it."""
        if client is None and _disconnected(self.channel):
            self._delivered.clear()
            return
        super().restore_unacked(client)

    def ack(self, delivery_tag: Any) -> None:
        """Acknowledge, unless the connection is gone (the message comes back after the
        visibility timeout, and its task is idempotent)."""
        if _disconnected(self.channel):
            virtual.QoS.ack(self, delivery_tag)  # forgotten in this process only
            return
        super().ack(delivery_tag)


class RedisChannel(redis.Channel):
    QoS = RedisQoS


class RedisTransport(redis.Transport):
    Channel = RedisChannel
