"""The filters of the tournament and league lists (``selectors``), as django-filter declares
them."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import Q, QuerySet
from django.utils import timezone
from django_filters import BooleanFilter, CharFilter, FilterSet, NumberFilter


class TournamentFilter(FilterSet):
    game = CharFilter()
    status = CharFilter()
    #: The organiser's username.
    organiser = CharFilter(field_name="organiser__username")
    #: Open for entries and not started (``Tournament.taking_entries``), or not.
    taking_entries = BooleanFilter(method="by_entries")

    def by_entries(self, queryset: QuerySet[Any], name: str, value: bool) -> QuerySet[Any]:
        taking = Q(entries_open=True, status="scheduled")
        return queryset.filter(taking if value else ~taking)


class TournamentMatchFilter(FilterSet):
    status = CharFilter()
    round = NumberFilter()


class LeagueFilter(FilterSet):
    game = CharFilter()
    #: By their season at ``now`` (``selectors.LEAGUE_STATES``).
    state = CharFilter(method="by_season")

    def __init__(self, *args: Any, now: datetime | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.now = now or timezone.now()

    def by_season(self, leagues: QuerySet, name: str, state: str) -> QuerySet:
        now = self.now
        if state == "upcoming":
            return leagues.filter(season_start__gt=now)
        if state == "running":
            return leagues.filter(season_start__lte=now, season_end__gte=now)
        if state == "finished":
            return leagues.filter(season_end__lt=now)
        return leagues
