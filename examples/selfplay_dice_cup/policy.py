"""A small dice cup bluff policy with three numbers to tune, deciding from its seat's view only.

It is written against the offline training kit's action index (``games.envs``): it is given the
seat's view and the legal action indices, decodes each index into the engine action it stands
for, and returns the index it picks. The same function plays in training (``train.py``, through
the PettingZoo environment) and on the platform (``bot.py``, behind the starter kit's webhook
server), so what was tuned is what plays.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from itertools import product
from pathlib import Path
from typing import Any

from games.engine.dice_cup import POINTS
from games.envs import Codec

#: Ways three dice make each sum (out of 216).
WAYS = {s: sum(1 for d in product(range(1, 7), repeat=3) if sum(d) == s) for s in range(3, 19)}


@dataclass(frozen=True)
class Params:
    #: As target: answer "bluff" when a true roll would make the called sum less likely than this.
    doubt: float = 0.05
    #: As roller: call the true sum when its chip is worth at least this many points.
    truth_points: int = 1
    #: As roller, bluffing: only call sums at least this many of the 216 rolls make.
    plausible: int = 10

    def save(self, path: Path) -> None:
        path.write_text(json.dumps(asdict(self), indent=1) + "\n")

    @classmethod
    def load(cls, path: Path) -> Params:
        return cls(**json.loads(path.read_text()))


def choose_index(params: Params, codec: Codec, view: dict[str, Any], legal: list[int]) -> int:
    """The index to play, from the view and the legal indices only."""
    actions = {index: codec.decode(view, index)[0] for index in legal}
    phase = view["phase"]
    if phase == "answer":
        doubtful = WAYS.get(view["call"]["number"], 0) / 216 < params.doubt
        wanted = "bluff" if doubtful else "truth"
        return next(i for i, a in actions.items() if a["type"] == wanted)
    if phase == "give":  # DC-3: give away the cheapest chip
        return min(actions, key=lambda i: (POINTS[actions[i]["chip"]], actions[i]["chip"]))
    calls = {i: a for i, a in actions.items() if a["type"] == "call"}
    if not calls:  # only trades: never happens while a chip is in the middle
        return legal[0]
    me, points = view["seat"], view["points"]

    def target_rank(i: int) -> tuple[int, int]:  # prefer the leader, then the next seat
        target = calls[i]["target"]
        return (-points[target], (target - me) % view["players"])

    true_sum = sum(view["dice"])
    truthful = [i for i, a in calls.items() if a["number"] == true_sum]
    if truthful and POINTS[true_sum] >= params.truth_points:
        return min(truthful, key=target_rank)
    bluffs = [i for i, a in calls.items() if a["number"] != true_sum
              and WAYS[a["number"]] >= params.plausible] or list(calls)
    return max(bluffs, key=lambda i: (POINTS[calls[i]["number"]], WAYS[calls[i]["number"]],
                                      [-x for x in target_rank(i)]))
