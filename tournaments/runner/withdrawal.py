"""The withdrawal rule of every series, as the runner (``tournaments.runner.loop``) applies it:
an entrant who forfeited their last ``SERIES_FORFEITS_TO_WITHDRAW`` matches in a row, or whose
bot can no longer be seated, is withdrawn (docs/series.md)."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from django.conf import settings

from games.errors import BadSeats
from games.seats import PLAYER, get_seat_kind

from .kinds import Loaded, SeriesKind, withdraws

log = logging.getLogger(__name__)


def withdraw_forfeiters(k: SeriesKind, loaded: Loaded, rows: Sequence[Any]) -> None:
    """After ``rows`` closed: withdraw those who forfeited in them, if they forfeited their
    last ``SERIES_FORFEITS_TO_WITHDRAW`` matches in a row."""
    forfeiters = {i for row in rows for i in k.forfeited(row)} - loaded.withdrawn
    limit = settings.SERIES_FORFEITS_TO_WITHDRAW
    if not forfeiters or not limit:
        return
    newest_first = list(reversed(k.outcomes(loaded)))
    reason = f"forfeited {limit} matches in a row" if limit > 1 else "forfeited a match"
    withdraw(k, loaded, {i: reason for i in forfeiters if withdraws(
        [i in o.forfeited for o in newest_first if i in o.seats])})


def withdraw_unseatable(k: SeriesKind, loaded: Loaded, entrants: Iterable[int]) -> None:
    """Withdraw every entrant whose bot can no longer be seated (disabled, deleted, failed
    handshake): the seat kind's own check says why."""
    out = {}
    for index in entrants:
        entrant = loaded.entrants[index]
        if index in loaded.withdrawn or entrant.kind == PLAYER:
            continue
        try:
            get_seat_kind(entrant.kind).check_bot(loaded.game, entrant.bot, loaded.organiser)
        except (KeyError, ValueError, BadSeats) as exc:
            out[index] = f"cannot be seated: {exc}"
    withdraw(k, loaded, out)


def withdraw(k: SeriesKind, loaded: Loaded, reasons: Mapping[int, str]) -> None:
    """Withdraw the entrants of ``reasons`` (each reason cut to 200 characters)."""
    if reasons:
        reasons = {index: reason[:200] for index, reason in reasons.items()}
        k.withdraw(loaded, reasons)
        loaded.withdrawn |= set(reasons)
        log.info("%s %s: withdrawn %s", k.name, loaded.series.pk, reasons)
