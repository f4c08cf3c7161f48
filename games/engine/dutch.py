"""Le Dutch (rulebook ``rulebooks/dutch.fr.txt``, house rules DU-1..DU-8 and G-1..G-7).

Each player has face-down cards in numbered *slots* that nobody (not even the owner) sees unless
it learnt them; the aim is the lowest total of points. See ``docs/rules/dutch.md`` for the rules
summary, the action shapes, the view and every decision settled here.

Representation (kept small for speed):

* a card is an int ``0..53``: ``0..51`` is ``rank = c // 4 + 1`` (1 = Ace .. 13 = King) and
  ``suit = "SHDC"[c % 4]``; 52 and 53 are the two Jokers (DU-1, rank 0);
* each seat has three parallel lists: slot ids (stable public handles, G-6), cards, and a
  knowledge bit mask (bit ``s`` = seat ``s`` knows the card; bit ``players`` = it is public, so a
  spectator knows it too). Knowledge moves with the card on a Jack swap (DU-5).

Round flow: ``turn`` (draw / take / done) -> ``held`` (discard / replace) -> ``snap`` (sealed,
simultaneous: every other eligible seat snaps a slot or passes, DU-5) -> ``power`` (Ace, Jack,
Queen of the discard, DU-4; skipped when "no power" is the only choice) -> next turn.
Settled here: the snap step comes *before* the power step (see the docs).
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import Any

from .actions import LazyActions
from .base import JSON, Bot, Game, RandomBot, State, counted
from .errors import CorruptState, IllegalAction
from .options import Option
from .rng import Rng

# ---------------------------------------------------------------------------------------------
# Cards
# ---------------------------------------------------------------------------------------------

DECK_SIZE = 54  # DU-1: 52 cards + 2 Jokers
HAND_SIZE = 4
RANK_NAMES = ("Joker", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = "SHDC"  # spades, hearts, diamonds, clubs; spades and clubs are black

RANK = [c // 4 + 1 for c in range(52)] + [0, 0]
NAME = [RANK_NAMES[c // 4 + 1] + SUITS[c % 4] for c in range(52)] + ["Joker", "Joker"]


def _points(card: int) -> int:
    rank = RANK[card]
    if rank == 13:  # black King (spades, clubs) 0, red King 13
        return 0 if SUITS[card % 4] in "SC" else 13
    return rank  # Ace 1, 2..10 face value, Jack 11, Queen 12, Joker (rank 0) 0


POINTS = [_points(c) for c in range(DECK_SIZE)]

ACE, JACK, QUEEN = 1, 11, 12
POWER_NAMES = {ACE: "ace", JACK: "jack", QUEEN: "queen"}


class Phase(StrEnum):
    """The step of a turn: the state's ``phase``, its value in views and JSON."""

    TURN = "turn"
    HELD = "held"
    SNAP = "snap"
    POWER = "power"
    OVER = "over"

#: The members as module names too, for the rules below: ``phase is TURN`` reads a global,
#: where ``Phase.TURN`` reads an Enum class attribute, ten times slower on CPython 3.11
#: (docs/performance.md).
TURN, HELD, SNAP, POWER, OVER = Phase

# Where the held card came from
FROM_PILE, FROM_DISCARD = 1, 2
FROM_NAMES = {0: None, FROM_PILE: "pile", FROM_DISCARD: "discard"}

TURNS_PER_ROUND_CAP = 250

_MASK = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15


def shuffle(rng: Rng, seq: list) -> None:
    """Fisher-Yates driven by ``rng`` (G-1), exact and unbiased, and fast.

    It consumes ``rng``'s own SplitMix64 stream (the same numbers ``rng.next64()`` would give,
    inlined for speed: a deal is most of the cost of a short random round) and picks each index
    by Lemire's multiply-shift with rejection, so every permutation is equally likely.
    """
    s = rng.state
    for i in range(len(seq) - 1, 0, -1):
        n = i + 1
        while True:
            s = (s + _GAMMA) & _MASK
            z = ((s ^ (s >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
            m = (z ^ (z >> 31)) * n
            low = m & _MASK
            if low >= n or low >= (1 << 64) % n:
                break
        j = m >> 64
        seq[i], seq[j] = seq[j], seq[i]
    rng.state = s


def card_points(name: str) -> int:
    """Points of a card given by its view name ("QH", "10S", "KC", "Joker")."""
    if name == "Joker":
        return 0
    rank, suit = name[:-1], name[-1]
    if rank == "K":
        return 0 if suit in "SC" else 13
    return {"A": 1, "J": 11, "Q": 12}.get(rank) or int(rank)


def card_rank(name: str) -> str:
    """Rank part of a view name ("QH" -> "Q", "Joker" -> "Joker"): what snaps compare (DU-5)."""
    return "Joker" if name == "Joker" else name[:-1]


# ---------------------------------------------------------------------------------------------
# The lazy list of Jack swaps
# ---------------------------------------------------------------------------------------------


class PowerActions(LazyActions):
    """The complete legal actions of a power step, lazily: ``head`` (explicit dicts: "no_power",
    Queen looks or Ace targets) followed, for a Jack, by every swap.

    Swap order: seat pairs ``(p, q)`` with ``p < q`` in increasing order, then ``p``'s slots in
    slot order, then ``q``'s slots in slot order. A swap is ``{"type": "jack", "a": {"seat": p,
    "slot": i}, "b": {"seat": q, "slot": j}}`` with ``a``'s seat the lower one (canonical form).
    The slot lists are snapshotted, so the sequence stays valid after the state moves on.
    """

    __slots__ = ("_blocks", "_head", "_len")

    def __init__(self, head: list[JSON], swap_seats: list[tuple[int, list[int]]] = ()) -> None:
        self._head = head
        blocks = []
        total = len(head)
        for k, (p, ps) in enumerate(swap_seats):
            for q, qs in swap_seats[k + 1:]:
                size = len(ps) * len(qs)
                if size:
                    blocks.append((total, p, ps, q, qs))
                    total += size
        self._blocks = blocks
        self._len = total

    def __len__(self) -> int:
        return self._len

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._len))]
        if isinstance(index, bool) or not isinstance(index, int):
            raise TypeError("indices must be integers or slices")
        if index < 0:
            index += self._len
        if not 0 <= index < self._len:
            raise IndexError("power action index out of range")
        head = self._head
        if index < len(head):
            return dict(head[index])
        for start, p, ps, q, qs in reversed(self._blocks):
            if index >= start:
                i, j = divmod(index - start, len(qs))
                return {"type": "jack", "a": {"seat": p, "slot": ps[i]},
                        "b": {"seat": q, "slot": qs[j]}}
        raise IndexError(index)  # pragma: no cover

    def __iter__(self):
        yield from (dict(h) for h in self._head)
        for _start, p, ps, q, qs in self._blocks:
            for i in ps:
                for j in qs:
                    yield {"type": "jack", "a": {"seat": p, "slot": i},
                           "b": {"seat": q, "slot": j}}

    def __contains__(self, action: Any) -> bool:
        if not isinstance(action, dict):
            return False
        if action in self._head:
            return True
        if action.get("type") != "jack" or len(action) != 3:
            return False
        a, b = action.get("a"), action.get("b")
        if not (_is_handle(a) and _is_handle(b)):
            return False
        for _start, p, ps, q, qs in self._blocks:
            if a["seat"] == p and b["seat"] == q:
                return a["slot"] in ps and b["slot"] in qs
        return False


def _is_handle(h: Any) -> bool:
    return (isinstance(h, dict) and len(h) == 2 and type(h.get("seat")) is int
            and type(h.get("slot")) is int)


# ---------------------------------------------------------------------------------------------
# State
# ---------------------------------------------------------------------------------------------

_TURN_ACTIONS = ("draw", "take", "done")


class DutchState(State):
    """One match of Le Dutch in progress."""

    # ---- setup ----------------------------------------------------------------------------

    def setup(self) -> None:
        n = self.players
        self._init_fields()
        self.first0 = self.rng.below(n)  # G-1: first player of round 1 drawn from the seed
        self.totals = [0] * n
        self.history = []
        self.round = 0
        self._deal()

    def _init_fields(self) -> None:
        n = self.players
        rounds = self.options.get("rounds")
        self.n_rounds = n if rounds is None else rounds  # DU-8
        self.peek = self.options.get("initial_peek", 0)  # DU-2
        self.pub = 1 << n  # the "public" knowledge bit
        self.all_bits = (1 << (n + 1)) - 1
        self.sid: list[list[int]] = [[] for _ in range(n)]
        self.cd: list[list[int]] = [[] for _ in range(n)]
        self.km: list[list[int]] = [[] for _ in range(n)]
        self.nxt = [0] * n
        self.pile: list[int] = []
        self.disc: list[int] = []
        self.phase = TURN
        self.cur = 0
        self.held = -1
        self.held_src = 0
        self.dead_top = False
        self.snap_card = -1
        self.asked: list[int] = []
        self.answers: list[int | None] = [None] * n
        self.power = 0
        self.done = [False] * n
        self.first_done = -1
        self._ta: list[int] = []
        self._legal: dict[int, Sequence[JSON]] = {}

    def _deal(self) -> None:
        """Deal a round: fresh shuffle of all 54 cards, 4 face-down slots each (DU-1, DU-2)."""
        n = self.players
        deck = list(range(DECK_SIZE))
        shuffle(self.rng, deck)
        first = (self.first0 + self.round) % n  # DU-8: the first player rotates each round
        peek = self.peek
        private = {}
        for s in range(n):
            cards = deck[s * HAND_SIZE:(s + 1) * HAND_SIZE]
            self.sid[s] = list(range(HAND_SIZE))
            self.cd[s] = cards
            bit = 1 << s
            # DU-2: the seat sees its first `initial_peek` slots (settled here: slots 0..k-1).
            self.km[s] = [bit if i < peek else 0 for i in range(HAND_SIZE)]
            self.nxt[s] = HAND_SIZE
            if peek:
                private[s] = {"peek": [{"slot": i, "card": NAME[cards[i]]} for i in range(peek)]}
        self.pile = deck[n * HAND_SIZE:]
        self.disc = []
        self.dead_top = False
        self.done = [False] * n
        self.first_done = -1
        self.held = -1
        self.held_src = 0
        self.snap_card = -1
        self.asked = []
        self.answers = [None] * n
        self.power = 0
        self.cur = first
        self.phase = TURN
        self._ta = [first]
        self._legal = {}
        self.emit("round_start", round=self.round + 1, first_player=first, pile=len(self.pile),
                  private=private or None)

    # ---- asking ---------------------------------------------------------------------------

    def to_act(self) -> list[int]:
        return self._ta[:]

    @property
    def is_over(self) -> bool:
        return self.phase == OVER

    def legal_actions(self, seat: int) -> Sequence[JSON]:
        legal = self._legal.get(seat)
        if legal is None:
            legal = self._legal[seat] = self._compute_legal(seat)
        return legal

    def _compute_legal(self, seat: int) -> Sequence[JSON]:
        if seat not in self._ta:
            return []
        phase = self.phase
        if phase == TURN:
            out = [{"type": "draw"}]
            if self.disc and not self.dead_top:  # DU-3; a mistaken snap cannot be recovered
                out.append({"type": "take"})
            out.append({"type": "done"})  # DU-6
            return out
        if phase == HELD:
            out = [{"type": "discard"}] if self.held_src == FROM_PILE else []  # DU-3
            out += [{"type": "replace", "slot": {"seat": seat, "slot": i}} for i in self.sid[seat]]
            return out
        if phase == SNAP:
            # DU-5 / G-5: every own slot is legal, whatever the seat knows.
            return [{"type": "pass"}] + [{"type": "snap", "slot": {"seat": seat, "slot": i}}
                                         for i in self.sid[seat]]
        # The power phase (DU-4)
        head: list[JSON] = [{"type": "no_power"}]
        power = self.power
        if power == QUEEN:
            head += [{"type": "queen", "slot": {"seat": seat, "slot": i}} for i in self.sid[seat]]
            return PowerActions(head)
        if power == ACE:
            head += [{"type": "ace", "seat": t} for t in self._ace_targets()]
            return PowerActions(head)
        return PowerActions(head, [(s, list(self.sid[s])) for s in self._jack_seats()])

    def _ace_targets(self) -> list[int]:
        """DU-4: opponents who have not said "J'ai terminé", if the pile can give a card."""
        if not self.pile and len(self.disc) <= 1:
            return []
        cur, done = self.cur, self.done
        return [t for t in range(self.players) if t != cur and not done[t]]

    def _jack_seats(self) -> list[int]:
        """DU-4: seats a Jack may touch: not "done", holding at least one card."""
        done, cd = self.done, self.cd
        return [s for s in range(self.players) if not done[s] and cd[s]]

    def default_action(self, seat: int) -> JSON:
        """Timeout/failure action: draw at the start of a turn (never "done"), discard the drawn
        card (a card taken from the discard goes into the first slot), pass on a snap, and use
        no power: the most neutral choices, which leave the seat's cards unchanged."""
        phase = self.phase
        if phase == TURN:
            return {"type": "draw"}
        if phase == HELD:
            if self.held_src == FROM_PILE:
                return {"type": "discard"}
            return {"type": "replace", "slot": {"seat": seat, "slot": self.sid[seat][0]}}
        if phase == SNAP:
            return {"type": "pass"}
        return {"type": "no_power"}

    # ---- checking -------------------------------------------------------------------------

    @staticmethod
    def _keys(action: JSON, kind: str, *keys: str) -> None:
        if len(action) != len(keys) + 1 or any(k not in action for k in keys):
            want = ", ".join(repr(k) for k in ("type", *keys))
            extra = sorted(str(k) for k in action if k != "type" and k not in keys)
            missing = [k for k in keys if k not in action]
            detail = []
            if extra:
                detail.append(f"unknown key(s) {', '.join(extra)}")
            if missing:
                detail.append(f"missing key(s) {', '.join(missing)}")
            raise IllegalAction(f"a {kind!r} action has exactly the keys {want}"
                                f" ({'; '.join(detail)})")

    def _handle(self, h: Any, what: str, owner: int | None = None) -> tuple[int, int]:
        """Parse a public slot handle (G-6); return ``(seat, index in the seat's lists)``."""
        if not isinstance(h, dict) or len(h) != 2 or "seat" not in h or "slot" not in h:
            raise IllegalAction(f"{what} must be a slot handle {{\"seat\": s, \"slot\": i}},"
                                f" not {h!r}")
        s, i = h["seat"], h["slot"]
        if type(s) is not int or type(i) is not int:
            raise IllegalAction(f"{what}: seat and slot must be integers, not {s!r} and {i!r}")
        if not 0 <= s < self.players:
            raise IllegalAction(f"{what}: no seat {s} in this match")
        if owner is not None and s != owner:
            raise IllegalAction(f"{what} must be one of your own slots (seat {owner}),"
                                f" not seat {s}")
        try:
            return s, self.sid[s].index(i)
        except ValueError:
            raise IllegalAction(
                f"{what}: seat {s} has no slot {i} (its slots: {self.sid[s]})") from None

    def _check(self, seat: int, action: JSON) -> Any:
        t = action.get("type")
        if not isinstance(t, str):
            raise IllegalAction(f"an action needs a string \"type\", not {t!r}")
        phase = self.phase
        if phase == TURN:
            if t not in _TURN_ACTIONS:
                raise IllegalAction(f"at the start of your turn: \"draw\", \"take\" (the top"
                                    f" discard) or \"done\" (J'ai terminé), not {t!r}")
            if len(action) != 1:
                self._keys(action, t)
            if t == "take" and not self.disc:
                raise IllegalAction("DU-3: the discard pile is empty (first turn of the round):"
                                    " draw instead")
            if t == "take" and self.dead_top:
                raise IllegalAction("the top discard was thrown by a wrong snap: cards thrown"
                                    " by mistake cannot be recovered (rulebook; settled here)")
            return (t,)
        if phase == HELD:
            if t == "discard":
                if len(action) != 1:
                    self._keys(action, t)
                if self.held_src != FROM_PILE:
                    raise IllegalAction("DU-3: a card taken from the discard pile must be put"
                                        " into your cards (\"replace\"), not discarded")
                return (t,)
            if t == "replace":
                if len(action) != 2 or "slot" not in action:
                    self._keys(action, t, "slot")
                return (t, self._handle(action["slot"], "replace slot", seat)[1])
            raise IllegalAction(f"with a card in hand: \"discard\" it or \"replace\" one of your"
                                f" slots with it, not {t!r}")
        if phase == SNAP:
            if t == "pass":
                if len(action) != 1:
                    self._keys(action, t)
                return (t, -1)
            if t == "snap":
                if len(action) != 2 or "slot" not in action:
                    self._keys(action, t, "slot")
                s, idx = self._handle(action["slot"], "snap slot", seat)
                return (t, self.sid[s][idx])
            raise IllegalAction(f"DU-5: \"snap\" one of your slots or \"pass\", not {t!r}")
        # The power phase
        power = self.power
        if t == "no_power":
            if len(action) != 1:
                self._keys(action, t)
            return (t,)
        expected = POWER_NAMES[power]
        if t != expected:
            raise IllegalAction(f"DU-4: the discarded card's power is {expected!r}: use it or"
                                f" choose \"no_power\", not {t!r}")
        if power == QUEEN:
            self._keys(action, t, "slot")
            return (t, self._handle(action["slot"], "queen slot", seat)[1])
        if power == ACE:
            self._keys(action, t, "seat")
            target = action["seat"]
            if type(target) is not int or not 0 <= target < self.players:
                raise IllegalAction(f"ace: \"seat\" must be a seat number, not {target!r}")
            if target == seat:
                raise IllegalAction("DU-4: the Ace adds a card to an opponent, not to yourself")
            if self.done[target]:
                raise IllegalAction(f"DU-4: seat {target} said \"J'ai terminé\" and cannot be"
                                    " touched")
            if not self.pile and len(self.disc) <= 1:
                raise IllegalAction("DU-7: no card left to add")
            return (t, target)
        # JACK
        self._keys(action, t, "a", "b")
        sa, ia = self._handle(action["a"], "jack a")
        sb, ib = self._handle(action["b"], "jack b")
        if sa == sb:
            raise IllegalAction("DU-5: the Jack swaps cards of two different players")
        if sa > sb:
            raise IllegalAction("jack: give the lower seat as \"a\" (canonical form; the swap"
                                " is the same either way)")
        for s in (sa, sb):
            if self.done[s]:
                raise IllegalAction(f"DU-4: seat {s} said \"J'ai terminé\" and cannot be touched")
        return (t, sa, ia, sb, ib)

    # ---- applying -------------------------------------------------------------------------

    def _apply(self, seat: int, parsed: Any) -> None:
        self._legal = {}
        kind = parsed[0]
        if kind == "draw":
            card = self._pop_pile()  # never None: a turn starts only with a non-empty pile
            self.held, self.held_src, self.phase = card, FROM_PILE, HELD
            self.emit("draw", private={seat: {"card": NAME[card]}}, seat=seat)
        elif kind == "take":
            card = self.disc.pop()
            self.held, self.held_src, self.phase = card, FROM_DISCARD, HELD
            self.emit("take", seat=seat, card=NAME[card])
        elif kind == "done":
            self.done[seat] = True
            if self.first_done < 0:
                self.first_done = seat
            self.emit("done", seat=seat, auto=False)
            self._end_turn()
        elif kind == "discard":
            card, self.held, self.held_src = self.held, -1, 0
            self.disc.append(card)
            self.dead_top = False
            self.emit("discard", seat=seat, card=NAME[card])
            self._after_discard(card)
        elif kind == "replace":
            idx = parsed[1]
            cards = self.cd[seat]
            old = cards[idx]
            cards[idx] = self.held
            public = self.held_src == FROM_DISCARD
            # The placer knows the card; a card taken from the face-up discard is known to all.
            self.km[seat][idx] = self.all_bits if public else 1 << seat
            placed = NAME[self.held] if public else None
            self.held, self.held_src = -1, 0
            self.disc.append(old)
            self.dead_top = False
            self.emit("replace", seat=seat, slot=self.sid[seat][idx], card=NAME[old],
                      placed=placed)
            self._after_discard(old)
        elif kind == "pass" or kind == "snap":
            self.answers[seat] = parsed[1]
            self._ta.remove(seat)
            self.emit("snap_sealed", seat=seat)  # DU-5: the answer itself stays sealed
            if not self._ta:
                self._resolve_snaps()
        else:
            self._apply_power(seat, parsed)

    def _apply_power(self, seat: int, parsed: Any) -> None:
        kind = parsed[0]
        if kind == "no_power":
            self.emit("power", seat=seat, power=POWER_NAMES[self.power], used=False)
        elif kind == "queen":
            idx = parsed[1]
            self.km[seat][idx] |= 1 << seat
            self.emit("power", private={seat: {"card": NAME[self.cd[seat][idx]]}}, seat=seat,
                      power="queen", used=True, slot={"seat": seat, "slot": self.sid[seat][idx]})
        elif kind == "ace":
            target = parsed[1]
            card = self._pop_pile()
            if card is None:  # pragma: no cover - _check guarantees a card
                raise IllegalAction("DU-7: no card left to add")
            slot = self._add_slot(target, card)
            self.emit("power", seat=seat, power="ace", used=True,
                      slot={"seat": target, "slot": slot})
        else:  # jack: blind swap; knowledge moves with the card (DU-5)
            _k, sa, ia, sb, ib = parsed
            cd, km = self.cd, self.km
            cd[sa][ia], cd[sb][ib] = cd[sb][ib], cd[sa][ia]
            km[sa][ia], km[sb][ib] = km[sb][ib], km[sa][ia]
            self.emit("power", seat=seat, power="jack", used=True,
                      a={"seat": sa, "slot": self.sid[sa][ia]},
                      b={"seat": sb, "slot": self.sid[sb][ib]})
        self._end_turn()

    def _add_slot(self, seat: int, card: int) -> int:
        """A new face-down slot nobody knows (Ace card, penalty card)."""
        slot = self.nxt[seat]
        self.nxt[seat] = slot + 1
        self.sid[seat].append(slot)
        self.cd[seat].append(card)
        self.km[seat].append(0)
        return slot

    def _refill(self) -> bool:
        """DU-7: the discard pile except its top is shuffled (seeded) into a new pile."""
        disc = self.disc
        if len(disc) <= 1:
            return False
        pile = disc[:-1]
        shuffle(self.rng, pile)
        self.pile = pile
        self.disc = [disc[-1]]
        self.emit("reshuffle", pile=len(pile))
        return True

    def _pop_pile(self) -> int | None:
        if not self.pile and not self._refill():
            return None
        return self.pile.pop()

    def _after_discard(self, card: int) -> None:
        """DU-5: open the sealed snap step for every other seat not done and holding cards."""
        self.snap_card = card
        n, cur, done, cd = self.players, self.cur, self.done, self.cd
        asked = []
        for k in range(1, n):
            s = (cur + k) % n
            if not done[s] and cd[s]:
                asked.append(s)
        if asked:
            self.phase = SNAP
            self.asked = asked
            self._ta = asked[:]
        else:
            self._after_snaps()

    def _resolve_snaps(self) -> None:
        """DU-5: resolve clockwise from the discarder against the rank of that discard."""
        rank = RANK[self.snap_card]
        answers = self.answers
        results = []
        exhausted = False
        for s in self.asked:
            slot = answers[s]
            if slot is None or slot < 0:
                continue
            sid = self.sid[s]
            idx = sid.index(slot)
            del sid[idx]
            card = self.cd[s].pop(idx)
            del self.km[s][idx]
            self.disc.append(card)  # right or wrong, the card is discarded face up
            ok = RANK[card] == rank  # colour irrelevant; Joker matches Joker
            self.dead_top = not ok  # "les cartes jetées par erreur ne peuvent être récupérées"
            result = {"seat": s, "slot": slot, "card": NAME[card], "ok": ok}
            if not ok:
                penalty = []
                for _ in range(2):
                    pc = self._pop_pile()
                    if pc is None:  # DU-7: nothing left at all; the round ends after this step
                        exhausted = True
                        break
                    penalty.append(self._add_slot(s, pc))
                result["penalty"] = penalty
            results.append(result)
        self.answers = [None] * self.players
        self.asked = []
        self.emit("snaps", rank=RANK_NAMES[rank], results=results)
        if exhausted:
            self._end_round()
        else:
            self._after_snaps()

    def _after_snaps(self) -> None:
        """DU-4: the discard's power, if it has one and a real choice exists."""
        power = RANK[self.snap_card]
        if power == QUEEN:
            usable = bool(self.cd[self.cur])
        elif power == ACE:
            usable = bool(self._ace_targets())
        elif power == JACK:
            usable = len(self._jack_seats()) >= 2
        else:
            usable = False
        if usable:
            self.phase = POWER
            self.power = power
            self._ta = [self.cur]
        else:
            self._end_turn()

    def _end_turn(self) -> None:
        """Next player clockwise; DU-6 auto-"done" and end of round; DU-7 empty pile."""
        n, done, cd = self.players, self.done, self.cd
        self.snap_card = -1
        self.power = 0
        p = self.cur
        while True:
            p = (p + 1) % n
            if p == self.first_done:  # DU-6: everyone else has had its one last turn
                self._end_round()
                return
            if not cd[p]:  # DU-6: no cards at the start of its turn: says it automatically
                if not done[p]:
                    done[p] = True
                    if self.first_done < 0:
                        self.first_done = p
                    self.emit("done", seat=p, auto=True)
                continue
            if not self.pile and not self._refill():  # DU-7: nothing to draw: round over
                self._end_round()
                return
            self.cur = p
            self.phase = TURN
            self._ta = [p]
            return

    def _score_round(self, partial: bool = False) -> None:
        scores = [sum(POINTS[c] for c in cards) for cards in self.cd]
        for s, pts in enumerate(scores):
            self.totals[s] += pts
        self.history.append(scores)
        self.emit("round_end", round=self.round + 1, partial=partial,
                  hands=[[NAME[c] for c in cards] for cards in self.cd],
                  scores=scores, totals=list(self.totals))

    def _end_round(self) -> None:
        self._score_round()
        self.round += 1
        if self.round >= self.n_rounds:  # DU-8
            self._finish()
        else:
            self._deal()

    def _finish(self) -> None:
        self.phase = OVER
        self._ta = []
        self._legal = {}
        self.emit("match_end", totals=list(self.totals))

    def _end_at_move_cap(self) -> None:
        """G-7: the round in progress is scored with the cards as they lie, then the match ends."""
        if self.phase != OVER:
            self._score_round(partial=True)
            self.round += 1
            self._finish()

    # ---- results & views ------------------------------------------------------------------

    def _outcome(self) -> tuple[list[Any], list[Any]]:
        """Scores are the cumulative totals of finished rounds; lowest is best (DU-8)."""
        return list(self.totals), list(self.totals)

    def _view(self, seat: int | None) -> JSON:
        n = self.players
        bit = self.pub if seat is None else 1 << seat
        hands = []
        for s in range(n):
            slots = []
            for slot, card, mask in zip(self.sid[s], self.cd[s], self.km[s]):
                slots.append({"slot": slot, "card": NAME[card] if mask & bit else None,
                              "known_by": [k for k in range(n) if mask >> k & 1]})
            hands.append({"seat": s, "slots": slots, "done": self.done[s]})
        held = None
        if self.held >= 0 and (self.held_src == FROM_DISCARD or seat == self.cur):
            held = NAME[self.held]
        out: JSON = {
            "round": min(self.round + 1, self.n_rounds),
            "rounds": self.n_rounds,
            "initial_peek": self.peek,
            "first_player": (self.first0 + min(self.round, self.n_rounds - 1)) % n,
            "phase": self.phase,
            "current": self.cur,
            "hands": hands,
            "pile": len(self.pile),
            "discard": [NAME[c] for c in self.disc],
            "discard_top_dead": self.dead_top,
            "held": held,
            "held_from": FROM_NAMES[self.held_src],
            "first_done": None if self.first_done < 0 else self.first_done,
            "totals": list(self.totals),
            "history": [list(h) for h in self.history],
        }
        if self.phase == SNAP:
            card = self.snap_card
            snap: JSON = {"card": NAME[card], "rank": card_rank(NAME[card]),
                          "discarder": self.cur, "asked": list(self.asked)}
            if seat is not None and seat in self.asked and self.answers[seat] is not None:
                ans = self.answers[seat]
                snap["my_answer"] = ({"type": "pass"} if ans < 0 else
                                     {"type": "snap", "slot": {"seat": seat, "slot": ans}})
            out["snap"] = snap
        if self.phase == POWER:
            out["power"] = POWER_NAMES[self.power]
            out["power_card"] = NAME[self.snap_card]
        return out

    def _face_up(self, view: JSON, seat: int) -> JSON:
        """Every slot of ``seat`` named, looked at or not (its ``known_by`` still says who
        had): a slot nobody has looked at is hidden from its owner too, so only a replay of
        a match that is over shows it (``State.face_up_view``)."""
        for shown, card in zip(view["hands"][seat]["slots"], self.cd[seat]):
            shown["card"] = NAME[card]
        return view

    # ---- saving ---------------------------------------------------------------------------

    def dump(self) -> JSON:
        n = self.players
        return {
            "round": self.round,
            "first0": self.first0,
            "phase": self.phase,
            "cur": self.cur,
            "slots": [[[self.sid[s][i], self.cd[s][i], self.km[s][i]]
                       for i in range(len(self.sid[s]))] for s in range(n)],
            "next_slot": list(self.nxt),
            "pile": list(self.pile),
            "discard": list(self.disc),
            "dead_top": self.dead_top,
            "held": self.held,
            "held_from": FROM_NAMES[self.held_src],
            "snap_card": self.snap_card,
            "asked": list(self.asked),
            "answers": list(self.answers),
            "power": self.power,
            "done": list(self.done),
            "first_done": self.first_done,
            "totals": list(self.totals),
            "history": [list(h) for h in self.history],
        }

    def load(self, data: JSON) -> None:
        n = self.players
        self._init_fields()
        self.round = data["round"]
        self.first0 = data["first0"]
        self.phase = Phase(data["phase"])
        self.cur = data["cur"]
        slots = data["slots"]
        if len(slots) != n:
            raise ValueError("one slot list per seat expected")
        self.sid = [[x[0] for x in slots[s]] for s in range(n)]
        self.cd = [[x[1] for x in slots[s]] for s in range(n)]
        self.km = [[x[2] for x in slots[s]] for s in range(n)]
        self.nxt = list(data["next_slot"])
        self.pile = list(data["pile"])
        self.disc = list(data["discard"])
        self.dead_top = data["dead_top"]
        self.held = data["held"]
        self.held_src = {None: 0, "pile": FROM_PILE, "discard": FROM_DISCARD}[data["held_from"]]
        self.snap_card = data["snap_card"]
        self.asked = list(data["asked"])
        self.answers = list(data["answers"])
        self.power = data["power"]
        self.done = list(data["done"])
        self.first_done = data["first_done"]
        self.totals = list(data["totals"])
        self.history = [list(h) for h in data["history"]]
        if self.phase == OVER:
            self._ta = []
        elif self.phase == SNAP:
            self._ta = [s for s in self.asked if self.answers[s] is None]
        else:
            self._ta = [self.cur]

    def check_invariants(self) -> None:
        n = self.players
        every = [c for cards in self.cd for c in cards] + self.pile + self.disc
        if self.held >= 0:
            every.append(self.held)
        if not (sorted(every) == list(range(DECK_SIZE))):
            raise CorruptState("cards are not conserved (54, DU-1)")
        if not all(type(c) is int for c in every):
            raise CorruptState("cards must be integers")
        if not (0 <= self.first0 < n and 0 <= self.cur < n):
            raise CorruptState("bad seat number")
        if not (len(self.nxt) == len(self.done) == len(self.totals) == len(self.answers) == n):
            raise CorruptState(
                "slot counters, done flags, totals and answers need one entry per seat")
        for s in range(n):
            ids = self.sid[s]
            if not (len(ids) == len(self.cd[s]) == len(self.km[s])):
                raise CorruptState("a seat's slot ids, cards and knowledge masks differ in number")
            if not (len(set(ids)) == len(ids)):
                raise CorruptState(f"seat {s} has duplicate slot ids")
            if not all(type(i) is int and 0 <= i < self.nxt[s] for i in ids):
                raise CorruptState("bad slot id")
            if not (ids == sorted(ids)):
                raise CorruptState("slot ids keep their order")
            if not all(type(m) is int and 0 <= m <= self.all_bits for m in self.km[s]):
                raise CorruptState("bad knowledge mask")
        if not (len(self.history) == self.round):
            raise CorruptState("one score line per finished round")
        if not (self.totals == [sum(h[s] for h in self.history) for s in range(n)]):
            raise CorruptState("bad totals")
        if not all(type(d) is bool for d in self.done):
            raise CorruptState("done flags must be booleans")
        if not (type(self.dead_top) is bool and (self.disc or not self.dead_top)):
            raise CorruptState("dead_top must be a boolean, and false on an empty discard pile")
        if self.first_done >= 0:
            if not self.done[self.first_done]:
                raise CorruptState("first_done must have said done")
        else:
            if any(self.done):
                raise CorruptState("a done seat must be recorded as first_done")
        phase = self.phase
        if phase == OVER:
            if not (self.round == self.n_rounds or self.moves >= self.game.move_cap(
                n, self.options)):
                raise CorruptState("match over too early")
            return
        if not (self.round < self.n_rounds):
            raise CorruptState("a round past the last while the match runs")
        if self.done[self.cur]:
            raise CorruptState("the player on turn has not said done")
        if phase == HELD:
            if not (self.held >= 0 and self.held_src in (FROM_PILE, FROM_DISCARD)):
                raise CorruptState(
                    "the held phase without a held card, or with no pile it came from")
        else:
            if not (self.held == -1 and self.held_src == 0):
                raise CorruptState("a held card outside the held phase")
        if phase in (SNAP, POWER):
            if not (0 <= self.snap_card < DECK_SIZE):
                raise CorruptState("a snap or power phase without the discarded card")
        if phase == SNAP:
            if not (self.asked and self.cur not in self.asked):
                raise CorruptState("a snap step asking nobody, or the player on turn")
            if not any(self.answers[s] is None for s in self.asked):
                raise CorruptState("a resolved snap step")
            for s in range(n):
                a = self.answers[s]
                if s not in self.asked:
                    if not (a is None):
                        raise CorruptState("an answer from a seat the snap step did not ask")
                elif a is not None:
                    if not (a == -1 or a in self.sid[s]):
                        raise CorruptState("a snap names a missing slot")
        else:
            if not (not self.asked and all(a is None for a in self.answers)):
                raise CorruptState("seats asked, or answers kept, outside a snap step")
        if phase == POWER:
            if not (self.power in POWER_NAMES):
                raise CorruptState("the power phase without a power")
        else:
            if not (self.power == 0):
                raise CorruptState("a power outside the power phase")
        if phase == TURN:
            if not self.cd[self.cur]:
                raise CorruptState("a turn starts only with cards (DU-6)")
            if not self.pile:
                raise CorruptState("a turn starts only with a draw pile (DU-7)")

    # ---- determinization ------------------------------------------------------------------

    def resample(self, seat: int | None, seed: int) -> DutchState:
        """Keep every card ``seat`` knows where it is; pool the slots it does not know, the
        pile and a held card it did not see, shuffle, and redeal them into the same places.
        Sealed snap answers of other seats are redrawn among their legal answers."""
        new = self.clone(private_of=seat)
        rng = Rng(seed)
        bit = self.pub if seat is None else 1 << seat
        places = []
        pool = []
        for s in range(self.players):
            cards, masks = new.cd[s], new.km[s]
            for i, m in enumerate(masks):
                if not m & bit:
                    places.append((s, i))
                    pool.append(cards[i])
        hidden_held = (new.held >= 0 and new.held_src == FROM_PILE and seat != new.cur)
        if hidden_held:
            pool.append(new.held)
        pool += new.pile
        shuffle(rng, pool)
        k = 0
        for s, i in places:
            new.cd[s][i] = pool[k]
            k += 1
        if hidden_held:
            new.held = pool[k]
            k += 1
        new.pile = pool[k:]
        if new.phase == SNAP:
            for s in new.asked:
                if s != seat and new.answers[s] is not None:
                    options = [-1] + new.sid[s]
                    new.answers[s] = options[rng.below(len(options))]
        new.rng = rng.fork()
        return new


# ---------------------------------------------------------------------------------------------
# Heuristic bot
# ---------------------------------------------------------------------------------------------

EXPECTED_UNKNOWN = 338 / 54  # mean points of a card (about 6.3)


class HeuristicBot(Bot):
    """Plays from its view only: keeps known low cards, swaps out known high ones, looks at
    unknown own slots with a Queen, snaps only cards it knows match, and says "J'ai terminé"
    once its estimated total is low."""

    done_threshold = 6.0

    def choose(self, view: JSON, legal: Sequence[JSON]) -> JSON:
        me = self.seat
        phase = view["phase"]
        slots = view["hands"][me]["slots"]
        known = [(card_points(s["card"]), s["slot"], s["card"]) for s in slots
                 if s["card"] is not None]
        unknown = [s["slot"] for s in slots if s["card"] is None]
        worst = max(known) if known else None

        def pick(action: JSON) -> JSON:
            return action if action in legal else legal[0]

        def slot(i: int) -> JSON:
            return {"seat": me, "slot": i}

        if phase == "turn":
            estimate = sum(k[0] for k in known) + EXPECTED_UNKNOWN * len(unknown)
            if estimate <= self.done_threshold:
                return pick({"type": "done"})
            if view["discard"]:
                top = card_points(view["discard"][-1])
                if (worst is not None and top < worst[0] - 2) or (unknown and top <= 2):
                    return pick({"type": "take"})
            return {"type": "draw"}
        if phase == "held":
            h = card_points(view["held"])
            if worst is not None and h < worst[0]:
                return pick({"type": "replace", "slot": slot(worst[1])})
            if unknown and h <= 4:
                return pick({"type": "replace", "slot": slot(unknown[0])})
            if {"type": "discard"} in legal:
                return {"type": "discard"}
            target = unknown[0] if unknown else worst[1]
            return pick({"type": "replace", "slot": slot(target)})
        if phase == "snap":
            rank = view["snap"]["rank"]
            matching = [k for k in known if card_rank(k[2]) == rank]
            if matching:
                return pick({"type": "snap", "slot": slot(max(matching)[1])})
            return {"type": "pass"}
        if phase == "power":
            power = view["power"]
            if power == "queen" and unknown:
                return pick({"type": "queen", "slot": slot(unknown[0])})
            if power == "ace":
                targets = [a["seat"] for a in legal if a["type"] == "ace"]
                if targets:
                    # Burden the opponent with the fewest cards (the likeliest round winner).
                    best = min(targets, key=lambda t: (len(view["hands"][t]["slots"]), t))
                    return pick({"type": "ace", "seat": best})
            if power == "jack" and worst is not None and worst[0] >= 8:
                best_choice = None
                for hand in view["hands"]:
                    t = hand["seat"]
                    if t == me or hand["done"]:
                        continue
                    for s in hand["slots"]:
                        if s["card"] is not None:
                            value = card_points(s["card"])
                        elif t in s["known_by"]:
                            value = 4.0  # its owner knows it and kept it: likely low
                        else:
                            value = EXPECTED_UNKNOWN
                        if value < worst[0] - 1 and (best_choice is None
                                                     or value < best_choice[0]):
                            best_choice = (value, t, s["slot"])
                if best_choice is not None:
                    _v, t, other = best_choice
                    a, b = slot(worst[1]), {"seat": t, "slot": other}
                    if t < me:
                        a, b = b, a
                    return pick({"type": "jack", "a": a, "b": b})
            return pick({"type": "no_power"})
        return legal[0]


# ---------------------------------------------------------------------------------------------
# Game
# ---------------------------------------------------------------------------------------------


MAX_ROUNDS = 60


def _check_equal_starts(rounds: int | None, options: JSON, players: int) -> str | None:
    """DU-8: the first player moves on one seat a round, so only a multiple of the players
    gives every seat as many starts ("Veillez à ce que chaque joueur commence une manche le
    même nombre de fois"). A new match's rule: those made before it still load and replay."""
    if rounds is None or rounds % players == 0:
        return None
    return (f"{counted(rounds, 'round')} cannot give {players} players as many starts each "
            f"(DU-8): use a multiple of {players} up to {MAX_ROUNDS // players * players}, or "
            f"null for one round each")


class Dutch(Game):
    """Le Dutch: lowest total of face-down cards wins, with snaps, powers and "J'ai terminé"."""

    id = "dutch"
    name = "Le Dutch"
    min_players = 2  # DU-1
    max_players = 6
    default_players = 4
    options = (
        Option("initial_peek", 0, "DU-2: how many of its own cards (slots 0..k-1) each player"
               " sees at the start of a round.", int, minimum=0, maximum=HAND_SIZE),
        Option("rounds", None, "DU-8: number of rounds, a multiple of the players so that "
               "every seat starts as many rounds; null means one per player.", int, minimum=1,
               maximum=MAX_ROUNDS, nullable=True, new_check=_check_equal_starts),
    )
    state_class = DutchState
    bots = {"random": RandomBot, "heuristic": HeuristicBot}
    lower_score_wins = True  # DU-8: the lowest total after the last round wins
    scores_add_up = True  # DU-8: the rounds' card totals add up

    def move_cap(self, players: int, options: JSON) -> int:
        """G-7: 250 turns per round, each at most ``players + 2`` moves (draw, discard,
        ``players - 1`` snap answers, power)."""
        rounds = options.get("rounds")
        if rounds is None:
            rounds = players
        return rounds * TURNS_PER_ROUND_CAP * (players + 2)


GAME = Dutch()
DutchState.game = GAME
