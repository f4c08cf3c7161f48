"""Large legal-action lists, built only as far as they are read."""

from __future__ import annotations

from collections.abc import Sequence


class LazyActions(Sequence):
    """A complete legal-action list that builds its dicts only when asked.

    Games whose lists can get long (DTC offers, Dalmuti leads, Dutch Jack swaps...) subclass it
    with ``__len__`` and ``__getitem__`` (and usually a fast ``__contains__``); it then behaves as
    the plain list would, equality with a list included. A subclass may add ``describe()``: a
    compact JSON description that webhook bots can get instead of the whole list.
    """

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (list, tuple, LazyActions)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable-list semantics: not hashable

    def __repr__(self) -> str:
        return f"<{type(self).__name__}: {len(self)} actions>"
