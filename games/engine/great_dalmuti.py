"""The Great Dalmuti (Richard Garfield, 1995), house rules GD-1..GD-12 and G-1..G-7.

Rulebook: ``/work/shared/rulebooks/great-dalmuti.txt``; decisions: ``house-rules.md``; the
player-facing summary (actions, view, events, settled gaps) is ``docs/rules/great_dalmuti.md``.

Representation (kept small for speed): a hand is a list of 14 ints, ``hand[r]`` = how many cards
of rank ``r`` (1..12) it holds, ``hand[13]`` = Jesters, ``hand[0]`` always 0. Ranks appear in
actions, views and events as strings ``"1"``..``"12"`` and ``"jester"`` (G-6).

A match is ``hands`` hands (GD-10). Each hand: deal (GD-3), a sealed simultaneous revolution step
answered by every seat (GD-5), a sealed simultaneous taxation step (GD-4, GD-11) unless there was
a revolution, then tricks (GD-6, GD-7) until one player still has cards (GD-8).
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import Any

from .actions import LazyActions
from .base import JSON, Bot, Game, RandomBot, State
from .errors import CorruptState, IllegalAction
from .options import Option
from .rng import Rng

JESTER = 13
#: rank -> the string used in actions/views/events (G-6)
KEY: tuple[str, ...] = ("", *(str(r) for r in range(1, 13)), "jester")
RANK_OF: dict[str, int] = {KEY[r]: r for r in range(1, 14)}

GREATER_DALMUTI = "Greater Dalmuti"
LESSER_DALMUTI = "Lesser Dalmuti"
MERCHANT = "Merchant"
LESSER_PEON = "Lesser Peon"
GREATER_PEON = "Greater Peon"


class Phase(StrEnum):
    """The step of a hand: the state's ``phase``, its value in views and JSON."""

    REVOLUTION = "revolution"
    TAXATION = "taxation"
    PLAY = "play"
    OVER = "over"

#: The members as module names too, for the rules below: ``phase is REVOLUTION`` reads a global,
#: where ``Phase.REVOLUTION`` reads an Enum class attribute, ten times slower on CPython 3.11
#: (docs/performance.md).
REVOLUTION, TAXATION, PLAY, OVER = Phase

# --------------------------------------------------------------------------------------------
# Pure helpers
# --------------------------------------------------------------------------------------------


def deck_counts(players: int, stripped: bool) -> list[int]:
    """GD-1: ``r`` copies of rank ``r`` (1..12) and 2 Jesters (80 cards). With the
    ``stripped_deck`` option, 5 players drop the 12s (68) and 4 players the 12s and 11s (57);
    6-8 players always use the full deck (settled here: the variant is only for 4 or 5)."""
    deck = [0, *range(1, 13), 2]
    if stripped and players <= 5:
        deck[12] = 0
        if players == 4:
            deck[11] = 0
    return deck


def title(position: int, players: int) -> str:
    """Social title of a position (0 = Greater Dalmuti ... players-1 = Greater Peon)."""
    if position == 0:
        return GREATER_DALMUTI
    if position == players - 1:
        return GREATER_PEON
    if position == 1:
        return LESSER_DALMUTI
    if position == players - 2:
        return LESSER_PEON
    return MERCHANT


def counts_json(hand: Sequence[int]) -> JSON:
    """``{"3": 2, "jester": 1}``: non-zero counts, best rank first, Jesters last (G-6)."""
    return {KEY[r]: hand[r] for r in range(1, 14) if hand[r]}


def set_json(rank: int, naturals: int, jesters: int) -> JSON:
    """The ``cards`` object of a set: naturals of ``rank`` plus Jesters (GD-6)."""
    if rank == JESTER:
        return {"jester": jesters}
    if jesters:
        return {KEY[rank]: naturals, "jester": jesters}
    return {KEY[rank]: naturals}


def _check_initial_order(value: Any, options: JSON, players: int) -> str | None:
    """GD-12: ``initial_order`` must be null or a permutation of the seats."""
    if value is None:
        return None
    if any(isinstance(s, bool) or not isinstance(s, int) for s in value):
        return f"must list seat numbers (integers), not {value!r}"
    if sorted(value) != list(range(players)):
        return f"must list each seat 0..{players - 1} exactly once, not {value!r}"
    return None


def _check_merchant_exchange(value: Any, options: JSON, players: int) -> str | None:
    """GD-11: the Merchant exchange needs two Merchants, i.e. 6+ players."""
    if value and players < 6:
        return f"needs 6 or more players (two Merchants), not {players}"
    return None


# --------------------------------------------------------------------------------------------
# State
# --------------------------------------------------------------------------------------------


class PlayActions(LazyActions):
    """The complete legal actions of the player on turn, built lazily (they are many when
    leading). Order: ``{"type": "pass"}`` first when following (never when leading, GD-6);
    then the sets by rank, best (lowest) first; within a rank by size, then fewer Jesters
    first; Jester-only sets (rank 13, lead only) last. Compares equal to the plain list."""

    __slots__ = ("can_pass", "sets")

    def __init__(self, can_pass: bool, sets: list[tuple[int, int, int]]) -> None:
        self.can_pass = can_pass
        self.sets = sets  # (rank, naturals, jesters)

    def __len__(self) -> int:
        return len(self.sets) + self.can_pass

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if self.can_pass:
            if i == 0:
                return {"type": "pass"}
            i -= 1
        if i < 0:
            raise IndexError("legal action index out of range")
        rank, nat, jes = self.sets[i]
        return {"type": "play", "cards": set_json(rank, nat, jes)}

    def __iter__(self) -> Any:
        if self.can_pass:
            yield {"type": "pass"}
        for rank, nat, jes in self.sets:
            yield {"type": "play", "cards": set_json(rank, nat, jes)}

    def __contains__(self, action: Any) -> bool:
        if not isinstance(action, dict):
            return False
        kind = action.get("type")
        if kind == "pass":
            return self.can_pass and len(action) == 1
        cards = action.get("cards")
        if kind != "play" or len(action) != 2 or not isinstance(cards, dict):
            return False
        return any(cards == set_json(*s) for s in self.sets)


class GreatDalmutiState(State):
    """One match of The Great Dalmuti. See the module docstring and docs/rules/great_dalmuti.md."""

    # ---- setup and dealing ---------------------------------------------------------------

    def setup(self) -> None:
        n = self.players
        self.deck = deck_counts(n, self.options["stripped_deck"])
        self.points = [0] * n
        self.hand_no = 0
        initial = self.options["initial_order"]
        if initial is not None:
            order = list(initial)  # GD-12: a league carries its social order over
            self.emit("social_order", order=order, source="initial_order",
                      titles=[title(order.index(s), n) for s in range(n)])
        else:
            order = self._draw_order()  # GD-2
        self._start_hand(order)

    def _draw_order(self) -> list[int]:
        """GD-2: each seat draws a card from a shuffled deck; best (lowest) rank is the Greater
        Dalmuti, Jesters worst; tied seats draw again (from the same deck) until all ties are
        broken. Every draw is a public event."""
        n = self.players
        pile = self._shuffled_deck()
        groups: list[list[int]] = [list(range(n))]
        rnd = 0
        while any(len(g) > 1 for g in groups):
            rnd += 1
            draws: list[list[Any]] = []
            new_groups: list[list[int]] = []
            for group in groups:
                if len(group) == 1:
                    new_groups.append(group)
                    continue
                drawn: dict[int, int] = {}
                for seat in group:
                    if not pile:  # practically impossible; keep going with a fresh deck
                        pile = self._shuffled_deck()
                    drawn[seat] = pile.pop()
                    draws.append([seat, KEY[drawn[seat]]])
                for rank in sorted(set(drawn.values())):
                    new_groups.append([s for s in group if drawn[s] == rank])
            groups = new_groups
            self.emit("order_draw", round=rnd, draws=draws)
        order = [g[0] for g in groups]
        self.emit("social_order", order=order, source="draw",
                  titles=[title(order.index(s), n) for s in range(n)])
        return order

    def _shuffled_deck(self) -> list[int]:
        cards = [r for r in range(1, 14) for _ in range(self.deck[r])]
        self.rng.shuffle(cards)
        return cards

    def _start_hand(self, order: list[int]) -> None:
        """New hand: social order ``order``; GD-3 deal from the Greater Dalmuti round the whole
        deck; then the GD-5 revolution step, answered by every seat."""
        n = self.players
        self.hand_no += 1
        self.order = order
        self.pos = [0] * n
        for i, s in enumerate(order):
            self.pos[s] = i
        hands = [[0] * 14 for _ in range(n)]
        for i, rank in enumerate(self._shuffled_deck()):
            hands[order[i % n]][rank] += 1
        self.hands = hands
        self.sizes = [sum(h) for h in hands]
        self.played_by = [[0] * 14 for _ in range(n)]
        self.active = n
        self.out: list[int] = []
        self.hand_points = [0] * n
        self.turn: int | None = None
        self.top: list[int] | None = None  # [rank, naturals, jesters] of the set to beat
        self.last_player: int | None = None
        self.passes = 0
        self.revolution: JSON | None = None
        self.automatic_revolution = self.hand_no == 1 and self.options["first_deal_revolution"]
        self.known: list[list[Any]] = []   # [knowers or None (public), holder, counts]
        self.floors: list[list[int]] = []  # [knower, holder, worst rank given as tax]
        self.exchanges: list[JSON] = []    # public record of this hand's exchanges
        self.my_exchange: list[list[JSON]] = [[] for _ in range(n)]  # private records
        self.phase = REVOLUTION
        self.waiting = list(range(n))  # GD-5: every seat answers, so being asked says nothing
        self.sealed: list[Any] = [None] * n
        self._cache: dict[int, Sequence[JSON]] = {}
        self.emit("hand_start", hand=self.hand_no, order=list(order),
                  titles=[title(self.pos[s], n) for s in range(n)],
                  hand_sizes=list(self.sizes),
                  private={s: {"hand": counts_json(hands[s])} for s in range(n)})

    # ---- whose turn, legal actions -------------------------------------------------------

    def to_act(self) -> list[int]:
        if self.phase == PLAY:
            return [self.turn]
        return list(self.waiting)

    @property
    def is_over(self) -> bool:
        return self.phase == OVER

    def _may_declare(self, seat: int) -> bool:
        """GD-5: only a holder of both Jesters may declare; in an automatic first-deal
        revolution (option) only the Greater Peon still may (a greater revolution)."""
        if self.hands[seat][JESTER] < 2:
            return False
        if self.automatic_revolution:
            return self.pos[seat] == self.players - 1
        return True

    def legal_actions(self, seat: int) -> Sequence[JSON]:
        """Complete legal actions, in a documented order:

        * revolution step: ``no`` then (if allowed) ``declare``;
        * taxation: give-backs in increasing order of (rank, rank) combinations, Jesters last;
          the Merchant: ``decline`` then ``exchange`` with each other Merchant by position;
        * play (a lazy :class:`PlayActions`): when following ``pass`` first; then sets by rank
          (best first), within a rank by size, then fewer Jesters first; Jester-only sets last.
        """
        cached = self._cache.get(seat)
        if cached is not None:
            return cached
        phase = self.phase
        if phase == PLAY:
            out = self._play_actions(seat) if seat == self.turn else []
        elif seat not in self.waiting:
            out = []
        else:
            out = self._step_actions(seat)
        self._cache[seat] = out
        return out

    def _step_actions(self, seat: int) -> list[JSON]:
        """The answers of ``seat`` in the current sealed step (whether or not it answered)."""
        phase = self.phase
        if phase == REVOLUTION:
            out = [{"type": "no"}]
            if self._may_declare(seat):
                out.append({"type": "declare"})
        elif phase == TAXATION:
            pos = self.pos[seat]
            if pos < 2:
                out = [{"type": "give_back", "cards": c}
                       for c in self._give_back_choices(self.hands[seat], 2 - pos)]
            else:
                out = [{"type": "decline"}] + [
                    {"type": "exchange", "with": s} for s in self._merchants()[1:]]
        else:
            out = []
        return out

    def _merchants(self) -> list[int]:
        """Seats at Merchant positions, highest first (positions 2..players-3)."""
        return self.order[2:self.players - 2]

    @staticmethod
    def _give_back_choices(hand: list[int], k: int) -> list[JSON]:
        """Every multiset of ``k`` cards (1 or 2) from ``hand`` as a ``cards`` object."""
        ranks = [r for r in range(1, 14) if hand[r]]
        if k == 1:
            return [{KEY[r]: 1} for r in ranks]
        out = []
        for i, r in enumerate(ranks):
            if hand[r] >= 2:
                out.append({KEY[r]: 2})
            for r2 in ranks[i + 1:]:
                out.append({KEY[r]: 1, KEY[r2]: 1})
        return out

    def _play_actions(self, seat: int) -> PlayActions:
        """GD-6 sets as a lazy :class:`PlayActions` (pass first when following)."""
        hand = self.hands[seat]
        jesters = hand[JESTER]
        top = self.top
        sets: list[tuple[int, int, int]] = []
        if top is None:  # GD-6: leading, any set; the leader may not pass
            for r in range(1, 13):
                have = hand[r]
                if have:
                    for size in range(1, have + jesters + 1):
                        for j in range(max(0, size - have), min(jesters, size - 1) + 1):
                            sets.append((r, size - j, j))
            for j in range(1, jesters + 1):  # GD-6: Jesters alone are rank 13, lead only
                sets.append((JESTER, 0, j))
            return PlayActions(False, sets)
        rank, count = top[0], top[1] + top[2]
        low = count - jesters if count > jesters else 1
        for r in range(1, rank if rank < 13 else 13):
            have = hand[r]
            if have >= low:
                for j in range(count - have if count > have else 0, min(jesters, count - 1) + 1):
                    sets.append((r, count - j, j))
        return PlayActions(True, sets)  # GD-6: passing never locks a player out of the trick

    # ---- validation ----------------------------------------------------------------------

    def _parse_cards(self, seat: int, cards: Any) -> list[int]:
        """Counts per rank -> 14-int list; refuses anything malformed or not held (G-6)."""
        if not isinstance(cards, dict) or not cards:
            raise IllegalAction('"cards" must be a non-empty object of counts per rank, '
                                'e.g. {"7": 2, "jester": 1}')
        counts = [0] * 14
        hand = self.hands[seat]
        for k, v in cards.items():
            r = RANK_OF.get(k) if isinstance(k, str) else None
            if r is None:
                raise IllegalAction(f'unknown rank {k!r} in "cards" (ranks are "1".."12" and '
                                    '"jester")')
            if type(v) is not int:
                raise IllegalAction(f'the count of rank {k!r} must be an integer, not {v!r}')
            if v < 0:
                raise IllegalAction(f'the count of rank {k!r} must not be negative ({v})')
            if v > hand[r]:
                raise IllegalAction(f'you hold {hand[r]} card(s) of rank {k!r}, not {v}')
            counts[r] = v
        return counts

    def _parse_set(self, seat: int, cards: Any) -> tuple[int, int, int]:
        """GD-6: a ``cards`` object -> (rank, naturals, jesters); Jesters alone are rank 13.
        Zero counts are ignored; anything malformed or not held is refused (G-6)."""
        counts = self._parse_cards(seat, cards)
        jesters = counts[JESTER]
        naturals = [(r, v) for r, v in enumerate(counts) if v and r != JESTER]
        if len(naturals) > 1:
            raise IllegalAction("a set is cards of one rank (plus Jesters) (GD-6)")
        if naturals:
            return naturals[0][0], naturals[0][1], jesters
        if not jesters:
            raise IllegalAction("a set needs at least one card")
        return JESTER, 0, jesters  # GD-6: Jesters alone are rank 13

    def _check(self, seat: int, action: JSON) -> Any:
        kind = action.get("type")
        if not isinstance(kind, str):
            raise IllegalAction(f'an action needs a string "type", not {kind!r}')
        phase = self.phase
        if phase == PLAY:
            if kind == "play":
                rank, nat, jesters = self._parse_set(seat, action.get("cards"))
                top = self.top
                if top is not None:
                    if rank == JESTER:
                        raise IllegalAction("Jesters alone (rank 13) can only be led (GD-6)")
                    need = top[1] + top[2]
                    if nat + jesters != need:
                        raise IllegalAction(f"you must follow with exactly {need} card(s) (GD-6)")
                    if rank >= top[0]:
                        raise IllegalAction(
                            f"rank {rank} does not beat rank {top[0]}: a lower rank is needed"
                            " (GD-6)")
                return ("play", rank, nat, jesters)
            if kind == "pass":
                if self.top is None:
                    raise IllegalAction("the leader may not pass (GD-6)")
                return ("pass",)
            raise IllegalAction(f'unknown action type {kind!r} now (expected "play" or "pass")')
        if phase == REVOLUTION:
            if kind == "no":
                return ["no"]
            if kind == "declare":
                if not self._may_declare(seat):
                    if self.hands[seat][JESTER] < 2:
                        raise IllegalAction("only a player holding both Jesters may declare a"
                                            " revolution (GD-5)")
                    raise IllegalAction("the first deal already has a revolution; only the"
                                        " Greater Peon may call a greater revolution (GD-5)")
                return ["declare"]
            raise IllegalAction(f'unknown action type {kind!r} now (expected "no" or "declare")')
        if phase == TAXATION:
            pos = self.pos[seat]
            if pos < 2:
                if kind != "give_back":
                    raise IllegalAction(f'the {title(pos, self.players)} must "give_back" cards'
                                        f' now, not {kind!r} (GD-4)')
                counts = self._parse_cards(seat, action.get("cards"))
                want = 2 - pos
                if sum(counts) != want:
                    raise IllegalAction(f"the {title(pos, self.players)} gives back exactly"
                                        f" {want} card(s) (GD-4)")
                return ["give_back", counts]
            if kind == "decline":
                return ["decline"]
            if kind == "exchange":
                other = action.get("with")
                if isinstance(other, bool) or not isinstance(other, int):
                    raise IllegalAction(f'"with" must be a seat number, not {other!r}')
                if other not in self._merchants()[1:]:
                    raise IllegalAction(f"seat {other} is not another Merchant (GD-11)")
                return ["exchange", other]
            raise IllegalAction(f'unknown action type {kind!r} now (expected "exchange" or'
                                ' "decline")')
        raise IllegalAction("nothing to do now")

    # ---- applying ------------------------------------------------------------------------

    def _apply(self, seat: int, parsed: Any) -> None:
        self._cache = {}
        if self.phase == PLAY:
            if parsed[0] == "play":
                self._play(seat, parsed[1], parsed[2], parsed[3])
            else:
                self._pass(seat)
            return
        # Simultaneous sealed step (GD-4, GD-5): record and wait for everyone.
        self.sealed[seat] = parsed
        self.waiting.remove(seat)
        self.emit("answered", seat=seat)
        if self.waiting:
            return
        if self.phase == REVOLUTION:
            self._resolve_revolution()
        else:
            self._resolve_taxation()

    def _resolve_revolution(self) -> None:
        """GD-5: reveal the answers. A declaration cancels taxation; by the Greater Peon it is a
        greater revolution: the social order is reversed for this hand."""
        n = self.players
        declarer = next((s for s in range(n) if self.sealed[s][0] == "declare"), None)
        self.sealed = [None] * n
        if declarer is not None:
            greater = self.pos[declarer] == n - 1
            self.revolution = {"seat": declarer, "greater": greater}
            # Everyone now knows the declarer was dealt both Jesters (public knowledge).
            self.known.append([None, declarer, [0] * 13 + [2]])
            if greater:
                self.order = self.order[::-1]
                for i, s in enumerate(self.order):
                    self.pos[s] = i
            self.emit("revolution", seat=declarer, greater=greater, order=list(self.order),
                      titles=[title(self.pos[s], n) for s in range(n)])
        else:
            self.emit("no_revolution", automatic=self.automatic_revolution)
        if declarer is not None or self.automatic_revolution:
            self._start_play()
            return
        self.phase = TAXATION
        waiting = [self.order[0], self.order[1]]
        if self.options["merchant_exchange"] and n >= 6:
            waiting.append(self.order[2])  # GD-11: the highest Merchant
        self.waiting = sorted(waiting)

    def _resolve_taxation(self) -> None:
        """GD-4 (and GD-11): all exchanges at once, from the hands as they were before."""
        n = self.players
        order = self.order
        hands = self.hands
        moves: list[tuple[int, int, list[int]]] = []  # (giver, receiver, counts)
        for d_pos, p_pos, k in ((0, n - 1, 2), (1, n - 2, 1)):
            dalmuti, peon = order[d_pos], order[p_pos]
            tax = [0] * 14
            hand = hands[peon]
            left = k
            for r in range(1, 14):  # GD-4: best = lowest rank, Jesters worst
                take = min(hand[r], left)
                tax[r] = take
                left -= take
                if not left:
                    break
            back = self.sealed[dalmuti][1]
            moves.append((peon, dalmuti, tax))
            moves.append((dalmuti, peon, back))
            worst = max(r for r in range(1, 14) if tax[r])
            self.floors.append([dalmuti, peon, worst])  # the Dalmuti knows the Peon's floor
        merchant = order[2] if self.options["merchant_exchange"] and n >= 6 else None
        m_choice = self.sealed[merchant] if merchant is not None else None
        m_move = None
        if m_choice is not None and m_choice[0] == "exchange":
            other = m_choice[1]
            a = self._random_card(hands[merchant])  # GD-11: a random card of each (seeded)
            b = self._random_card(hands[other])
            m_move = (merchant, other, a, b)
        # Apply simultaneously: every giving is decided above, from the pre-exchange hands.
        for giver, receiver, counts in moves:
            for r in range(1, 14):
                c = counts[r]
                if c:
                    hands[giver][r] -= c
                    hands[receiver][r] += c
        public = []
        for giver, receiver, counts in moves:
            total = sum(counts)
            public.append({"from": giver, "to": receiver, "count": total})
            self.known.append([[giver, receiver], receiver, list(counts)])
        self.exchanges = public
        private: dict[int, JSON] = {}
        for i in range(0, len(moves), 2):
            peon, dalmuti, tax = moves[i]
            back = moves[i + 1][2]
            rec_d = {"with": peon, "gave": counts_json(back), "received": counts_json(tax)}
            rec_p = {"with": dalmuti, "gave": counts_json(tax), "received": counts_json(back)}
            self.my_exchange[dalmuti].append(rec_d)
            self.my_exchange[peon].append(rec_p)
            private[dalmuti] = rec_d
            private[peon] = rec_p
        self.emit("taxation", exchanges=public, private=private)
        if merchant is not None:
            if m_move is None:
                self.exchanges.append({"merchant": merchant, "with": None})
                self.emit("merchant_exchange", seat=merchant, with_seat=None)
            else:
                m, o, a, b = m_move
                hands[m][a] -= 1
                hands[o][a] += 1
                hands[o][b] -= 1
                hands[m][b] += 1
                ca, cb = [0] * 14, [0] * 14
                ca[a], cb[b] = 1, 1
                self.known.append([[m, o], o, ca])
                self.known.append([[m, o], m, cb])
                rec_m = {"with": o, "gave": {KEY[a]: 1}, "received": {KEY[b]: 1}}
                rec_o = {"with": m, "gave": {KEY[b]: 1}, "received": {KEY[a]: 1}}
                self.my_exchange[m].append(rec_m)
                self.my_exchange[o].append(rec_o)
                self.exchanges.append({"merchant": m, "with": o})
                self.emit("merchant_exchange", seat=m, with_seat=o, private={m: rec_m, o: rec_o})
        self.sealed = [None] * n
        self.sizes = [sum(h) for h in hands]
        self._start_play()

    def _random_card(self, hand: list[int]) -> int:
        i = self.rng.below(sum(hand))
        for r in range(1, 14):
            if i < hand[r]:
                return r
            i -= hand[r]
        raise AssertionError("unreachable")

    def _start_play(self) -> None:
        self.phase = PLAY
        self.waiting = []
        self.turn = self.order[0]  # GD-5/GD-6: the (possibly new) Greater Dalmuti leads
        self.top = None
        self.last_player = None
        self.passes = 0

    def _next_with_cards(self, seat: int) -> int:
        """GD-2/GD-7: clockwise in social order, skipping players who went out."""
        order, sizes, n = self.order, self.sizes, self.players
        i = self.pos[seat]
        for _ in range(n):
            i += 1
            if i == n:
                i = 0
            s = order[i]
            if sizes[s]:
                return s
        raise AssertionError("nobody has cards")

    def _play(self, seat: int, rank: int, nat: int, jesters: int) -> None:
        hand = self.hands[seat]
        pb = self.played_by[seat]
        if nat:
            hand[rank] -= nat
            pb[rank] += nat
        if jesters:
            hand[JESTER] -= jesters
            pb[JESTER] += jesters
        self.sizes[seat] -= nat + jesters
        self.top = [rank, nat, jesters]
        self.last_player = seat
        self.passes = 0
        self.emit("play", seat=seat, cards=set_json(rank, nat, jesters))
        if not self.sizes[seat]:
            self.active -= 1
            pts = self.active  # GD-9: 1 point per player still in the hand
            self.points[seat] += pts
            self.hand_points[seat] = pts
            self.out.append(seat)
            self.emit("out", seat=seat, place=len(self.out), points=pts)
            if self.active == 1:  # GD-8
                self._end_hand()
                return
        self.turn = self._next_with_cards(seat)

    def _pass(self, seat: int) -> None:
        self.passes += 1
        self.emit("pass", seat=seat)
        last = self.last_player
        need = self.active - (1 if self.sizes[last] else 0)
        if self.passes >= need:  # GD-7: everyone else still in has passed in a row
            leader = last if self.sizes[last] else self._next_with_cards(last)
            self.top = None
            self.passes = 0
            self.turn = leader
            self.emit("trick_end", leader=leader)
        else:
            self.turn = self._next_with_cards(seat)

    def _end_hand(self) -> None:
        """GD-8: the last player with cards is the Greater Peon; GD-9 philanthropic bonus;
        GD-2 the order of going out is next hand's social order; GD-10 match end."""
        n = self.players
        last = next(s for s in range(n) if self.sizes[s])
        self.out.append(last)
        new_pos = {s: i for i, s in enumerate(self.out)}
        bonus: list[JSON] = []
        if self.options["philanthropic"]:
            # Roles as they stood during this hand (after any greater revolution).
            for d_pos, p_pos in ((0, n - 1), (1, n - 2)):
                peon = self.order[p_pos]
                if new_pos[peon] < p_pos:
                    dalmuti = self.order[d_pos]
                    self.points[dalmuti] += 1
                    self.hand_points[dalmuti] += 1
                    bonus.append({"seat": dalmuti, "points": 1, "peon": peon})
        self.emit("hand_end", hand=self.hand_no, out_order=list(self.out),
                  hand_points=list(self.hand_points), philanthropic=bonus,
                  points=list(self.points))
        if self.hand_no >= self.options["hands"]:
            self._finish("hands_played")
        else:
            self._start_hand(list(self.out))

    def _finish(self, reason: str) -> None:
        self.phase = OVER
        self.turn = None
        self.waiting = []
        self.sealed = [None] * self.players
        self._cache = {}
        self.emit("match_end", reason=reason, points=list(self.points))

    def _end_at_move_cap(self) -> None:
        """G-7: stop where it stands; points already scored count."""
        self._finish("move_cap")

    # ---- results, default action ---------------------------------------------------------

    def _outcome(self) -> tuple[list[Any], list[Any]]:
        """GD-10: highest total points wins (rank key = -points)."""
        return list(self.points), [-p for p in self.points]

    def _order(self) -> list[int]:
        """GD-2: the social order the next hand would be seated in: the seats in the order they
        went out of the last hand, then (a hand cut short by the move cap, G-7) those still
        holding cards in this hand's order. With the philanthropic bonus (GD-9) points can tie
        two seats that went out one after the other: the ranks alone do not say who was first.
        Public: everyone at the table saw who went out when."""
        gone = set(self.out)
        return [*self.out, *(seat for seat in self.order if seat not in gone)]

    def default_action(self, seat: int) -> JSON:
        """Timeout/failure action, always legal: revolution step ``no``; a Dalmuti gives back
        its worst cards (highest natural ranks, Jesters only if it must); the Merchant
        declines; a follower passes; a leader plays all naturals of its worst (highest) rank,
        or its Jesters alone if it holds nothing else."""
        phase = self.phase
        hand = self.hands[seat]
        if phase == REVOLUTION:
            return {"type": "no"}
        if phase == TAXATION:
            pos = self.pos[seat]
            if pos >= 2:
                return {"type": "decline"}
            return {"type": "give_back", "cards": worst_cards(counts_json(hand), 2 - pos)}
        if phase == PLAY and seat == self.turn:
            if self.top is not None:
                return {"type": "pass"}
            for r in range(12, 0, -1):
                if hand[r]:
                    return {"type": "play", "cards": {KEY[r]: hand[r]}}
            return {"type": "play", "cards": {"jester": hand[JESTER]}}
        raise IllegalAction(f"seat {seat} is not asked to act now")

    # ---- view ----------------------------------------------------------------------------

    def _view(self, seat: int | None) -> JSON:
        n = self.players
        played = [0] * 14
        for pb in self.played_by:
            for r in range(1, 14):
                played[r] += pb[r]
        top = self.top
        out: JSON = {
            "hand_number": self.hand_no,
            "hands": self.options["hands"],
            "phase": self.phase,
            "order": list(self.order),
            "positions": list(self.pos),
            "titles": [title(self.pos[s], n) for s in range(n)],
            "hand_sizes": list(self.sizes),
            "points": list(self.points),
            "hand_points": list(self.hand_points),
            "out": list(self.out),
            "played": counts_json(played),
            "deck": counts_json(self.deck),
            "turn": self.turn,
            "trick": None if top is None else {
                "seat": self.last_player, "cards": set_json(*top),
                "rank": top[0], "count": top[1] + top[2]},
            "passes": self.passes,
            "revolution": self.revolution,
            "automatic_revolution": self.automatic_revolution,
            "exchanges": [dict(x) for x in self.exchanges],
            "answered": sorted(
                s for s in range(n) if self.phase in (REVOLUTION, TAXATION)
                and s not in self.waiting and self._asked_in_step(s)),
        }
        if seat is not None:
            out["hand"] = counts_json(self.hands[seat])
            out["my_exchanges"] = [
                {"with": x["with"], "gave": dict(x["gave"]), "received": dict(x["received"])}
                for x in self.my_exchange[seat]]
            sealed = self.sealed[seat]
            out["my_answer"] = None if sealed is None else self._answer_json(sealed)
        return out

    def _asked_in_step(self, seat: int) -> bool:
        if self.phase == REVOLUTION:
            return True
        if self.phase == TAXATION:
            return self.pos[seat] < 2 or (self.pos[seat] == 2 and self.options["merchant_exchange"]
                                          and self.players >= 6)
        return False

    @staticmethod
    def _answer_json(sealed: list[Any]) -> JSON:
        kind = sealed[0]
        if kind == "give_back":
            return {"type": kind, "cards": counts_json(sealed[1])}
        if kind == "exchange":
            return {"type": kind, "with": sealed[1]}
        return {"type": kind}

    # ---- persistence ---------------------------------------------------------------------

    def dump(self) -> JSON:
        return {
            "deck": self.deck, "points": self.points, "hand_no": self.hand_no,
            "order": self.order, "hands": self.hands, "played_by": self.played_by,
            "out": self.out, "hand_points": self.hand_points, "turn": self.turn,
            "top": self.top, "last_player": self.last_player, "passes": self.passes,
            "revolution": self.revolution, "automatic_revolution": self.automatic_revolution,
            "known": self.known, "floors": self.floors, "exchanges": self.exchanges,
            "my_exchange": self.my_exchange, "phase": self.phase, "waiting": self.waiting,
            "sealed": self.sealed,
        }

    def load(self, data: JSON) -> None:
        n = self.players
        self.deck = data["deck"]
        self.points = data["points"]
        self.hand_no = data["hand_no"]
        self.order = data["order"]
        self.pos = [0] * n
        for i, s in enumerate(self.order):
            self.pos[s] = i
        self.hands = data["hands"]
        self.sizes = [sum(h) for h in self.hands]
        self.active = sum(1 for s in self.sizes if s)
        self.played_by = data["played_by"]
        self.out = data["out"]
        self.hand_points = data["hand_points"]
        self.turn = data["turn"]
        self.top = data["top"]
        self.last_player = data["last_player"]
        self.passes = data["passes"]
        self.revolution = data["revolution"]
        self.automatic_revolution = data["automatic_revolution"]
        self.known = data["known"]
        self.floors = data["floors"]
        self.exchanges = data["exchanges"]
        self.my_exchange = data["my_exchange"]
        self.phase = Phase(data["phase"])
        self.waiting = data["waiting"]
        self.sealed = data["sealed"]
        self._cache = {}

    def check_invariants(self) -> None:
        n = self.players
        if self.phase not in set(Phase):
            raise CorruptState(f"unknown phase {self.phase!r}")
        if not (self.deck == deck_counts(n, self.options["stripped_deck"])):
            raise CorruptState("wrong deck")
        if not (sorted(self.order) == list(range(n))):
            raise CorruptState("order is not a permutation of the seats")
        if not all(self.order[self.pos[s]] == s for s in range(n)):
            raise CorruptState("positions do not match the order")
        if not (1 <= self.hand_no <= self.options["hands"]):
            raise CorruptState("a hand number outside 1..hands")
        if not (len(self.hands) == len(self.played_by) == n):
            raise CorruptState("hands and played cards need one row per seat")
        rows = self.hands + self.played_by
        for row in rows:
            if not (len(row) == 14 and row[0] == 0):
                raise CorruptState("a hand or played row needs 14 counts, the unused rank 0 empty")
            if not (set(map(type, row)) == {int} and min(row) >= 0):
                raise CorruptState("negative/non-int count")
        totals = [sum(col) for col in zip(*rows)]  # conservation of cards (GD-1)
        if not (totals == self.deck):
            raise CorruptState(f"cards {totals} do not match the deck {self.deck}")
        if not (self.sizes == [sum(h) for h in self.hands]):
            raise CorruptState("hand sizes out of date")
        if not (all(type(p) is int and p >= 0 for p in self.points) and len(self.points) == n):
            raise CorruptState("points need a count (an integer, not negative) per seat")
        if not (len(self.hand_points) == n):
            raise CorruptState("this hand's points need one entry per seat")
        if not (len(set(self.out)) == len(self.out)):
            raise CorruptState("a seat went out twice")
        empty = [s for s in range(n) if not self.sizes[s]]
        if not (len(self.sealed) == n and len(self.my_exchange) == n):
            raise CorruptState("sealed answers and exchanges need one entry per seat")
        if self.phase in (REVOLUTION, TAXATION):
            if not (not empty and not self.out and self.turn is None and self.top is None):
                raise CorruptState(
                    "a sealed step after the play began (a seat out, a turn or a top set)")
            if not self.waiting:
                raise CorruptState("a sealed step with nobody to answer")
            for s in range(n):
                if not (self._asked_in_step(s) or self.sealed[s] is None):
                    raise CorruptState("a sealed answer from a seat this step does not ask")
                if not ((self.sealed[s] is None)
                        == (s in self.waiting or not self._asked_in_step(s))):
                    raise CorruptState(
                        "a seat waited for has answered, or one that answered is waited for")
            if any(any(pb) for pb in self.played_by):
                raise CorruptState("a card is marked played before the play began")
        elif self.phase == PLAY:
            if not (sorted(empty) == sorted(self.out)):
                raise CorruptState("players out must hold no cards")
            if not (self.active == n - len(self.out) >= 2):
                raise CorruptState(
                    "the active count is not the seats still in, or fewer than two are in")
            if not (self.turn is not None and self.sizes[self.turn] > 0):
                raise CorruptState("the turn is on no seat, or on one with no cards")
            if not (not self.waiting and all(x is None for x in self.sealed)):
                raise CorruptState("sealed answers waited for or kept during the play")
            if self.top is not None:
                rank, nat, jes = self.top
                if not (1 <= rank <= 13 and nat + jes >= 1):
                    raise CorruptState("the top set has no cards or a rank outside 1..13")
                if not ((rank == JESTER) == (nat == 0)):
                    raise CorruptState(
                        "the top set's rank does not match its cards (jesters alone: rank 13)")
                if not (self.last_player is not None):
                    raise CorruptState("a top set without the seat that played it")
                if not (0 <= self.passes < n):
                    raise CorruptState("more passes than seats")
            else:
                if not (self.passes == 0):
                    raise CorruptState("passes counted with nothing on the table")
        else:
            if not (not self.waiting and self.turn is None):
                raise CorruptState("a seat waited for, or a turn, after the hand")

    # ---- determinization -----------------------------------------------------------------

    def resample(self, seat: int | None, seed: int) -> GreatDalmutiState:
        """A copy where what ``seat`` cannot know is re-drawn (``None``: a spectator).

        Kept: ``seat``'s own hand, all public facts (sizes, played cards, order, points), and
        what ``seat`` privately knows: cards it gave another seat in an exchange (GD-4, GD-11)
        stay with that seat unless it may have played them since; a declared revolution pins
        both Jesters on the declarer unless played (public, GD-5); a Dalmuti knows the Peon's
        remaining natural cards are no better than the worst card the Peon paid as tax. The
        other hands are redealt from the pooled unknown cards with the same sizes; other seats'
        sealed answers are re-drawn among their new legal answers; the RNG is re-seeded (future
        shuffles are unknown too)."""
        new = self.clone(private_of=seat)  # other seats' private details are not ours to keep
        rng = Rng(seed)
        new.rng = Rng(state=rng.next64())
        n = self.players
        others = [t for t in range(n) if t != seat and new.sizes[t]]
        hands = new.hands
        pool = [sum(col) for col in zip(*(hands[t] for t in others))]
        pins = {t: [0] * 14 for t in others}
        pinned = set()
        for knowers, holder, counts in new.known:
            if holder in pins and (knowers is None or seat in knowers):
                pinned.add(holder)
                pins[holder] = [a + b for a, b in zip(pins[holder], counts)]
        floor = {t: 1 for t in others}
        for knower, holder, worst in new.floors:
            if knower == seat and holder in floor:
                floor[holder] = max(floor[holder], worst)
        for t in pinned:  # known cards stay unless the holder may have played them since
            pin, played, hand = pins[t], new.played_by[t], hands[t]
            for r in range(1, 14):
                v = pin[r] - played[r]
                v = 0 if v < 0 else hand[r] if v > hand[r] else v
                pin[r] = v
                pool[r] -= v
        # Constrained seats first (at most one per point of view), then the rest.
        for t in others:
            if floor[t] > 1:
                eligible = [r for r in range(floor[t], 14) for _ in range(pool[r])]
                rng.shuffle(eligible)
                hand = pins[t]
                for r in eligible[:new.sizes[t] - sum(hand)]:
                    hand[r] += 1
                    pool[r] -= 1
                new.hands[t] = hand
        rest = [r for r in range(1, 14) for _ in range(pool[r])]
        rng.shuffle(rest)
        i = 0
        for t in others:
            if floor[t] == 1:
                hand = pins[t]
                need = new.sizes[t] - sum(hand)
                for r in rest[i:i + need]:
                    hand[r] += 1
                i += need
                new.hands[t] = hand
        if not (i == len(rest)):
            raise CorruptState("resample left cards undealt")
        # Re-draw the sealed answers this seat cannot see.
        for t in range(n):
            if t != seat and new.sealed[t] is not None:
                legal = new._step_actions(t)
                new.sealed[t] = new._check(t, legal[rng.below(len(legal))])
        new._cache = {}
        return new


def worst_cards(hand: JSON, k: int) -> JSON:
    """The ``k`` worst cards of a hand (counts per rank, G-6): highest natural ranks first,
    Jesters only when nothing else is left (they are wild, GD-6)."""
    out: dict[str, int] = {}
    left = k
    for r in [*range(12, 0, -1), JESTER]:
        have = hand.get(KEY[r], 0)
        take = min(have, left)
        if take:
            out[KEY[r]] = take
            left -= take
        if not left:
            break
    return out


# --------------------------------------------------------------------------------------------
# Heuristic bot
# --------------------------------------------------------------------------------------------


class HeuristicBot(Bot):
    """Decides from its view and legal actions only.

    * Revolution: declares when it holds both Jesters and would be taxed (a Peon); a Greater
      Peon's declaration is a greater revolution.
    * Taxation: gives back its worst cards (highest ranks), keeps Jesters; declines the
      Merchant exchange.
    * Play: goes out when it can; otherwise leads its worst (highest-rank) whole group without
      Jesters; follows with the worst set that uses no Jesters and breaks no group, breaks a
      group only for bad cards (rank 8+), uses Jesters only to go out or when few cards remain;
      else passes.
    """

    def choose(self, view: JSON, legal: Sequence[JSON]) -> JSON:
        first = legal[0]["type"]
        if first == "no":
            n = view["players"]
            want = view["positions"][self.seat] >= n - 2
            for a in legal:
                if a["type"] == "declare" and want:
                    return a
            return legal[0]
        if first == "give_back":
            want = worst_cards(view["hand"], sum(legal[0]["cards"].values()))
            for a in legal:
                if a["cards"] == want:
                    return a
            return legal[0]
        if first in ("decline", "exchange"):
            return legal[0]
        hand = view["hand"]
        size = sum(hand.values())
        plays = [a for a in legal if a["type"] == "play"]
        can_pass = first == "pass"
        if not plays:
            return legal[0]

        def info(a: JSON) -> tuple[int, int, int]:
            cards = a["cards"]
            j = cards.get("jester", 0)
            nat_keys = [k for k in cards if k != "jester"]
            rank = RANK_OF[nat_keys[0]] if nat_keys else JESTER
            return rank, cards.get(nat_keys[0], 0) if nat_keys else 0, j

        for a in plays:  # going out wins points
            if sum(a["cards"].values()) == size:
                return a
        natural = []
        for a in plays:
            rank, nat, j = info(a)
            if j == 0 and rank != JESTER:
                natural.append((rank, nat == hand.get(KEY[rank], 0), a))
        if not can_pass:  # leading: worst whole group, Jesters saved
            whole = [x for x in natural if x[1]]
            if whole:
                return max(whole, key=lambda x: x[0])[2]
            return max(plays, key=lambda a: sum(a["cards"].values()))
        whole = [x for x in natural if x[1]]
        if whole:
            return max(whole, key=lambda x: x[0])[2]
        split = [x for x in natural if x[0] >= 8]
        if split:
            return max(split, key=lambda x: x[0])[2]
        if size <= 4:  # endgame: spend Jesters/good cards to get the lead and go out
            return max(plays, key=lambda a: info(a)[0])
        return legal[0]


# --------------------------------------------------------------------------------------------
# Game
# --------------------------------------------------------------------------------------------


_CAPS: dict[tuple[int, bool, int], int] = {}


class GreatDalmuti(Game):
    id = "great_dalmuti"
    name = "The Great Dalmuti"
    min_players = 4  # GD-1
    max_players = 8
    default_players = 5
    options = (
        Option("hands", 20, "GD-10: number of hands in the match; highest total points wins.",
               type=int, minimum=1, maximum=1000),
        Option("stripped_deck", False,
               "GD-1: 5 players play without the 12s (68 cards), 4 players without the 12s and "
               "11s (57 cards); no effect with 6-8 players.", type=bool),
        Option("first_deal_revolution", False,
               "GD-5: the first deal automatically has a revolution (no taxation); a Greater "
               "Peon holding both Jesters may still call a greater revolution.", type=bool),
        Option("philanthropic", False,
               "GD-9: +1 point to the Greater Dalmuti if the Greater Peon moves up next hand, "
               "+1 to the Lesser Dalmuti if the Lesser Peon does.", type=bool),
        Option("merchant_exchange", False,
               "GD-11: during taxation the highest Merchant may swap a random card with another "
               "Merchant of its choice (6+ players).", type=bool,
               check=_check_merchant_exchange),
        Option("initial_order", None,
               "GD-12: null = first social order by a simulated card draw; else a list of all "
               "seats, Greater Dalmuti first (a league carrying its order into a new match).",
               type=list, nullable=True, check=_check_initial_order),
    )
    state_class = GreatDalmutiState
    bots = {"random": RandomBot, "heuristic": HeuristicBot}
    scores_add_up = True  # GD-9 points per hand, GD-10 the highest total wins
    order_carries_over = True  # GD-2: the order of going out seats the next hand

    def series_options(self, options: JSON, *, players: int, ordered: bool,
                       first: bool) -> JSON:
        """Each match of the series is one hand (``hands`` 1) seated in social order, and
        ``initial_order`` carries that order in (GD-12), or ``None`` before there is one: the
        engine draws it (GD-2). The engine applies ``first_deal_revolution`` (GD-5) to a
        match's first hand, i.e. to every such match: it stays as set on the series' first
        match only."""
        merged = super().series_options(options, players=players, ordered=ordered, first=first)
        merged["hands"] = 1
        merged["initial_order"] = list(range(players)) if ordered else None
        if not first:
            merged["first_deal_revolution"] = False
        return merged

    def move_cap(self, players: int, options: JSON) -> int:
        """G-7: per hand, the revolution step (``players`` answers) + taxation (at most 3
        answers) + play: every play removes a card (at most ``deck`` plays) and at most
        ``players - 1`` passes follow a play, so ``deck * players`` moves; times ``hands``."""
        key = (players, options.get("stripped_deck", False), options.get("hands", 20))
        cap = _CAPS.get(key)
        if cap is None:
            deck = sum(deck_counts(players, key[1]))
            cap = _CAPS[key] = key[2] * (players + 3 + deck * players)
        return cap


GAME = GreatDalmuti()
GreatDalmutiState.game = GAME
