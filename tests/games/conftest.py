"""Fixtures for the matches API: alice plays, bob is in the match, charlie is an outsider
(the users and their API clients, shared by every folder: tests.helpers.accounts).

Factories are fixtures returning functions (``make_match``); the helpers that read and play a
match through the API are in tests.helpers.matches.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from games import services
from games.models import Match
from tests.helpers.matches import DICE_SEED


@pytest.fixture
def make_match(db: None) -> Callable[..., Match]:
    """A match created through the service; ``players`` are seated in order, open seats and
    reference bots (``"bot:heuristic"``) as given."""

    def make(game: str = "dice_cup", seats: list[Any] | None = None, seed: int = DICE_SEED,
             **kwargs: Any) -> Match:
        seats = seats if seats is not None else [None, None]
        specs = [{"kind": "reference", "bot": s.split(":", 1)[1]}
                 if isinstance(s, str) and s.startswith("bot:") else {"kind": "player"}
                 for s in seats]
        users = [s for s in seats if s is not None and not isinstance(s, str)]
        match = services.match_create(game=game, created_by=users[0] if users else None,
                                      seats=specs, seed=seed, join=False, **kwargs)
        for number, seat in enumerate(seats):
            if seat is not None and not isinstance(seat, str):
                match = services.match_join(match_id=match.pk, user=seat, seat_number=number)
        return Match.objects.get(pk=match.pk)

    return make


@pytest.fixture
def duel(make_match: Callable[..., Match], alice: Any, bob: Any) -> Match:
    """A running 2-player dice-cup match: alice at seat 0, bob at seat 1."""
    return make_match("dice_cup", [alice, bob])
