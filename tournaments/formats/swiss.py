"""Swiss: a fixed number of two-seat rounds, each paired by score when the one before is done
(lila's Swiss, FIDE's idea), by a minimum-cost perfect matching. No Django.

Each round is paired once, from the rounds stored so far (``Outcome.round``, seats, places):
those ARE the earlier pairings, never paired again, so a call pairs at most one round. Before
a round the entrants still in (not ``withdrawn``) are ranked by score (match points, a bye
counting as a win), then entry order. With an odd count a phantom "bye" entrant joins them.
Every pair that may meet costs, most important first (each part outweighs every possible
total of the parts below it, so the order is strict; :class:`RoundCosts`):

1. a second bye (the phantom's partner has had a bye already), by byes had;
2. seats past a balance of two (first seats minus second seats, in the better seating of the
   two), or the same seat three games in a row (FIDE's absolute colour rules);
3. seats past a balance of one: by how far (issue 45: a balance of at most one wherever a
   pairing allows, before rematches, where FIDE puts rematches first);
4. a rematch, by meetings so far;
5. the score gap between the two (in half points; the phantom's partner: its gap to the
   lowest score); then the gap squared, so two small gaps beat one wide one;
6. a seat taken twice in a row (seats alternate);
7. the distance in rank, squared (near-ranked first; the phantom ranks last, so the bye goes
   to the lowest-ranked entrant without one).

The round is the perfect matching of least total cost (rustworkx's blossom algorithm on
``TOP - cost``, ``max_cardinality``), except that the cheapest pairing that would leave the
next round no pairing free of rematches gives way to the cheapest that does not and costs no
more in seats (parts 1-3), if forbidding one of its pairs finds one. Up to ``DENSE_UP_TO``
entrants every pair is an edge; a larger field is paired on a sparse graph, each entrant
joined to the ``WINDOW`` ranked nearest on either side (its own and the neighbouring score
groups; lila's arena matches at most 100 at once), and on the complete graph only if that
one's best needs a rematch, a second bye or seats past a balance of one.
In each pair the seating of lower cost is taken; when both cost the same, the one who took
the first seat less often so far takes it (then: the one who sat second last time, then the
higher-ranked). docs/series.md has the rules and figures.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import rustworkx

from games.engine.rng import deal_seed

from ..scoring.standings import match_points
from .base import Format, Outcome, PlannedMatch, register

#: Fields up to this many (with the phantom) are paired on the complete graph.
DENSE_UP_TO = 128
#: In a larger field each entrant is joined to this many ranked next to it on either side.
WINDOW = 64
#: The phantom entrant of an odd round: its partner has the bye.
BYE = -1


@register
class Swiss(Format):
    name = "swiss"
    plans_ahead = False  # a round is paired once the one before is done

    def __init__(self, *, participants: int, rounds: int, secret: str,
                 withdrawn: Collection[int] = ()) -> None:
        """``withdrawn``: entrants out of the tournament; they are paired no more."""
        if participants < 2:
            raise ValueError(f"a Swiss tournament needs 2 or more participants, not {participants}")
        if not 1 <= rounds <= participants - 1 + participants % 2:
            raise ValueError(f"{participants} participants play 1 to "
                             f"{participants - 1 + participants % 2} Swiss rounds, not {rounds}")
        self.participants, self.rounds, self.secret = participants, rounds, secret
        self.withdrawn = frozenset(withdrawn)

    def plan(self, outcomes: Mapping[str, Outcome]) -> list[PlannedMatch]:
        """The next round, paired from ``outcomes``: every match planned so far with its round
        (the runner asks once none is open; a round still being played is a ValueError)."""
        history = History.of(self.participants, outcomes.values(), self.withdrawn)
        if self._over(history):
            return []
        costs = self._costs(history)
        pairs = costs.best(lookahead=history.rounds + 1 < self.rounds)
        matches = []
        for pair in sorted(pairs, key=lambda pair: min(map(costs.rank.__getitem__, pair))):
            if BYE in pair:
                continue
            number = history.next_number + len(matches)
            matches.append(PlannedMatch(key=str(number), seats=costs.seating(*pair),
                                        round=history.rounds, number=number, deal=number,
                                        seed=deal_seed(self.secret, "swiss", number)))
        return matches

    def is_over(self, outcomes: Mapping[str, Outcome]) -> bool:
        return self._over(History.of(self.participants, outcomes.values(), self.withdrawn))

    def score(self, match: PlannedMatch, result: Mapping[str, Any] | None,
              forfeited: Collection[int] = ()) -> Outcome:
        return replace(super().score(match, result, forfeited), round=match.round)

    def match_count(self) -> int:
        return self.rounds * (self.participants // 2)

    def active(self) -> list[int]:
        return [p for p in range(self.participants) if p not in self.withdrawn]

    def round_costs(self, outcomes: Mapping[str, Outcome]) -> RoundCosts:
        """What each pair of the next round would cost (for tests and the bench)."""
        return self._costs(History.of(self.participants, outcomes.values(), self.withdrawn))

    def _costs(self, history: History) -> RoundCosts:
        return RoundCosts(history, self.active())

    def _over(self, history: History) -> bool:
        return history.rounds >= self.rounds or len(self.active()) < 2

    @staticmethod
    def default_rounds(participants: int) -> int:
        """Enough rounds for one unbeaten entrant to be left: ceil(log2 participants)."""
        return max(1, (participants - 1).bit_length())


def byes(seated: Sequence[Collection[int]], participants: int,
         withdrawn: Collection[int] = ()) -> list[int]:
    """Byes by entrant, given who was seated in each round so far: a round an entrant sat
    out is its bye, unless it is withdrawn and played no round from then on (it had left)."""
    last_round = [-1] * participants
    for round_index, entrants in enumerate(seated):
        for p in entrants:
            last_round[p] = round_index
    return [sum(p not in entrants and (p not in withdrawn or last_round[p] > r)
                for r, entrants in enumerate(seated))
            for p in range(participants)]


@dataclass
class History:
    """Each entrant's Swiss record from the stored rounds, in play order."""

    rounds: int = 0
    next_number: int = 0
    #: Score in half points (a win 2, a draw 1, a bye 2).
    score: list[int] = field(default_factory=list)
    #: Seats taken, in order (0 first, 1 second).
    seats: list[list[int]] = field(default_factory=list)
    met: list[dict[int, int]] = field(default_factory=list)
    byes: list[int] = field(default_factory=list)

    @classmethod
    def of(cls, participants: int, outcomes: Iterable[Outcome],
           withdrawn: Collection[int]) -> History:
        by_round: dict[int, list[Outcome]] = {}
        for outcome in sorted(outcomes, key=lambda o: int(o.key)):
            by_round.setdefault(outcome.round, []).append(outcome)
        history = cls(rounds=max(by_round, default=-1) + 1,
                      score=[0] * participants, seats=[[] for _ in range(participants)],
                      met=[{} for _ in range(participants)])
        seated: list[set[int]] = []
        for round_index in range(history.rounds):
            seated.append(set())
            for outcome in by_round.get(round_index, ()):
                history.next_number = max(history.next_number, int(outcome.key) + 1)
                a, b = outcome.seats
                if {a, b} & seated[-1]:
                    raise ValueError(f"entrant seated twice in round {round_index}: "
                                     "outcomes need their round")
                seated[-1] |= {a, b}
                for seat, (p, points) in enumerate(zip((a, b), match_points(outcome.places))):
                    history.score[p] += int(2 * points)
                    history.seats[p].append(seat)
                history.met[a][b] = history.met[b].get(a, 0) + 1
                history.met[b][a] = history.met[a][b]
        if seated and sum(p not in seated[-1] and p not in withdrawn
                          for p in range(participants)) > 1:
            raise ValueError(f"round {history.rounds - 1} is still being played")
        history.byes = byes(seated, participants, withdrawn)
        for p, had in enumerate(history.byes):
            history.score[p] += 2 * had
        return history


class RoundCosts:
    """The cost of each pair one round may have (the module docstring's list, as one integer
    per pair: each part times a scale above every total the parts below can reach), and the
    matching of least total cost."""

    def __init__(self, history: History, active: Sequence[int]) -> None:
        self.history = history
        self.nodes = sorted(active, key=lambda p: (-history.score[p], p))
        if len(self.nodes) % 2:
            self.nodes.append(BYE)
        self.rank = {p: i for i, p in enumerate(self.nodes)}
        n, pairs = len(self.nodes), len(self.nodes) // 2
        scores = [history.score[p] for p in self.nodes if p != BYE]
        self.lowest = min(scores)
        widest = max(scores) - self.lowest
        balance = [self._balance(p) for p in self.nodes if p != BYE]
        # Scales from the lowest part up: each above what ``pairs`` pairs can add below it.
        rank = 1
        alternate = rank * (pairs * n * n + 1)
        squared = alternate * (pairs * 2 + 1)
        gap = squared * (pairs * widest ** 2 + 1)
        self.rematch = gap * (pairs * widest + 1)
        rematches = pairs * max(self._most_meetings(), 1) + 1
        seats = pairs * 2 * (max(map(abs, balance)) + 1) + 1  # past two or three in a row
        #: The scale of seats past a balance of one: a total of this or more costs seats.
        self.past_one = past_one = self.rematch * rematches
        absolute = past_one * seats
        self.second_bye = absolute * (seats + 1)
        self.top = self.second_bye * (max(history.byes) + 1) + 1
        self.gap_cost = [g * gap + g * g * squared for g in range(widest + 1)]
        # Per node and seat: its seat parts (past two or three in a row, past one, twice in a
        # row).
        self.seat_cost = [(0, 0) if p == BYE else
                          tuple(self._seat(p, seat, absolute, past_one, alternate)
                                for seat in (0, 1))
                          for p in self.nodes]

    def _most_meetings(self) -> int:
        return max((count for met in self.history.met for count in met.values()), default=0)

    def _balance(self, p: int) -> int:
        seats = self.history.seats[p]
        return seats.count(0) - seats.count(1)

    def _seat(self, p: int, seat: int, absolute: int, past_one: int, alternate: int) -> int:
        seats = self.history.seats[p]
        after = abs(self._balance(p) + (1 if seat == 0 else -1))
        return ((max(0, after - 2) + (seats[-2:] == [seat, seat])) * absolute
                + max(0, after - 1) * past_one + (seats[-1:] == [seat]) * alternate)

    def cost(self, a: int, b: int) -> int:
        """What pairing ``a`` with ``b`` (an entrant or ``BYE``) costs."""
        i, j = sorted((self.rank[a], self.rank[b]))
        return self._cost(i, j)

    def _cost(self, i: int, j: int) -> int:
        a, b = self.nodes[i], self.nodes[j]
        if b == BYE:
            return (self.history.byes[a] * self.second_bye
                    + self.gap_cost[self.history.score[a] - self.lowest] + (j - i) ** 2)
        (a_first, a_second), (b_first, b_second) = self.seat_cost[i], self.seat_cost[j]
        return (self.history.met[a].get(b, 0) * self.rematch
                + self.gap_cost[abs(self.history.score[a] - self.history.score[b])]
                + min(a_first + b_second, b_first + a_second) + (j - i) ** 2)

    def seating(self, a: int, b: int) -> tuple[int, int]:
        """``a`` and ``b`` in their seats: the seating of lower cost, else the one who took
        the first seat less often so far first (then who sat second last time, then the
        higher-ranked)."""
        i, j = self.rank[a], self.rank[b]
        a_then_b = self.seat_cost[i][0] + self.seat_cost[j][1]
        b_then_a = self.seat_cost[j][0] + self.seat_cost[i][1]
        if a_then_b != b_then_a:
            return (a, b) if a_then_b < b_then_a else (b, a)
        first = min((a, b), key=lambda p: (self._balance(p), -self.history.seats[p][-1:].count(1),
                                           self.rank[p]))
        return (first, b if first == a else a)

    def best(self, *, lookahead: bool, window: int | None = None) -> list[tuple[int, int]]:
        """The pairs (entrants, ``BYE``) of least total cost; with ``lookahead``, of those
        that leave the next round a pairing without rematches, where one pair forbidden finds
        one and costs no more in seats. ``window``: each node joined to that many next to it on
        either side (default: all up to ``DENSE_UP_TO`` nodes, else ``WINDOW``, all if that
        needs a rematch, a second bye or seats past a balance of one)."""
        n = len(self.nodes)
        sparse = window is None and n > DENSE_UP_TO
        graph = self._graph(WINDOW if sparse else window or n)
        pairs = _matching(graph)
        if sparse and (self.rematches(pairs) or self.total(pairs) >= self.past_one):
            graph = self._graph(n)
            pairs = _matching(graph)
        if not lookahead or self.rematches(pairs) or self._next_pairable(pairs):
            return [(self.nodes[i], self.nodes[j]) for i, j in pairs]
        best, seats = pairs, self.total(pairs) // self.past_one
        for i, j in pairs:
            graph.update_edge(i, j, self.top - self._cost(i, j) - self.rematch)
            other = _matching(graph)
            graph.update_edge(i, j, self.top - self._cost(i, j))
            if (not self.rematches(other) and self._next_pairable(other)
                    and self.total(other) // self.past_one <= seats
                    and (best is pairs or self.total(other) < self.total(best))):
                best = other
        return [(self.nodes[i], self.nodes[j]) for i, j in best]

    def rematches(self, pairs: Iterable[tuple[int, int]]) -> int:
        """How many of ``pairs`` (node positions) are rematches or second byes."""
        return sum(bool(self.history.byes[self.nodes[i]] if self.nodes[j] == BYE
                        else self.nodes[j] in self.history.met[self.nodes[i]])
                   for i, j in pairs)

    def total(self, pairs: Iterable[tuple[int, int]]) -> int:
        """The cost of ``pairs`` of node positions."""
        return sum(self._cost(i, j) for i, j in pairs)

    def _graph(self, window: int) -> rustworkx.PyGraph:
        n = len(self.nodes)
        graph = rustworkx.PyGraph()
        graph.add_nodes_from(range(n))
        graph.add_edges_from([(i, j, self.top - self._cost(i, j))
                              for i in range(n) for j in range(i + 1, min(n, i + window + 1))])
        return graph

    def _next_pairable(self, pairs: Sequence[tuple[int, int]]) -> bool:
        """Whether the round after one of ``pairs`` could be paired without a rematch (nor a
        second bye), the same entrants in it. Dirac: if everyone may still meet half of the
        field, a Hamiltonian cycle and so a pairing exists; else a matching is sought."""
        n = len(self.nodes)
        blocked: list[set[int]] = [{self.rank[o] for o in self.history.met[p] if o in self.rank}
                                   if p != BYE else set() for p in self.nodes]
        for i, j in pairs:
            blocked[i].add(j)
            blocked[j].add(i)
        if self.nodes[-1] == BYE:
            for i, p in enumerate(self.nodes[:-1]):
                if self.history.byes[p]:
                    blocked[i].add(n - 1)
                    blocked[n - 1].add(i)
        if min(n - 1 - len(out) for out in blocked) >= n / 2:
            return True
        graph = rustworkx.PyGraph()
        graph.add_nodes_from(range(n))
        graph.add_edges_from([(i, j, 1) for i in range(n) for j in range(i + 1, n)
                              if j not in blocked[i]])
        return len(_matching(graph)) == n // 2


def _matching(graph: rustworkx.PyGraph) -> list[tuple[int, int]]:
    """The perfect matching of greatest weight, as sorted node pairs in order."""
    found = rustworkx.max_weight_matching(graph, max_cardinality=True, weight_fn=int)
    return sorted(tuple(sorted(pair)) for pair in found)
