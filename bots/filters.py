"""The filters of a bot's call log (``selectors.bot_calls``), as django-filter declares them."""

from __future__ import annotations

from django.db.models import QuerySet
from django_filters import BooleanFilter, CharFilter, FilterSet, NumberFilter


class BotCallFilter(FilterSet):
    path = CharFilter()
    match = NumberFilter(field_name="match_id")
    reason = CharFilter()
    #: True: calls with a reason (a strike, a /start or /end failure, or ours); False: the
    #: successful ones.
    failed = BooleanFilter(method="by_failure")

    def by_failure(self, calls: QuerySet, name: str, failed: bool) -> QuerySet:
        return calls.exclude(reason="") if failed else calls.filter(reason="")
