"""lib.filtering: a selector's FilterSet narrows its queryset, and refuses loudly."""

from __future__ import annotations

import pytest

from games.filters import MatchFilter
from games.models import Match
from lib.filtering import filtered
from tournaments.models import TournamentMatch
from tournaments.web.filters import TournamentMatchFilter

pytestmark = pytest.mark.django_db


def test_none_and_empty_values_filter_nothing_and_zero_is_a_value() -> None:
    everything = Match.objects.all()
    assert str(filtered(MatchFilter, everything, {"game": None, "status": ""}).query) == \
        str(everything.query)
    by_round = filtered(TournamentMatchFilter, TournamentMatch.objects.all(), {"round": 0})
    assert "WHERE" in str(by_round.query), "round 0 is a round, not 'no filter'"


def test_a_value_the_filterset_refuses_raises_instead_of_being_left_out() -> None:
    with pytest.raises(ValueError, match="round"):
        filtered(TournamentMatchFilter, TournamentMatch.objects.all(), {"round": "first"})
