"""The Great Dalmuti's action index and observation vector (docs/training.md, "The Great
Dalmuti"). Ranks are 1..12 and 13 for the Jester. Index, in this order::

    no, declare                                   revolution answers
    give_back <r>            r = 1..13            a Lesser Dalmuti's one card
    give_back <r> <s>        1 <= r <= s <= 13    a Greater Dalmuti's two cards
    decline, exchange <k>    k = 0..n-1           the Merchant (k: seat offset; 0 never legal)
    pass
    play <r> x<c> +<j>       r = 1..12, c = 1..r, j = 0..2: c cards of rank r and j Jesters
    play jester x<j>         j = 1, 2: Jesters alone
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

from games.engine.great_dalmuti import Phase

from .base import JSON, FlatCodec

RANK_KEYS = tuple(str(r) for r in range(1, 13)) + ("jester",)
RANK_OF = {key: r for r, key in enumerate(RANK_KEYS, start=1)}
JESTER = 13
PHASES = tuple(Phase)  # the engine's, in its order
PHASE_AT = {phase: i for i, phase in enumerate(PHASES)}


class GreatDalmutiCodec(FlatCodec):
    game_id = "great_dalmuti"

    def __init__(self, players: int, options: JSON) -> None:
        super().__init__(players, options)
        n = players
        self.observation_size = len(PHASES) + 13 + 13 + 5 * n + (1 + n + 2) + 3 + 2 + n
        self.observation_high = float(max(80, options["hands"] * n))
        self._no_trick = [0.0] * (1 + n + 2)

    def keys(self) -> Sequence[Hashable]:
        out: list[Hashable] = [("no",), ("declare",)]
        out += [("give_back", (r,)) for r in range(1, 14)]
        out += [("give_back", (r, s)) for r in range(1, 14) for s in range(r, 14)]
        out += [("decline",)] + [("exchange", k) for k in range(self.players)]
        out.append(("pass",))
        out += [("play", r, c, j) for r in range(1, 13) for c in range(1, r + 1) for j in range(3)]
        out += [("play", JESTER, 0, j) for j in (1, 2)]
        return out

    def key(self, view: JSON, action: JSON) -> Hashable:
        kind = action["type"]
        if kind == "play":
            cards = action["cards"]
            jesters = cards.get("jester", 0)
            for rank_key, c in cards.items():
                if c and rank_key != "jester":
                    return ("play", RANK_OF[rank_key], c, jesters)
            return ("play", JESTER, 0, jesters)
        if kind == "give_back":
            ranks = [RANK_OF[k] for k, c in action["cards"].items() for _ in range(c)]
            return ("give_back", tuple(sorted(ranks)))
        if kind == "exchange":
            return ("exchange", self.offset(action["with"], view["seat"]))
        return (kind,)

    def build(self, view: JSON, key: Any) -> JSON:
        kind = key[0]
        if kind == "play":
            _, r, c, j = key
            cards = {RANK_KEYS[r - 1]: c} if c else {}
            if j:
                cards["jester"] = j
            return {"type": "play", "cards": cards}
        if kind == "give_back":
            cards: dict[str, int] = {}
            for r in key[1]:
                cards[RANK_KEYS[r - 1]] = cards.get(RANK_KEYS[r - 1], 0) + 1
            return {"type": "give_back", "cards": cards}
        if kind == "exchange":
            return {"type": "exchange", "with": self.seat(key[1], view["seat"])}
        return {"type": kind}

    def encode(self, view: JSON) -> list[float]:
        # One list extended with rotations and precomputed parts: this runs on every step.
        n, me = self.players, view["seat"]
        out = [0.0, 0.0, 0.0, 0.0]
        out[PHASE_AT[view["phase"]]] = 1.0
        for counts in (view["hand"], view["played"]):  # non-zero counts only (G-6)
            per_rank = [0] * 13
            for rank_key, count in counts.items():
                per_rank[RANK_OF[rank_key] - 1] = count
            out += per_rank
        for per_seat in (view["hand_sizes"], view["positions"], view["points"],
                         view["hand_points"]):
            out += per_seat[me:]
            out += per_seat[:me]
        place = [0] * n
        for i, s in enumerate(view["out"]):
            place[s] = i + 1
        out += place[me:]
        out += place[:me]
        trick = view["trick"]
        if trick is None:
            out += self._no_trick
        else:
            last = [0.0] * n
            last[(trick["seat"] - me) % n] = 1.0
            out.append(1.0)
            out += last
            out.append(trick["rank"])
            out.append(trick["count"])
        out.append(view["passes"])
        out.append(view["hand_number"])
        out.append(view["hands"])
        revolution = view["revolution"]
        out += (0.0, 0.0) if revolution is None else (1.0, float(bool(revolution["greater"])))
        turn = [0.0] * n  # the seat on turn; none outside the play phase
        if view["turn"] is not None:
            turn[(view["turn"] - me) % n] = 1.0
        out += turn
        return out
