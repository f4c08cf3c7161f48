"""kombu's transports with their flaws removed: the embedded default broker (kombu's filesystem
transport with its races removed) and Redis's (a worker exits when the broker goes away).

kombu's ``Channel._put`` creates the message file under its final name and only then writes
it, while a worker lists the folder and takes every ``*.<queue>.msg`` file without the lock:
a worker that looks in between reads an empty file and dies on the JSON (``make run``'s
housekeeping worker did, once the folder was polled every 20 ms instead of every second).
Here a message is written under a name no consumer takes and renamed into place, which is
atomic within a folder: a worker sees a whole message or none. ``settings.py`` names this
transport (``CELERY_BROKER_TRANSPORT``) whenever the broker URL is ``filesystem://``.

kombu's filesystem transport keeps each exchange's bindings in one JSON file, and a binding
that finds no file opens it with truncation before it takes the lock: two workers starting on
a fresh broker folder (each binds its remote-control queue) could cut short a table a third
was writing, or read the empty file the other had just created, and die on the JSON (two test
workers did: ``JSONDecodeError: Extra data``). Here the file is created without truncation,
read, written and cut to length under the lock, and an empty file is an empty table.

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
from collections.abc import Iterator
from contextlib import contextmanager
from time import monotonic
from typing import Any, BinaryIO

from kombu.exceptions import ChannelError
from kombu.transport import filesystem, redis, virtual
from kombu.utils.encoding import bytes_to_str, str_to_bytes
from kombu.utils.json import dumps, loads

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

    def get_table(self, exchange: str) -> list[filesystem.exchange_queue_t]:
        """``exchange``'s bindings, read under a shared lock; none while its file is new."""
        try:
            with self._exchange_file(exchange).open("rb") as file, \
                    _locked(file, filesystem.LOCK_SH) as bindings:
                return bindings
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise ChannelError(f"Cannot open the table of {exchange!r}") from exc

    def _queue_bind(self, exchange: str, routing_key: str, pattern: str, queue: str) -> None:
        """Bind ``queue`` to ``exchange``: the table is created, read and rewritten under one
        exclusive lock, never truncated by a binder still waiting for it."""
        path = self._exchange_file(exchange)
        self.control_folder.mkdir(exist_ok=True)
        binding = filesystem.exchange_queue_t(routing_key or "", pattern or "", queue or "")
        try:
            with open(os.open(path, os.O_RDWR | os.O_CREAT, 0o666), "rb+", buffering=0) as file, \
                    _locked(file, filesystem.LOCK_EX) as bindings:
                if binding not in bindings:
                    _rewrite(file, [binding, *bindings])
        except OSError as exc:
            raise ChannelError(f"Cannot open the table of {exchange!r}") from exc

    def _delete(self, queue: str, exchange: str, routing_key: str, pattern: str,
                *args: Any, **kwargs: Any) -> None:
        """Delete ``queue`` and its binding to ``exchange`` (a table just created has none)."""
        virtual.Channel._delete(self, queue, exchange, routing_key, pattern, *args, **kwargs)
        binding = filesystem.exchange_queue_t(routing_key or "", pattern or "", queue or "")
        try:
            with self._exchange_file(exchange).open("rb+", buffering=0) as file, \
                    _locked(file, filesystem.LOCK_EX) as bindings:
                if binding in bindings:
                    bindings.remove(binding)
                    _rewrite(file, bindings)
        except FileNotFoundError:
            return


@contextmanager
def _locked(file: BinaryIO, flags: int) -> Iterator[list[filesystem.exchange_queue_t]]:
    """The bindings in an exchange's ``file``, read and held under a ``flags`` lock (an empty
    file, just created by a binder that has not taken the lock yet, holds none)."""
    filesystem.lock(file, flags)
    try:
        text = file.read()
        yield ([filesystem.exchange_queue_t(*entry) for entry in loads(bytes_to_str(text))]
               if text.strip() else [])
    finally:
        filesystem.unlock(file)


def _rewrite(file: BinaryIO, bindings: list[filesystem.exchange_queue_t]) -> None:
    """Replace a locked exchange file's bindings, cutting off whatever longer table was there."""
    file.seek(0)
    file.write(str_to_bytes(dumps(bindings)))
    file.truncate()


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
