"""Writing many log rows at once, as fast as the database allows.

A batch of bot moves writes one ``MatchEvent`` and one call log row per move. On PostgreSQL
``COPY ... FROM STDIN`` takes them 3-5x faster than ``bulk_create`` (Django builds an
``INSERT ... UNNEST`` and adapts every value through the ORM: bench/bots.py measured ~6 ms
against ~1.7 ms for 70 match log rows), which is most of a batch's database time. Other
databases get ``bulk_create``.
"""

from __future__ import annotations

from collections.abc import Sequence

import orjson
from django.db import connection, models


def insert_rows(model: type[models.Model], rows: Sequence[models.Model]) -> None:
    """INSERT ``rows`` (unsaved instances of ``model``) in one statement. Unlike
    ``bulk_create``, the instances do not get their primary keys: use it for rows nobody reads
    back in the same request (logs)."""
    if not rows:
        return
    if connection.vendor != "postgresql":
        model.objects.bulk_create(rows)
        return
    fields = [f for f in model._meta.concrete_fields if not f.primary_key]
    columns = ", ".join(connection.ops.quote_name(f.column) for f in fields)
    table = connection.ops.quote_name(model._meta.db_table)
    with connection.cursor() as cursor, \
            cursor.cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row([_db_value(field, row) for field in fields])


def _db_value(field: models.Field, row: models.Model) -> object:
    value = field.pre_save(row, True)  # auto_now_add and friends, as bulk_create does
    if isinstance(field, models.JSONField):
        # JSON as text (COPY's text format reads it into jsonb); Python None is SQL NULL.
        return None if value is None else orjson.dumps(value).decode()
    return field.get_db_prep_save(value, connection)
