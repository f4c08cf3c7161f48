"""Real Celery worker processes take tasks from the configured broker and answer them: the
workers `make run` starts, one per queue, and the tasks routed to each queue.

On a bare machine this uses the embedded filesystem broker; in CI, Redis.
"""

from __future__ import annotations

import importlib.util
import subprocess
import time
from pathlib import Path

from django.conf import settings

from tests.conftest import REAL_WORKERS

ROOT = Path(__file__).resolve().parents[2]


def _run_script():
    spec = importlib.util.spec_from_file_location("run_script", ROOT / "scripts" / "run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def test_tasks_are_routed_to_their_queues() -> None:
    from config.celery import app

    route = app.amqp.router.route
    assert route({}, "games.advance_automatic_seats")["queue"].name == settings.QUEUE_MATCHES
    for task in ("games.expire_deadlines", "games.resume_stalled_matches", "bots.health_check",
                 "bots.prune_call_log", "bluffleague.ping"):
        assert route({}, task)["queue"].name == settings.QUEUE_HOUSEKEEPING, task
    assert set(_run_script().QUEUES) == {settings.QUEUE_MATCHES, settings.QUEUE_HOUSEKEEPING}


@REAL_WORKERS
def test_the_workers_make_run_starts_serve_both_queues() -> None:
    from config.celery import app, ping

    app.control.purge()  # messages other tests left on the broker are not this test's business
    quiet = ("--pool", "solo", "--loglevel", "WARNING", "--without-gossip", "--without-mingle",
             "--without-heartbeat")
    run = _run_script()
    workers = [subprocess.Popen(run.worker_command(queue, *quiet),
                                cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True)
               for queue in run.QUEUES]
    try:
        started = time.monotonic()
        results = [ping.apply_async(queue=queue) for queue in run.QUEUES]
        assert [result.get(timeout=60) for result in results] == ["pong"] * len(results)
        assert time.monotonic() - started < 60
    finally:
        for worker in workers:
            worker.terminate()
        for worker in workers:
            try:
                worker.wait(timeout=20)
            except subprocess.TimeoutExpired:
                worker.kill()
    assert all(worker.returncode is not None for worker in workers)
