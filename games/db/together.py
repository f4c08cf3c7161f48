"""Statements of several writers sent in one round trip.

A write that can share its round trip is a generator: it yields each :class:`Statement` whose
rows it needs and is resumed with them (its Python work, e.g. a batch's guards and log page,
stays where it was). ``lib.steps.answer_here`` runs one such write, a statement per round trip
(:meth:`Statement.here`); :func:`run_together` sends the statements of many in one. The
multiplexed worker's writer stores many matches' batches so (``games.services.multiplexed``):
at 500 matches in flight each of its statements had waited about 4 ms for a thread that
shares its interpreter with a busy loop, so a statement per batch made the writer the
worker's bottleneck.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from django.db import connection

from .transactions import execute_unflushed

T = TypeVar("T")

Rows = list[tuple[Any, ...]]


@dataclass(frozen=True, slots=True)
class Statement:
    """One statement (``%s`` placeholders) and its parameters; a write waits for its rows.
    ``unflushed``: run alone, its commit need not wait for the disk
    (:func:`~.transactions.execute_unflushed`); sent with others it commits with them."""

    sql: str
    params: Sequence[Any]
    unflushed: bool = False

    def here(self) -> Rows:
        """Run alone on this thread's connection: its rows."""
        return _execute(self)


#: A write that yields its statements (:func:`run_together`, ``lib.steps.answer_here``).
Steps = Generator[Statement, Rows, T]


def run_together(statements: Sequence[Statement]) -> list[Rows]:
    """The rows of each statement, all sent in one round trip and run in one transaction
    (PostgreSQL's simple query protocol, so on its own, not in a transaction, on the
    client-side binding Django uses by default): one commit for all, and if one fails none
    is written and the error is raised (the caller may run each alone). Elsewhere, or inside
    a transaction, one by one."""
    if (len(statements) < 2 or connection.vendor != "postgresql"
            or not connection.get_autocommit()
            or connection.settings_dict["OPTIONS"].get("server_side_binding")):
        return [_execute(statement) for statement in statements]
    sql = "; ".join(statement.sql for statement in statements)
    params = [param for statement in statements for param in statement.params]
    found: list[Rows] = []
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        for i in range(len(statements)):
            if i:
                cursor.cursor.nextset()
            found.append(cursor.fetchall() if cursor.description else [])
    return found


def _execute(statement: Statement) -> Rows:
    with connection.cursor() as cursor:
        if statement.unflushed:
            execute_unflushed(cursor, statement.sql, statement.params)
        else:
            cursor.execute(statement.sql, statement.params)
        return cursor.fetchall() if cursor.description else []
