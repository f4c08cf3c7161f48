"""A real Celery worker process takes a task from the configured broker and answers it.

On a bare machine this uses the embedded filesystem broker; in CI, Redis.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_a_real_worker_runs_a_task() -> None:
    from config.celery import app, ping

    app.control.purge()  # messages other tests left on the broker are not this test's business
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "solo",
         "--loglevel", "WARNING", "--without-gossip", "--without-mingle", "--without-heartbeat"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    try:
        started = time.monotonic()
        result = ping.delay()
        assert result.get(timeout=60) == "pong"
        assert time.monotonic() - started < 60
    finally:
        worker.terminate()
        try:
            worker.wait(timeout=20)
        except subprocess.TimeoutExpired:
            worker.kill()
    assert worker.returncode is not None
