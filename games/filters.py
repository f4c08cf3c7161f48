"""The filters of the match list (``selectors.match_list``), as django-filter declares them."""

from __future__ import annotations

from django_filters import CharFilter, FilterSet


class MatchFilter(FilterSet):
    game = CharFilter()
    status = CharFilter()
    #: A player's username; a match counts once however many of its seats match.
    player = CharFilter(field_name="seats__user__username", distinct=True)
    #: A seat's bot: a webhook bot's id or a reference bot's name, as a seat spec gives it.
    bot = CharFilter(field_name="seats__bot_name", distinct=True)
