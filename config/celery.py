"""The Celery app. Workers run tournaments and the periodic "dispatch what is due" tasks."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("bluffleague")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.task(name="bluffleague.ping")
def ping() -> str:
    """Round trip through the broker and a worker; used by health checks and tests."""
    return "pong"
