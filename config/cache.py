"""The embedded cache (``CACHE_URL=file:///path``, the local default) with atomic counters.

Django's file cache shares entries between the processes of one machine, but its ``add`` is
"has_key, then set" and its ``incr`` "get, then set" (with the default timeout): two racing
requests both add, or both read 3 and write 4, and a throttle lets a burst through
(lib/throttling.py). Here both run under one lock file in the cache folder, and ``incr``
keeps the entry's expiry. Redis (production) and the per-process memory cache are atomic as
they are.
"""

from __future__ import annotations

import os
import pickle
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.filebased import FileBasedCache
from django.core.files import locks


class AtomicFileBasedCache(FileBasedCache):
    """``FileBasedCache`` whose ``add``, ``incr`` and ``decr`` are atomic across processes."""

    @contextmanager
    def _locked(self) -> Iterator[None]:
        self._createdir()
        with open(os.path.join(self._dir, "counters.lock"), "ab") as lock:  # not a .djcache
            locks.lock(lock, locks.LOCK_EX)
            try:
                yield
            finally:
                locks.unlock(lock)

    def add(self, key: str, value: Any, timeout: Any = DEFAULT_TIMEOUT,
            version: int | None = None) -> bool:
        with self._locked():
            return super().add(key, value, timeout, version)

    def incr(self, key: str, delta: int = 1, version: int | None = None) -> int:
        with self._locked():
            try:
                with open(self._key_to_file(key, version), "rb") as file:
                    expiry = pickle.load(file)
                    value = pickle.loads(zlib.decompress(file.read()))
            except (FileNotFoundError, EOFError):
                expiry, value = 0, None
            now = time.time()
            if value is None or expiry is not None and expiry <= now:
                raise ValueError(f"Key '{key}' not found")
            value += delta
            self.set(key, value, None if expiry is None else expiry - now, version)
            return value
