"""D.O.T's action index and observation vector (docs/training.md, "D.O.T").

Card keys are the three-digit keys of the rules (``"131"``); the deck's cards are its 15 draw
cards (option ``deck``) and the stars ``400, 040, 004``. Index, in this order::

    commit <star> <a,b,c>   for each star 400, 040, 004: every distinct sorted triple of the
                            draw cards and that star (the shared pool), the triples sorted
    discard <a>             every distinct card key of the deck, sorted
    discard <a,b>           every distinct sorted pair of the deck's cards, the pairs sorted

(a key at most as often as the deck has it; the exact list: ``codec("dot", ...).table``).
"""

from __future__ import annotations

import functools
from collections.abc import Hashable, Sequence
from itertools import combinations
from typing import Any

from games.engine.dot import STARS, Phase, deck_keys

from .base import JSON, FlatCodec

PHASES = tuple(Phase)  # the engine's, in its order
PHASE_AT = {phase: i for i, phase in enumerate(PHASES)}


def _choices(cards: list[str], size: int) -> list[tuple[str, ...]]:
    """Every distinct sorted ``size``-multiset of ``cards`` (a sorted list with repeats)."""
    return sorted(set(combinations(sorted(cards), size)))


class DotCodec(FlatCodec):
    game_id = "dot"
    observation_high = 15.0

    def __init__(self, players: int, options: JSON) -> None:
        self.draw = deck_keys(options)
        self.distinct = sorted(set(self.draw))
        self.card_keys = self.distinct + list(STARS)
        self.card_index = {k: i for i, k in enumerate(self.card_keys)}
        super().__init__(players, options)
        k, d = len(self.card_keys), len(self.distinct)
        self._zeros = (0,) * d  # the default count of each card key (map's second iterable)
        self.observation_size = 3 + 3 + 1 + 9 + 6 + k + 2 * k + 6 + 2 * d + 2 + 3 + 1 + 4

    def keys(self) -> Sequence[Hashable]:
        out: list[Hashable] = [("commit", star, shared) for star in STARS
                               for shared in _choices(self.draw + [star], 3)]
        every = self.draw + list(STARS)
        out += [("discard", cards) for size in (1, 2) for cards in _choices(every, size)]
        return out

    def legal_indices(self, view: JSON, legal: Sequence[JSON], pending: Any = None) -> list[int]:
        step = self._step(view, legal)
        return super().legal_indices(view, legal) if step is None else list(self._indices(*step))

    def legal_bytes(self, view: JSON, legal: Sequence[JSON],
                    pending: Any = None) -> bytes | bytearray:
        step = self._step(view, legal)
        return super().legal_bytes(view, legal) if step is None else self._mask(*step)

    def _step(self, view: JSON, legal: Sequence[JSON]) -> tuple[str, tuple[str, ...], Any] | None:
        """What the legal lists' documented contents depend on, read from the view without
        building their dicts: commits are 3 of (hand + a remaining star); discards, ``count`` of
        the other pool. ``None`` when the seat has nothing to do."""
        if not legal:
            return None
        if view["phase"] == "commit":
            return ("commit", tuple(view["hand"]), tuple(view["stars_left"][view["seat"]]))
        step = view["discard"]
        return ("discard", tuple(view["pools"][step["pool"]]), step["count"])

    @functools.lru_cache(maxsize=1 << 16)  # noqa: B019  (codecs are shared and never freed)
    def _indices(self, kind: str, cards: tuple[str, ...], arg: Any) -> tuple[int, ...]:
        index_of = self.index_of
        if kind == "commit":
            return tuple(index_of[("commit", star, shared)] for star in STARS if star in arg
                         for shared in dict.fromkeys(combinations(sorted(cards + (star,)), 3)))
        return tuple(index_of[("discard", chosen)]
                     for chosen in dict.fromkeys(combinations(sorted(cards), arg)))

    @functools.lru_cache(maxsize=1 << 14)  # noqa: B019
    def _mask(self, kind: str, cards: tuple[str, ...], arg: Any) -> bytes:
        mask = bytearray(self.action_size)
        for index in self._indices(kind, cards, arg):
            mask[index] = 1
        return bytes(mask)  # immutable: shared by every environment of these options

    def key(self, view: JSON, action: JSON) -> Hashable:
        if action["type"] == "commit":
            return ("commit", action["star"], _spread(action["shared"]))
        return ("discard", _spread(action["cards"]))

    def build(self, view: JSON, key: Any) -> JSON:
        if key[0] == "commit":
            return {"type": "commit", "star": key[1], "shared": _counts(key[2])}
        return {"type": "discard", "cards": _counts(key[1])}

    def encode(self, view: JSON) -> list[float]:
        # One list extended with rotations and C-level loops (map over the card keys): this
        # runs on every step (bench/envs.py).
        me = view["seat"]
        k = len(self.card_keys)
        out = [0.0] * 6
        out[PHASE_AT[view["phase"]]] = 1.0
        out[3 + view["round"] - 1] = 1.0
        out.append(float(view["rule"] == "largest"))
        out += view["pot"]
        out += view["supply"]
        out += view["unclaimed"]
        tokens = view["tokens"]
        for per_seat in tokens[me:] + tokens[:me]:
            out += per_seat
        count = self._count_vector
        out += count(view["hand"], k)
        pools = view["pools"]
        for pool in pools[me:] + pools[:me]:
            out += count(pool, k)
        stars_left = view["stars_left"]
        for stars in stars_left[me:] + stars_left[:me]:
            out += [float(s in stars) for s in STARS]
        distinct, zeros = self.distinct, self._zeros
        unrevealed = view["unrevealed"]
        for per_seat in unrevealed[me:] + unrevealed[:me]:
            out += map(per_seat.get, distinct, zeros)
        committed = view["committed"]
        out += map(float, committed[me:] + committed[:me])
        step = view["discard"]
        out += [0.0, 0.0, 0.0] if step is None else [1.0, float(step["seat"] == me), step["count"]]
        out.append(float(view["my_commit"] is not None))
        hand_sizes, deck_sizes = view["hand_sizes"], view["deck_sizes"]
        out += hand_sizes[me:]
        out += hand_sizes[:me]
        out += deck_sizes[me:]
        out += deck_sizes[:me]
        return out

    def _count_vector(self, cards: Sequence[str], size: int) -> list[float]:
        out = [0.0] * size
        index = self.card_index
        for card in cards:
            out[index[card]] += 1
        return out


def _spread(counts: JSON) -> tuple[str, ...]:
    return tuple(sorted(key for key, c in counts.items() for _ in range(c)))


def _counts(cards: Sequence[str]) -> JSON:
    out: JSON = {}
    for card in cards:
        out[card] = out.get(card, 0) + 1
    return out
