"""Le Dutch's action index and observation vector (docs/training.md, "Le Dutch").

Slots are named by *position* ``i``: the i-th slot of that seat's list in the view (slot ids
are stable handles that grow through a match; positions stay below 54, the deck). Seats are
offsets from the acting seat. Index, in this order (``S`` = 54, ``n`` = players)::

    draw, take, done, discard, pass, no_power
    replace <i>      i = 0..S-1     own slot at position i
    snap <i>         i = 0..S-1
    queen <i>        i = 0..S-1
    ace <k>          k = 0..n-1     offset of the opponent (0 never legal)
    jack <p>.<i> <q>.<j>            p < q offsets, i, j positions: swap those two slots
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

from games.engine.dutch import DECK_SIZE, NAME, RANK_NAMES, Phase

from .base import JSON, FlatCodec

SLOTS = DECK_SIZE  # no seat can hold more slots than there are cards
SIMPLE = ("draw", "take", "done", "discard", "pass", "no_power")
PHASES = tuple(Phase)  # the engine's, in its order
POWERS = ("ace", "jack", "queen")
PHASE_AT = {phase: i for i, phase in enumerate(PHASES)}
POWER_AT = {power: i for i, power in enumerate(POWERS)}
_PADDING = (0.0,) * SLOTS  # a hand's slot codes past its last slot


def card_code(name: str | None) -> int:
    """0 no card, 1 a card the seat does not know; else 2 Joker, 3 Ace, 4..12 the 2..10,
    13 Jack, 14 Queen, 15 black King (0 points), 16 red King (13 points)."""
    if name is None:
        return 1
    rank = "Joker" if name == "Joker" else name[:-1]
    if rank == "K":
        return 15 if name[-1] in "SC" else 16
    return 2 + RANK_NAMES.index(rank)


#: Card codes as floats: the vector is converted to float32, and numpy converts a list of
#: floats a third faster than one of ints (most of a Dutch vector is card codes and padding).
CODE = {None: 1.0, **{name: float(card_code(name)) for name in NAME}}


class DutchCodec(FlatCodec):
    game_id = "dutch"

    def __init__(self, players: int, options: JSON) -> None:
        super().__init__(players, options)
        n = players
        self.observation_size = (len(PHASES) + n + n * (2 + SLOTS) + 4 + 3 + (1 + n) + n + 2
                                 + (1 + 1 + n + 2) + (len(POWERS) + 1))
        rounds = options.get("rounds") or players
        self.observation_high = float(max(SLOTS, rounds * 400))
        self._no_snap = [0.0] * (1 + 1 + n + 2)

    def keys(self) -> Sequence[Hashable]:
        n = self.players
        out: list[Hashable] = [(kind,) for kind in SIMPLE]
        for kind in ("replace", "snap", "queen"):
            out += [(kind, i) for i in range(SLOTS)]
        out += [("ace", k) for k in range(n)]
        out += [("jack", p, i, q, j) for p in range(n) for q in range(p + 1, n)
                for i in range(SLOTS) for j in range(SLOTS)]
        return out

    def _position(self, view: JSON, handle: JSON) -> int:
        slots = view["hands"][handle["seat"]]["slots"]
        slot = handle["slot"]
        for i, entry in enumerate(slots):
            if entry["slot"] == slot:
                return i
        raise KeyError(f"seat {handle['seat']} has no slot {slot}")

    def legal_indices(self, view: JSON, legal: Sequence[JSON], pending: Any = None) -> list[int]:
        if not legal:
            return []
        kind = legal[-1]["type"]
        if kind in ("replace", "snap", "queen"):
            # Every own slot is listed, in slot order (DU-5, G-5), after the simple actions.
            index_of = self.index_of
            head = [index_of[(a["type"],)] for a in legal if a["type"] != kind]
            base = index_of[(kind, 0)]
            return head + list(range(base, base + len(legal) - len(head)))
        if kind == "jack":  # some hundred swaps (after no_power): each slot's
            # position looked up once, not searched for per swap
            index_of, me = self.index_of, view["seat"]
            where = [{s["slot"]: i for i, s in enumerate(hand["slots"])} for hand in view["hands"]]
            def position(handle: JSON) -> int:
                return where[handle["seat"]][handle["slot"]]
            return [index_of[self._jack_key(me, a, position) if a["type"] == "jack"
                             else (a["type"],)] for a in legal]
        return super().legal_indices(view, legal)

    def key(self, view: JSON, action: JSON) -> Hashable:
        kind = action["type"]
        if kind in ("replace", "snap", "queen"):
            return (kind, self._position(view, action["slot"]))
        if kind == "ace":
            return ("ace", self.offset(action["seat"], view["seat"]))
        if kind == "jack":
            return self._jack_key(view["seat"], action, lambda h: self._position(view, h))
        return (kind,)

    def _jack_key(self, me: int, action: JSON, position: Callable[[JSON], int]) -> Hashable:
        """A swap's key: its two ends (seat offset, slot position), in order; ``position``
        finds a slot's position in its hand."""
        ends = sorted((self.offset(h["seat"], me), position(h)) for h in (action["a"], action["b"]))
        return ("jack", *ends[0], *ends[1])

    def build(self, view: JSON, key: Any) -> JSON:
        kind, me = key[0], view["seat"]
        if kind in ("replace", "snap", "queen"):
            return {"type": kind, "slot": self._handle(view, me, key[1])}
        if kind == "ace":
            return {"type": "ace", "seat": self.seat(key[1], me)}
        if kind == "jack":
            ends = sorted((self.seat(p, me), i) for p, i in (key[1:3], key[3:5]))
            return {"type": "jack", "a": self._handle(view, *ends[0]),
                    "b": self._handle(view, *ends[1])}
        return {"type": kind}

    def _handle(self, view: JSON, seat: int, position: int) -> JSON:
        return {"seat": seat, "slot": view["hands"][seat]["slots"][position]["slot"]}

    def encode(self, view: JSON) -> list[float]:
        # One list extended with rotations and precomputed parts: this runs on every step.
        n, me = self.players, view["seat"]
        out = [0.0] * (len(PHASES) + n)
        out[PHASE_AT[view["phase"]]] = 1.0
        out[len(PHASES) + (view["current"] - me) % n] = 1.0
        hands = view["hands"]
        for hand in hands[me:] + hands[:me]:
            slots = hand["slots"]
            out.append(float(hand["done"]))
            out.append(len(slots))
            out += [CODE[s["card"]] for s in slots]
            out += _PADDING[len(slots):]
        discard = view["discard"]
        out.append(view["pile"])
        out.append(len(discard))
        out.append(CODE[discard[-1]] if discard else 0.0)
        out.append(float(view["discard_top_dead"]))
        held_from = view["held_from"]
        out.append(0.0 if held_from is None else CODE[view["held"]])
        out.append(float(held_from == "pile"))
        out.append(float(held_from == "discard"))
        first = [0.0] * (1 + n)
        if view["first_done"] is not None:
            first[0] = 1.0
            first[1 + (view["first_done"] - me) % n] = 1.0
        out += first
        totals = view["totals"]
        out += totals[me:]
        out += totals[:me]
        out.append(view["round"])
        out.append(view["rounds"])
        snap = view.get("snap")
        if snap is None:
            out += self._no_snap
        else:
            discarder = [0.0] * n
            discarder[(snap["discarder"] - me) % n] = 1.0
            out.append(1.0)
            out.append(CODE[snap["card"]])
            out += discarder
            out.append(float(me in snap["asked"]))
            out.append(float("my_answer" in snap))
        power = view.get("power")
        if power is None:
            out += (0.0, 0.0, 0.0, 0.0)
        else:
            powers = [0.0, 0.0, 0.0]
            powers[POWER_AT[power]] = 1.0
            out += powers
            out.append(CODE[view["power_card"]])
        return out
