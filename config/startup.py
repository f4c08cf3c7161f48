"""What every long-lived process of the platform does once it has loaded the app."""

from __future__ import annotations

import gc


def freeze_startup_objects(**kwargs: object) -> None:
    """Move everything loaded at start (Django, the apps, the engine) out of the garbage
    collector's reach: those objects live as long as the process, yet every full collection
    walked them all again (one chunk of reference-bot matches in four took twice as long;
    docs/performance.md). The ``gc.freeze()`` practice
    Instagram described; Celery workers (``config.celery``) and gunicorn workers
    (``config/gunicorn.conf.py``) call it once ready. ``kwargs``: a signal's, ignored."""
    gc.collect()
    gc.freeze()
