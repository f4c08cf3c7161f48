"""What every long-lived process of the platform does once it has loaded the app."""

from __future__ import annotations

import gc

#: The collector's youngest-generation threshold in long-lived processes (CPython's default is
#: 700 allocations). A worker playing a league group's hands in memory keeps every move of the
#: batch alive until it is stored, so at 700 the young collections kept promoting them and the
#: older generations were walked again and again: 0.19 s of collection a night of 160
#: Great Dalmuti hands through one worker, 0.08 s at 10 000 (docs/performance.md).
YOUNG_THRESHOLD = 10_000


def freeze_startup_objects(**kwargs: object) -> None:
    """Move everything loaded at start (Django, the apps, the engine) out of the garbage
    collector's reach: those objects live as long as the process, yet every full collection
    walked them all again (one chunk of reference-bot matches in four took twice as long;
    docs/performance.md). The ``gc.freeze()`` practice
    Instagram described; Celery workers (``config.celery``) and gunicorn workers
    (``config/gunicorn.conf.py``) call it once ready. It also raises the young generation's
    threshold (:data:`YOUNG_THRESHOLD`), keeping the older generations' ratios.
    ``kwargs``: a signal's, ignored."""
    gc.collect()
    gc.freeze()
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, older, oldest)
