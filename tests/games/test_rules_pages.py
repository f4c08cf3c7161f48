"""The public rules pages speak to players: no machine path, no code path, no engine
internals (docs/rules/*.md keep those for developers between <!-- developers --> marks)."""

from __future__ import annotations

import re

import pytest

from games.engine import game_ids

pytestmark = pytest.mark.django_db

INTERNALS = re.compile(r"/work/|\w\.py\b|games/engine|tests/|state\.rng|collections\.abc|"
                       r"OfferList|PlayActions|PowerActions|SplitMix|developers --|&lt;!--")


@pytest.mark.parametrize("game", sorted(game_ids()))
def test_a_rules_page_shows_no_machine_path_or_engine_internals(client, game) -> None:
    html = client.get(f"/games/{game}/rules/").content.decode()
    assert "House rules" in html or "house rules" in html
    assert not INTERNALS.findall(html), INTERNALS.findall(html)
