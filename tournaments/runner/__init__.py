"""The series runner (docs/series.md): the loop every series plays through (``loop``), a row
started as a games match and closed with its outcome (``rows``), the withdrawal rule
(``withdrawal``), the receiver and the reaper (``upkeep``), the kinds of series it plays
(``kinds``; a tournament: ``tournament``; a league night: ``tournaments.leagues.night_kind``)."""

from .loop import advance, cancel_open, dispatch, play
from .upkeep import on_match_finished, reap, record

__all__ = ["advance", "cancel_open", "dispatch", "on_match_finished", "play", "reap", "record"]
