"""DTC: a bluffing card game of offers, accepts and calls (``rulebooks/dtc.txt``).

Players pass face-down offers to the left with a claim ("four 2s"). The challenger either
accepts (takes the cards and must make a stronger offer to its own left) or calls the bluff
(the cards are turned up; whoever was wrong puts them in its penalty pile). Fewest cards at the
end wins. House rules DTC-1..DTC-8 and G-1..G-7 settle every gap; see ``docs/rules/dtc.md``.

Card ranks are indexed 0..6: 0..5 are the values 1..6, 6 is the Joker. In actions and views a
rank is the string key ``"1".."6"`` or ``"joker"`` (G-6).

Actions (G-6):

* ``{"type": "offer", "cards": {"2": 1, "joker": 1}, "value": 3}``: offer these cards with the
  claim "<count> <value>s"; the count is implied by the cards (DTC-2). An optional ``"count"``
  key is accepted and must equal the number of cards given.
* ``{"type": "accept"}`` / ``{"type": "call"}``: the challenger's answer (DTC-4, DTC-3).

The complete offer list can be large (a hand of 12 holds thousands of offers), so
:class:`OfferList` is a lazy sequence in a documented order, and ``_check`` validates an offer
in O(ranks) without enumerating anything.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from enum import StrEnum
from typing import Any

from .actions import LazyActions
from .base import JSON, Bot, Game, RandomBot, State
from .errors import CorruptState, IllegalAction
from .options import Option
from .rng import Rng

# ---- cards -------------------------------------------------------------------------------

#: Rank keys, by rank index: values 1..6, then the Joker (G-6).
KEYS: tuple[str, ...] = ("1", "2", "3", "4", "5", "6", "joker")
KEY_INDEX: dict[str, int] = {k: i for i, k in enumerate(KEYS)}
JOKER = 6
RANKS = 7
#: DTC-1: 9 each of 1..6 plus 12 Jokers = 66 cards.
DECK_COUNTS: tuple[int, ...] = (9, 9, 9, 9, 9, 9, 12)
DECK_SIZE = sum(DECK_COUNTS)
HAND_SIZE = 6  # DTC-5 refill target and the deal size
_BATCH_LIMIT = 1 << 56  # draws sharing one rng.below(): rejection chance stays below 2**-8
VALUES = 6

class Phase(StrEnum):
    """The step of a turn: the state's ``phase``, its value in views and JSON."""

    OFFER = "offer"
    RESPOND = "respond"
    OVER = "over"

#: The members as module names too, for the rules below: ``phase is OFFER`` reads a global,
#: where ``Phase.OFFER`` reads an Enum class attribute, ten times slower on CPython 3.11
#: (docs/performance.md).
OFFER, RESPOND, OVER = Phase

_TOP_KEYS = frozenset(("type", "cards", "value", "count"))
_BARE_KEYS = frozenset(("type",))


def counts_dict(counts: Sequence[int]) -> dict[str, int]:
    """Canonical counts-per-rank dict: only ranks with a nonzero count (as in actions)."""
    return {KEYS[r]: n for r, n in enumerate(counts) if n}


def full_dict(counts: Sequence[int]) -> dict[str, int]:
    """Counts-per-rank dict with all seven keys (as in views)."""
    return {KEYS[r]: counts[r] for r in range(RANKS)}


def is_true_offer(cards: Sequence[int], value: int, variant_2a: bool) -> bool:
    """DTC-3: true when every card is the claimed value or a Joker (all Jokers: always true).
    With ``variant_2a``: also true when every card is a Joker or has a value >= the claim."""
    if variant_2a:
        return not any(cards[: value - 1])
    return not any(n for r, n in enumerate(cards[:VALUES]) if r != value - 1)


def stronger_offer_exists(hand_size: int, count: int, value: int) -> bool:
    """DTC-4: can a hand of ``hand_size`` cards beat the claim ``(count, value)``?

    Same count with a higher value needs ``count`` cards and ``value < 6``; a higher count needs
    ``count + 1`` cards. Claims may be bluffs, so only the hand *size* matters (G-5)."""
    return (value < VALUES and hand_size >= count) or hand_size >= count + 1


# ---- the lazy offer list -------------------------------------------------------------------

_BITS = 32  # bits per coefficient: a hand has at most 10**6 * 13 card sets (< 2**32)
_MASK = (1 << _BITS) - 1
#: ``_ONES[h]`` packs the polynomial 1 + x + ... + x**h (one rank holding h cards).
_ONES = [((1 << (_BITS * (h + 1))) - 1) // _MASK for h in range(DECK_SIZE + 2)]
_ROWS_CACHE: dict[tuple[int, ...], list[int]] = {}


def _rows(hand: tuple[int, ...]) -> list[int]:
    """Packed generating polynomials: coefficient ``s`` of ``rows[r]`` is the number of sets of
    ``s`` cards drawn from ranks ``r..6`` of ``hand`` (``_BITS`` bits per coefficient).
    ``rows[8]`` packs the prefix sums of ``rows[0]``. Cached per hand; results never depend on
    the cache."""
    rows = _ROWS_CACHE.get(hand)
    if rows is None:
        rows = [0] * (RANKS + 2)
        acc = rows[RANKS] = 1
        for r in range(RANKS - 1, -1, -1):
            acc *= _ONES[hand[r]]
            rows[r] = acc
        rows[RANKS + 1] = acc * _ONES[sum(hand)]
        if len(_ROWS_CACHE) > 20_000:
            _ROWS_CACHE.clear()
        _ROWS_CACHE[hand] = rows
    return rows


class OfferList(LazyActions):
    """Every legal offer of a hand, lazily (DTC-2, DTC-4).

    An offer with ``k`` cards and value ``w`` is legal iff its cards are in the hand,
    ``min_count <= k``, and ``w >= min_value`` when ``k == min_count`` (any value 1..6 when
    ``k > min_count``). A free offer (DTC-6) has ``min_count = 1, min_value = 1``; after
    accepting ``(c, v)`` it is ``(c, v + 1)``, or ``(c + 1, 1)`` when ``v = 6``.

    Documented order: by card count ``k`` ascending; within a count, by the cards; within the
    same cards, by value ascending. Card sets of one size are ordered by their count vector
    (``"1"``, ``"2"``, ... ``"6"``, ``"joker"``) descending lexicographically, i.e. the first set
    takes as many low cards as it can (Jokers last). So ``[0]`` is the fewest cards allowed,
    lowest ranks first, with the smallest allowed value.

    Supports ``len``, indexing (also negative and slices), ``in``, ``index``, iteration and
    ``==`` against a list; ``in``/``index`` are O(ranks * hand size), never enumerating.
    """

    __slots__ = ("_first", "_len", "_rows", "hand", "min_count", "min_value", "size")

    def __init__(self, hand: Sequence[int], min_count: int, min_value: int) -> None:
        self.hand = tuple(hand)
        self.size = sum(self.hand)
        self.min_count = min_count
        self.min_value = min_value
        self._rows: list[int] | None = None
        self._first = 0  # offers with exactly min_count cards
        self._len = -1

    def _coef(self, r: int, s: int) -> int:
        return (self._rows[r] >> (_BITS * s)) & _MASK  # type: ignore[index]

    def _build(self) -> None:
        rows = self._rows = _rows(self.hand)
        mc = self.min_count
        if mc > self.size:
            self._first = self._len = 0
            return
        self._first = (VALUES + 1 - self.min_value) * ((rows[0] >> (_BITS * mc)) & _MASK)
        above = ((rows[RANKS + 1] >> (_BITS * self.size)) & _MASK) - (
            (rows[RANKS + 1] >> (_BITS * mc)) & _MASK)
        self._len = self._first + VALUES * above

    def __len__(self) -> int:
        if self._len < 0:
            self._build()
        return self._len

    def _locate(self, index: int) -> tuple[int, int, int]:
        """``(k, m, value)``: card count, set number among sets of ``k`` cards, value."""
        mc = self.min_count
        if index < self._first:
            m, v = divmod(index, VALUES + 1 - self.min_value)
            return mc, m, self.min_value + v
        j, v = divmod(index - self._first, VALUES)
        # The smallest k > mc with prefix(k) - prefix(mc) > j (binary search on prefix sums).
        pre = self._rows[RANKS + 1]  # type: ignore[index]
        base = (pre >> (_BITS * mc)) & _MASK
        lo, hi = mc + 1, self.size
        while lo < hi:
            mid = (lo + hi) // 2
            if ((pre >> (_BITS * mid)) & _MASK) - base > j:
                hi = mid
            else:
                lo = mid + 1
        before = ((pre >> (_BITS * (lo - 1))) & _MASK) - base
        return lo, j - before, 1 + v

    def _unrank(self, k: int, m: int) -> dict[str, int]:
        """The ``m``-th set of ``k`` cards in the documented order, as a canonical dict."""
        rows = self._rows
        hand = self.hand
        out: dict[str, int] = {}
        rem = k
        for r in range(RANKS):
            if not rem:
                break
            below = rows[r + 1]  # type: ignore[index]
            for x in range(min(hand[r], rem), -1, -1):
                n = (below >> (_BITS * (rem - x))) & _MASK
                if m < n:
                    if x:
                        out[KEYS[r]] = x
                    rem -= x
                    break
                m -= n
        return out

    def _rank(self, cards: Sequence[int]) -> int:
        """Inverse of :meth:`_unrank`: the position of ``cards`` among sets of its size."""
        rows = self._rows
        hand = self.hand
        rem = sum(cards)
        m = 0
        for r in range(RANKS):
            below = rows[r + 1]  # type: ignore[index]
            for x in range(min(hand[r], rem), cards[r], -1):
                m += (below >> (_BITS * (rem - x))) & _MASK
            rem -= cards[r]
        return m

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if isinstance(index, bool) or not isinstance(index, int):
            raise TypeError(f"offer list indices must be integers, not {type(index).__name__}")
        size = len(self)
        if index < 0:
            index += size
        if not 0 <= index < size:
            raise IndexError("offer index out of range")
        k, m, value = self._locate(index)
        return {"type": "offer", "cards": self._unrank(k, m), "value": value}

    def _position(self, action: Any) -> int:
        """Index of ``action`` if it is exactly (canonically) one of the offers, else -1."""
        if not isinstance(action, dict) or action.keys() != {"type", "cards", "value"}:
            return -1
        if action["type"] != "offer":
            return -1
        parsed = parse_offer_cards(action["cards"])
        value = action["value"]
        if (parsed is None or isinstance(value, bool) or not isinstance(value, int)
                or not 1 <= value <= VALUES or counts_dict(parsed) != action["cards"]):
            return -1
        k = sum(parsed)
        mc = self.min_count
        if k < mc or (k == mc and value < self.min_value):
            return -1
        hand = self.hand
        if any(parsed[r] > hand[r] for r in range(RANKS)):
            return -1
        if self._len < 0:
            self._build()
        m = self._rank(parsed)
        if k == mc:
            return m * (VALUES + 1 - self.min_value) + value - self.min_value
        pre = self._rows[RANKS + 1]  # type: ignore[index]
        before = ((pre >> (_BITS * (k - 1))) & _MASK) - ((pre >> (_BITS * mc)) & _MASK)
        return self._first + (before + m) * VALUES + value - 1

    def __contains__(self, action: Any) -> bool:
        return self._position(action) >= 0

    def index(self, action: Any, start: int = 0, stop: int | None = None) -> int:
        pos = self._position(action)
        if pos < 0 or pos < start or (stop is not None and pos >= stop):
            raise ValueError(f"{action!r} is not a legal offer here")
        return pos

    def count(self, action: Any) -> int:
        return 1 if self._position(action) >= 0 else 0

    def __iter__(self) -> Iterator[JSON]:
        if self._len < 0:
            self._build()
        for k in range(self.min_count, self.size + 1):
            lo = self.min_value if k == self.min_count else 1
            for m in range(self._coef(0, k)):
                cards = self._unrank(k, m)
                for v in range(lo, VALUES + 1):
                    yield {"type": "offer", "cards": dict(cards), "value": v}

    def __eq__(self, other: object) -> bool:
        if isinstance(other, OfferList):
            return (self.hand, self.min_count, self.min_value) == (
                other.hand, other.min_count, other.min_value) or len(self) == len(other) == 0
        if isinstance(other, (list, tuple)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    def __repr__(self) -> str:
        return (f"OfferList(hand={counts_dict(self.hand)}, min_count={self.min_count}, "
                f"min_value={self.min_value}, len={len(self)})")

    def describe(self) -> JSON:
        """A compact JSON description of the whole list, for webhook bots.

        ``{"type": "offer", "hand": {...all 7 keys...}, "min_count": c, "min_value": v,
        "max_count": n, "values": [1, 6], "count": len}``: an offer is legal iff its cards
        (counts per rank) fit in ``hand``, ``min_count <= k <= max_count`` and, when
        ``k == min_count``, its value is ``>= min_value`` (otherwise any value in ``values``)."""
        return {"type": "offer", "hand": full_dict(self.hand), "min_count": self.min_count,
                "min_value": self.min_value, "max_count": self.size,
                "values": [1, VALUES], "count": len(self)}


def parse_offer_cards(cards: Any) -> list[int] | None:
    """Counts per rank from an action's ``"cards"``, or None if malformed (no exceptions)."""
    if not isinstance(cards, dict):
        return None
    out = [0] * RANKS
    for key, n in cards.items():
        r = KEY_INDEX.get(key) if isinstance(key, str) else None
        if r is None or isinstance(n, bool) or not isinstance(n, int) or n < 0:
            return None
        out[r] = n
    return out if any(out) else None


def offer_bounds(beat: tuple[int, int] | None) -> tuple[int, int]:
    """``(min_count, min_value)`` of the next offer: free (DTC-6) or stronger (DTC-4)."""
    if beat is None:
        return 1, 1
    count, value = beat
    return (count, value + 1) if value < VALUES else (count + 1, 1)


# ---- the state -----------------------------------------------------------------------------


class DtcState(State):
    """One DTC match. Plain small lists: ``hands[seat]`` / ``penalty[seat]`` are 7 counts per
    rank. The draw pile is kept as counts per rank too (``pile``, ``pile_size``): each draw
    takes a uniformly random card of it with ``self.rng`` (G-1), which is the same as drawing
    the top card of a shuffled pile, and no hidden order needs storing or hiding."""

    def setup(self) -> None:
        n = self.players
        self.pile = list(DECK_COUNTS)  # DTC-1: 9 each of 1..6 plus 12 Jokers
        self.pile_size = DECK_SIZE
        self.hands = [[0] * RANKS for _ in range(n)]
        # Deal 6 each, one card at a time clockwise from seat 0.
        for i, r in enumerate(self._draw_cards(HAND_SIZE * n)):
            self.hands[i % n][r] += 1
        self.sizes = [HAND_SIZE] * n
        self.penalty = [[0] * RANKS for _ in range(n)]
        self.first = self.rng.below(n)  # G-1: a random first player
        self.phase = OFFER
        self.turn = self.first
        self.offer: list[int] | None = None  # cards of the pending offer
        self.giver = -1
        self.claim: tuple[int, int] | None = None  # (count, value) of the pending offer
        self.beat: tuple[int, int] | None = None  # claim to beat after an accept (DTC-4)
        self.last_call: JSON | None = None
        self.ended = ""
        self._legal: Sequence[JSON] | None = None
        self.emit("deal", private={s: {"hand": counts_dict(self.hands[s])} for s in range(n)},
                  first=self.first, pile=self.pile_size)

    def _draw_cards(self, k: int) -> list[int]:
        """Draw ``k`` cards from the pile, each a uniformly random one of the cards remaining
        (G-1). To save time several draws share one ``rng.below(s * (s-1) * ...)`` call whose
        result is split into its mixed-radix digits: each digit is uniform and independent,
        exactly as separate draws would be."""
        pile = self.pile
        size = self.pile_size
        out: list[int] = []
        while k:
            prod, n = 1, 0
            while n < k and prod * (size - n) <= _BATCH_LIMIT:
                prod *= size - n
                n += 1
            x = self.rng.below(prod)
            k -= n
            for _ in range(n):
                x, i = divmod(x, size)
                size -= 1
                for r in range(RANKS):
                    i -= pile[r]
                    if i < 0:
                        pile[r] -= 1
                        out.append(r)
                        break
        self.pile_size = size
        return out

    # ---- turn structure ----------------------------------------------------------------

    def to_act(self) -> list[int]:
        return [] if self.phase == OVER else [self.turn]

    @property
    def is_over(self) -> bool:
        return self.phase == OVER

    def legal_actions(self, seat: int) -> Sequence[JSON]:
        if self.phase == OVER or seat != self.turn:
            return []
        legal = self._legal
        if legal is None:
            if self.phase == OFFER:
                legal = OfferList(self.hands[seat], *offer_bounds(self.beat))
            elif self._can_accept():
                legal = [{"type": "accept"}, {"type": "call"}]
            else:
                legal = [{"type": "call"}]
            self._legal = legal
        return legal

    def _can_accept(self) -> bool:
        """DTC-4: accepting is legal only if the hand the challenger would hold (its hand plus
        the offered cards) can make a stronger offer. Depends on public counts only (G-5)."""
        count, value = self.claim  # type: ignore[misc]
        return stronger_offer_exists(self.sizes[self.turn] + count, count, value)

    def _check(self, seat: int, action: JSON) -> Any:
        kind = action.get("type")
        if self.phase == RESPOND:
            if kind not in ("accept", "call"):
                raise IllegalAction(
                    f"you were offered cards: answer with type 'accept' or 'call', not {kind!r}")
            if action.keys() != _BARE_KEYS:
                extra = sorted(map(str, action.keys() - _BARE_KEYS))
                raise IllegalAction(f"a {kind!r} action takes no other keys (got {extra})")
            if kind == "accept" and not self._can_accept():
                count, value = self.claim  # type: ignore[misc]
                raise IllegalAction(
                    f"you cannot accept {count} {value}s: no stronger offer would be possible "
                    "with the hand you would hold, so you must call (DTC-4)")
            return kind
        if kind != "offer":
            raise IllegalAction(f"it is your turn to make an offer: type must be 'offer', "
                                f"not {kind!r}")
        return self._check_offer(seat, action)

    def _check_offer(self, seat: int, action: JSON) -> tuple[list[int], int, int]:
        """Validate an offer in O(ranks) (DTC-2, DTC-4); return ``(cards, count, value)``."""
        for key in action:
            if key not in _TOP_KEYS:
                extra = action.keys() - _TOP_KEYS
                raise IllegalAction(
                    f"unknown key(s) in an offer: {sorted(map(str, extra))} "
                    "(an offer has 'type', 'cards', 'value' and optional 'count')")
        if "cards" not in action or "value" not in action:
            raise IllegalAction("an offer needs 'cards' (counts per rank) and 'value' (1..6)")
        cards = action["cards"]
        if not isinstance(cards, dict):
            raise IllegalAction("'cards' must be an object of counts per rank, e.g. "
                                '{"2": 1, "joker": 1}')
        counts = [0] * RANKS
        for key, n in cards.items():
            r = KEY_INDEX.get(key)  # only the seven string keys; 1, True, None... are unknown
            if r is None:
                raise IllegalAction(f"unknown rank {key!r} in 'cards' (use "
                                    f"{', '.join(KEYS)})")
            if type(n) is not int or n < 0:  # bool, float, str... refused
                raise IllegalAction(f"the count for rank {key!r} must be a whole number >= 0, "
                                    f"not {n!r}")
            counts[r] = n
        total = sum(counts)
        if total < 1:
            raise IllegalAction("an offer must contain at least one card (DTC-2)")
        value = action["value"]
        if type(value) is not int or not 1 <= value <= VALUES:
            raise IllegalAction(f"'value' must be a whole number from 1 to 6, not {value!r}")
        if "count" in action:
            claimed = action["count"]
            if type(claimed) is not int:
                raise IllegalAction(f"'count' must be a whole number, not {claimed!r}")
            if claimed != total:
                raise IllegalAction(f"the claimed count {claimed} must equal the number of cards "
                                    f"given ({total}) (DTC-2)")
        hand = self.hands[seat]
        if any(map(int.__gt__, counts, hand)):
            r = next(r for r in range(RANKS) if counts[r] > hand[r])
            raise IllegalAction(f"you offer {counts[r]} card(s) of rank {KEYS[r]!r} but "
                                f"hold only {hand[r]}")
        if self.beat is not None:
            bc, bv = self.beat
            if total < bc or (total == bc and value <= bv):
                raise IllegalAction(
                    f"after accepting {bc} {bv}s your offer must be stronger: {bc} cards with a "
                    f"value above {bv}, or more than {bc} cards (DTC-4); "
                    f"{total} {value}s is not")
        return counts, total, value

    # ---- applying ----------------------------------------------------------------------

    def _apply(self, seat: int, parsed: Any) -> None:
        self._legal = None
        if parsed == "call":
            self._call(seat)
        elif parsed == "accept":
            self._accept(seat)
        else:
            self._offer(seat, *parsed)

    def _offer(self, seat: int, cards: list[int], count: int, value: int) -> None:
        self.hands[seat] = hand = list(map(int.__sub__, self.hands[seat], cards))
        size = self.sizes[seat] - count
        # DTC-5: refill to 6 right after the offer, as far as the draw pile goes.
        draw = min(HAND_SIZE - size, self.pile_size) if size < HAND_SIZE else 0
        private: JSON = {"cards": counts_dict(cards)}
        if draw:
            drawn = [0] * RANKS
            for r in self._draw_cards(draw):
                drawn[r] += 1
                hand[r] += 1
            private["drew"] = counts_dict(drawn)
        self.sizes[seat] = size + draw
        self.offer = cards
        self.giver = seat
        self.claim = (count, value)
        self.beat = None
        self.phase = RESPOND
        self.turn = (seat + 1) % self.players  # G-2: the offer goes to the left
        self.emit("offer", private={seat: private}, seat=seat, to=self.turn, count=count,
                  value=value, drew=draw, pile=self.pile_size)

    def _accept(self, seat: int) -> None:
        cards = self.offer
        hand = self.hands[seat]
        for r in range(RANKS):
            hand[r] += cards[r]  # type: ignore[index]
        count, value = self.claim  # type: ignore[misc]
        self.sizes[seat] += count
        self.emit("accept", private={seat: {"cards": counts_dict(cards)}},  # type: ignore[arg-type]
                  seat=seat, giver=self.giver, count=count, value=value)
        self.beat = self.claim  # DTC-4: the next offer must beat this claim
        self.offer = None
        self.giver = -1
        self.claim = None
        self.phase = OFFER
        self.turn = seat

    def _call(self, seat: int) -> None:
        cards = self.offer
        giver = self.giver
        count, value = self.claim  # type: ignore[misc]
        true = is_true_offer(cards, value, self.options["variant_2a"])  # type: ignore[arg-type]
        taker = seat if true else giver  # DTC-3: 2a / 2b
        pen = self.penalty[taker]
        for r in range(RANKS):
            pen[r] += cards[r]  # type: ignore[index]
        revealed = counts_dict(cards)  # type: ignore[arg-type]
        self.last_call = {"challenger": seat, "giver": giver, "count": count, "value": value,
                          "cards": revealed, "true": true, "taker": taker}
        self.emit("call", challenger=seat, giver=giver, count=count, value=value,
                  cards=revealed, true=true, taker=taker)
        self.offer = None
        self.giver = -1
        self.claim = None
        self.beat = None
        if not self.pile_size:
            self._end("pile_empty")  # DTC-7: with the pile empty, the first call ends the game
            return
        # DTC-6: the taker starts with a free offer; empty hands are skipped clockwise.
        n = self.players
        for step in range(n):
            s = (taker + step) % n
            if self.sizes[s]:
                self.phase = OFFER
                self.turn = s
                return
        self._end("no_cards")  # DTC-6: nobody has cards

    def _end(self, reason: str) -> None:
        self.phase = OVER
        self.turn = -1
        self.ended = reason
        self.emit("end", reason=reason, scores=self._outcome()[0])

    def _end_at_move_cap(self) -> None:
        """G-7: stop as it stands. A pending offer goes back to its giver's hand (settled
        here: it was never accepted), so it counts for the giver."""
        self._legal = None
        if self.offer is not None:
            hand = self.hands[self.giver]
            for r in range(RANKS):
                hand[r] += self.offer[r]
            self.sizes[self.giver] += self.claim[0]  # type: ignore[index]
            self.offer = None
            self.giver = -1
            self.claim = None
        self.beat = None
        self._end("move_cap")

    def _outcome(self) -> tuple[list[Any], list[Any]]:
        """DTC-8: score = penalty pile + cards in hand (a pending offer counts for its giver);
        fewest is best."""
        scores = [sum(self.penalty[s]) + self.sizes[s] for s in range(self.players)]
        if self.offer is not None:
            scores[self.giver] += self.claim[0]  # type: ignore[index]
        return scores, list(scores)

    def default_action(self, seat: int) -> JSON:
        """Respond: ``{"type": "call"}`` (always legal). Offer: the first legal offer in the
        documented order (fewest cards allowed, lowest ranks first, smallest allowed value)."""
        legal = self.legal_actions(seat)
        if not legal:
            raise IllegalAction(f"seat {seat} is not asked to act now")
        if self.phase == RESPOND:
            return {"type": "call"}
        return legal[0]

    # ---- views -------------------------------------------------------------------------

    def _view(self, seat: int | None) -> JSON:
        """G-3: own hand, public counts, the claim of the pending offer (its cards only for
        the giver), every revealed card (penalty piles, DTC-8). Never other hands or the pile."""
        out: JSON = {
            "phase": self.phase,
            "first_player": self.first,
            "variant_2a": self.options["variant_2a"],
            "hand_sizes": list(self.sizes),
            "pile": self.pile_size,
            "penalty": [full_dict(p) for p in self.penalty],
            "penalty_sizes": [sum(p) for p in self.penalty],
            "offer": None,
            "to_beat": None,
            "last_call": dict(self.last_call) if self.last_call else None,
        }
        if seat is not None:
            out["hand"] = full_dict(self.hands[seat])
        if self.claim is not None:
            offer: JSON = {"giver": self.giver, "to": self.turn, "count": self.claim[0],
                           "value": self.claim[1]}
            if seat == self.giver:
                offer["cards"] = counts_dict(self.offer)  # type: ignore[arg-type]
            out["offer"] = offer
        if self.beat is not None:
            out["to_beat"] = {"count": self.beat[0], "value": self.beat[1]}
        if self.ended:
            out["ended"] = self.ended
        return out

    # ---- persistence -------------------------------------------------------------------

    def dump(self) -> JSON:
        return {
            "hands": [list(h) for h in self.hands],
            "pile": list(self.pile),
            "penalty": [list(p) for p in self.penalty],
            "first": self.first,
            "phase": self.phase,
            "turn": self.turn,
            "offer": None if self.offer is None else {
                "giver": self.giver, "cards": list(self.offer),
                "count": self.claim[0], "value": self.claim[1]},  # type: ignore[index]
            "beat": None if self.beat is None else list(self.beat),
            "last_call": self.last_call,
            "ended": self.ended,
        }

    def load(self, data: JSON) -> None:
        n = self.players

        def counts(raw: Any) -> list[int]:
            if not isinstance(raw, list) or len(raw) != RANKS:
                raise ValueError(f"expected {RANKS} counts, got {raw!r}")
            for x in raw:
                if isinstance(x, bool) or not isinstance(x, int) or x < 0:
                    raise ValueError(f"bad card count {x!r}")
            return list(raw)

        hands, penalty, pile = data["hands"], data["penalty"], data["pile"]
        if not isinstance(hands, list) or len(hands) != n:
            raise ValueError("one hand per seat expected")
        if not isinstance(penalty, list) or len(penalty) != n:
            raise ValueError("one penalty pile per seat expected")
        self.hands = [counts(h) for h in hands]
        self.penalty = [counts(p) for p in penalty]
        self.sizes = [sum(h) for h in self.hands]
        self.pile = counts(pile)
        self.pile_size = sum(self.pile)
        self.first = int(data["first"])
        try:
            self.phase = Phase(data["phase"])
        except ValueError:
            raise ValueError(f"unknown phase {data['phase']!r}") from None
        self.turn = int(data["turn"])
        offer = data["offer"]
        if offer is None:
            self.offer, self.giver, self.claim = None, -1, None
        else:
            self.offer = counts(offer["cards"])
            self.giver = int(offer["giver"])
            self.claim = (int(offer["count"]), int(offer["value"]))
        beat = data["beat"]
        self.beat = None if beat is None else (int(beat[0]), int(beat[1]))
        self.last_call = data["last_call"]
        self.ended = str(data["ended"])
        self._legal = None

    def check_invariants(self) -> None:
        n = self.players
        if not (len(self.hands) == len(self.penalty) == len(self.sizes) == n):
            raise CorruptState("hands, penalty piles and hand sizes need one entry per seat")
        total = [0] * RANKS
        for s in range(n):
            if not (len(self.hands[s]) == RANKS and min(self.hands[s]) >= 0):
                raise CorruptState("a hand needs a count (not negative) per rank")
            if not (len(self.penalty[s]) == RANKS and min(self.penalty[s]) >= 0):
                raise CorruptState("a penalty pile needs a count (not negative) per rank")
            if not (self.sizes[s] == sum(self.hands[s])):
                raise CorruptState("hand size out of date")
            for r in range(RANKS):
                total[r] += self.hands[s][r] + self.penalty[s][r]
        if not (len(self.pile) == RANKS and min(self.pile) >= 0):
            raise CorruptState("the pile needs a count (not negative) per rank")
        if not (self.pile_size == sum(self.pile)):
            raise CorruptState("pile size out of date")
        for r in range(RANKS):
            total[r] += self.pile[r]
        if self.offer is not None:
            if not (self.claim is not None and 0 <= self.giver < n):
                raise CorruptState("an offer without its claim or its giver")
            if not (len(self.offer) == RANKS and min(self.offer) >= 0):
                raise CorruptState("an offer needs a count (not negative) per rank")
            if not (sum(self.offer) == self.claim[0] >= 1):
                raise CorruptState("an offer of another number of cards than claimed (DTC-2)")
            if not (1 <= self.claim[1] <= VALUES):
                raise CorruptState("a claim of a value outside 1..VALUES")
            for r in range(RANKS):
                total[r] += self.offer[r]
        if not (tuple(total) == DECK_COUNTS):
            raise CorruptState(f"cards not conserved (DTC-1): {total}")
        if not (0 <= self.first < n):
            raise CorruptState("the first player is not a seat")
        if self.phase == RESPOND:
            if not (self.offer is not None and self.beat is None):
                raise CorruptState("a response with no offer to answer, or with an offer to beat")
            if not (self.turn == (self.giver + 1) % n):
                raise CorruptState("the responder is not the seat after the giver")
        elif self.phase == OFFER:
            if not (self.offer is None and 0 <= self.turn < n):
                raise CorruptState("an offer turn with an offer already made, or on no seat")
            if not (self.sizes[self.turn] >= 1):
                raise CorruptState("a seat with no cards cannot offer")
            if self.beat is not None:
                if not stronger_offer_exists(self.sizes[self.turn], *self.beat):
                    raise CorruptState("DTC-4")
                if not (1 <= self.beat[1] <= VALUES and self.beat[0] >= 1):
                    raise CorruptState(
                        "an offer to beat of no cards, or of a value outside 1..VALUES")
        else:
            if not (self.offer is None and self.beat is None and self.ended):
                raise CorruptState("a finished match with an offer, or not marked ended")
        if self.phase != OVER:
            if self.ended:
                raise CorruptState("marked ended while the match runs")

    def resample(self, seat: int | None, seed: int) -> DtcState:
        """Re-deal everything ``seat`` cannot see: the other hands, the draw pile and the
        pending offer's cards unless ``seat`` is its giver, pooled and redealt with the same
        sizes; the copy's RNG (future draws) is reseeded from ``seed``. Penalty piles (public,
        DTC-8), sizes and all claims stay. Not modelled: a giver's memory that an accepted offer
        sits in the receiver's hand (the pool is redrawn uniformly)."""
        new = self.clone(private_of=seat)
        new.rng = Rng(seed)
        pool = new.pile
        others = [s for s in range(self.players) if s != seat]
        for s in others:
            for r in range(RANKS):
                pool[r] += new.hands[s][r]
        hide_offer = new.offer is not None and seat != new.giver
        if hide_offer:
            for r in range(RANKS):
                pool[r] += new.offer[r]  # type: ignore[index]
        new.pile_size = sum(pool)
        for s in others:
            hand = [0] * RANKS
            for r in new._draw_cards(new.sizes[s]):
                hand[r] += 1
            new.hands[s] = hand
        if hide_offer:
            cards = [0] * RANKS
            for r in new._draw_cards(new.claim[0]):  # type: ignore[index]
                cards[r] += 1
            new.offer = cards
        return new


# ---- the heuristic bot ---------------------------------------------------------------------


class DtcHeuristicBot(Bot):
    """Plays from (view, legal actions) only.

    Offers: an honest offer whenever one is allowed (all its natural cards of the best value
    plus Jokers); otherwise the weakest allowed bluff with as many true cards as possible.
    Answers: call when the claim is impossible or unlikely given the cards it can see (own hand
    plus revealed penalty piles); accept otherwise.
    """

    call_threshold = 0.4
    call_threshold_can_raise = 0.2

    def choose(self, view: JSON, legal: Sequence[JSON]) -> JSON:
        if view["phase"] == RESPOND:
            return self._respond(view, legal)
        action = self._offer(view, legal)
        return action if action in legal else legal[0]

    @staticmethod
    def _unseen(view: JSON) -> list[int]:
        unseen = list(DECK_COUNTS)
        hand = view["hand"]
        for r, key in enumerate(KEYS):
            unseen[r] -= hand[key]
            for pen in view["penalty"]:
                unseen[r] -= pen[key]
        return unseen

    def _respond(self, view: JSON, legal: Sequence[JSON]) -> JSON:
        if not any(a["type"] == "accept" for a in legal):
            return {"type": "call"}
        offer = view["offer"]
        count, value = offer["count"], offer["value"]
        unseen = self._unseen(view)
        pool = sum(unseen)
        if view["variant_2a"]:
            good = sum(unseen[value - 1:])
        else:
            good = unseen[value - 1] + unseen[JOKER]
        if good < count:
            return {"type": "call"}  # the claim cannot be true
        p = 1.0
        for i in range(count):
            p *= (good - i) / (pool - i)
        hand = view["hand"]
        can_raise = hand[KEYS[value - 1]] + hand["joker"] >= 1
        threshold = self.call_threshold_can_raise if can_raise else self.call_threshold
        return {"type": "call"} if p < threshold else {"type": "accept"}

    def _offer(self, view: JSON, legal: Sequence[JSON]) -> JSON:
        hand = [view["hand"][k] for k in KEYS]
        variant = view["variant_2a"]
        beat = view["to_beat"]
        bc, bv = (beat["count"], beat["value"]) if beat else (0, 0)

        def good_cards(w: int) -> list[int]:
            """Ranks counting as true for a claim of ``w``, best to give first."""
            ranks = [w - 1]
            if variant:
                ranks += list(range(w, VALUES))
            return ranks + [JOKER]

        def take(w: int, k: int) -> dict[str, int]:
            cards = [0] * RANKS
            rem = k
            for r in good_cards(w):
                x = min(hand[r], rem)
                cards[r] += x
                rem -= x
            for r in range(RANKS):  # filler for a bluff: lowest ranks not yet used
                x = min(hand[r] - cards[r], rem)
                cards[r] += x
                rem -= x
            return counts_dict(cards)

        best: tuple[Any, ...] | None = None
        for w in range(1, VALUES + 1):
            avail = sum(hand[r] for r in good_cards(w))
            if avail >= bc + 1 or (avail >= max(bc, 1) and w > bv):
                key = (avail, w)  # honest: as many cards as possible, then higher value
                if best is None or key > best[0]:
                    best = (key, w, avail)
        if best is not None:
            _, w, k = best
            return {"type": "offer", "cards": take(w, k), "value": w}
        # No honest offer: the weakest allowed claim with the most true cards in it.
        size = sum(hand)
        options = []
        for w in range(1, VALUES + 1):
            for k in (bc, bc + 1):
                if k < 1 or k > size or (k == bc and w <= bv):
                    continue
                avail = min(k, sum(hand[r] for r in good_cards(w)))
                options.append((-(k - avail), -k, w, k))
        if not options:
            return legal[0]
        _, _, w, k = max(options)
        return {"type": "offer", "cards": take(w, k), "value": w}


# ---- the game -------------------------------------------------------------------------------


class Dtc(Game):
    id = "dtc"
    name = "DTC"
    min_players = 2  # DTC-1
    max_players = 6
    default_players = 4
    options = (
        Option("variant_2a", False,
               "DTC-3 variant 2a: a called offer is also true when every card is a Joker or "
               "has a value >= the claimed value.", type=bool),
    )
    state_class = DtcState
    bots = {"random": RandomBot, "heuristic": DtcHeuristicBot}
    lower_score_wins = True  # DTC-8: the fewest cards is best

    def legal_from_description(self, description: JSON) -> Sequence[JSON]:
        """An :class:`OfferList` from its ``describe()``; other descriptions are refused."""
        if description.get("type") != "offer":
            return super().legal_from_description(description)
        return OfferList([description["hand"][k] for k in KEYS], description["min_count"],
                         description["min_value"])

    def move_cap(self, players: int, options: JSON) -> int:
        """G-7: a bound legal play can never reach (26,532 moves).

        Between two calls the claims strictly increase in (count, value) with count <= the
        cards in play T, so at most 6*T offers and 6*T answers: 12*T moves. Each call moves at
        least one card into a penalty pile for good, so the i-th call round has T <= 67 - i:
        sum over i = 1..66 of 12*(67 - i) = 12 * 2211 = 26,532."""
        return 12 * DECK_SIZE * (DECK_SIZE + 1) // 2


GAME = Dtc()
DtcState.game = GAME
