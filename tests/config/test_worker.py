"""Real Celery worker processes take tasks from the configured broker and answer them: the
workers `make run` starts, one per queue, and the tasks routed to each queue.

On a bare machine this uses the embedded filesystem broker; in CI, Redis.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from django.conf import settings

from tests.conftest import REAL_WORKERS
from tests.helpers.workers import run_script, stop_processes

ROOT = Path(__file__).resolve().parents[2]


def test_tasks_are_routed_to_their_queues() -> None:
    from config.celery import app

    route = app.amqp.router.route
    assert route({}, "games.advance_automatic_seats")["queue"].name == settings.QUEUE_MATCHES
    for task in ("games.expire_deadlines", "games.resume_stalled_matches", "bots.health_check",
                 "bots.recheck_held", "bots.prune_call_log", "bluffleague.ping"):
        assert route({}, task)["queue"].name == settings.QUEUE_HOUSEKEEPING, task
    assert set(run_script.QUEUES) == {settings.QUEUE_MATCHES, settings.QUEUE_HOUSEKEEPING}


@REAL_WORKERS
def test_the_workers_make_run_starts_serve_both_queues(tmp_path: Path) -> None:
    from celery.exceptions import TimeoutError as ResultTimeout

    from config.celery import ping, purge_queues

    purge_queues()  # messages other tests left on the broker are not this test's business
    quiet = ("--pool", "solo", "--loglevel", "INFO", "--without-gossip", "--without-mingle",
             "--without-heartbeat")
    run = run_script
    logs = {queue: tmp_path / f"{queue}.log" for queue in run.QUEUES}
    workers = [subprocess.Popen(run.worker_command(queue, *quiet), cwd=ROOT,
                                stdout=logs[queue].open("w"), stderr=subprocess.STDOUT)
               for queue in run.QUEUES]
    try:
        results = [ping.apply_async(queue=queue) for queue in run.QUEUES]
        try:
            answers = [result.get(timeout=120) for result in results]
        except ResultTimeout:
            pytest.fail("no pong from every queue's worker; their logs:\n" + "\n".join(
                f"--- {queue}\n{path.read_text()[-3000:]}" for queue, path in logs.items()))
        assert answers == ["pong"] * len(results)
    finally:
        stop_processes(workers)
    assert all(worker.returncode is not None for worker in workers)


def test_workers_freeze_what_they_loaded_at_start_and_collect_the_young_less_often() -> None:
    """Full collections walked every object Django and the apps loaded, over and over: about
    1.3 ms a reference-bot match (bench/tournament.py). Celery's solo and thread pools get
    ``worker_ready``, prefork children ``worker_process_init``; gunicorn's workers its
    ``post_worker_init`` hook."""
    import gc
    import runpy

    from celery.signals import worker_process_init, worker_ready

    from config.startup import YOUNG_THRESHOLD, freeze_startup_objects

    for signal in (worker_ready, worker_process_init):
        assert freeze_startup_objects in signal._live_receivers(None)
    gunicorn = runpy.run_path(str(ROOT / "config" / "gunicorn.conf.py"))
    threshold = gc.get_threshold()
    for start in (freeze_startup_objects, lambda: gunicorn["post_worker_init"](None)):
        gc.unfreeze()
        gc.set_threshold(700, 10, 10)
        try:
            start()
            assert gc.get_freeze_count() > 1000
            assert gc.get_threshold() == (YOUNG_THRESHOLD, 10, 10)
        finally:
            gc.unfreeze()
            gc.set_threshold(*threshold)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_worker_keeps_its_database_connection_from_task_to_task_and_replaces_a_broken_one(
        tmp_path: Path) -> None:
    """Celery's Django fixup closed the connection around every task (a new PostgreSQL
    connection each, about 3 ms); now it lasts as a web process's does, checked between
    tasks."""
    from types import SimpleNamespace

    import psycopg
    from celery.fixups.django import DjangoWorkerFixup
    from django.db import connection

    from config.celery import app, check_database_connections
    from tests.conftest import database_url_for_subprocess

    fixup = DjangoWorkerFixup(app)
    task = SimpleNamespace(request=SimpleNamespace(is_eager=False))

    def run_task() -> int:
        fixup.on_task_prerun(sender=task)
        check_database_connections(task=task)
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            pid = cursor.fetchone()[0]
        fixup.on_task_postrun(sender=task)
        check_database_connections(task=task)
        return pid

    first = run_task()
    assert run_task() == run_task() == first, "one connection for every task"
    with psycopg.connect(database_url_for_subprocess(tmp_path), autocommit=True) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [first])
    assert run_task() != first, "a broken connection is replaced before the next task uses it"


def test_make_run_plays_matches_on_a_thread_pool_as_the_production_stack_does() -> None:
    """A match of webhook bots mostly waits on the bots: one match at a time (``--concurrency
    1``) made a newcomer's first round robin take minutes. `make run`'s matches worker keeps
    as many in flight as docker-compose.yml's; options a caller adds win."""
    run = run_script
    matches = run.worker_command("matches")
    pool = " ".join(matches[matches.index("--pool"):])
    assert pool == "--pool threads --concurrency 32"
    assert f"-Q matches {'--hostname'}" in " ".join(matches)
    assert pool in (ROOT / "docker-compose.yml").read_text()
    assert run.worker_command("housekeeping")[-2:] == ["--pool", "solo"]
    assert run.worker_command("matches", "--pool", "solo")[-2:] == ["--pool", "solo"]
    assert run.commands()["worker-matches"][:len(matches)] == matches


def test_make_run_sizes_a_multiplexed_matches_worker_for_500_in_flight(monkeypatch) -> None:
    """With ``BLUFF_MULTIPLEXED_WORKER`` on, the matches worker's threads only hold their
    tasks' messages while one loop plays the matches: `make run` starts enough of them to keep
    about 500 matches in flight; options a caller adds still win."""
    run = run_script
    monkeypatch.setenv("BLUFF_MULTIPLEXED_WORKER", "1")
    matches = run.worker_command("matches")
    assert " ".join(matches[matches.index("--pool"):]) == "--pool threads --concurrency 528"
    assert run.worker_command("housekeeping")[-2:] == ["--pool", "solo"]
    assert run.worker_command("matches", "--concurrency", "8")[-2:] == ["--concurrency", "8"]
    monkeypatch.setenv("BLUFF_MULTIPLEXED_WORKER", "off")
    assert run.worker_command("matches")[-2:] == ["--concurrency", "32"]
