"""The Celery app. Workers run tournaments and the periodic "dispatch what is due" tasks."""

import os

from celery import Celery
from celery.signals import task_postrun, task_prerun, worker_process_init, worker_ready

from .startup import freeze_startup_objects

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("bluffleague")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


# Solo and thread pools get worker_ready in their one process, prefork children
# worker_process_init.
worker_ready.connect(freeze_startup_objects, weak=False)
worker_process_init.connect(freeze_startup_objects, weak=False)


@task_prerun.connect
@task_postrun.connect
def check_database_connections(task: object = None, **kwargs: object) -> None:
    """Keep a worker's database connection from task to task as Django keeps a web process's
    from request to request (``CELERY_DB_REUSE_MAX`` stops Celery closing it around every task:
    a new PostgreSQL connection costs every task a few ms, docs/performance.md): one older than ``CONN_MAX_AGE``,
    or left broken by an error, is closed here, and a health check precedes its next use.
    Eager tasks (tests) run inside their caller's transaction: left alone."""
    if getattr(getattr(task, "request", None), "is_eager", False):
        return
    from django.db import close_old_connections

    close_old_connections()


@task_prerun.connect
def measure_platform_clock(task: object = None, **kwargs: object) -> None:
    """Measure this process's offset from the platform's clock if a minute old (one query):
    every task's leases, and its calls' signatures, are on the platform's time (lib/clock.py).
    Eager tasks (tests) run in their caller's process and transaction: left alone."""
    if getattr(getattr(task, "request", None), "is_eager", False):
        return
    from lib.clock import platform_clock

    platform_clock().refresh()


@app.task(name="bluffleague.ping")
def ping() -> str:
    """Round trip through the broker and a worker; used by health checks and tests."""
    return "pong"


def purge_queues() -> int:
    """Drop every message waiting on the platform's queues (``matches``, ``housekeeping``): for
    tests and benches that start workers of their own. ``app.control.purge()`` empties only the
    queues the app declares, which are not those the tasks are routed to. Returns how many."""
    from django.conf import settings

    dropped = 0
    with app.connection_for_write() as conn:
        channel = conn.default_channel
        for queue in (settings.QUEUE_MATCHES, settings.QUEUE_HOUSEKEEPING):
            try:
                dropped += channel.queue_purge(queue) or 0
            except Exception:  # noqa: BLE001, S112 - a queue nobody declared yet holds nothing
                continue
    return dropped
