"""``config.wsgi``'s application as tests serve it with gunicorn (tests/gunicorn.py): the
deployment's settings, except fast password hashing (dozens of sign-ups at once would otherwise
spend most of a test hashing) and the cache key prefix of the test that started it."""

import os

from django.conf import settings

from config.wsgi import application

settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
settings.CACHES["default"]["KEY_PREFIX"] = os.environ.get("BLUFF_TEST_CACHE_PREFIX", "")

__all__ = ["application"]
