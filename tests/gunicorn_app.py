"""``config.wsgi``'s application as tests serve it with gunicorn (tests/gunicorn.py): the
deployment's settings, except fast password hashing (dozens of sign-ups at once would otherwise
spend most of a test hashing) and the cache key prefix of the test that started it.

With ``BLUFF_TEST_POLL_WAITS`` set to a folder, each thread whose long poll is waiting (it
reached the poll's sleep between two reads) leaves a file there: what a test can wait for
instead of sleeping and hoping the polls got there."""

import os
import threading
from pathlib import Path

from django.conf import settings

from config.wsgi import application
from games import selectors

settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
settings.CACHES["default"]["KEY_PREFIX"] = os.environ.get("BLUFF_TEST_CACHE_PREFIX", "")

if os.environ.get("BLUFF_TEST_POLL_WAITS"):
    _waits, _sleep = Path(os.environ["BLUFF_TEST_POLL_WAITS"]), selectors.sleep

    def _marked_sleep(seconds: float) -> None:
        (_waits / f"{os.getpid()}-{threading.get_ident()}").touch()
        _sleep(seconds)

    selectors.sleep = _marked_sleep

__all__ = ["application"]
