"""The pages leak no hidden information, tested as the engine's views are
(tests/engine/test_all_games.py): redraw everything a seat cannot know (``State.resample``)
and the page that seat sees must not change by a single byte. The play page draws only the
seat's view; this proves nothing else (the seed, other hands, the pile order) reaches it."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import timezone

from games import services
from games.engine import game_ids, get_game
from games.models import Match
from games.states import load_state
from tests.helpers.pages import actions_on, version_on

pytestmark = pytest.mark.django_db

STEPS = 12


def page_of(web: Client, match_id: int) -> str:
    return web.get(f"/matches/{match_id}/play/?partial=1").content.decode()


def with_state(match: Match, state_json: dict) -> None:
    """Store ``state_json`` as the match's state under a new cache key (a new updated_at)."""
    Match.objects.filter(pk=match.pk).update(state=state_json, updated_at=timezone.now())


@pytest.mark.parametrize("game", sorted(game_ids()))
def test_the_play_page_does_not_change_when_hidden_information_is_redrawn(alice,
                                                                           game) -> None:
    engine = get_game(game)
    others = [{"kind": "reference", "bot": "random"}] * (engine.max_players - 1)
    options = {"hands": 1} if game == "great_dalmuti" else {}
    match = services.match_create(game=game, created_by=alice, join=True, seed=31,
                                  options=options, seats=[{"kind": "player"}, *others])
    web = Client()
    web.force_login(alice)
    redrawn_differs = False
    for step in range(STEPS):
        match.refresh_from_db()
        if match.status == "finished":
            break
        state = load_state(match)
        seen = page_of(web, match.pk)
        original = match.state
        resampled = state.resample(0, seed=1000 + step)
        redrawn_differs |= resampled.dump() != state.dump()
        with_state(match, resampled.to_json())
        assert page_of(web, match.pk) == seen, f"step {step}: the page shows hidden information"
        with_state(match, original)
        actions = actions_on(seen)
        answer = web.post(f"/api/matches/{match.pk}/seats/0/actions/",
                          {"version": version_on(seen), "action": actions[-1]},
                          content_type="application/json")
        assert answer.status_code == 200, answer.json()
    assert redrawn_differs, "resample() never changed anything: the test proved nothing"
