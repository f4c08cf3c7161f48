"""Dice cup bluff's action index and observation vector (docs/training.md, "Dice cup bluff").

Index, in this order (``n`` = players; chips are 3..18)::

    call <k> <x>     k = 0..n-1 (target's seat offset; 0 never legal), x = 3..18
    trade <give> <take>   every (chips given, chip taken) with 2+ chips given whose points add
                     up to the taken chip's (DC-4), by number of chips given, then the given
                     chips ascending (lexicographic), then the taken chip: 374 trades
    truth, bluff
    give <x>         x = 3..18
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from itertools import combinations
from typing import Any

from games.engine.dice_cup import CHIPS, POINTS, Phase

from .base import JSON, FlatCodec

PHASES = tuple(Phase)  # the engine's, in its order
PHASE_AT = {phase: i for i, phase in enumerate(PHASES)}
_MAX_GIVE = max(POINTS.values())  # every chip is worth 1+ points, so at most 5 are given


def trade_keys() -> list[tuple[str, tuple[int, ...], int]]:
    out = []
    for size in range(2, _MAX_GIVE + 1):
        for give in combinations(CHIPS, size):
            worth = sum(POINTS[c] for c in give)
            out += [("trade", give, take) for take in CHIPS
                    if POINTS[take] == worth and take not in give]
    return out


class DiceCupCodec(FlatCodec):
    game_id = "dice_cup"
    observation_high = 500.0

    def __init__(self, players: int, options: JSON) -> None:
        super().__init__(players, options)
        n = players
        self.observation_size = (len(PHASES) + n + 4 + len(CHIPS) * (n + 1) + n + (1 + n + 2)
                                 + 4 * n + 2)
        self._all_in_middle = [1.0, *[0.0] * n] * len(CHIPS)
        self._no_call = [0.0] * (1 + n + 2)

    def keys(self) -> Sequence[Hashable]:
        out: list[Hashable] = [("call", k, x) for k in range(self.players) for x in CHIPS]
        out += trade_keys()
        out += [("truth",), ("bluff",)]
        out += [("give", x) for x in CHIPS]
        return out

    def legal_indices(self, view: JSON, legal: Sequence[JSON], pending: Any = None) -> list[int]:
        if getattr(legal, "targets", None) is None:
            return super().legal_indices(view, legal)
        return self.indices_of(self.legal_bytes(view, legal))

    def legal_bytes(self, view: JSON, legal: Sequence[JSON],
                    pending: Any = None) -> bytes | bytearray:
        targets = getattr(legal, "targets", None)
        if targets is None:
            return super().legal_bytes(view, legal)
        # The call step's lazy list (numbers per target, then trades; no dicts built), written
        # into the mask at once: no list of indices.
        mask = bytearray(self.action_size)
        me, width = view["seat"], len(CHIPS)
        for target, numbers in zip(targets, legal.numbers):
            base = self.offset(target, me) * width - CHIPS[0]
            for x in numbers:
                mask[base + x] = 1
        for a in legal.trades:
            mask[self.index_of[self.key(view, a)]] = 1
        return mask

    def key(self, view: JSON, action: JSON) -> Hashable:
        kind = action["type"]
        if kind == "call":
            return ("call", self.offset(action["target"], view["seat"]), action["number"])
        if kind == "trade":
            return ("trade", tuple(action["give"]), action["take"])
        if kind == "give":
            return ("give", action["chip"])
        return (kind,)

    def build(self, view: JSON, key: Any) -> JSON:
        kind = key[0]
        if kind == "call":
            return {"type": "call", "target": self.seat(key[1], view["seat"]), "number": key[2]}
        if kind == "trade":
            return {"type": "trade", "give": list(key[1]), "take": key[2]}
        if kind == "give":
            return {"type": "give", "chip": key[1]}
        return {"type": kind}

    def encode(self, view: JSON) -> list[float]:
        # One list extended with slices and precomputed parts: this runs on every step.
        n, me = self.players, view["seat"]
        out = [0.0] * (len(PHASES) + n)
        out[PHASE_AT[view["phase"]]] = 1.0
        out[len(PHASES) + (view["roller"] - me) % n] = 1.0
        dice = view["dice"]
        out += (0, 0, 0) if dice is None else dice
        out.append(float(view["dice_revealed"]))
        # Per chip [middle, offset 0, ..., offset n-1]: the middle unless someone holds it.
        where = self._all_in_middle[:]
        width = n + 1
        for seat, chips in enumerate(view["chips"]):
            k = 1 + (seat - me) % n
            for chip in chips:
                at = (chip - CHIPS[0]) * width
                where[at] = 0.0
                where[at + k] = 1.0
        out += where
        points = view["points"]
        out += points[me:]
        out += points[:me]
        call = view["call"]
        if call is None:
            out += self._no_call
        else:
            target = [0.0] * n
            target[(call["target"] - me) % n] = 1.0
            out.append(1.0)
            out += target
            out.append(call["number"])
            out.append(float(call["from_target"]))
        for tallies in (view["honesty"], view["answers"]):
            for tally in tallies[me:] + tallies[:me]:
                out += tally
        out.append(view["turn"])
        out.append(view["target_points"] or 0)
        return out
