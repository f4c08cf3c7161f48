"""DTC's action index and observation vector (documented in docs/training.md, "DTC").

An offer can be any part of a hand of up to 66 cards with any claim: far too many to index.
So an offer is built card by card over several steps of the same seat: ``add <rank>`` puts one
more card of that rank into the offer being built (the *pending* part, seen only by that seat),
and ``offer, claim <v>`` sends it with the claim. Index (15)::

    0..6    add one card of rank "1".."6", "joker"
    7..12   offer the cards added so far, claiming value 1..6
    13      accept
    14      call
"""

from __future__ import annotations

from operator import itemgetter, lt
from typing import Any

from games.engine.dtc import KEYS, VALUES, Phase, offer_bounds

from .base import JSON, Codec

ADD = 0
CLAIM = len(KEYS)
ACCEPT = CLAIM + VALUES
CALL = ACCEPT + 1
PHASES = tuple(Phase)  # the engine's, in its order
PHASE_AT = {phase: i for i, phase in enumerate(PHASES)}
_EMPTY = (0,) * len(KEYS)
#: An offer step's mask past its ``add`` indices, by its first legal claim (None: no claim).
_CLAIMS_FROM = {start: bytes(start is not None and start <= i < ACCEPT for i in range(CLAIM, CALL + 1))
                for start in (None, *range(CLAIM, ACCEPT))}
#: A counts-per-rank dict with all seven keys (a view's hand, a penalty pile) in rank order.
_by_rank = itemgetter(*KEYS)


class DtcCodec(Codec):
    game_id = "dtc"
    observation_high = 66.0
    pending_size = len(KEYS)

    def __init__(self, players: int, options: JSON) -> None:
        super().__init__(players, options)
        self.action_size = CALL + 1
        n = players
        self.observation_size = (len(PHASES) + 7 + 7 + n + 7 * n + 1 + (1 + n + 2 + 7) + 3
                                 + (1 + 3 * n + 2 + 7 + 1) + 1)
        self._no_offer = [0.0] * (1 + n + 2 + 7)
        self._no_call = [0.0] * (1 + 3 * n + 2 + 7 + 1)

    def legal_indices(self, view: JSON, legal: Any, pending: Any = None) -> list[int]:
        """In the offer phase only the view is read (the hand and what the offer must beat,
        DTC-2/DTC-4), so a bot given ``legal_description`` instead of the list may pass []."""
        if view["phase"] != "offer":
            return [ACCEPT if a["type"] == "accept" else CALL for a in legal]
        return self.indices_of(self._offer_mask(*self._offer_step(view, pending)))

    def legal_bytes(self, view: JSON, legal: Any, pending: Any = None) -> bytes | bytearray:
        if view["phase"] != "offer":
            return super().legal_bytes(view, legal, pending)
        return self._offer_mask(*self._offer_step(view, pending))

    def _offer_step(self, view: JSON, pending: Any) -> tuple[tuple[int, ...], Any, Any]:
        """What an offer step's legal indices depend on: the hand per rank, what the offer
        must beat, the cards added so far (each step of an offer has a mask of its own)."""
        beat = view["to_beat"]
        return (_by_rank(view["hand"]), None if beat is None else (beat["count"], beat["value"]),
                pending or _EMPTY)

    def _offer_mask(self, hand: tuple[int, ...], beat: Any, chosen: tuple[int, ...]) -> bytes:
        """An offer step's mask, written at once (no list of indices): the ranks the hand
        still has more of, then the claims from :meth:`_claim_start` on."""
        return bytes(map(lt, chosen, hand)) + _CLAIMS_FROM[self._claim_start(beat, chosen)]

    def _claim_start(self, beat: Any, chosen: tuple[int, ...]) -> int | None:
        """The first legal ``claim`` index with these cards added (DTC-2/DTC-4), or None."""
        min_count, min_value = offer_bounds(beat)
        k = sum(chosen)
        if k > min_count:
            return CLAIM
        return CLAIM + min_value - 1 if k == min_count else None

    def decode(self, view: JSON, index: int, pending: Any = None) -> tuple[JSON | None, Any]:
        if index == ACCEPT:
            return {"type": "accept"}, None
        if index == CALL:
            return {"type": "call"}, None
        chosen = pending or _EMPTY
        if index < CLAIM:  # one more card of rank r
            r = index - ADD
            return None, chosen[:r] + (chosen[r] + 1,) + chosen[r + 1:]
        cards = {KEYS[r]: c for r, c in enumerate(chosen) if c}
        return {"type": "offer", "cards": cards, "value": index - CLAIM + 1}, None

    def indices(self, view: JSON, action: JSON) -> list[int]:
        if action["type"] != "offer":
            return [ACCEPT if action["type"] == "accept" else CALL]
        cards = action["cards"]
        out = [ADD + r for r, key in enumerate(KEYS) for _ in range(cards.get(key, 0))]
        return out + [CLAIM + action["value"] - 1]

    def encode_pending(self, pending: Any) -> list[float]:
        return list(pending or _EMPTY)

    def encode(self, view: JSON) -> list[float]:
        # Built by extending one list with C-level reads (itemgetter, rotations): this runs
        # on every step (bench/envs.py).
        n, me = self.players, view["seat"]
        out = [0.0, 0.0, 0.0]
        out[PHASE_AT[view["phase"]]] = 1.0
        out += _by_rank(view["hand"])
        sizes = view["hand_sizes"]
        out += sizes[me:]
        out += sizes[:me]
        penalty = view["penalty"]
        for pile in penalty[me:] + penalty[:me]:
            out += _by_rank(pile)
        out.append(view["pile"])
        offer = view["offer"]
        if offer is None:
            out += self._no_offer
        else:
            giver = [0.0] * n
            giver[(offer["giver"] - me) % n] = 1.0
            mine = offer.get("cards")
            out.append(1.0)
            out += giver
            out.append(offer["count"])
            out.append(offer["value"])
            out += [mine.get(k, 0) for k in KEYS] if mine else _EMPTY
        beat = view["to_beat"]
        out += (0.0, 0.0, 0.0) if beat is None else (1.0, beat["count"], beat["value"])
        call = view["last_call"]
        if call is None:
            out += self._no_call
        else:
            seats = [0.0] * (3 * n)
            seats[(call["challenger"] - me) % n] = 1.0
            seats[n + (call["giver"] - me) % n] = 1.0
            seats[2 * n + (call["taker"] - me) % n] = 1.0
            cards = call["cards"]
            out.append(1.0)
            out += seats
            out.append(call["count"])
            out.append(call["value"])
            out += [cards.get(k, 0) for k in KEYS]
            out.append(float(call["true"]))
        out.append(float(view["variant_2a"]))
        return out
