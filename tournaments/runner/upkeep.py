"""The runner's upkeep (docs/series.md): the receiver that records a finished match, and the
periodic reaper that mends what a lost message, a dead worker or a held lock left behind."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import Q

from games.models import Match
from lib.clock import platform_now

from . import kinds
from .kinds import CANCELLED, OPEN, PENDING, RUNNING, get_kind
from .loop import bounded, cancel_open, dispatch, plan_lane, settle
from .rows import after_close, close_row

log = logging.getLogger(__name__)


def record(*, kind: str, match_id: int, now: datetime | None = None) -> bool:
    """Record a finished games match as its row's outcome (once: the row is locked and must
    still be running), apply the withdrawal rule, plan what comes next or finish the series.
    False if there was nothing to record, or not now: a lock it needs was held longer than
    ``TOURNAMENT_RECORD_LOCK_SECONDS`` (the reaper records it later)."""
    k, now = get_kind(kind), now or platform_now()

    def work() -> bool:
        found = kinds.locked_for_recording(k.model.objects.filter(status=RUNNING), match_id)
        if found is None:
            return False
        row, match = found
        loaded = k.load(k.series_model.objects.get(pk=getattr(row, f"{k.link}_id")))
        plan = k.planned(row)
        out = {plan.seats[n] for n in kinds.forfeited_seats([match_id]).get(match_id, ())}
        close_row(k, row, loaded.format.score(plan, match.result, out), now=now)
        row.save(update_fields=["status", "finished_at", "lease_until", *k.result_fields])
        after_close(k, loaded, [row], now=now)
        if plan_lane(k, loaded, now=now, lanes={k.lane(row)}):  # its table's next
            transaction.on_commit(lambda: dispatch(kind=kind, series_id=loaded.series.pk))
        settle(k, loaded.series.pk, now=now, loaded=loaded)
        return True

    return bounded(work, held=lambda: log.warning(
        "match %s: not recorded yet: a lock it needs is held (the reaper records it later)",
        match_id) or False)


def on_match_finished(sender: Any, match_ids: Sequence[int], series: Mapping[int, str],
                      **kwargs: Any) -> None:
    """The one receiver of ``games.signals.match_finished``. Never fails the caller (the
    reaper records what this misses); matches of no series cost nothing."""
    for match_id in match_ids:
        if series.get(match_id) in kinds.kinds():
            try:
                record(kind=series[match_id], match_id=match_id)
            except Exception:
                log.exception("recording match %s failed", match_id)


def reap(*, now: datetime | None = None, limit: int = 1000) -> int:
    """Periodic, for every kind: stop what a cancel could not reach, record matches that ended
    unnoticed, release rows whose chunk died before making their match, queue again pending
    rows whose message is lost, and ask every running series' format again (a stop time, a
    lost finish). Returns how many rows or series it fixed."""
    now, fixed = now or platform_now(), 0
    for k in kinds.kinds().values():
        rows, link = k.model.objects.all(), f"{k.link}_id"
        for series_id in set(rows.filter(status__in=OPEN, **{f"{k.link}__status": CANCELLED})
                             .values_list(link, flat=True)[:limit]):
            fixed += cancel_open(kind=k.name, series_id=series_id)
        for match_id in list(rows.filter(status=RUNNING, match__status=Match.Status.FINISHED)
                             .values_list("match_id", flat=True)[:limit]):
            fixed += record(kind=k.name, match_id=match_id, now=now)
        fixed += rows.filter(status=RUNNING, match__isnull=True, lease_until__lt=now).update(
            status=PENDING)
        lost = rows.filter(status=PENDING, **{f"{k.link}__status": RUNNING}).filter(
            Q(lease_until__lt=now) | Q(lease_until__isnull=True))
        for series_id in set(lost.values_list(link, flat=True)[:limit]):
            fixed += dispatch(kind=k.name, series_id=series_id, now=now, lost_only=True)
        for series_id in k.series_model.objects.filter(status=RUNNING).values_list(
                "pk", flat=True):
            fixed += settle(k, series_id, now=now, wait=True)
    return fixed
