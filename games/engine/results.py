"""Ranks and orders of seats (G-4): what every game's result and a league's order share."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .errors import BadOptions


def competition_ranks(keys: Sequence[Any]) -> list[int]:
    """Rank 1 = best = smallest key; equal keys share a rank and the next rank skips (1, 1, 3)."""
    return [1 + sum(1 for other in keys if other < key) for key in keys]


def order_with_newcomer(order: Sequence[Any], newcomer: Any) -> list[Any]:
    """GD-12: the order (best first) with ``newcomer`` inserted in the middle, as a Merchant
    (The Great Dalmuti's rule, which a league applies to every game).

    ``order`` lists players best first (seats or any player ids). The newcomer takes index
    ``len(order) // 2`` of the new order: the exact middle when the new table has an odd size,
    the upper (better) of the two middle positions when it is even. Pure: ``order`` is not
    modified. Raises :class:`BadOptions` (a ``ValueError``) for a malformed order or a newcomer
    already in it.
    """
    if not isinstance(order, (list, tuple)):
        raise BadOptions(f"order must be a list, not {type(order).__name__}")
    try:
        distinct = len(set(order)) == len(order) and hash(newcomer) is not None
    except TypeError:
        raise BadOptions("players in an order must be seat numbers or ids") from None
    if not distinct:
        raise BadOptions(f"order {list(order)!r} names a player twice")
    if newcomer in order:
        raise BadOptions(f"newcomer {newcomer!r} is already in the order")
    middle = len(order) // 2  # GD-12: upper middle when there are two
    return [*order[:middle], newcomer, *order[middle:]]
