"""D.O.T: a two-player game of three sealed rounds of dot counting (``rulebooks/dot.txt``).

House rules applied here (``shared/rules/house-rules.md``): G-1..G-7 and DOT-1..DOT-5.

Cards are named by a *key* of three digits, the dots in the order blue, black, red: ``"131"`` is
the rulebook's example card (1 blue, 3 black, 1 red); the star cards are ``"400"``, ``"040"`` and
``"004"``. Several equal cards are given as counts per key (G-6), e.g. ``{"131": 1, "400": 1}``.

Phases of a round (DOT-2, DOT-3, DOT-4):

* ``commit`` (simultaneous, sealed): each seat names the star card it takes and the 3 of its 6
  cards (5 drawn + the star) that go to the shared pool; the other 3 go to its own pool.
  ``{"type": "commit", "star": "040", "shared": {"023": 1, "102": 1, "131": 1}}``
* the reveal and the scoring happen as soon as both commits are in (no action);
* ``discard`` (after rounds 1 and 2, one seat at a time): remove 1 (after round 1) or 2 (after
  round 2) cards from the *other* seat's pool:
  ``{"type": "discard", "cards": {"220": 1, "400": 1}}``.

Settled here (documented in ``docs/rules/dot.md``): the remaining star cards of each seat are
public (they are deducible, as every used star is revealed); the multiset of each seat's not yet
revealed draw cards (hand + draw pile) is public too, as it is deducible from the public deck.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from itertools import combinations
from typing import Any

from .actions import LazyActions
from .base import JSON, Bot, Game, RandomBot, State
from .errors import CorruptState, IllegalAction
from .options import Option
from .rng import Rng

COLOURS = ("blue", "black", "red")
STARS = ("400", "040", "004")  # DOT-1: the three star cards, in this canonical order
#: DOT-1: the standard 15 draw cards, the three cyclic rotations of each of five base cards.
_BASES = ((1, 3, 1), (0, 2, 3), (2, 1, 0), (1, 2, 0), (2, 0, 2))
STANDARD_DECK = tuple(
    (b[i], b[(i + 1) % 3], b[(i + 2) % 3]) for b in _BASES for i in range(3)
)
HAND_SIZE = 5  # cards drawn per round
POOL_ADD = 3  # cards a seat adds to its own pool, and to the shared pool, per round
DISCARDS = {1: 1, 2: 2}  # DOT-4: cards each seat removes from the other's pool after a round
ROUNDS = 3
WIN_TOKENS = 5  # DOT-5
MOVE_CAP = 10  # 6 commits + 4 discards: the longest possible match (G-7)


class Phase(StrEnum):
    """The step of a round: the state's ``phase``, its value in views and
    JSON."""

    COMMIT = "commit"
    DISCARD = "discard"
    OVER = "over"

#: The members as module names too, for the rules below: ``phase is COMMIT`` reads a global,
#: where ``Phase.COMMIT`` reads an Enum class attribute, ten times slower on CPython 3.11
#: (docs/performance.md).
COMMIT, DISCARD, OVER = Phase

_COMBOS6 = tuple(combinations(range(6), 3))  # 20 three-card subsets of 6 cards, lexicographic
_DOTS: dict[str, tuple[int, int, int]] = {}


def card_key(card: Sequence[int]) -> str:
    """``(1, 3, 1)`` -> ``"131"`` (blue, black, red)."""
    return f"{card[0]}{card[1]}{card[2]}"


def dots(key: str) -> tuple[int, int, int]:
    """Dots of a card key, ``(blue, black, red)``."""
    try:
        return _DOTS[key]
    except KeyError:
        value = _DOTS[key] = (int(key[0]), int(key[1]), int(key[2]))
        return value


def total_dots(keys: Sequence[str]) -> list[int]:
    """Dots of a pile of cards per colour ``[blue, black, red]``."""
    b = k = r = 0
    table = _DOTS
    for key in keys:
        try:
            d = table[key]
        except KeyError:
            d = dots(key)
        b += d[0]
        k += d[1]
        r += d[2]
    return [b, k, r]


def colour_winner(own0: int, own1: int, shared: int, largest: bool) -> tuple[int, int, int | None]:
    """DOT-3 for one colour: ``(difference of seat 0, of seat 1, winner or None on a tie)``.

    The difference is ``|own pool dots - shared pool dots|``; with ``largest`` (rounds 1 and 3)
    the larger difference wins, otherwise (round 2) the smaller."""
    d0 = own0 - shared if own0 >= shared else shared - own0
    d1 = own1 - shared if own1 >= shared else shared - own1
    if d0 == d1:
        return d0, d1, None
    return d0, d1, (0 if (d0 > d1) == largest else 1)


def round_is_largest(rnd: int) -> bool:
    """DOT-3: rounds 1 and 3 reward the largest difference, round 2 the smallest."""
    return rnd != 2


def _counts(keys: Sequence[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for key in keys:
        out[key] = out.get(key, 0) + 1
    return out


def _check_deck(value: Any, options: JSON, players: int) -> str | None:
    """Option ``deck`` (DOT-1): null, or exactly 15 ``[blue, black, red]`` triples of 0..3."""
    if value is None:
        return None
    if len(value) != 15:
        return f"a deck needs exactly 15 draw cards, not {len(value)}"
    for i, card in enumerate(value):
        if not isinstance(card, list) or len(card) != 3:
            return f"card {i} must be a list [blue, black, red], not {card!r}"
        for n in card:
            if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= 3:
                return f"card {i}: dots must be integers 0..3, not {n!r}"
    return None


_STANDARD_KEYS = tuple(sorted(card_key(c) for c in STANDARD_DECK))


def deck_keys(options: JSON) -> list[str]:
    """The 15 draw card keys of each seat's deck, sorted (DOT-1, option ``deck``)."""
    deck = options.get("deck")
    if deck is None:
        return list(_STANDARD_KEYS)
    return sorted(card_key(c) for c in deck)


_FACTORIALS = [1]
for _i in range(1, 21):
    _FACTORIALS.append(_FACTORIALS[-1] * _i)


def shuffle(rng: Rng, seq: list) -> None:
    """Uniform Fisher-Yates shuffle of up to 20 items from a single 64-bit draw of ``rng``
    (G-1): a uniform number below ``len(seq)!`` (by rejection) read as mixed-radix digits gives
    each swap index. Same distribution as ``Rng.shuffle``, a fraction of its cost."""
    n = len(seq)
    if n > 20:
        rng.shuffle(seq)
        return
    f = _FACTORIALS[n]
    limit = (1 << 64) - (1 << 64) % f
    x = rng.next64()
    while x >= limit:
        x = rng.next64()
    x %= f
    for i in range(n - 1, 0, -1):
        x, j = divmod(x, i + 1)
        seq[i], seq[j] = seq[j], seq[i]


# --------------------------------------------------------------------------------------------
# Legal actions, lazily
# --------------------------------------------------------------------------------------------


class _LazyActions(LazyActions):
    """A read-only sequence of actions built on demand from compact specs; supports ``len``,
    indexing, slicing, iteration, ``in`` and ``==`` against a list. Subclasses set ``_n`` and
    ``_make(i)`` (``i`` already checked)."""

    __slots__ = ()
    _n: int

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i):  # type: ignore[override]
        if isinstance(i, slice):
            return [self._make(j) for j in range(*i.indices(self._n))]
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError("action index out of range")
        return self._make(i)

    def __iter__(self):
        for i in range(self._n):
            yield self._make(i)

    def __contains__(self, action: object) -> bool:
        return any(action == a for a in self)


class DiscardActions(_LazyActions):
    """Every legal discard (DOT-4): the ``n``-card subsets of the other pool (sorted by key) in
    lexicographic order of positions, a subset equal (as counts) to an earlier one left out."""

    __slots__ = ("_n", "_specs")

    def __init__(self, pool: list[str], n: int) -> None:
        self._specs = list(dict.fromkeys(combinations(pool, n)))
        self._n = len(self._specs)

    def _make(self, i: int) -> JSON:
        return {"type": "discard", "cards": _counts(self._specs[i])}


class CommitActions(_LazyActions):
    """Every legal commit of a seat, built on demand (DOT-2).

    Order: for each remaining star card in the order ``400, 040, 004``, the 3-card subsets of
    the 6 cards (hand + that star, sorted by key) in lexicographic order of positions; a subset
    equal (as counts) to an earlier one of the same star is left out. Supports ``len``, indexing,
    slicing, iteration, ``in`` and ``==`` against a list."""

    __slots__ = ("_hand", "_lists", "_n", "_sixes", "_stars")

    def __init__(self, hand: list[str], stars: list[str]) -> None:
        self._stars = stars = list(stars)
        self._hand = hand = list(hand)
        self._sixes: dict[str, list[str]] = {}
        if len(set(hand)) == len(hand):
            # Standard deck: no two equal cards, every subset is distinct (20 per star).
            self._lists = None
            self._n = 20 * len(stars)
        else:
            self._lists = []
            for star in stars:
                six = sorted(hand + [star])
                seen = {}
                for combo in _COMBOS6:
                    shared = tuple(six[j] for j in combo)
                    seen.setdefault(shared, None)
                self._lists += [(star, shared) for shared in seen]
            self._n = len(self._lists)

    def _make(self, i: int) -> JSON:
        if self._lists is not None:
            star, shared = self._lists[i]
            return {"type": "commit", "star": star, "shared": _counts(shared)}
        star = self._stars[i // 20]
        six = self._sixes.get(star)
        if six is None:
            six = self._sixes[star] = sorted(self._hand + [star])
        a, b, c = _COMBOS6[i % 20]
        return {"type": "commit", "star": star, "shared": {six[a]: 1, six[b]: 1, six[c]: 1}}


# --------------------------------------------------------------------------------------------
# State
# --------------------------------------------------------------------------------------------


class DotState(State):
    """One D.O.T match. All piles are lists of card keys (see the module docstring)."""

    def setup(self) -> None:
        deck = deck_keys(self.options)
        self.full = deck  # the 15 draw cards of each seat (sorted); both decks are equal
        self.rnd = 0
        self.phase = COMMIT
        self.decks: list[list[str]] = []
        for _ in range(2):  # G-1: each draw deck shuffled by the match RNG
            d = list(deck)
            shuffle(self.rng, d)
            self.decks.append(d)
        self.hands: list[list[str]] = [[], []]
        self.stars: list[list[str]] = [list(STARS), list(STARS)]
        self.pools: list[list[str]] = [[], []]
        self.discards: list[list[str]] = [[], []]  # each seat's own cards, out of the game
        self.commits: list[list | None] = [None, None]
        self.tokens = [[0, 0, 0], [0, 0, 0]]
        self.pot = [0, 0, 0]
        self.supply = [3, 3, 3]
        self.unclaimed = [0, 0, 0]
        self.queue: list[list[int]] = []  # discard steps still to come: [seat, count]
        self.order: list | None = None  # [first, second, reason] of the current discard step
        self.winner: int | None = None  # DOT-5 early winner
        self.last: JSON | None = None  # public record of the last reveal and scoring
        self._start_round()

    # ---- flow ------------------------------------------------------------------------------

    def _start_round(self) -> None:
        """Prepare tokens (one per colour from the supply, on top of carried ties) and draw 5."""
        self.rnd += 1
        for c in range(3):
            if self.supply[c]:
                self.supply[c] -= 1
                self.pot[c] += 1
        for p in (0, 1):
            d = self.decks[p]
            self.hands[p] = sorted(d[:HAND_SIZE])
            del d[:HAND_SIZE]
        self.phase = COMMIT
        self.queue = []
        self.order = None
        self._to_act = [0, 1]
        self._legal = None
        self.emit("round", round=self.rnd, pot=list(self.pot),
                  rule="largest" if round_is_largest(self.rnd) else "smallest",
                  private={0: {"drew": list(self.hands[0])}, 1: {"drew": list(self.hands[1])}})

    def _resolve_round(self) -> None:
        """Both commits are in: reveal (DOT-2), score (DOT-3, DOT-5), then discard (DOT-4)."""
        added = []
        shared_by = []
        for p in (0, 1):
            star, shared, own = self.commits[p]
            self.stars[p].remove(star)
            self.pools[p] = sorted(self.pools[p] + own)
            self.discards[p] += shared  # the shared pool is discarded after scoring
            self.hands[p] = []
            added.append(own)
            shared_by.append(shared)
        self.commits = [None, None]
        own0 = total_dots(self.pools[0])
        own1 = total_dots(self.pools[1])
        shared_dots = total_dots(shared_by[0] + shared_by[1])
        largest = self.rnd != 2  # DOT-3
        pot, tokens = self.pot, self.tokens
        scoring = []
        for c in range(3):  # DOT-3: blue, black, red in this order
            d0, d1, w = colour_winner(own0[c], own1[c], shared_dots[c], largest)
            n = pot[c]
            if w is None:
                if self.rnd == ROUNDS:  # DOT-3: still tied after round 3 -> nobody
                    self.unclaimed[c] += n
                    pot[c] = 0
                    outcome = "unclaimed"
                else:
                    outcome = "carried"
            else:
                tokens[w][c] += n
                pot[c] = 0
                outcome = "won"
            scoring.append({"colour": COLOURS[c], "differences": [d0, d1], "winner": w,
                            "tokens": n, "outcome": outcome})
            if w is not None and sum(tokens[w]) >= WIN_TOKENS:  # DOT-5: at once
                self.winner = w
                break
        # One public event for the reveal and the scoring (DOT-2: who put what where).
        self.last = {"round": self.rnd, "pool_added": added, "shared": shared_by,
                     "own_dots": [own0, own1], "shared_dots": shared_dots,
                     "rule": "largest" if largest else "smallest", "scoring": scoring}
        self.emit("reveal", **self.last)
        if self.winner is not None:
            self._finish("five_tokens")
        elif self.rnd == ROUNDS:
            self._finish("three_rounds")
        else:
            self._start_discards()

    def _start_discards(self) -> None:
        """DOT-4: most tokens first; ties by blue, black, red tokens, then a seeded coin flip."""
        t0, t1 = self.tokens
        k0 = (sum(t0), t0[0], t0[1], t0[2])
        k1 = (sum(t1), t1[0], t1[1], t1[2])
        if k0 != k1:
            first = 0 if k0 > k1 else 1
            reason = ("tokens", "blue", "black", "red")[
                next(i for i in range(4) if k0[i] != k1[i])]
        else:
            first = 0 if self.rng.coin() else 1
            reason = "coin"
            self.emit("coin_flip", winner=first)
        n = DISCARDS[self.rnd]
        self.order = [first, 1 - first, reason]
        self.queue = [[first, n], [1 - first, n]]
        self.emit("discard_order", order=[first, 1 - first], by=reason)
        self.phase = DISCARD
        self._next_discard()

    def _next_discard(self) -> None:
        while self.queue:
            seat, n = self.queue[0]
            n = min(n, len(self.pools[1 - seat]))
            if n > 0:
                self.queue[0][1] = n
                self._to_act = [seat]
                self._legal = None
                return
            self.queue.pop(0)  # nothing to discard: the step is skipped
        self._start_round()

    def _finish(self, reason: str) -> None:
        self.phase = OVER
        self._to_act = []
        self._legal = None
        self.queue = []
        self.emit("game_over", reason=reason, tokens=[sum(t) for t in self.tokens],
                  ranks=self.result()["ranks"])

    # ---- hooks -----------------------------------------------------------------------------

    def to_act(self) -> list[int]:
        return list(self._to_act)

    @property
    def is_over(self) -> bool:
        return self.phase == OVER

    def legal_actions(self, seat: int) -> Sequence[JSON]:
        if seat not in self._to_act:
            return []
        if self.phase == COMMIT:
            legal = self._legal
            if legal is None:
                legal = self._legal = [None, None]
            if legal[seat] is None:
                legal[seat] = CommitActions(self.hands[seat], self.stars[seat])
            return legal[seat]
        legal = self._legal
        if legal is None:
            legal = self._legal = DiscardActions(self.pools[1 - seat], self.queue[0][1])
        return legal


    def _check(self, seat: int, action: JSON) -> Any:
        kind = action.get("type")
        if self.phase == COMMIT:
            if kind != "commit":
                raise IllegalAction(
                    f"round {self.rnd}: play your cards with a 'commit' action, not {kind!r}")
            extra = action.keys() - {"type", "star", "shared"}
            if extra:
                raise IllegalAction(f"unknown field(s) in a commit: {sorted(map(str, extra))}")
            if "star" not in action or "shared" not in action:
                raise IllegalAction("a commit needs 'star' (a star card key) and 'shared'"
                                    " (3 cards as counts per card key)")
            star = action["star"]
            stars = self.stars[seat]
            if type(star) is not str or star not in stars:
                raise IllegalAction(f"star must be one of your remaining star cards {stars},"
                                    f" not {star!r}")
            rest = self.hands[seat] + [star]
            shared = self._take(action["shared"], rest, POOL_ADD, "your 5 cards and the star")
            return ("commit", star, shared, sorted(rest))
        if kind != "discard":
            raise IllegalAction(f"discard step: remove cards from the other pool with a"
                                f" 'discard' action, not {kind!r}")
        extra = action.keys() - {"type", "cards"}
        if extra:
            raise IllegalAction(f"unknown field(s) in a discard: {sorted(map(str, extra))}")
        if "cards" not in action:
            raise IllegalAction("a discard needs 'cards' (counts per card key)")
        n = self.queue[0][1]
        rest = list(self.pools[1 - seat])
        cards = self._take(action["cards"], rest, n, f"seat {1 - seat}'s pool")
        return ("discard", cards, rest)

    @staticmethod
    def _take(counts: Any, rest: list[str], n: int, where: str) -> list[str]:
        """Remove ``counts`` (card key -> positive count, total ``n``) from ``rest``; the taken
        cards, sorted. IllegalAction on any malformed or unavailable card."""
        if type(counts) is not dict:
            raise IllegalAction(f"cards must be an object of counts per card key, like"
                                f" {{\"131\": 1}}, not {counts!r}")
        taken: list[str] = []
        for key, count in counts.items():
            if type(key) is not str:
                raise IllegalAction(f"card keys must be strings, not {key!r}")
            if type(count) is not int or count < 1:
                raise IllegalAction(f"count of {key!r} must be a positive integer, not {count!r}")
            if count > n:
                raise IllegalAction(f"{count} x {key!r} is more than the {n} card(s) asked for")
            for _ in range(count):
                try:
                    rest.remove(key)
                except ValueError:
                    raise IllegalAction(f"no (more) card {key!r} in {where}") from None
                taken.append(key)
        if len(taken) != n:
            raise IllegalAction(f"exactly {n} card(s) must be given, not {len(taken)}")
        taken.sort()
        return taken

    def _apply(self, seat: int, parsed: Any) -> None:
        self._legal = None
        if parsed[0] == "commit":
            _, star, shared, own = parsed
            self.commits[seat] = [star, shared, own]
            self._to_act.remove(seat)
            self.emit("commit", seat=seat)  # DOT-2: sealed, only the fact is public
            if not self._to_act:
                self._resolve_round()
            return
        _, cards, rest = parsed
        other = 1 - seat
        self.pools[other] = rest
        self.discards[other] += cards
        self.emit("discard", seat=seat, pool=other, cards=cards)
        self.queue.pop(0)
        self._next_discard()

    def _view(self, seat: int | None) -> JSON:
        out: JSON = {
            "round": self.rnd,
            "phase": self.phase,
            "rule": "largest" if round_is_largest(self.rnd) else "smallest",
            "pot": list(self.pot),
            "supply": list(self.supply),
            "unclaimed": list(self.unclaimed),
            "tokens": [list(t) for t in self.tokens],
            "token_totals": [sum(t) for t in self.tokens],
            "pools": [list(p) for p in self.pools],
            "pool_dots": [total_dots(p) for p in self.pools],
            "stars_left": [list(s) for s in self.stars],
            "hand_sizes": [len(h) for h in self.hands],
            "deck_sizes": [len(d) for d in self.decks],
            "unrevealed": [_counts(sorted(self.hands[p] + self.decks[p])) for p in (0, 1)],
            "discarded": [sorted(d) for d in self.discards],
            "committed": [c is not None for c in self.commits],
            "discard": None,
            "last_round": _deep(self.last),
            "winner": self.winner,
        }
        if self.phase == DISCARD:
            seat_to, n = self.queue[0]
            out["discard"] = {"seat": seat_to, "pool": 1 - seat_to, "count": n,
                              "order": self.order[:2], "by": self.order[2]}
        if seat is not None:
            out["hand"] = list(self.hands[seat])
            c = self.commits[seat]
            out["my_commit"] = None if c is None else {
                "star": c[0], "shared": list(c[1]), "pool": list(c[2])}
        return out

    def _outcome(self) -> tuple[list[Any], list[Any]]:
        """Score = tokens; most tokens ranks first, equal totals share the rank (DOT-5)."""
        scores = [sum(t) for t in self.tokens]
        return scores, [-s for s in scores]

    def _end_at_move_cap(self) -> None:
        self._finish("move_cap")

    def default_action(self, seat: int) -> JSON:
        """The first legal action in the documented order: in a commit, the first remaining
        star card and the 3 lowest card keys of the 6 go to the shared pool; in a discard, the
        lowest card key(s) of the other pool."""
        legal = self.legal_actions(seat)
        if not legal:
            raise IllegalAction(f"seat {seat} is not asked to act now")
        return legal[0]

    # ---- persistence and checks ------------------------------------------------------------

    def dump(self) -> JSON:
        return {
            "round": self.rnd, "phase": self.phase, "full": self.full,
            "decks": self.decks, "hands": self.hands, "stars": self.stars, "pools": self.pools,
            "discards": self.discards, "commits": self.commits, "tokens": self.tokens,
            "pot": self.pot, "supply": self.supply, "unclaimed": self.unclaimed,
            "queue": self.queue, "order": self.order, "winner": self.winner, "last": self.last,
            "to_act": self._to_act,
        }

    def load(self, data: JSON) -> None:
        self.rnd = data["round"]
        self.phase = Phase(data["phase"])
        self.full = data["full"]
        self.decks = data["decks"]
        self.hands = data["hands"]
        self.stars = data["stars"]
        self.pools = data["pools"]
        self.discards = data["discards"]
        self.commits = data["commits"]
        self.tokens = data["tokens"]
        self.pot = data["pot"]
        self.supply = data["supply"]
        self.unclaimed = data["unclaimed"]
        self.queue = data["queue"]
        self.order = data["order"]
        self.winner = data["winner"]
        self.last = data["last"]
        self._to_act = data["to_act"]
        self._legal = None

    def check_invariants(self) -> None:
        if self.phase not in set(Phase):
            raise CorruptState(f"unknown phase {self.phase!r}")
        if not (1 <= self.rnd <= ROUNDS):
            raise CorruptState(self.rnd)
        if not (self.full == deck_keys(self.options)):
            raise CorruptState("draw deck differs from the options")
        for p in (0, 1):
            # Conservation: every one of the 18 cards of each seat is in exactly one place.
            held = (self.decks[p] + self.hands[p] + self.pools[p] + self.discards[p]
                    + self.stars[p])
            if not (sorted(held) == sorted(self.full + list(STARS))):
                raise CorruptState(f"cards of seat {p} lost")
            if not (self.stars[p] == [s for s in STARS if s in self.stars[p]]):
                raise CorruptState("stars out of their order")
            if not (self.hands[p] == sorted(self.hands[p])
                    and self.pools[p] == sorted(self.pools[p])):
                raise CorruptState("a hand or pool is not sorted")
            if not (len(self.decks[p]) == 15 - HAND_SIZE * self.rnd):
                raise CorruptState("the deck does not hold what is left to draw this round")
            # Hands are held from the draw to the reveal (only a move-cap end can stop there).
            holding = self.hands[p] != []
            if not (holding == (self.phase == COMMIT) or self.phase == OVER):
                raise CorruptState("a hand held outside the commit phase, or none in it")
            if not (len(self.hands[p]) in (0, HAND_SIZE)):
                raise CorruptState("a hand of neither 0 nor HAND_SIZE cards")
            if not (len(self.stars[p]) == ROUNDS - self.rnd + holding):
                raise CorruptState("the stars left do not match the rounds left")
            c = self.commits[p]
            if self.phase == COMMIT:
                if not ((c is None) == (p in self._to_act)):
                    raise CorruptState(
                        "a seat asked to commit has committed, or one not asked has not")
            if c is not None:
                if not holding:
                    raise CorruptState("a commit without a hand")
                star, shared, own = c
                if not (star in self.stars[p] and len(shared) == len(own) == POOL_ADD):
                    raise CorruptState(
                        "a commit needs one of the seat's stars and POOL_ADD cards to each pool")
                if not (sorted(shared + own) == sorted(self.hands[p] + [star])):
                    raise CorruptState("a commit's cards are not the hand and its star")
        # Tokens: 3 per colour, in the supply, on offer, won, or lost to a final tie.
        for c in range(3):
            total = (self.supply[c] + self.pot[c] + self.unclaimed[c]
                     + self.tokens[0][c] + self.tokens[1][c])
            if not (total == 3):
                raise CorruptState(f"{COLOURS[c]} tokens not conserved: {total}")
            if not (self.supply[c] == ROUNDS - self.rnd):
                raise CorruptState("the supply does not hold a token per round left")
            if not (min(self.supply[c], self.pot[c], self.unclaimed[c], self.tokens[0][c],
                       self.tokens[1][c]) >= 0):
                raise CorruptState("a negative token count")
        totals = [sum(t) for t in self.tokens]
        if self.winner is not None:
            if not (self.phase == OVER and totals[self.winner] >= WIN_TOKENS):
                raise CorruptState("a winner before the match is over, or with too few tokens")
        if self.phase != OVER:
            if not (max(totals) < WIN_TOKENS):
                raise CorruptState("a seat has WIN_TOKENS tokens but the match goes on")
        if self.phase == DISCARD:
            if not (self.rnd in DISCARDS and self.queue and self._to_act == [self.queue[0][0]]):
                raise CorruptState(
                    "a discard outside a discard round, or asked of another seat than the next")
            if not (1 <= self.queue[0][1] <= len(self.pools[1 - self.queue[0][0]])):
                raise CorruptState("a discard of more cards than the other pool holds, or of none")
        elif self.phase == COMMIT:
            if not (self._to_act == [p for p in (0, 1) if self.commits[p] is None]):
                raise CorruptState("the seats asked to commit are not those that have not")
            if not self._to_act:
                raise CorruptState("both committed but the round was not resolved")
        else:
            if not (self._to_act == []):
                raise CorruptState("a seat is asked to act outside the discard and commit phases")

    def resample(self, seat: int | None, seed: int) -> DotState:
        """A determinization for ``seat``: its own draw pile reshuffled (it does not know the
        order); each other seat's hand + draw pile pooled and redealt with the same sizes, and
        its sealed commit (if any) redrawn at random from the new hand and its remaining stars
        (G-3). The future RNG is reseeded; other seats' private event details are dropped."""
        rng = Rng(seed)
        c = self.clone(private_of=seat)
        for p in (0, 1):
            if p == seat:
                shuffle(rng, c.decks[p])
                continue
            cards = c.hands[p] + c.decks[p]
            shuffle(rng, cards)
            h = len(c.hands[p])
            c.hands[p] = sorted(cards[:h])
            c.decks[p] = cards[h:]
            if c.commits[p] is not None:
                star = rng.choice(c.stars[p])
                six = c.hands[p] + [star]
                shuffle(rng, six)
                c.commits[p] = [star, sorted(six[:POOL_ADD]), sorted(six[POOL_ADD:])]
        c.rng = Rng(rng.next64())
        c._legal = None
        return c


def _deep(x: Any) -> Any:
    if isinstance(x, list):
        return [_deep(v) for v in x]
    if isinstance(x, dict):
        return {k: _deep(v) for k, v in x.items()}
    return x


# --------------------------------------------------------------------------------------------
# Heuristic bot
# --------------------------------------------------------------------------------------------


class DotHeuristicBot(Bot):
    """Decides from the view and the legal actions only.

    Commit: every legal commit is scored against the same ``samples`` guesses of the opponent's
    play (a hand drawn from its unrevealed cards, a random remaining star, a random split), by the
    tokens on offer it would win minus those the opponent would win this round (DOT-3), with a
    large bonus for reaching 5 tokens (DOT-5). Discard: remove the card(s) that leave the
    opponent's pool worst placed for the next round's rule, judged against the expected shared
    pool."""

    samples = 40

    def choose(self, view: JSON, legal: Sequence[JSON]) -> JSON:
        if len(legal) == 1:
            return legal[0]
        if view["phase"] == COMMIT:
            return self._commit(view, legal)
        return self._discard(view, legal)

    def _opponent_plays(self, view: JSON) -> list[tuple[list[int], list[int]]]:
        opp = 1 - self.seat
        unrevealed = [k for k, n in sorted(view["unrevealed"][opp].items()) for _ in range(n)]
        stars = view["stars_left"][opp]
        h = view["hand_sizes"][opp]
        base = total_dots(view["pools"][opp])
        out = []
        for _ in range(self.samples):
            cards = list(unrevealed)
            self.rng.shuffle(cards)
            six = cards[:h] + [self.rng.choice(stars)]
            self.rng.shuffle(six)
            own = total_dots(six[:POOL_ADD])
            out.append(([base[c] + own[c] for c in range(3)], total_dots(six[POOL_ADD:])))
        return out

    def _commit(self, view: JSON, legal: Sequence[JSON]) -> JSON:
        me, opp = self.seat, 1 - self.seat
        largest = view["rule"] == "largest"
        pot = view["pot"]
        mine = view["token_totals"][me]
        theirs = view["token_totals"][opp]
        pool = total_dots(view["pools"][me])
        hand = view["hand"]
        plays = self._opponent_plays(view)
        best, best_value = legal[0], None
        for action in legal:
            six = hand + [action["star"]]
            shared_mine = [k for k, n in action["shared"].items() for _ in range(n)]
            for k in shared_mine:
                six.remove(k)
            own_add = total_dots(six)
            sh = total_dots(shared_mine)
            own = [pool[c] + own_add[c] for c in range(3)]
            value = 0.0
            for opp_own, opp_sh in plays:
                gain = lose = 0
                for c in range(3):
                    _, _, w = colour_winner(own[c], opp_own[c], sh[c] + opp_sh[c], largest)
                    if w is None:
                        continue
                    if w == 0:  # colour_winner is called with this seat first
                        gain += pot[c]
                    else:
                        lose += pot[c]
                value += gain - lose
                if mine + gain >= WIN_TOKENS:
                    value += 10
                if theirs + lose >= WIN_TOKENS:
                    value -= 10
            if best_value is None or value > best_value:
                best, best_value = action, value
        return best

    def _discard(self, view: JSON, legal: Sequence[JSON]) -> JSON:
        opp = 1 - self.seat
        next_round = view["round"] + 1
        largest = round_is_largest(next_round)
        # Expected shared pool next round: 3 average unrevealed cards of each seat (+ stars).
        expected = [0.0, 0.0, 0.0]
        for p in (0, 1):
            cards = [k for k, n in view["unrevealed"][p].items() for _ in range(n)]
            cards += view["stars_left"][p]
            tot = total_dots(cards)
            for c in range(3):
                expected[c] += POOL_ADD * tot[c] / max(len(cards), 1)
        pot = [view["pot"][c] + (1 if view["supply"][c] else 0) for c in range(3)]
        pool = view["pools"][opp]
        best, best_value = legal[0], None
        for action in legal:
            rest = list(pool)
            for k, n in action["cards"].items():
                for _ in range(n):
                    rest.remove(k)
            left = total_dots(rest)
            # How good the opponent's remaining pool is for next round's rule (lower = better
            # for us); its own 3 new cards are unknown, so this judges what it keeps.
            value = 0.0
            for c in range(3):
                gap = abs(left[c] + expected[c] / 2 - expected[c])
                value += pot[c] * (gap if largest else -gap)
            if best_value is None or value < best_value:
                best, best_value = action, value
        return best


# --------------------------------------------------------------------------------------------
# Game
# --------------------------------------------------------------------------------------------


class Dot(Game):
    """D.O.T for exactly 2 players (DOT-1)."""

    id = "dot"
    name = "D.O.T"
    min_players = 2
    max_players = 2
    default_players = 2
    options = (
        Option("deck", None,
               "DOT-1: the 15 draw cards of each player's deck as [blue, black, red] triples of"
               " 0..3 dots; null = the standard deck (the three cyclic rotations of (1,3,1),"
               " (0,2,3), (2,1,0), (1,2,0) and (2,0,2)). The 3 star cards are always added.",
               type=list, nullable=True, check=_check_deck),
    )
    state_class = DotState
    bots = {"random": RandomBot, "heuristic": DotHeuristicBot}

    def move_cap(self, players: int, options: JSON) -> int:
        """G-7: 10 moves, the longest possible match (6 commits + 4 discards); never reached
        before the natural end."""
        return MOVE_CAP


GAME = Dot()
DotState.game = GAME
