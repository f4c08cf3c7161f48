"""Migration 0009 turns the log rows of existing matches into log pages (one entry a page,
each with its own time) and back."""

from __future__ import annotations

import pytest

from games import log

from ..migrations import migrate, migrate_to_latest

BEFORE = [("games", "0008_log_rows_without_fk_checks")]
AFTER = [("games", "0009_match_log_pages")]

pytestmark = pytest.mark.django_db(transaction=True)


def test_log_rows_become_pages_and_back() -> None:
    apps = migrate(BEFORE)
    try:
        Match = apps.get_model("games", "Match")
        MatchEvent = apps.get_model("games", "MatchEvent")
        match = Match.objects.create(game="dice_cup", seed=1, players=2, state={},
                                     status="running", version=1)
        rows = [MatchEvent.objects.create(
                    match=match, n=0, version=0, kind="start", seat=None, action=None,
                    events=[{"n": 0, "type": "deal", "private": {"0": [1, 2]}}],
                    event_count=1),
                MatchEvent.objects.create(
                    match=match, n=1, version=1, kind="action", seat=0,
                    action={"type": "call", "note": 'é "\\'}, events=[], event_count=1)]
        expected = [(r.n, r.kind, r.seat, r.action, r.events, r.event_count, r.created_at)
                    for r in rows]

        migrate(AFTER)
        entries = list(log.entries(match.pk))
        assert [(e.n, e.kind, e.seat, e.action, e.events, e.event_count, e.created_at)
                for e in entries] == expected

        apps = migrate(BEFORE)
        MatchEvent = apps.get_model("games", "MatchEvent")
        assert [(r.n, r.kind, r.seat, r.action, r.events, r.event_count, r.created_at)
                for r in MatchEvent.objects.filter(match_id=match.pk).order_by("n")] == expected
    finally:
        migrate_to_latest()
