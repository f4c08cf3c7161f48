"""The per-process cache of loaded engine states, shared by the read path and the write path.

Loaded states are kept by (match id, version, updated_at): every committed change bumps
``updated_at`` (and the version), so a key never names two different states and the cache cannot
serve a stale one. Reads share one loaded State instead of fetching the JSON, loading it and
re-checking invariants on every poll (its measured gain: docs/performance.md). Bounded by
``BLUFF_STATE_CACHE_SIZE``.

Writers (the services) take a private copy (``load_state(..., for_update=True)``) and hand the
state back with :func:`remember_state` once it is committed and will not change again.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from datetime import datetime

from django.conf import settings

from .engine import State, get_game
from .models import Match

StateKey = tuple[int, int, datetime]

_STATES: OrderedDict[StateKey, State] = OrderedDict()
_STATES_LOCK = threading.Lock()


def state_key(match: Match) -> StateKey:
    return (match.pk, match.version, match.updated_at)


def cached_state(key: StateKey) -> State | None:
    """The shared state under ``key``, if this process holds it (never mutate it)."""
    with _STATES_LOCK:
        state = _STATES.get(key)
        if state is not None:
            _STATES.move_to_end(key)
        return state


def cache_state(key: StateKey, state: State) -> None:
    size = settings.BLUFF_STATE_CACHE_SIZE
    if size <= 0:
        return
    with _STATES_LOCK:
        _STATES[key] = state
        _STATES.move_to_end(key)
        while len(_STATES) > size:
            _STATES.popitem(last=False)


def load_state(match: Match, *, for_update: bool = False) -> State:
    """The engine state of ``match`` (invariants checked by the engine on load).

    Reads may get a shared, cached State: never mutate it. ``for_update`` (services) always
    gets a fresh one of its own.
    """
    if not for_update:
        state = cached_state(state_key(match))
        if state is not None:
            return state
    state = get_game(match.game).from_json(match.state)
    if not for_update:
        remember_state(match, state)
    return state


def remember_state(match: Match, state: State) -> None:
    """Cache ``state`` as the committed state of ``match`` (call once it is committed and will
    no longer change)."""
    cache_state(state_key(match), state)
