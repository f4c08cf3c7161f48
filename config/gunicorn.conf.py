"""Gunicorn settings of the production web process (Dockerfile, docker-compose.yml).

Threaded workers (gthread): a long poll (``?wait=N``, up to ``BLUFF_POLL_MAX_WAIT`` seconds)
holds one thread, not a whole process, so a few waiting clients cannot take the service down,
``/healthz`` included, as they did with sync workers. Command-line flags and
``GUNICORN_CMD_ARGS`` override these (e.g. ``GUNICORN_CMD_ARGS="--workers 4 --threads 32"``).
"""

wsgi_app = "config.wsgi:application"
bind = "0.0.0.0:8000"
worker_class = "gthread"
workers = 3
#: Requests one worker serves at once; long polls count against it.
threads = 16
#: Above the longest long poll (BLUFF_POLL_MAX_WAIT, 30 s by default) so no poll is killed.
timeout = 60
graceful_timeout = 30
keepalive = 5
accesslog = "-"


def post_worker_init(worker: object) -> None:
    """Each worker, once it has loaded the app: see ``config.startup``."""
    from config.startup import freeze_startup_objects

    freeze_startup_objects()
