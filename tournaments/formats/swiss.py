"""Swiss: a fixed number of two-seat rounds, each paired by score when the previous one is
done (lila's Swiss, FIDE's idea). No Django.

Each round: entrants are ranked by score (match points, a bye counting as a win), then entry
order. With an odd count the lowest-ranked entrant who has not had a bye sits this round out
(a bye). The rest are paired top down, each with the nearest-ranked entrant it may meet: not
one it has met (a rematch only where none can be avoided, the fewest the search finds), and
not one that would take either past ``MOST_SEAT_BALANCE`` (first seats minus second seats;
always possible, :func:`_search`). Then partners are exchanged between two pairs while that
leaves fewer pairs of two entrants due the same seat (both took the first seat more often than
the second so far, or both the second) and no wider score gaps; never so that the next round
could no longer avoid rematches. In each pair the entrant who took the first seat less often
so far takes it (then: the one who sat second last time, then the higher-ranked), so seats
alternate. In a Swiss as long as a round robin, where avoiding rematches leaves no room, the
pairs are only the fewest rematches, seated so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from itertools import combinations

from games.engine.rng import deal_seed

from ..standings import match_points
from .base import Format, Outcome, PlannedMatch, register

#: Pairing steps one round may try before it accepts one more rematch (keeps 64 entrants quick).
SEARCH_BUDGET = 20_000
#: An entrant's first seats minus its second seats never passes this in a Swiss shorter than a
#: round robin (the exchanges aim at one).
MOST_SEAT_BALANCE = 2


@register
class Swiss(Format):
    name = "swiss"

    def __init__(self, *, participants: int, rounds: int, secret: str) -> None:
        if participants < 2:
            raise ValueError(f"a Swiss tournament needs 2 or more participants, not {participants}")
        if not 1 <= rounds <= participants - 1 + participants % 2:
            raise ValueError(f"{participants} participants play 1 to "
                             f"{participants - 1 + participants % 2} Swiss rounds, not {rounds}")
        self.participants, self.rounds, self.secret = participants, rounds, secret

    def plan(self, outcomes: Mapping[str, Outcome]) -> list[PlannedMatch]:
        number = 0
        played: list[Outcome] = []
        byes: list[int] = []
        for round_index in range(self.rounds):
            matches, bye = self._pair(round_index, number, played, byes)
            if not all(match.key in outcomes for match in matches):
                return [match for match in matches if match.key not in outcomes]
            played += [outcomes[match.key] for match in matches]
            byes += bye
            number += len(matches)
        return []

    def is_over(self, outcomes: Mapping[str, Outcome]) -> bool:
        return not self.plan(outcomes)

    def match_count(self) -> int:
        return self.rounds * (self.participants // 2)

    @staticmethod
    def default_rounds(participants: int) -> int:
        """Enough rounds for one unbeaten entrant to be left: ceil(log2 participants)."""
        return max(1, (participants - 1).bit_length())

    def _pair(self, round_index: int, first_number: int, played: Sequence[Outcome],
              byes: Sequence[int]) -> tuple[list[PlannedMatch], list[int]]:
        score = [Fraction(byes.count(p)) for p in range(self.participants)]
        met: set[frozenset[int]] = set()
        first_seats = [0] * self.participants
        last_seat: dict[int, int] = {}
        for outcome in played:  # in play order, so last_seat ends on each one's latest
            for seat, (entrant, points) in enumerate(zip(outcome.seats,
                                                         match_points(outcome.places))):
                score[entrant] += points
                first_seats[entrant] += seat == 0
                first_seats[entrant] -= seat == 1
                last_seat[entrant] = seat
            met.add(frozenset(outcome.seats))
        ranked = sorted(range(self.participants), key=lambda p: (-score[p], p))
        bye: list[int] = []
        if len(ranked) % 2:
            bye = [next((p for p in reversed(ranked) if p not in byes), ranked[-1])]
            ranked.remove(bye[0])
        groups = {points: g for g, points in enumerate(sorted(set(score), reverse=True))}
        group = [groups[points] for points in score]
        as_long_as_a_round_robin = self.rounds >= self.participants - 1 + self.participants % 2
        pairs = _pairs(ranked, met, None if as_long_as_a_round_robin else first_seats)
        if not as_long_as_a_round_robin:  # where avoiding rematches leaves no room for seats
            pairs = _fewer_clashes(pairs, met, group, first_seats, self.participants,
                                   another_round=round_index + 1 < self.rounds)
        rank = {p: i for i, p in enumerate(ranked)}
        matches = []
        for board, (a, b) in enumerate(pairs):
            first = min((a, b), key=lambda p: (first_seats[p], -last_seat.get(p, 0), rank[p]))
            seats = (first, b if first == a else a)
            number = first_number + board
            matches.append(PlannedMatch(key=str(number), seats=seats, round=round_index,
                                        number=number, deal=number,
                                        seed=deal_seed(self.secret, "swiss", number)))
        return matches, bye


def _pairs(ranked: Sequence[int], met: set[frozenset[int]],
           balance: Sequence[int] | None) -> list[tuple[int, int]]:
    """Pairs of ``ranked`` (best first), each with the nearest entrant it may meet: depth
    first, the fewest rematches the budget lets it find, none that would take anyone's seat
    balance past ``MOST_SEAT_BALANCE`` if ``balance`` is given (:func:`_search`: always
    possible from balances within it)."""
    for bound in (balance, None) if balance is not None else (None,):
        for rematches in range(len(ranked) // 2 + 1):
            budget = [SEARCH_BUDGET]
            found = _search(list(ranked), met, rematches, budget, bound)
            if found is not None:
                return found
    raise AssertionError("pairing with every rematch allowed cannot fail")


def _search(left: list[int], met: set[frozenset[int]], rematches: int,
            budget: list[int], balance: Sequence[int] | None = None
            ) -> list[tuple[int, int]] | None:
    """Pairs of ``left``, each top one with the nearest it may meet, depth first, with at most
    ``rematches`` rematches and, if ``balance`` is given, no two entrants both at
    ``MOST_SEAT_BALANCE`` or more, or both at minus that or less (the one of them to take the
    seat it is due past would pass it); None if there are none or ``budget`` runs out first.

    Such pairs exist exactly while neither kind is more than half of ``left`` (all that is
    forbidden is a pair within one kind), and a branch is dropped as soon as one is. A round
    starts so when every balance is within the bound: the balances add up to zero, so those
    at the bound on one side are no more than those below zero on the other (sitting out
    included), and no more than half. With every rematch allowed, a partner that works always
    exists and each that does not is dropped at its first step, so that search is not
    bounded by the budget."""
    if not left:
        return []
    budget[0] -= 1
    if budget[0] < 0 and rematches < len(left) // 2:
        return None
    if balance is not None:
        high = sum(balance[p] >= MOST_SEAT_BALANCE for p in left)
        low = sum(balance[p] <= -MOST_SEAT_BALANCE for p in left)
        if 2 * max(high, low) > len(left):
            return None
    top, rest = left[0], left[1:]
    for i, other in enumerate(rest):
        if balance is not None and _past_bound(balance[top], balance[other]):
            continue
        again = frozenset((top, other)) in met
        if again and not rematches:
            continue
        tail = _search(rest[:i] + rest[i + 1:], met, rematches - again, budget, balance)
        if tail is not None:
            return [(top, other), *tail]
    return None


def _past_bound(a: int, b: int) -> bool:
    """Two entrants that cannot meet without one passing ``MOST_SEAT_BALANCE``: both at it
    (or past) on the same side."""
    return _clash(a, b) and min(abs(a), abs(b)) >= MOST_SEAT_BALANCE


def _clash(a: int, b: int) -> bool:
    """Two entrants whose seat balances (first minus second seats) are due the same seat."""
    return a * b > 0


def _fewer_clashes(pairs: list[tuple[int, int]], met: set[frozenset[int]], group: Sequence[int],
                   balance: Sequence[int], participants: int,
                   another_round: bool) -> list[tuple[int, int]]:
    """``pairs`` with partners exchanged between two pairs while that makes none past
    ``MOST_SEAT_BALANCE`` and fewer rematches (the search may have run out of budget before
    it found such a pairing), or, with neither more and no wider score gaps, fewer pairs due
    the same seat; never so that ``another_round`` could no longer be paired without a rematch when it
    could (:func:`_pairable`)."""
    def pairable(pairs: list[tuple[int, int]]) -> bool:
        return not another_round or _pairable(participants,
                                              met | {frozenset(pair) for pair in pairs})

    def cost(*pairs: tuple[int, int]) -> tuple[tuple[int, int], int, int]:
        rematches = hard = gaps = clashes = 0
        for a, b in pairs:
            rematches += frozenset((a, b)) in met
            hard += _past_bound(balance[a], balance[b])
            gaps += abs(group[a] - group[b])
            clashes += _clash(balance[a], balance[b])
        return (hard, rematches), gaps, clashes

    pairs = list(pairs)
    keep_pairable = pairable(pairs)
    improved = True
    while improved:
        improved = False
        for x, y in combinations(range(len(pairs)), 2):
            (a, b), (c, d) = pairs[x], pairs[y]
            now = cost(pairs[x], pairs[y])
            for other in ((a, c), (b, d)), ((a, d), (c, b)):
                then = cost(*other)
                if then[0] < now[0] or (then[0] == now[0] and then[1] <= now[1]
                                        and then[2] < now[2]):
                    kept = pairs[x], pairs[y]
                    pairs[x], pairs[y] = other
                    if keep_pairable and not pairable(pairs):
                        pairs[x], pairs[y] = kept
                        continue
                    improved = True
                    break
    return pairs


def _pairable(participants: int, met: set[frozenset[int]]) -> bool:
    """Whether a round of everyone (one sitting out if odd: paired with a phantom entrant) can
    be paired without a rematch, as far as :func:`_search` finds within its budget."""
    return _search(list(range(participants + participants % 2)), met, 0,
                   [SEARCH_BUDGET]) is not None
