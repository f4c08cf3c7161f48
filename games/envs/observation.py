"""The observation dict, whose JSON view is made only when it is read.

Most learning loops read an observation's vector and mask and never its ``"view"`` text, yet
the text (``orjson`` on the whole view, 2-7 µs) cost about as much as the mask on every step
(bench/envs.py). :class:`Observation` is a ``dict`` with the same three keys whose ``"view"``
is made from the seat's view on its first read, through any of the dict's ways to read it
(``obs["view"]``, ``get``, ``items``, ``values``, iteration, ``==``, ``repr``, ``json.dumps``,
``dict(obs)``, ``{**obs}``, ``copy``, ``pickle``), then kept. The view it is made from is the
engine's ``state.view(seat)`` of the observed position: a fresh, independent snapshot (tested,
tests/envs/test_envs.py), so a text read later, after more steps, is the text of that position.

Only C code that reads a dict's storage directly (``PyDict_Next``, e.g. ``orjson.dumps`` of the
whole observation) would see the placeholder instead of the text: read ``obs["view"]`` first.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import numpy as np
import orjson

from .base import JSON


def view_json(view: JSON) -> str:
    """The view as compact ASCII JSON (the observation's ``"view"``)."""
    text = orjson.dumps(view).decode()
    return text if text.isascii() else json.dumps(view, separators=(",", ":"))


class _NotMadeYet:
    """The placeholder of a ``"view"`` not made yet (never handed out by the dict's methods)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<view not made yet: read obs['view']>"


LAZY = _NotMadeYet()
_get = dict.__getitem__
_set = dict.__setitem__
_new = dict.__new__


class Observation(dict):
    """``{"observation": vector, "action_mask": mask, "view": text}``, the text made from
    ``position[0]`` by :func:`view_json` on first read and stored in ``position[1]`` too
    (every observation of the same position shares one text)."""

    __slots__ = ("_position",)

    @classmethod
    def lazy(cls, vector: np.ndarray, mask: np.ndarray, position: list) -> Observation:
        """The observation of ``position`` (``[view, its text or None, ...]``). Made by
        ``dict.__new__`` and filled item by item: a third of the time of a dict subclass's
        constructor with keyword arguments."""
        obs = _new(cls)  # no __init__ call; __setitem__ is dict's own
        obs["observation"] = vector
        obs["action_mask"] = mask
        text = position[1]
        obs["view"] = LAZY if text is None else text
        obs._position = position
        return obs

    def _made(self) -> Observation:
        """``self`` with its text made (if it was not yet): then the storage is plain data."""
        if _get(self, "view") is LAZY:
            position = self._position
            text = position[1]
            if text is None:
                text = position[1] = view_json(position[0])
            _set(self, "view", text)
        return self

    def __getitem__(self, key: Any) -> Any:
        value = _get(self, key)
        return _get(self._made(), key) if value is LAZY else value

    def get(self, key: Any, default: Any = None) -> Any:
        value = dict.get(self, key, default)
        return _get(self._made(), key) if value is LAZY else value

    def __iter__(self) -> Iterator[Any]:
        # Overridden so that dict(obs), {**obs} and update(obs) read through __getitem__
        # (CPython copies a dict's storage directly only when __iter__ is dict's own).
        return dict.__iter__(self._made())

    def items(self) -> Any:
        return dict.items(self._made())

    def values(self) -> Any:
        return dict.values(self._made())

    def pop(self, key: Any, *default: Any) -> Any:
        return dict.pop(self._made(), key, *default)

    def popitem(self) -> tuple[Any, Any]:
        return dict.popitem(self._made())

    def setdefault(self, key: Any, default: Any = None) -> Any:
        return dict.setdefault(self._made(), key, default)

    def copy(self) -> Observation:
        return _plain(dict(self.items()))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Observation):
            other._made()
        return dict.__eq__(self._made(), other)

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = None  # type: ignore[assignment]  # as dict's

    def __repr__(self) -> str:
        return dict.__repr__(self._made())

    def __or__(self, other: Any) -> Any:
        return dict.__or__(self._made(), other)

    def __ror__(self, other: Any) -> Any:
        return dict.__ror__(self._made(), other)

    def __reduce__(self) -> tuple[Any, ...]:
        # copy, deepcopy and pickle: the made text, never the engine's view behind it.
        return _plain, (dict(self.items()),)


def _plain(items: dict) -> Observation:
    """An :class:`Observation` with nothing left to make (a copy)."""
    obs = Observation(items)
    obs._position = None
    return obs
