"""A league's game options hold at every table size a night may seat: Le Dutch's ``rounds``
must give every seat as many starts (DU-8) at a table of 2, 3 or 4 alike, or a night with a
smaller table would fail to deal its hands."""

from __future__ import annotations

import pytest

from tests.helpers.leagues import create, refs
from tournaments.models import League

pytestmark = pytest.mark.django_db


def test_a_dutch_league_s_rounds_give_equal_starts_at_every_table(alice_api) -> None:
    refused = create(alice_api, game="dutch", table_size=4, members=refs(4),
                     options={"rounds": 4})
    assert refused.status_code == 400 and refused.json() == {
        "code": "bad_league",
        "detail": "option 'rounds': 4 rounds cannot give 3 players as many starts each (DU-8): "
                  "use a multiple of 3 up to 60, or null for one round each (a night may seat "
                  "a table of 3)"}
    assert not League.objects.exists()
    for rounds in (12, None):  # a multiple of 2, 3 and 4; one round a player
        created = create(alice_api, game="dutch", table_size=4, members=refs(4),
                         options={"rounds": rounds})
        assert created.status_code == 201, created.json()
