"""Writing many rows at once: :func:`insert_rows` (``COPY ... FROM STDIN`` on PostgreSQL; rows
that need not wait for the disk, one ``INSERT ... json_populate_recordset``) and
:func:`update_rows` (one ``UPDATE ... FROM UNNEST``), and how a row's values go to ``COPY``
(:func:`value_reader`, which the hot path's inserts share).

A batch of bot moves writes one call log row per move (and its match's log page). On
PostgreSQL ``COPY ... FROM STDIN`` takes them several times faster than ``bulk_create`` (Django
builds an ``INSERT ... UNNEST`` and adapts every value through the ORM), which is most of a
batch's database time. Other databases get ``bulk_create``. :func:`update_rows` gives many rows
different values in one statement on PostgreSQL (a tournament chunk records its results: a round
trip per match before), where Django's ``bulk_update`` builds a ``CASE WHEN`` per column and row.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any

import orjson
from django.db import connection, models
from django.utils import timezone

from lib import jsontext

from .transactions import execute_unflushed

log = logging.getLogger(__name__)


def insert_rows(model: type[models.Model], rows: Sequence[Mapping[str, Any]], *,
                durable: bool = True) -> None:
    """INSERT ``rows`` of ``model`` in one statement. A row is a mapping of field attribute
    names (``match_id``, not ``match``) to values; fields left out get their defaults. No model
    instances are built on PostgreSQL (building one cost more than writing its row): use it
    for rows nobody reads back in the same request (logs).

    ``durable=False``, run on its own (autocommit): its commit does not wait for the disk
    (:func:`~.transactions.execute_unflushed`; rows whose loss on a database crash is
    harmless, e.g. the call log of /end). On PostgreSQL that is one ``INSERT ... SELECT FROM
    json_populate_recordset`` (COPY cannot share its round trip): for 3 call log rows 0.43 ms
    against 0.45 ms by COPY, for 69 1.3 against 1.2 ms, less CPU either way (0.18 against 0.26
    ms, 0.39 against 0.44 ms; 2026-12-03, load average 2), before the commit. Inside
    :func:`unflushed_rows_held` such rows wait for the block's end, with others."""
    if not rows:
        return
    if connection.vendor != "postgresql":
        model.objects.bulk_create([model(**row) for row in rows])
        return
    if not durable and connection.get_autocommit():
        held = getattr(_HELD, "rows", None)
        if held is not None:
            held.append((model, rows))
            return
        with connection.cursor() as cursor:
            execute_unflushed(cursor, *insert_json_statement(model, rows))
        return
    fields = [f for f in model._meta.concrete_fields if not f.primary_key]
    columns = ", ".join(connection.ops.quote_name(f.column) for f in fields)
    table = connection.ops.quote_name(model._meta.db_table)
    now = timezone.now()
    values = [value_reader(field, now) for field in fields]
    sql = f"COPY {table} ({columns}) FROM STDIN"
    started = time.monotonic()
    with connection.cursor() as cursor, connection.wrap_database_errors, \
            cursor.cursor.copy(sql) as copy:
        for row in rows:
            copy.write_row([value(row) for value in values])
    _log_statement(f"{sql} -- {len(rows)} rows", started)


_HELD = threading.local()


@contextmanager
def unflushed_rows_held() -> Iterator[None]:
    """Hold the rows this thread's :func:`insert_rows` would write unflushed on their own
    (``durable=False``, autocommit) in the block, and write them at its end: one statement
    per model for all of them. The multiplexed worker's writer stores many matches' batches
    in a row (``games.services.multiplexed``), each with its call log rows: a statement each
    was a round trip each, which a thread sharing its interpreter with a busy loop waits for
    several times over. Nothing may read the held rows back in the block (they are logs).
    A write that fails is tried again call by call, so one bad call's rows lose only
    themselves, as without holding; what still fails is logged, never raised (a log must not
    stall what it logs). On other databases (no unflushed commits) nothing is held."""
    if connection.vendor != "postgresql" or getattr(_HELD, "rows", None) is not None:
        yield
        return
    held: list[tuple[type[models.Model], Sequence[Mapping[str, Any]]]] = []
    _HELD.rows = held
    try:
        yield
    finally:
        _HELD.rows = None
        _write_held(held)


def _write_held(held: Sequence[tuple[type[models.Model], Sequence[Mapping[str, Any]]]]
                ) -> None:
    by_model: dict[type[models.Model], list[Mapping[str, Any]]] = {}
    for model, rows in held:
        by_model.setdefault(model, []).extend(rows)
    for model, rows in by_model.items():
        try:
            insert_rows(model, rows, durable=False)
        except Exception:  # noqa: BLE001 - each call's rows alone, so only the bad ones fail
            for own, own_rows in held:
                if own is model:
                    try:
                        insert_rows(model, own_rows, durable=False)
                    except Exception:
                        log.exception("%d %s rows held for one statement were lost",
                                      len(own_rows), model.__name__)


def insert_json_statement(model: type[models.Model],
                          rows: Sequence[Mapping[str, Any]]) -> tuple[str, list[Any]]:
    """:func:`insert_rows`'s unflushed statement on PostgreSQL, as (SQL, parameters) for a
    caller that sends it with a statement of its own in one round trip (``claim_unset``): the
    rows as one JSON array of objects by column, which ``json_populate_recordset`` reads into
    the table's own column types (JSON fields nested as their JSON, which COPY takes as
    text)."""
    fields = [f for f in model._meta.concrete_fields if not f.primary_key]
    columns = ", ".join(connection.ops.quote_name(f.column) for f in fields)
    table = connection.ops.quote_name(model._meta.db_table)
    now = timezone.now()
    readers = [(field.column, isinstance(field, models.JSONField), value_reader(field, now))
               for field in fields]
    objects = []
    for row in rows:
        record = {}
        for name, is_json, value in readers:
            found = value(row)
            record[name] = orjson.Fragment(found) if is_json and found is not None else found
        objects.append(record)
    sql = (f"INSERT INTO {table} ({columns}) SELECT {columns} FROM "
           f"json_populate_recordset(NULL::{table}, %s)")
    return sql, [orjson.dumps(objects).decode()]


def insert_models(objects: Sequence[models.Model]) -> None:
    """INSERT new instances of one model and set their primary keys, as ``bulk_create`` does,
    for the platform's big batches (a league night's or a tournament's matches and seats). On
    PostgreSQL in two round trips: the keys drawn from the table's sequence (``nextval`` over
    ``generate_series``), then ``COPY`` with them; elsewhere ``bulk_create``. Measured with
    bench/league.py's night (160 matches, 1,280 seats): ``bulk_create`` (an ``INSERT ...
    UNNEST`` whose every value, JSON state included, Django adapts into arrays) took 0.18 s
    for the matches and 0.09 s for the seats; this about a third of that. No signals are sent
    (``bulk_create`` sends none either); a duplicate key raises Django's ``IntegrityError``.
    """
    if not objects:
        return
    model = type(objects[0])
    if connection.vendor != "postgresql":
        model.objects.bulk_create(objects)
        return
    meta = model._meta
    quote = connection.ops.quote_name
    fields = list(meta.concrete_fields)
    started = time.monotonic()
    with connection.cursor() as cursor:
        cursor.execute("SELECT nextval(pg_get_serial_sequence(%s, %s)) "
                       "FROM generate_series(1, %s)", [meta.db_table, meta.pk.column, len(objects)])
        for instance, (pk,) in zip(objects, cursor.fetchall(), strict=True):
            instance.pk = pk
        sql = (f"COPY {quote(meta.db_table)} ({', '.join(quote(f.column) for f in fields)}) "
               f"FROM STDIN")
        readers = [_instance_reader(field) for field in fields]
        # Django's own exceptions (IntegrityError on a unique key), as bulk_create raises.
        with connection.wrap_database_errors, cursor.cursor.copy(sql) as copy:
            for instance in objects:
                copy.write_row([read(instance) for read in readers])
    _log_statement(f"{sql} -- {len(objects)} rows", started)
    for instance in objects:
        mark_stored(instance)


def mark_stored(instance: models.Model) -> None:
    """``instance`` is a row now, as ``save`` and ``bulk_create`` leave it (for inserts made
    here, with the keys already set)."""
    instance._state.adding, instance._state.db = False, connection.alias


#: Field types whose Python values psycopg takes as they are (no ``get_db_prep_save``).
_PLAIN_TYPES = frozenset({
    "AutoField", "BigAutoField", "BigIntegerField", "BooleanField", "CharField",
    "DateTimeField", "IntegerField", "PositiveIntegerField",
    "PositiveSmallIntegerField", "SmallIntegerField", "TextField"})


def _instance_reader(field: models.Field) -> Callable[[models.Model], object]:
    """How :func:`insert_models` reads ``field`` of an instance for COPY: JSON as its text,
    ``auto_now``/``auto_now_add`` through ``pre_save`` (which sets the instance's value, as
    ``bulk_create`` does), plain values as they are, anything else as the ORM prepares it."""
    name = field.attname
    if isinstance(field, models.JSONField):
        return lambda instance: _json_text(getattr(instance, name))
    if isinstance(field, models.ForeignKey):  # OneToOneField too
        def related_key(instance: models.Model) -> object:
            # A related object given before it had a key (a seat of a match inserted just
            # before) gives its key now, as bulk_create takes it (and the instance keeps it).
            related = field.get_cached_value(instance, None)
            if related is not None and related.pk != getattr(instance, name):
                setattr(instance, name, related.pk)
            return getattr(instance, name)
        return related_key
    if getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False):
        return lambda instance: field.pre_save(instance, True)
    if field.get_internal_type() in _PLAIN_TYPES:
        return lambda instance: getattr(instance, name)
    return lambda instance: field.get_db_prep_save(field.pre_save(instance, True), connection)


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


def _sql_type(field: models.Field) -> str:
    """The column's type for an array cast (a foreign key: its target's)."""
    return field.target_field.db_type(connection) if field.is_relation \
        else field.db_type(connection)


def value_reader(field: models.Field, now: datetime) -> Callable[[Mapping[str, Any]], object]:
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
    return None if value is None else jsontext.dumps(value).decode()
