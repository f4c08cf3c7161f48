"""Dice cup bluff: roll three dice in secret, call a chip, and hope your target guesses wrong.

Rulebook: ``rulebooks/dice-cup-bluff.txt``; house rules DC-1..DC-5 and G-1..G-7
(``docs/rules/dice_cup.md`` has the full summary, action shapes and every settled gap).

One turn, for the roller (the seat on turn, "the bluffer" in the rulebook):

1. The engine rolls 3 dice for the roller (G-1, from ``state.rng``); only the roller sees them
   (a private ``roll`` event and its view, G-3).
2. The roller either *calls* a target (any opponent) and a number, which must be a chip in the
   middle or in front of that target (DC-2), or, holding doubles (DC-4: at least two equal dice),
   *trades* 2+ of its chips back to the middle for one middle chip whose points equal theirs.
   A trade shows the dice and ends the turn.
3. The target answers ``truth`` or ``bluff``; the dice are revealed to everyone.
4. Tricked (a true call judged a bluff, or a bluff believed): the roller takes the called chip,
   from the middle or from the target. Not tricked: the target takes it from the middle, except
   (DC-3) when the chip was in front of the target at the start of the turn: the target keeps it
   and the roller gives the target one chip of its own choice (a ``give`` step), or nothing if
   it has no chips.

The match ends (DC-5) when the middle is empty, when a seat reaches the ``target_points``
option, or after 500 turns (G-7); most points wins, ties go to fewest chips, then are shared.

State layout (small lists and ints, for speed): ``owner[c - 3]`` is ``-1`` for a chip in the
middle or the seat holding chip ``c``; chips are therefore conserved by construction.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from enum import StrEnum
from itertools import combinations, pairwise
from typing import Any

from .actions import LazyActions
from .base import JSON, Bot, Game, RandomBot, State
from .errors import CorruptState, IllegalAction
from .options import Option
from .rng import Rng

# DC-1: chips 3..18 and their points.
CHIPS = tuple(range(3, 19))
POINTS = {3: 5, 18: 5, 4: 4, 17: 4, 5: 3, 6: 3, 15: 3, 16: 3,
          7: 2, 8: 2, 13: 2, 14: 2, 9: 1, 10: 1, 11: 1, 12: 1}
_PTS = [POINTS[c] for c in CHIPS]  # by chip index c - 3
MIDDLE = -1
#: DC-5 / G-7: the match ends after this many turns (a trade returns chips to the middle, so a
#: match could otherwise go on for ever).
TURN_CAP = 500
#: At most 3 moves per turn (call, answer, give), so the engine-wide move cap never binds first.
MOVES_PER_TURN = 3

class Phase(StrEnum):
    """The step of a turn (DC-2, DC-3): the state's ``phase``, its value in views and JSON."""

    CALL = "call"
    ANSWER = "answer"
    GIVE = "give"
    OVER = "over"

#: The members as module names too, for the rules below: ``phase is CALL`` reads a global,
#: where ``Phase.CALL`` reads an Enum class attribute, ten times slower on CPython 3.11
#: (docs/performance.md).
CALL, ANSWER, GIVE, OVER = Phase

_CALL_KEYS = frozenset(("type", "target", "number"))
_TRADE_KEYS = frozenset(("type", "give", "take"))
_GIVE_KEYS = frozenset(("type", "chip"))
_TYPE_ONLY = frozenset(("type",))
_TRUTH = {"type": "truth"}
_BLUFF = {"type": "bluff"}
_ANSWERS = [_TRUTH, _BLUFF]

#: Number of ways to roll each sum with 3d6 (out of 216), for the heuristic bot.
WAYS_3D6 = {s: sum(1 for a in range(1, 7) for b in range(1, 7) for c in range(1, 7)
                   if a + b + c == s) for s in range(3, 19)}


def chip_points(chip: int) -> int:
    """DC-1: the points a chip is worth."""
    return POINTS[chip]


def has_doubles(dice: list[int]) -> bool:
    """DC-4: doubles means at least two equal dice (triples count)."""
    a, b, c = dice
    return a == b or b == c or a == c


def roll_dice(rng: Rng) -> list[int]:
    """Three fair dice from one uniform draw of 6**3 outcomes (G-1: the match RNG only)."""
    r = rng.below(216)
    return [r // 36 + 1, r // 6 % 6 + 1, r % 6 + 1]


def _is_int(x: Any) -> bool:
    return type(x) is int  # rejects bools (and int subclasses) on purpose


class CallActions(LazyActions):
    """The complete legal actions of the call step, built lazily (G-6 dicts on demand).

    Order: calls by target (clockwise from the roller's left), then by number ascending; then
    the trades (DC-4) in the order of :meth:`DiceCupState._trades`. Compares equal to a list
    holding the same actions in the same order."""

    __slots__ = ("_calls", "_ends", "numbers", "targets", "trades")

    def __init__(self, targets: list[int], numbers: list[list[int]],
                 trades: list[JSON]) -> None:
        self.targets = targets
        self.numbers = numbers
        self.trades = trades
        ends = []
        total = 0
        for nums in numbers:
            total += len(nums)
            ends.append(total)
        self._ends = ends
        self._calls = total

    def __len__(self) -> int:
        return self._calls + len(self.trades)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if index < 0:
            raise IndexError("legal action index out of range")
        if index >= self._calls:
            return self.trades[index - self._calls]
        start = 0
        for k, end in enumerate(self._ends):
            if index < end:
                return {"type": "call", "target": self.targets[k],
                        "number": self.numbers[k][index - start]}
            start = end
        raise IndexError("legal action index out of range")  # pragma: no cover

    def __iter__(self) -> Iterator[JSON]:
        for t, nums in zip(self.targets, self.numbers):
            for n in nums:
                yield {"type": "call", "target": t, "number": n}
        yield from self.trades

    def __contains__(self, action: object) -> bool:
        if not isinstance(action, dict):
            return False
        if action.get("type") == "call":
            if action.keys() != _CALL_KEYS:
                return False
            t, n = action["target"], action["number"]
            if not _is_int(t) or not _is_int(n) or t not in self.targets:
                return False
            return n in self.numbers[self.targets.index(t)]
        return action in self.trades

    def describe(self) -> JSON:
        """A compact JSON description of the whole list, for webhook bots:
        ``{"type": "call", "calls": [{"target": t, "numbers": [...]}, ...], "trades": [...],
        "count": len}``; a call is legal iff its number is listed for its target (DC-2), a
        trade iff it is listed in ``trades`` (DC-4)."""
        return {"type": "call",
                "calls": [{"target": t, "numbers": list(nums)}
                          for t, nums in zip(self.targets, self.numbers)],
                "trades": [dict(a, give=list(a["give"])) for a in self.trades],
                "count": len(self)}


class DiceCupState(State):
    """One match of dice cup bluff. See the module docstring for the turn structure."""

    def __init__(self, *, players: int, seed: int, options: JSON) -> None:
        super().__init__(players=players, seed=seed, options=options)
        self.owner: list[int] = [MIDDLE] * 16
        self.roller = 0
        self.phase = CALL
        self.dice: list[int] = [1, 1, 1]
        self.revealed = False
        self.target = -1
        self.number = 0
        self.from_target = False
        self.turn = 0  # turns completed
        self.last: JSON | None = None
        self.honesty: list[list[int]] = [[0, 0] for _ in range(players)]  # [true calls, bluffs]
        self.answers: list[list[int]] = [[0, 0] for _ in range(players)]  # [said truth, bluff]
        self.end_reason: str | None = None
        self._legal: list[JSON] | None = None

    # ---- setup and flow ------------------------------------------------------------------

    def setup(self) -> None:
        # "The youngest player takes the first turn": the first roller is drawn at random (G-1).
        self.roller = self.rng.below(self.players)
        self.emit("start", first=self.roller, target_points=self.options["target_points"])
        self._roll()

    def _roll(self) -> None:
        self.dice = roll_dice(self.rng)
        self.revealed = False
        self.phase = CALL
        self._legal = None
        # G-3: the dice go to the roller alone.
        self.emit("roll", private={self.roller: {"dice": list(self.dice)}}, seat=self.roller)

    def points(self, seat: int) -> int:
        pts = _PTS
        return sum(pts[i] for i, o in enumerate(self.owner) if o == seat)

    def chips_of(self, seat: int) -> list[int]:
        """Chips in front of ``seat`` (``-1``: the middle), ascending."""
        return [i + 3 for i, o in enumerate(self.owner) if o == seat]

    def _end_turn(self, last: JSON) -> None:
        self.last = last
        self.turn += 1
        self.target = -1
        self.number = 0
        self.from_target = False
        self._legal = None
        goal = self.options["target_points"]
        reason = None
        if goal is not None:
            # DC-5 option: the game ends as soon as a player reaches target_points.
            for seat in range(self.players):
                if self.points(seat) >= goal:
                    reason = "target_points"
                    break
        if reason is None and MIDDLE not in self.owner:
            reason = "middle_empty"  # DC-5
        if reason is None and self.turn >= TURN_CAP:
            reason = "turn_cap"  # DC-5 / G-7
        if reason is not None:
            if reason == "turn_cap":
                # G-7: the engine-wide "move_cap" event, counting the move being applied.
                self.emit("move_cap", moves=self.moves + 1, turns=self.turn)
            self.phase = OVER
            self.end_reason = reason
            self.emit("game_over", reason=reason, turns=self.turn)
            return
        self.roller = (self.roller + 1) % self.players  # G-2: clockwise
        self._roll()

    # ---- the interface ---------------------------------------------------------------------

    def to_act(self) -> list[int]:
        phase = self.phase
        if phase is CALL or phase is GIVE:
            return [self.roller]
        if phase is ANSWER:
            return [self.target]
        return []

    def legal_actions(self, seat: int) -> Sequence[JSON]:
        """The complete legal actions of ``seat`` (``[]`` when it is not asked).

        Order: calls by target clockwise from the roller's left, then number ascending; then
        trades (only with doubles) by number of chips returned, returned chips ascending
        (lexicographic), then the chip taken ascending. Answers: truth, bluff. Gives: chip
        ascending. The call step returns a lazy :class:`CallActions` sequence; the others a
        list. Both are cached per position: do not mutate them."""
        phase = self.phase
        if phase is OVER:
            return []
        asked = self.target if phase is ANSWER else self.roller
        if seat != asked:
            return []
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        return legal

    def _compute_legal(self) -> Any:
        phase = self.phase
        owner = self.owner
        if phase is ANSWER:
            return _ANSWERS
        roller = self.roller
        if phase is GIVE:
            return [{"type": "give", "chip": i + 3} for i, o in enumerate(owner) if o == roller]
        # The call phase. DC-2: the middle, or chips in front of the chosen target.
        n = self.players
        middle = [c for c, o in zip(CHIPS, owner) if o == MIDDLE]
        targets = [(roller + k) % n for k in range(1, n)]
        numbers = [[c for c, o in zip(CHIPS, owner) if o == MIDDLE or o == t]
                   if t in owner else middle for t in targets]
        trades = self._trades() if has_doubles(self.dice) else []
        return CallActions(targets, numbers, trades)

    def _trades(self) -> list[JSON]:
        """DC-4: every trade of 2+ of the roller's chips for one middle chip of equal points."""
        owner = self.owner
        roller = self.roller
        # Only chips worth 1..4 points can be part of a trade (the sum must be <= 5).
        mine = [c for c, o, p in zip(CHIPS, owner, _PTS) if o == roller and p < 5]
        if len(mine) < 2:
            return []
        middle_by_pts: dict[int, list[int]] = {}
        for c, o, p in zip(CHIPS, owner, _PTS):
            if o == MIDDLE and p > 1:
                middle_by_pts.setdefault(p, []).append(c)
        if not middle_by_pts:
            return []
        top = max(middle_by_pts)
        # A chip worth >= top points can never be part of a sum of 2+ chips equal to <= top.
        mine = [c for c in mine if POINTS[c] < top]
        out = []
        for size in range(2, min(len(mine), top) + 1):
            for give in combinations(mine, size):
                takes = middle_by_pts.get(sum(POINTS[c] for c in give))
                if takes:
                    out += [{"type": "trade", "give": list(give), "take": t} for t in takes]
        return out

    def _check(self, seat: int, action: JSON) -> Any:
        kind = action.get("type")
        phase = self.phase
        keys = action.keys()
        if phase is CALL:
            if kind == "call":
                if keys != _CALL_KEYS:
                    raise IllegalAction(
                        'a call is {"type": "call", "target": <seat>, "number": <chip>}')
                target, number = action["target"], action["number"]
                if not _is_int(target) or not 0 <= target < self.players:
                    raise IllegalAction(f"target must be a seat 0..{self.players - 1}, "
                                        f"not {target!r}")
                if target == seat:
                    raise IllegalAction("the target must be an opponent, not yourself")
                if not _is_int(number) or not 3 <= number <= 18:
                    raise IllegalAction(f"number must be a chip 3..18, not {number!r}")
                where = self.owner[number - 3]
                if where != MIDDLE and where != target:
                    if where == seat:
                        raise IllegalAction(f"chip {number} is already in front of you (DC-2)")
                    raise IllegalAction(
                        f"chip {number} is in front of seat {where}: to call it, pick seat "
                        f"{where} as the target (DC-2)")
                return (0, target, number)
            if kind == "trade":
                return self._check_trade(seat, action, keys)
            raise IllegalAction(f"the roller must \"call\" (or \"trade\" with doubles), "
                                f"not {kind!r}")
        if phase is ANSWER:
            if kind == "truth" or kind == "bluff":
                if keys != _TYPE_ONLY:
                    raise IllegalAction(f'an answer is just {{"type": "{kind}"}}, '
                                        f"with no other keys")
                return (1, kind == "truth")
            raise IllegalAction(f'the target must answer "truth" or "bluff", not {kind!r}')
        if phase is GIVE:
            if kind != "give":
                raise IllegalAction(f"the roller must \"give\" the target one of its chips "
                                    f"(DC-3), not {kind!r}")
            if keys != _GIVE_KEYS:
                raise IllegalAction('a gift is {"type": "give", "chip": <one of your chips>}')
            chip = action["chip"]
            if not _is_int(chip) or not 3 <= chip <= 18 or self.owner[chip - 3] != seat:
                raise IllegalAction(f"chip {chip!r} is not in front of you (DC-3)")
            return (2, chip)
        raise IllegalAction("the match is over")

    def _check_trade(self, seat: int, action: JSON, keys: Any) -> Any:
        if keys != _TRADE_KEYS:
            raise IllegalAction(
                'a trade is {"type": "trade", "give": [<your chips>, ascending], "take": <chip>}')
        if not has_doubles(self.dice):
            raise IllegalAction("a trade needs doubles: at least two equal dice (DC-4)")
        give, take = action["give"], action["take"]
        if not isinstance(give, list) or len(give) < 2:
            raise IllegalAction(f"give must be a list of 2 or more of your chips, not {give!r}")
        for c in give:
            if not _is_int(c) or not 3 <= c <= 18:
                raise IllegalAction(f"give must list chips 3..18, not {c!r}")
            if self.owner[c - 3] != seat:
                raise IllegalAction(f"chip {c} is not in front of you")
        if any(a >= b for a, b in pairwise(give)):
            raise IllegalAction("give must list distinct chips in ascending order")
        if not _is_int(take) or not 3 <= take <= 18:
            raise IllegalAction(f"take must be a chip 3..18, not {take!r}")
        if self.owner[take - 3] != MIDDLE:
            raise IllegalAction(f"chip {take} is not in the middle")
        total = sum(POINTS[c] for c in give)
        if POINTS[take] != total:
            raise IllegalAction(f"the chips given are worth {total} points but chip {take} is "
                                f"worth {POINTS[take]} (DC-4: they must be equal)")
        return (3, give, take)

    def _apply(self, seat: int, parsed: Any) -> None:
        kind = parsed[0]
        if kind == 0:
            self._apply_call(seat, parsed[1], parsed[2])
        elif kind == 1:
            self._apply_answer(seat, parsed[1])
        elif kind == 2:
            self._apply_give(seat, parsed[1])
        else:
            self._apply_trade(seat, parsed[1], parsed[2])

    def _apply_call(self, seat: int, target: int, number: int) -> None:
        self.target = target
        self.number = number
        # DC-3 needs to know whether the chip was in front of the target at the start of turn.
        self.from_target = self.owner[number - 3] == target
        self.phase = ANSWER
        self._legal = None
        self.emit("call", seat=seat, target=target, number=number)

    def _apply_answer(self, seat: int, says_truth: bool) -> None:
        roller, number, dice = self.roller, self.number, self.dice
        total = dice[0] + dice[1] + dice[2]
        truthful = total == number
        tricked = truthful != says_truth  # truth called a bluff, or a bluff believed
        self.revealed = True
        self.honesty[roller][0 if truthful else 1] += 1
        self.answers[seat][0 if says_truth else 1] += 1
        answer = "truth" if says_truth else "bluff"
        self.emit("answer", seat=seat, answer=answer, dice=list(dice), sum=total,
                  truthful=truthful, tricked=tricked)
        last = {"kind": "call", "roller": roller, "target": seat, "number": number,
                "dice": list(dice), "answer": answer, "truthful": truthful, "tricked": tricked,
                "scorer": None, "gave": None}
        source = seat if self.from_target else "middle"
        if tricked:
            self.owner[number - 3] = roller
            last["scorer"] = roller
            self.emit("score", seat=roller, chip=number, source=source)
        elif not self.from_target:
            self.owner[number - 3] = seat
            last["scorer"] = seat
            self.emit("score", seat=seat, chip=number, source=source)
        elif roller in self.owner:
            # DC-3: the target keeps its chip; the roller now chooses one of its own to give.
            self.phase = GIVE
            self._legal = None
            self.last = last
            return
        else:
            # DC-3: a roller with no chips gives nothing.
            self.emit("give", seat=roller, target=seat, chip=None)
        self._end_turn(last)

    def _apply_give(self, seat: int, chip: int) -> None:
        self.owner[chip - 3] = self.target
        self.emit("give", seat=seat, target=self.target, chip=chip)
        last = dict(self.last or {})
        last["gave"] = chip
        self._end_turn(last)

    def _apply_trade(self, seat: int, give: list[int], take: int) -> None:
        owner = self.owner
        for c in give:
            owner[c - 3] = MIDDLE
        owner[take - 3] = seat
        self.revealed = True  # DC-4: the dice are shown on a trade
        self.emit("trade", seat=seat, dice=list(self.dice), give=list(give), take=take)
        self._end_turn({"kind": "trade", "roller": seat, "dice": list(self.dice),
                        "give": list(give), "take": take})

    def _view(self, seat: int | None) -> JSON:
        phase = self.phase
        show_dice = self.revealed or (seat == self.roller and seat is not None)
        call = None
        if phase is ANSWER or phase is GIVE:
            call = {"target": self.target, "number": self.number,
                    "from_target": self.from_target}
        # One walk over the chips for every seat's chips and points (a view is built for each
        # bot request: chips_of and points per seat walked them 2 * players + 1 times).
        middle: list[int] = []
        chips: list[list[int]] = [[] for _ in range(self.players)]
        points = [0] * self.players
        for chip, (o, p) in enumerate(zip(self.owner, _PTS), start=3):
            if o == MIDDLE:
                middle.append(chip)
            else:
                chips[o].append(chip)
                points[o] += p
        return {
            "phase": phase,
            "roller": self.roller,
            "turn": self.turn,
            "turn_cap": TURN_CAP,
            "target_points": self.options["target_points"],
            "middle": middle,
            "chips": chips,
            "points": points,
            "dice": list(self.dice) if show_dice else None,
            "dice_revealed": self.revealed,
            "call": call,
            "last": None if self.last is None else dict(self.last),
            "honesty": [list(h) for h in self.honesty],
            "answers": [list(a) for a in self.answers],
            "end_reason": self.end_reason,
        }

    def _outcome(self) -> tuple[list[Any], list[Any]]:
        """DC-5: most points; tie: fewest chips; then shared (G-4)."""
        points = [self.points(s) for s in range(self.players)]
        counts = [self.owner.count(s) for s in range(self.players)]
        return points, [(-p, c) for p, c in zip(points, counts)]

    def _end_at_move_cap(self) -> None:
        # G-7: stop where it stands. (Never reached in practice: the 500-turn cap ends the
        # match first, see MOVES_PER_TURN.) A pending call is dropped unresolved.
        self.phase = OVER
        self.end_reason = "move_cap"
        self.target, self.number, self.from_target = -1, 0, False
        self._legal = None

    @property
    def is_over(self) -> bool:
        return self.phase is OVER

    def default_action(self, seat: int) -> JSON:
        """The documented timeout action (always legal):

        * call step: call the next opponent clockwise with the true sum of the dice if that
          chip may be called against it (in the middle or in front of it), else the lowest
          chip in the middle (there is always one while the match runs);
        * answer step: ``truth``;
        * give step (DC-3): the roller's chip worth fewest points (lowest number on a tie).
        """
        if seat not in self.to_act():
            raise IllegalAction(f"seat {seat} is not asked to act now")
        if self.phase is ANSWER:
            return dict(_TRUTH)
        if self.phase is GIVE:
            chips = self.chips_of(seat)
            return {"type": "give", "chip": min(chips, key=lambda c: (POINTS[c], c))}
        target = (seat + 1) % self.players
        total = sum(self.dice)
        if self.owner[total - 3] in (MIDDLE, target):
            return {"type": "call", "target": target, "number": total}
        return {"type": "call", "target": target, "number": self.owner.index(MIDDLE) + 3}

    # ---- persistence -----------------------------------------------------------------------

    def dump(self) -> JSON:
        return {
            "owner": list(self.owner),
            "roller": self.roller,
            "phase": self.phase,
            "dice": list(self.dice),
            "revealed": self.revealed,
            "target": self.target,
            "number": self.number,
            "from_target": self.from_target,
            "turn": self.turn,
            "last": None if self.last is None else dict(self.last),
            "honesty": [list(h) for h in self.honesty],
            "answers": [list(a) for a in self.answers],
            "end_reason": self.end_reason,
        }

    def load(self, data: JSON) -> None:
        try:
            self.phase = Phase(data["phase"])
        except ValueError:
            raise ValueError(f"unknown phase {data['phase']!r}") from None
        self.owner = list(data["owner"])
        self.roller = data["roller"]
        self.dice = list(data["dice"])
        self.revealed = data["revealed"]
        self.target = data["target"]
        self.number = data["number"]
        self.from_target = data["from_target"]
        self.turn = data["turn"]
        self.last = data["last"]
        self.honesty = [list(h) for h in data["honesty"]]
        self.answers = [list(a) for a in data["answers"]]
        self.end_reason = data["end_reason"]
        self._legal = None

    def check_invariants(self) -> None:
        n = self.players
        owner = self.owner
        # DC-1: exactly the 16 chips, each in the middle or in front of one seat (conserved).
        if not (isinstance(owner, list) and len(owner) == 16):
            raise CorruptState("there must be 16 chips")
        if not all(_is_int(o) and -1 <= o < n for o in owner):
            raise CorruptState(f"bad chip owners {owner}")
        if not (_is_int(self.roller) and 0 <= self.roller < n):
            raise CorruptState("bad roller")
        if not (isinstance(self.dice, list) and len(self.dice) == 3):
            raise CorruptState("three dice")
        if not all(_is_int(d) and 1 <= d <= 6 for d in self.dice):
            raise CorruptState(f"bad dice {self.dice}")
        if not (isinstance(self.revealed, bool) and isinstance(self.from_target, bool)):
            raise CorruptState("revealed and from_target must be booleans")
        if not (_is_int(self.turn) and 0 <= self.turn <= TURN_CAP):
            raise CorruptState("bad turn count")
        for table in (self.honesty, self.answers):
            if not (len(table) == n and all(
                len(row) == 2 and all(_is_int(x) and x >= 0 for x in row) for row in table)):
                raise CorruptState(
                    "honesty and answer tables need two counts (not negative) per seat")
        if not (sum(map(sum, self.honesty)) == sum(map(sum, self.answers))):
            raise CorruptState("the honesty table and the answers count different calls")
        phase = self.phase
        if phase is OVER:
            if not (self.end_reason in ("middle_empty", "target_points", "turn_cap",
                                       "move_cap")):
                raise CorruptState("bad end reason")
            if not (self.target == -1 and self.number == 0):
                raise CorruptState("a finished match still has a call (target or number)")
            return
        if not (self.end_reason is None):
            raise CorruptState("an end reason while the match runs")
        if not (MIDDLE in owner):
            raise CorruptState("the middle cannot be empty while the match runs (DC-5)")
        goal = self.options["target_points"]
        if goal is not None:
            if not all(self.points(s) < goal for s in range(n)):
                raise CorruptState("target_points was reached")
        if phase is CALL:
            if not (not self.revealed and self.target == -1 and self.number == 0):
                raise CorruptState(
                    "a call (target, number or revealed roll) before the roller called")
            return
        if not (0 <= self.target < n and self.target != self.roller):
            raise CorruptState("bad target")
        if not (3 <= self.number <= 18):
            raise CorruptState("bad called number")
        where = owner[self.number - 3]
        if phase is ANSWER:
            if self.revealed:
                raise CorruptState("the roll is revealed before the target answered")
            # DC-2: the called chip is in the middle or in front of the target.
            if not (where == (self.target if self.from_target else MIDDLE)):
                raise CorruptState("bad called chip")
        else:  # the give phase (DC-3): not tricked on the target's own chip, roller has chips.
            if not (self.revealed and self.from_target and where == self.target):
                raise CorruptState("a give (DC-3) needs a revealed lie on the target's own chip")
            if not (self.roller in owner):
                raise CorruptState("a roller without chips gives nothing")

    def resample(self, seat: int | None, seed: int) -> DiceCupState:
        """A copy where what ``seat`` cannot know is re-drawn: the roller's dice while they are
        hidden from ``seat`` (every seat but the roller, before the reveal), and the RNG that
        will roll the future dice (nobody knows it). Everything else is public."""
        new = self.clone(private_of=seat)
        rng = Rng(seed)
        new.rng = Rng(state=rng.next64())
        if not self.revealed and seat != self.roller:
            new.dice = roll_dice(rng)
            # Keep the copy's own record consistent: the roller's private roll event.
            for i in range(len(new._events) - 1, -1, -1):
                public, _private = new._events[i]
                if public.get("type") == "roll":
                    new._events[i] = (public, {self.roller: {"dice": list(new.dice)}})
                    break
        return new


# --------------------------------------------------------------------------------------------
# Heuristic bot
# --------------------------------------------------------------------------------------------


class HeuristicBot(Bot):
    """Decides from its view and legal actions only.

    * As target: Bayes on the called number. The roller tells the truth with an estimated rate
      ``r`` (its revealed calls so far, Laplace-smoothed); a true call names the 3d6 sum, so
      ``P(call n | truth) = P_3d6(n)``; a bluff names any callable chip, ``1/m``. Answer the
      likelier one.
    * As roller: for every legal call, estimate the chance of tricking the target (half a
      random answerer, half a judge who believes sums of 7..14-like likelihood), and weigh what
      each outcome does to the points of this seat and of the target (the leader counts more).
      A true sum that is unlikely is called as the truth; otherwise a bluff on a likely-looking,
      valuable chip. Trades (DC-4) keep points equal, so it trades only when no call is
      expected to gain.
    * Give step (DC-3): its cheapest chip.
    """

    def choose(self, view: JSON, legal: Any) -> JSON:
        legal = list(legal)
        phase = view["phase"]
        if phase == ANSWER:
            return self._answer(view)
        if phase == GIVE:
            return min(legal, key=lambda a: (POINTS[a["chip"]], a["chip"]))
        return self._call(view, legal)

    @staticmethod
    def _judge_truth_prob(callable_count: int, number: int, honesty: list[int]) -> float:
        r = (honesty[0] + 1) / (honesty[0] + honesty[1] + 2)
        pt = r * WAYS_3D6[number] / 216
        pb = (1 - r) / max(callable_count, 1)
        return pt / (pt + pb)

    def _answer(self, view: JSON) -> JSON:
        call = view["call"]
        roller = view["roller"]
        m = len(view["middle"]) + len(view["chips"][self.seat])
        p = self._judge_truth_prob(m, call["number"], view["honesty"][roller])
        return dict(_TRUTH) if p >= 0.5 else dict(_BLUFF)

    def _call(self, view: JSON, legal: list[JSON]) -> JSON:
        me = self.seat
        dice = view["dice"]
        total = sum(dice)
        points = view["points"]
        chips = view["chips"]
        mine = chips[me]
        cheapest = min((POINTS[c] for c in mine), default=0)
        opp_best = max(p for s, p in enumerate(points) if s != me)
        best, best_value = None, None
        for action in legal:
            if action["type"] != "call":
                continue
            t, n = action["target"], action["number"]
            m = len(view["middle"]) + len(chips[t])
            # Chance the target answers "truth": half random, half a fair judge (r = 1/2).
            q = 0.25 + 0.5 * (self._judge_truth_prob(m, n, [0, 0]) >= 0.5)
            p_trick = (1 - q) if n == total else q
            pts = POINTS[n]
            w = 1.0 if points[t] == opp_best else 0.5
            from_t = n in chips[t]
            if from_t:
                win = pts + w * pts
                lose = -(cheapest + w * cheapest) if mine else 0.0
            else:
                win = pts
                lose = -w * pts
            value = p_trick * win + (1 - p_trick) * lose
            if best_value is None or value > best_value + 1e-12:
                best, best_value = action, value
        trades = [a for a in legal if a["type"] == "trade"]
        if trades and (best is None or best_value <= 0):
            return max(trades, key=lambda a: len(a["give"]))
        return best if best is not None else legal[0]


class DiceCupGame(Game):
    """Dice cup bluff (``rulebooks/dice-cup-bluff.txt``; house rules DC-1..DC-5)."""

    id = "dice_cup"
    name = "Dice cup bluff"
    min_players = 2  # DC-1
    max_players = 6
    default_players = 4
    options = (
        Option("target_points", None,
               "DC-5: null (default) plays until the middle is empty; an integer 1..42 ends the "
               "game as soon as a player has that many points (42: all of them).",
               type=int, minimum=1, maximum=sum(_PTS), nullable=True),
    )
    state_class = DiceCupState
    bots = {"random": RandomBot, "heuristic": HeuristicBot}

    def legal_from_description(self, description: JSON) -> Sequence[JSON]:
        """A :class:`CallActions` from its ``describe()`` (a call step's list is left out
        for a compact bot once it is over 256 actions); other descriptions are refused."""
        if description.get("type") != "call":
            return super().legal_from_description(description)
        calls = description["calls"]
        return CallActions([c["target"] for c in calls], [list(c["numbers"]) for c in calls],
                           [dict(t, give=list(t["give"])) for t in description["trades"]])

    def move_cap(self, players: int, options: JSON) -> int:
        """G-7 / DC-5: the cap is 500 turns; a turn takes at most 3 moves (call, answer, give),
        so this move bound is never the one that ends a match."""
        return TURN_CAP * MOVES_PER_TURN


GAME = DiceCupGame()
DiceCupState.game = GAME
