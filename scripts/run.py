"""Start the whole platform locally: migrate, then web server + two Celery workers + beat.

Runs on the embedded defaults (SQLite, filesystem broker under var/) unless DATABASE_URL /
CELERY_BROKER_URL say otherwise, and allows bot URLs on this machine
(BOTS_ALLOW_PRIVATE_ADDRESSES=1 unless set). One worker consumes the ``matches`` queue
(tasks that play matches and wait on bots), one the ``housekeeping`` queue (deadlines,
health checks, pruning), so a slow bot never delays a deadline sweep. Ctrl-C (or SIGTERM)
stops every process; if one dies, the others are stopped too, so nothing is left running
half-way.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: What a local run sets unless the environment says otherwise: bots on this machine (the
#: reference bots of ``serve_bots``, a starter bot on 127.0.0.1) may be registered and called.
LOCAL_DEFAULTS = {"BOTS_ALLOW_PRIVATE_ADDRESSES": "1"}
PYTHON = sys.executable
HOST = os.environ.get("BLUFF_HOST", "127.0.0.1")
PORT = os.environ.get("PORT", "8000")


#: The Celery queues (config/settings.py routes the tasks) and one worker for each.
QUEUES = ("matches", "housekeeping")
#: How each queue's worker runs its tasks. A match of webhook bots mostly waits on the bots'
#: servers: a thread pool keeps MATCH_THREADS matches in flight in one process (on SQLite too:
#: its writers wait for one another, config/env.py), as the production stack does with 32.
#: Housekeeping sweeps are short and one at a time.
MATCH_THREADS = 32
POOLS = {"matches": ("--pool", "threads", "--concurrency", str(MATCH_THREADS)),
         "housekeeping": ("--pool", "solo")}
#: With ``BLUFF_MULTIPLEXED_WORKER`` on, one loop thread plays every match the matches worker
#: takes and each of its threads only holds a task's message: this many keep at least 500
#: matches in flight in one process (docs/deploy.md): a thread whose match has ended is idle
#: until its next message is claimed, which held 512 threads at 498 to 502 on average.
MULTIPLEXED_THREADS = 528


def worker_command(queue: str, *extra: str) -> list[str]:
    """A Celery worker consuming ``queue`` (the tests and benches start the same command;
    options in ``extra`` win over the defaults)."""
    pool = POOLS[queue]
    if queue == "matches" and os.environ.get("BLUFF_MULTIPLEXED_WORKER", "").strip().lower() in (
            "1", "true", "yes", "on"):
        pool = ("--pool", "threads", "--concurrency", str(MULTIPLEXED_THREADS))
    return [PYTHON, "-m", "celery", "-A", "config", "worker", "-Q", queue,
            "--hostname", f"{queue}@%h", *pool, *extra]


def commands() -> dict[str, list[str]]:
    return {
        "web": [PYTHON, "manage.py", "runserver", f"{HOST}:{PORT}"],
        **{f"worker-{queue}": worker_command(queue, "--loglevel", "INFO") for queue in QUEUES},
        "beat": [PYTHON, "-m", "celery", "-A", "config", "beat", "--loglevel", "INFO"],
    }


def local_environment(environ: dict[str, str]) -> dict[str, str]:
    """``environ`` with :data:`LOCAL_DEFAULTS` filled in where it does not set them."""
    return {**LOCAL_DEFAULTS, **environ}


def main() -> int:
    os.chdir(ROOT)
    os.environ.update(local_environment(dict(os.environ)))
    subprocess.run([PYTHON, "manage.py", "migrate", "--noinput"], check=True)
    processes = {name: subprocess.Popen(cmd) for name, cmd in commands().items()}
    print(f"Bluff League is up: http://{HOST}:{PORT}/api/docs/  (Ctrl-C to stop)", flush=True)

    stopping = False

    def stop(*_: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    exit_code = 0
    while not stopping:
        for name, process in processes.items():
            if process.poll() is not None:
                print(f"{name} exited with code {process.returncode}; stopping the rest", flush=True)
                exit_code = process.returncode or 1
                stopping = True
        time.sleep(0.5)
    for process in processes.values():
        if process.poll() is None:
            process.terminate()
    for process in processes.values():
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
    return exit_code


if __name__ == "__main__":
    raise SystemExit(main())
