"""The webhook match's hot path: statements that each do the work of several of the ORM's.

A worker asks bots that answer at once, so every statement is a round trip the match waits
for (``games.services.automatic``): :func:`insert_tree` (a new match, its seats and first log
page), :func:`claim_match` (the task's lease and its first read) and :func:`update_then_insert`
(a batch's guarded UPDATE and its log page); :func:`claim_unset` is the once-only claim of
/start and /end (and, the first time, the webhook session's read of its bots); :func:`row_by_pk`
is a creation's check of each bot. Each says which
statements of the ORM's it saves; docs/performance.md has what they cost, measured and dated.
Other databases get the ORM's statements (the claim: the same upsert, the read apart).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from datetime import datetime
from typing import Any

import orjson
from django.db import connection, models, transaction
from django.db.models import Q
from django.db.models.functions import Now
from django.utils import timezone

from lib.steps import answer_here

from .bulk import insert_json_statement, insert_rows, mark_stored, value_reader
from .together import Statement, Steps
from .transactions import execute_unflushed


def claim_match(match_id: int, *, until: datetime, now: datetime
                ) -> tuple[models.Model, list[models.Model]] | None:
    """Set the match's ``lease_until`` to ``until`` if it is unset or before ``now``, and
    read the match and its seats (by number) as the claim left them, in one statement; None
    if the match is not there or someone else holds it. The ORM takes two statements (the
    conditional UPDATE, then the seats with their match). Run on its own, its commit does not
    wait for the disk (:func:`~.transactions.execute_unflushed`: a lease)."""
    from ..models import Match, Seat

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
        # A lease: a database crash that undid it would only free the match sooner.
        execute_unflushed(cursor, sql, [until, match_id, now])
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
    stored so, guarded by the match's version and lease, with its log page. One statement
    needs no transaction around it: run on its own, it commits by itself. The ORM takes two
    statements (the guarded UPDATE, then the page by COPY), here in a transaction of their own
    (a savepoint inside the caller's). :func:`updating_then_inserting` is the same for a
    writer that sends it with others."""
    return answer_here(updating_then_inserting(model, filters, values, child, rows,
                                             still_ahead=still_ahead))


def updating_then_inserting(model: type[models.Model], filters: Mapping[str, Any],
                            values: Mapping[str, Any], child: type[models.Model],
                            rows: Sequence[Mapping[str, Any]], *,
                            still_ahead: str | None = None, durable: bool = True
                            ) -> Steps[bool]:
    """:func:`update_then_insert` as a write whose one statement on PostgreSQL may be sent
    with others' (``games.db.together``); elsewhere it writes without yielding. Not
    ``durable``: run on its own, its commit does not wait for the disk (a lease)."""
    if connection.vendor != "postgresql":
        with transaction.atomic():
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
        readers = [value_reader(field, now) for field in fields]
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
    counted = yield Statement(sql + " SELECT count(*) FROM changed", params,
                              unflushed=not durable)
    return counted[0][0] > 0


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
    mark_stored(parent)
    for group, link, pks in zip(lists, links, child_ids):
        for child, pk in zip(group, pks, strict=True):
            setattr(child, link.name, parent)
            child.pk = pk
            mark_stored(child)


def claim_unset(model: type[models.Model], rows: Sequence[Mapping[str, Any]], *,
                unique: Sequence[str], field: str, value: Any,
                read: tuple[type[models.Model], Collection[Any], str] | None = None,
                durable: bool = True,
                insert_first: tuple[type[models.Model], Sequence[Mapping[str, Any]]] | None = None,
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
    bots and their owners with its /start claim). The ORM's read is a statement of its own.

    ``durable=False``: run on its own (autocommit), its commit does not wait for the disk
    (:func:`~.transactions.execute_unflushed`).

    ``insert_first``: (a model, rows as for :func:`~.bulk.insert_rows`) inserted just before
    the claim, all or nothing with it. On PostgreSQL with client-side binding (Django's
    default) in the same round trip: a webhook task's final call rows with its /end claim,
    one round trip fewer a match (70 call rows and 3 claims, 6 alternating rounds of 100: 2.58
    -> 2.36 ms, 1.00 -> 0.89 ms of CPU; 2026-12-04). Elsewhere a statement of its own, in one
    transaction with the claim."""
    run = execute_unflushed if not durable else _execute
    if insert_first is not None and not insert_first[1]:
        insert_first = None
    if insert_first is not None and (connection.vendor != "postgresql" or read is not None
                                     or not rows or connection.settings_dict["OPTIONS"].get(
                                         "server_side_binding")):
        with transaction.atomic():
            insert_rows(*insert_first)
            return claim_unset(model, rows, unique=unique, field=field, value=value,
                               read=read, durable=durable)
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
            if insert_first is not None:
                first, first_params = insert_json_statement(*insert_first)
                claim, params = f"{first}; {claim}", [*first_params, *params]
            with connection.cursor() as cursor:
                run(cursor, claim, params)
                if insert_first is not None:
                    cursor.cursor.nextset()  # past the INSERT, to the claim's RETURNING
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
        run(cursor, sql, [*params, list(pks)])
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


def row_by_pk(model: type[models.Model], pk: Any, names: Sequence[str]
              ) -> dict[str, Any] | None:
    """Fields ``names`` (attribute names) of ``model``'s row ``pk``, converted as the ORM
    would, or None if there is none: a SELECT built once per model and fields, on every
    database. A match's creation checks each webhook seat's bot so; the ORM's
    ``filter(pk=...).first()`` builds, compiles and orders its query every time: 0.58 ms of
    CPU a read against 0.13 ms this way (2026-12-04, ``sum(range(1000))`` at 10 us)."""
    key = (connection.vendor, model, tuple(names))
    found = _ROW_SQL.get(key)
    if found is None:
        quote = connection.ops.quote_name
        fields = [model._meta.get_field(name) for name in names]
        table = model._meta.db_table
        sql = (f"SELECT {', '.join(quote(f.column) for f in fields)} FROM {quote(table)} "
               f"WHERE {quote(model._meta.pk.column)} = %s")
        # The converters the ORM's compiler applies: the field's and the backend's (SQLite's
        # datetimes made aware), each given the column.
        columns = [field.get_col(table) for field in fields]
        found = _ROW_SQL[key] = (sql, [(col, connection.ops.get_db_converters(col)
                                        + col.get_db_converters(connection))
                                       for col in columns])
    sql, converters = found
    with connection.cursor() as cursor:
        cursor.execute(sql, [pk])
        row = cursor.fetchone()
    if row is None:
        return None
    values = {}
    for name, value, (col, convert_all) in zip(names, row, converters, strict=True):
        for convert in convert_all:
            value = convert(value, col, connection)
        values[name] = value
    return values


_ROW_SQL: dict[tuple[str, type[models.Model], tuple[str, ...]], tuple[str, list[Any]]] = {}


def _execute(cursor: Any, sql: str, params: Sequence[Any]) -> None:
    """:func:`~.transactions.execute_unflushed`'s durable twin: the cursor's own ``execute``
    (a debug cursor logs it; ``CursorWrapper.execute`` unbound would not)."""
    cursor.execute(sql, params)


def _instance(model: type[models.Model], fields: Sequence[models.Field],
              values: Sequence[Any]) -> models.Model:
    """A model instance from a row of ``fields``' columns (PostgreSQL's), converted as the
    ORM would."""
    converted = []
    for field, value in zip(fields, values):
        for convert in field.get_db_converters(connection):
            value = convert(value, field, connection)
        converted.append(value)
    return model.from_db(connection.alias, [f.attname for f in fields], converted)
