"""The apps' hand-written SQL, each statement a named function (migrations apart), a module per
job: writing many rows at once (:mod:`.bulk`), the webhook match's hot path (:mod:`.hot_path`),
a poll's one-row read (:mod:`.poll`), statements of several writers in one round trip
(:mod:`.together`) and transaction plumbing (:mod:`.transactions`).

Every function here runs on the caller's connection; ``COPY`` also goes into Django's query log,
so a statement count (``CaptureQueriesContext``) sees every round trip. Each has a branch for
databases other than PostgreSQL (``make run``'s SQLite), which .ci/run's SQLite pass runs.
"""

from .bulk import insert_models, insert_rows, unflushed_rows_held, update_rows
from .hot_path import (
    claim_match,
    claim_unset,
    insert_tree,
    row_by_pk,
    update_then_insert,
    updating_then_inserting,
)
from .poll import poll_row
from .together import Rows, Statement, Steps, run_together
from .transactions import (
    execute_unflushed,
    lock_not_available,
    locks_waited_at_most,
    savepoint,
    wait_for_locks_at_most,
)

__all__ = ["Rows", "Statement", "Steps", "claim_match", "claim_unset", "execute_unflushed",
           "insert_models", "insert_rows", "insert_tree", "lock_not_available",
           "locks_waited_at_most", "poll_row", "row_by_pk", "run_together",
           "savepoint", "unflushed_rows_held", "update_rows", "update_then_insert",
           "updating_then_inserting", "wait_for_locks_at_most"]
