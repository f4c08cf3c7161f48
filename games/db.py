"""The apps' hand-written SQL, each statement a named function (migrations apart): writing many
rows at once, and the hot paths' statements, as fast as the database allows.

A batch of bot moves writes one call log row per move (and its match's log page). On
PostgreSQL ``COPY ... FROM STDIN`` takes them several times faster than ``bulk_create`` (Django
builds an ``INSERT ... UNNEST`` and adapts every value through the ORM), which is most of a
batch's database time. Other databases get ``bulk_create``.

:func:`update_rows` gives many rows different values in one ``UPDATE ... FROM UNNEST`` on
PostgreSQL (a tournament chunk records its results: a round trip per match before), where Django's
``bulk_update`` builds a ``CASE WHEN`` per column and row.

The webhook match's hot path (``games.services.automatic``: a worker asks bots that answer at
once, so every statement is a round trip the match waits for) takes several statements in one
here: :func:`insert_tree` (a new match, its seats and first log page), :func:`claim_match` (the
task's lease and its first read) and :func:`update_then_insert` (a batch's guarded UPDATE and
its log page); :func:`claim_unset` is the once-only claim of /start and /end (and, the first
time, the webhook session's read of its bots). Each says which statements of the ORM's it
saves; docs/performance.md has what they cost, measured and dated. Other
databases get the ORM's statements (the claim: the same upsert, the read apart).
:func:`poll_row` is a poll's one-row read of its seat and match (``games.selectors``), on
every database.

Every function here runs on the caller's connection; ``COPY`` also goes into Django's query log,
so a statement count (``CaptureQueriesContext``) sees every round trip.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any

import orjson
from django.db import connection, models, transaction
from django.db.models import Q
from django.db.models.functions import Now
from django.utils import timezone


def insert_rows(model: type[models.Model], rows: Sequence[Mapping[str, Any]]) -> None:
    """INSERT ``rows`` of ``model`` in one statement. A row is a mapping of field attribute
    names (``match_id``, not ``match``) to values; fields left out get their defaults. No model
    instances are built on PostgreSQL (building one cost more than writing its row): use it
    for rows nobody reads back in the same request (logs)."""
    if not rows:
        return
    if connection.vendor != "postgresql":
        model.objects.bulk_create([model(**row) for row in rows])
        return
    fields = [f for f in model._meta.concrete_fields if not f.primary_key]
    columns = ", ".join(connection.ops.quote_name(f.column) for f in fields)
    table = connection.ops.quote_name(model._meta.db_table)
    now = timezone.now()
    values = [_value_of(field, now) for field in fields]
    sql = f"COPY {table} ({columns}) FROM STDIN"
    started = time.monotonic()
    with connection.cursor() as cursor, cursor.cursor.copy(sql) as copy:
        for row in rows:
            copy.write_row([value(row) for value in values])
    _log_statement(f"{sql} -- {len(rows)} rows", started)


def _log_statement(sql: str, started: float) -> None:
    """Put a statement Django did not run itself (COPY) in its query log, as
    ``CaptureQueriesContext`` and DEBUG's ``connection.queries`` show every other one: a
    statement count that skips them would hide round trips."""
    if connection.queries_logged:
        connection.queries_log.append({"sql": sql,
                                       "time": f"{time.monotonic() - started:.3f}"})


def update_rows(model: type[models.Model], rows: Sequence[Mapping[str, Any]],
                fields: Sequence[str]) -> None:
    """Set ``fields`` (attribute names) of each row, found by its ``"pk"``, to the row's values,
    in one statement on PostgreSQL (one UPDATE per row elsewhere)."""
    if not rows:
        return
    if connection.vendor != "postgresql":
        for row in rows:
            model.objects.filter(pk=row["pk"]).update(**{name: row[name] for name in fields})
        return
    meta = model._meta
    columns = [meta.pk, *(meta.get_field(name) for name in fields)]
    quote = connection.ops.quote_name
    arrays = ", ".join(f"%s::{_sql_type(field)}[]" for field in columns)
    names = ", ".join(quote(field.column) for field in columns)
    assignments = ", ".join(f"{quote(field.column)} = v.{quote(field.column)}"
                            for field in columns[1:])
    table = quote(meta.db_table)
    params = [[row["pk"] for row in rows]]
    for field in columns[1:]:
        if isinstance(field, models.JSONField):
            params.append([_json_text(row[field.attname]) for row in rows])
        else:
            params.append([row[field.attname] for row in rows])
    with connection.cursor() as cursor:
        cursor.execute(f"UPDATE {table} SET {assignments} FROM UNNEST({arrays}) AS v({names}) "
                       f"WHERE {table}.{quote(meta.pk.column)} = v.{quote(meta.pk.column)}",
                       params)


def claim_match(match_id: int, *, until: datetime, now: datetime
                ) -> tuple[models.Model, list[models.Model]] | None:
    """Set the match's ``lease_until`` to ``until`` if it is unset or before ``now``, and
    read the match and its seats (by number) as the claim left them, in one statement; None
    if the match is not there or someone else holds it. The ORM takes two statements (the
    conditional UPDATE, then the seats with their match)."""
    from .models import Match, Seat

    if connection.vendor != "postgresql":
        claimed = (Match.objects.filter(pk=match_id)
                   .filter(Q(lease_until__isnull=True) | Q(lease_until__lt=now))
                   .update(lease_until=until))
        if not claimed:
            return None
        seats = list(Seat.objects.select_related("match").filter(match_id=match_id)
                     .order_by("number"))
        if not seats:
            match = Match.objects.filter(pk=match_id).first()
            return None if match is None else (match, [])
        for seat in seats[1:]:
            seat.match = seats[0].match
        return seats[0].match, seats
    quote = connection.ops.quote_name
    match_fields, seat_fields = Match._meta.concrete_fields, Seat._meta.concrete_fields
    table, seats = quote(Match._meta.db_table), quote(Seat._meta.db_table)
    lease = quote(Match._meta.get_field("lease_until").column)
    match_columns = ", ".join(f"c.{quote(f.column)}" for f in match_fields)
    seat_columns = ", ".join(f"s.{quote(f.column)}" for f in seat_fields)
    sql = (f"WITH c AS (UPDATE {table} SET {lease} = %s WHERE {quote(Match._meta.pk.column)} = %s"
           f" AND ({lease} IS NULL OR {lease} < %s) RETURNING *) "
           f"SELECT {match_columns}, {seat_columns} FROM c LEFT JOIN {seats} s "
           f"ON s.{quote(Seat._meta.get_field('match').column)} = c.{quote(Match._meta.pk.column)}"
           f" ORDER BY s.{quote(Seat._meta.get_field('number').column)}")
    with connection.cursor() as cursor:
        cursor.execute(sql, [until, match_id, now])
        rows = cursor.fetchall()
    if not rows:
        return None
    match = _instance(Match, match_fields, rows[0][:len(match_fields)])
    found = []
    for row in rows:
        if row[len(match_fields)] is None:  # a match without seats: LEFT JOIN's NULLs
            continue
        seat = _instance(Seat, seat_fields, row[len(match_fields):])
        Seat.match.field.set_cached_value(seat, match)
        found.append(seat)
    return match, found


def update_then_insert(model: type[models.Model], filters: Mapping[str, Any],
                       values: Mapping[str, Any], child: type[models.Model],
                       rows: Sequence[Mapping[str, Any]], *,
                       still_ahead: str | None = None) -> bool:
    """Set ``values`` (attribute names) on the row of ``model`` that matches ``filters``
    (equalities, at most one row: they include its pk) and, only if there was one, insert
    ``rows`` of ``child`` (as :func:`insert_rows` takes them), in one statement; whether the
    row was there. ``still_ahead``: a datetime field of the row that must also still be in the
    future by the database's clock when the statement reaches the row (``clock_timestamp()``,
    however late the statement arrived), not only by the sender's. A batch of bot moves is
    stored so, guarded by the match's version and lease, with its log page. The ORM takes two
    statements (the guarded UPDATE, then the page by COPY)."""
    if connection.vendor != "postgresql":
        found = model.objects.filter(**filters)
        if still_ahead is not None:
            found = found.filter(**{f"{still_ahead}__gt": Now()})
        if not found.update(**values):
            return False
        insert_rows(child, rows)
        return True
    quote = connection.ops.quote_name
    meta = model._meta
    params: list[Any] = []
    assignments = []
    for name, value in values.items():
        field = meta.get_field(name)
        assignments.append(f"{quote(field.column)} = %s")
        params.append(field.get_db_prep_save(value, connection))
    conditions = []
    for name, value in filters.items():
        field = meta.pk if name == "pk" else meta.get_field(name)
        conditions.append(f"{quote(field.column)} = %s")
        params.append(field.get_db_prep_value(value, connection, prepared=False))
    if still_ahead is not None:
        conditions.append(f"{quote(meta.get_field(still_ahead).column)} > clock_timestamp()")
    sql = (f"WITH changed AS (UPDATE {quote(meta.db_table)} SET {', '.join(assignments)} "
           f"WHERE {' AND '.join(conditions)} RETURNING 1)")
    if rows:
        fields = [f for f in child._meta.concrete_fields if not f.primary_key]
        now = timezone.now()
        readers = [_value_of(field, now) for field in fields]
        tuples = []
        for row in rows:
            tuples.append("(" + ", ".join(["%s"] * len(fields)) + ")")
            for field, read in zip(fields, readers):
                value = read(row)  # JSON comes as its text already
                params.append(value if value is None or isinstance(field, models.JSONField)
                              else field.get_db_prep_save(value, connection))
        columns = ", ".join(quote(f.column) for f in fields)
        casts = ", ".join(f"v.c{i}::{f.db_type(connection)}" for i, f in enumerate(fields))
        names = ", ".join(f"c{i}" for i in range(len(fields)))
        sql += (f", inserted AS (INSERT INTO {quote(child._meta.db_table)} ({columns}) "
                f"SELECT {casts} FROM (VALUES {', '.join(tuples)}) AS v({names}) "
                f"WHERE EXISTS (SELECT FROM changed))")
    with connection.cursor() as cursor:
        cursor.execute(sql + " SELECT count(*) FROM changed", params)
        return cursor.fetchone()[0] > 0


def insert_tree(parent: models.Model, children: Sequence[Sequence[models.Model]]) -> None:
    """INSERT ``parent`` and each list of ``children`` (new instances of models with a foreign
    key to the parent's, set to it here), and set every primary key, as ``bulk_create`` would:
    in one statement on PostgreSQL (a new match with its seats and first log page), so it needs
    no transaction of its own. Elsewhere ``bulk_create`` each, in a transaction. The ORM takes
    five round trips (BEGIN, the match, its seats, its page by COPY, COMMIT)."""
    lists = [list(group) for group in children if group]
    links = [next(f for f in type(group[0])._meta.concrete_fields
                  if f.is_relation and f.related_model is type(parent)) for group in lists]
    if connection.vendor != "postgresql":
        with transaction.atomic():
            type(parent).objects.bulk_create([parent])
            for group, link in zip(lists, links):
                for child in group:
                    setattr(child, link.name, parent)
                type(group[0]).objects.bulk_create(group)
        return
    quote = connection.ops.quote_name
    params: list[Any] = []

    def values_of(instance: models.Model, fields: Sequence[models.Field]) -> str:
        params.extend(field.get_db_prep_save(field.pre_save(instance, True), connection)
                      for field in fields)
        return "(" + ", ".join(["%s"] * len(fields)) + ")"

    meta = parent._meta
    fields = [f for f in meta.concrete_fields if not f.primary_key]
    parts = [(f"p AS (INSERT INTO {quote(meta.db_table)} "
              f"({', '.join(quote(f.column) for f in fields)}) VALUES {values_of(parent, fields)}"
              f" RETURNING {quote(meta.pk.column)})")]
    for i, (group, link) in enumerate(zip(lists, links)):
        child = group[0]._meta
        fields = [f for f in child.concrete_fields if not f.primary_key and f is not link]
        rows = ", ".join(values_of(instance, fields) for instance in group)
        casts = ", ".join(f"v.c{j}::{f.db_type(connection)}" for j, f in enumerate(fields))
        names = ", ".join(f"c{j}" for j in range(len(fields)))
        parts.append(
            f"c{i} AS (INSERT INTO {quote(child.db_table)} ({quote(link.column)}, "
            f"{', '.join(quote(f.column) for f in fields)}) SELECT p.{quote(meta.pk.column)}, "
            f"{casts} FROM p, (VALUES {rows}) AS v({names}) RETURNING {quote(child.pk.column)})")
    # RETURNING gives the rows in the order of VALUES (bulk_create relies on it too).
    selected = ["(SELECT * FROM p)", *(f"ARRAY(SELECT * FROM c{i})" for i in range(len(lists)))]
    with connection.cursor() as cursor:
        cursor.execute(f"WITH {', '.join(parts)} SELECT {', '.join(selected)}", params)
        parent_id, *child_ids = cursor.fetchone()
    parent.pk = parent_id
    parent._state.adding, parent._state.db = False, connection.alias
    for group, link, pks in zip(lists, links, child_ids):
        for child, pk in zip(group, pks, strict=True):
            setattr(child, link.name, parent)
            child.pk = pk
            child._state.adding, child._state.db = False, connection.alias


def claim_unset(model: type[models.Model], rows: Sequence[Mapping[str, Any]], *,
                unique: Sequence[str], field: str, value: Any,
                read: tuple[type[models.Model], Collection[Any], str] | None = None,
                ) -> tuple[list[tuple[Any, ...]], dict[Any, models.Model]]:
    """Set ``field`` to ``value`` on each of ``rows`` (attribute names to values; ``unique``:
    the fields of a unique constraint, which find it) where it is unset, inserting the rows
    that are missing (other fields at their defaults; a foreign key whose row is gone as NULL);
    the ``unique`` values of the rows set here. One atomic statement (``ON CONFLICT ... DO
    UPDATE ... WHERE ... RETURNING``, PostgreSQL and SQLite 3.35+), so of callers racing for a
    row exactly one claims it: the ORM can express neither that WHERE nor "return only the
    rows changed".

    ``read``: (a model, primary keys, one of its foreign keys): those rows, that relation
    loaded, by primary key, read in the same statement on PostgreSQL (a webhook session's
    bots and their owners with its /start claim). The ORM's read is a statement of its own."""
    meta = model._meta
    quote = connection.ops.quote_name
    table = quote(meta.db_table)
    fields = [f for f in meta.concrete_fields if not f.primary_key]
    if field not in {f.name for f in fields if not f.is_relation}:
        raise ValueError(field)
    target = meta.get_field(field)
    params: list[Any] = []
    tuples = []
    for row in rows:
        places = []
        for f in fields:
            given = value if f is target else (
                row[f.attname] if f.attname in row else f.get_default())
            params.append(f.get_db_prep_save(given, connection))
            places.append(f"(SELECT {quote(f.target_field.column)} FROM "
                          f"{quote(f.related_model._meta.db_table)} WHERE "
                          f"{quote(f.target_field.column)} = %s)" if f.is_relation
                          and f.attname in row and f.attname not in unique else "%s")
        tuples.append(f"({', '.join(places)})")
    keys = [meta.get_field(name).column for name in unique]
    column = quote(target.column)
    claim = (f"INSERT INTO {table} ({', '.join(quote(f.column) for f in fields)}) VALUES "
             f"{', '.join(tuples)} ON CONFLICT ({', '.join(map(quote, keys))}) DO UPDATE SET "
             f"{column} = excluded.{column} WHERE {table}.{column} IS NULL "
             f"RETURNING {', '.join(map(quote, keys))}")
    if read is None or connection.vendor != "postgresql" or not rows:
        claimed: list[tuple[Any, ...]] = []
        if rows:
            with connection.cursor() as cursor:
                cursor.execute(claim, params)
                claimed = [tuple(found) for found in cursor.fetchall()]
        if read is None:
            return claimed, {}
        other, pks, related = read
        return claimed, other.objects.select_related(related).in_bulk(list(pks))
    other, pks, related = read
    link = other._meta.get_field(related)
    other_fields = other._meta.concrete_fields
    related_fields = link.related_model._meta.concrete_fields
    columns = ", ".join([*(f"o.{quote(f.column)}" for f in other_fields),
                         *(f"r.{quote(f.column)}" for f in related_fields)])
    keys_json = ", ".join(map(quote, keys))
    sql = (f"WITH claimed AS ({claim}) "
           f"SELECT (SELECT json_agg(json_build_array({keys_json}))::text FROM claimed), "
           f"{columns} FROM (SELECT 1) AS one "
           f"LEFT JOIN {quote(other._meta.db_table)} o ON o.{quote(other._meta.pk.column)} = "
           f"ANY(%s) LEFT JOIN {quote(link.related_model._meta.db_table)} r "
           f"ON r.{quote(link.target_field.column)} = o.{quote(link.column)}")
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, list(pks)])
        found_rows = cursor.fetchall()
    claimed = [tuple(key) for key in orjson.loads(found_rows[0][0] or "[]")]
    found = {}
    for row in found_rows:
        if row[1] is None:  # no such row: the LEFT JOIN's NULLs
            continue
        instance = _instance(other, other_fields, row[1:1 + len(other_fields)])
        if row[1 + len(other_fields)] is not None:
            link.set_cached_value(instance, _instance(link.related_model, related_fields,
                                                      row[1 + len(other_fields):]))
        found[instance.pk] = instance
    return claimed, found


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
    from .models import Match, Seat

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


@contextmanager
def savepoint() -> Iterator[None]:
    """Undo what the block wrote if it raises, keeping the rest of the transaction (call inside
    one). Django's nested ``atomic()`` takes two round trips, SAVEPOINT and RELEASE; on
    PostgreSQL this one takes the SAVEPOINT alone (the COMMIT releases it) and a ROLLBACK TO
    only on an error. A batch of bot moves writes its sessions' records so (a failing one
    loses its own rows, never the moves): one round trip of the ten a webhook match's task
    took."""
    if connection.vendor != "postgresql":
        with transaction.atomic():
            yield
        return
    name = f"bluff_{next(_SAVEPOINTS)}"
    with connection.cursor() as cursor:
        cursor.execute(f"SAVEPOINT {name}")
    try:
        yield
    except BaseException:
        with connection.cursor() as cursor:
            cursor.execute(f"ROLLBACK TO SAVEPOINT {name}")
        raise


_SAVEPOINTS = itertools.count()


def wait_for_locks_at_most(seconds: float) -> None:
    """For the rest of the current transaction, wait at most ``seconds`` for any lock
    (PostgreSQL's ``lock_timeout``, set for this transaction only: ``set_config(..., true)``,
    which a transaction pooler keeps too), then fail with :func:`lock_not_available`. A
    transaction left open by a host that went silent (cut off inside it) holds its row locks
    until PostgreSQL ends its session; a caller that has something better to do than wait for
    that says so here. Nothing elsewhere (SQLite locks the whole file and has its own
    timeout)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT set_config('lock_timeout', %s, true)",
                           [f"{max(1, round(seconds * 1000))}ms"])


def lock_not_available(error: BaseException) -> bool:
    """Whether a database error is a lock wait that :func:`wait_for_locks_at_most` cut short."""
    return getattr(error.__cause__, "sqlstate", None) == "55P03"


def _instance(model: type[models.Model], fields: Sequence[models.Field],
              values: Sequence[Any]) -> models.Model:
    """A model instance from a row of ``fields``' columns, converted as the ORM would."""
    converted = []
    for field, value in zip(fields, values):
        for convert in field.get_db_converters(connection):
            value = convert(value, field, connection)
        converted.append(value)
    return model.from_db(connection.alias, [f.attname for f in fields], converted)


def _sql_type(field: models.Field) -> str:
    """The column's type for an array cast (a foreign key: its target's)."""
    return field.target_field.db_type(connection) if field.is_relation \
        else field.db_type(connection)


def _value_of(field: models.Field, now: datetime) -> Callable[[Mapping[str, Any]], object]:
    """How to read ``field`` of a row as COPY wants it. Plain values go as they are (psycopg
    adapts ints, strings, floats, booleans and aware datetimes); JSON goes as text, which
    COPY's text format reads into jsonb (Python None is SQL NULL); ``auto_now`` and
    ``auto_now_add`` get one ``now`` for the whole batch, as ``bulk_create`` would give each
    row; a field left out gets its default."""
    name = field.attname
    if getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False):
        return lambda row: row.get(name) or now
    default = field.get_default() if field.has_default() or field.null else _REQUIRED
    if isinstance(field, models.JSONField):
        return lambda row: _json_text(row.get(name, default))
    if default is _REQUIRED:
        return lambda row: row[name]
    return lambda row: row.get(name, default)


_REQUIRED = object()


def _json_text(value: Any) -> str | None:
    """A JSON field's value as the text PostgreSQL reads into jsonb; Python None is SQL NULL."""
    return None if value is None else orjson.dumps(value).decode()
