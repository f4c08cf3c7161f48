"""A poll's one-row read of its seat and match (``games.selectors``), on every database."""

from __future__ import annotations

from typing import Any

from django.db import connection

# The SQL of the poll key, built once per database vendor from the models' own table and column
# names. Building the equivalent ORM query (a join, .values, .first) cost more than running it,
# most of a 304's own time (docs/performance.md). One row by primary key or by the (match,
# number) unique index; no state.
_POLL_SQL: dict[tuple[str, bool], str] = {}


def poll_row(*, match_id: int, seat_number: int | None) -> tuple[Any, ...] | None:
    """The columns a poll answer needs, in one query without the stored state: ``(user_id,
    version, status, updated_at, game, deadline, strikes, forfeited)`` of the seat (the seat's
    columns None without one, for the public view); None if there is no such match or seat.
    ``updated_at`` and ``deadline`` come as the driver gives them (SQLite: maybe a string)."""
    with connection.cursor() as cursor:
        if seat_number is None:
            cursor.execute(_poll_sql(seat=False), [match_id])
        else:
            cursor.execute(_poll_sql(seat=True), [match_id, seat_number])
        return cursor.fetchone()


def _poll_sql(*, seat: bool) -> str:
    from ..models import Match, Seat

    sql = _POLL_SQL.get((connection.vendor, seat))
    if sql is None:
        q = connection.ops.quote_name
        m = {name: q(Match._meta.get_field(name).column)
             for name in ("id", "version", "status", "updated_at", "game", "deadline")}
        columns = (f"m.{m['version']}, m.{m['status']}, m.{m['updated_at']}, m.{m['game']}, "
                   f"m.{m['deadline']}")
        if seat:
            s = {name: q(Seat._meta.get_field(name).column)
                 for name in ("user", "match", "number", "strikes", "forfeited")}
            sql = (f"SELECT s.{s['user']}, {columns}, s.{s['strikes']}, s.{s['forfeited']} "
                   f"FROM {q(Seat._meta.db_table)} s "
                   f"INNER JOIN {q(Match._meta.db_table)} m ON m.{m['id']} = s.{s['match']} "
                   f"WHERE s.{s['match']} = %s AND s.{s['number']} = %s")
        else:
            sql = (f"SELECT NULL, {columns}, NULL, NULL FROM {q(Match._meta.db_table)} m "
                   f"WHERE m.{m['id']} = %s")
        _POLL_SQL[(connection.vendor, seat)] = sql
    return sql
