"""Series formats: which matches a series plays, how each scores, when it is over. Pure
Python, no Django: the ground floor of ``tournaments`` (as ``engine`` is of ``games``).
Importing the package registers every format."""

from . import benchmark, continuous, ladder, league_night, round_robin, swiss
from .base import (
    Format,
    Outcome,
    Plan,
    PlannedMatch,
    SeriesState,
    format_names,
    get_format,
    places_with_forfeits,
    withdrawn_after,
)

__all__ = ["Format", "Outcome", "Plan", "PlannedMatch", "SeriesState", "benchmark", "continuous",
           "format_names", "get_format", "ladder", "league_night", "places_with_forfeits",
           "round_robin", "swiss", "withdrawn_after"]
