"""Log rows written in one statement (COPY on PostgreSQL) read back exactly as bulk_create
would have written them."""

from __future__ import annotations

import pytest
from django.db import connection

from games.db import insert_rows
from games.models import MatchEvent

pytestmark = pytest.mark.django_db


def _rows(match) -> list[dict]:
    return [
        {"match_id": match.pk, "n": 1, "version": 1, "kind": "action", "seat": 0,
         "action": {"type": "bid", "note": "é \\u2603 \"quoted\"\\n"},
         "events": [{"n": 0, "private": {"0": [1, 2]}}], "event_count": 1},
        {"match_id": match.pk, "n": 2, "version": 2, "kind": "resign", "action": None,
         "event_count": 1},  # seat and events left out: their defaults
    ]


def _read(match) -> list[tuple]:
    return list(MatchEvent.objects.filter(match=match, n__gt=0).order_by("n").values_list(
        "n", "kind", "seat", "action", "events", "event_count"))


def test_insert_rows_reads_back_as_written(make_match) -> None:
    match = make_match("dice_cup", [None, None])
    insert_rows(MatchEvent, _rows(match))
    assert _read(match) == [
        (1, "action", 0, {"type": "bid", "note": "é \\u2603 \"quoted\"\\n"},
         [{"n": 0, "private": {"0": [1, 2]}}], 1),
        (2, "resign", None, None, [], 1)]
    assert MatchEvent.objects.filter(match=match, action__isnull=True).count() == 1, \
        "Python None is SQL NULL, not JSON null"
    assert all(e.created_at for e in MatchEvent.objects.filter(match=match))


@pytest.mark.postgres
def test_on_postgresql_rows_go_by_copy(make_match, django_assert_num_queries) -> None:
    assert connection.vendor == "postgresql"
    match = make_match("dice_cup", [None, None])
    with django_assert_num_queries(0):  # COPY is not an execute() Django counts
        insert_rows(MatchEvent, _rows(match))
    assert len(_read(match)) == 2
