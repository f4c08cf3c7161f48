"""Who sits with whom each round, pair meetings balanced by simulated annealing: pure Python.

``tournaments.scheduling`` calls :func:`balanced_groupings` for shapes no known design fits
(``tournaments.scheduling.designs``); seat positions are given afterwards
(``tournaments.scheduling.seating``).

A round is a row of all participants: its first ``tables * seats`` positions are the tables,
``seats`` at a time, the rest sit the round out. The search starts from the previous
scheduler's groupings (:func:`greedy_groupings`: sit-out counts within one of each other) and
every move keeps each count. A move
exchanges, in one round, two participants of different tables; or a player with one sitting
out who has sat out exactly once more; or, when their counts do not allow that, it does the
same in two rounds at once (p sits out in round r instead of q, and q in round s instead of p).

The energy is the sum over pairs of ``|meetings - mean|**4`` (scaled to integers): convex and
steep, so one pair far from the mean costs more than several one off, which is what the pair
spread measures. The search keeps the best schedule seen by (pair spread, sum of squared
meetings), the start included (so the pair spread is never wider than the previous
scheduler's), and stops as soon as the spread is at most one: then both are the least possible.
The budget is a number of moves, not a time, so the result depends on the seed alone.
"""

from __future__ import annotations

import math
from itertools import combinations

from games.engine.rng import Rng

Table = tuple[int, ...]

#: Moves tried per participant and round, at most MOST_MOVES, and at most FIELD_MOVES divided
#: by the participants: a 64-participant, 20-round schedule stays well within a second, under
#: load too (docs/performance.md, ``bench/schedules.py``), while fields of up to 18 get their
#: full share for 7 rounds.

MOVES_PER_SLOT = 1000
MOST_MOVES = 150_000
FIELD_MOVES = 2_500_000
#: The temperature falls geometrically, in this many steps, from the first to the last (in
#: energy units: a worsening by 3 is accepted with odds e^-1 at the start).
FIRST_TEMPERATURE = 3.0
LAST_TEMPERATURE = 0.2
COOLING_STEPS = 100
#: The energy of a pair meeting m times: round(SCALE * |m - mean| ** POWER).
SCALE = 4
POWER = 4
#: The descent from a random start (:meth:`_Search.descend`) has the annealing's budget
#: divided by this, in fields of at most DESCENT_FIELD (larger ones have the time of
#: FIELD_MOVES, which the descent there does not improve on).
DESCENT_SHARE = 4
DESCENT_FIELD = 26


def balanced_groupings(participants: int, seats: int, rounds: int,
                       rng: Rng) -> list[list[Table]]:
    """``rounds`` rounds of ``participants // seats`` tables of ``seats``, drawn from ``rng``:
    the annealing started from :func:`greedy_groupings` (so never a wider pair spread), or,
    if it is better by (pair spread, sum of squares), the descent from a random start."""
    start = greedy_groupings(participants, seats, rounds, rng)
    search = _Search(start, participants, seats, rng)
    budget = search.budget()
    descent = budget // DESCENT_SHARE if participants <= DESCENT_FIELD else 0
    best = search.anneal(budget)
    if best[1] != search.least_squares and descent:
        start = random_groupings(participants, seats, rounds, rng)
        descended = _Search(start, participants, seats, rng).descend(descent)
        if descended[:2] < best[:2]:
            best = descended
    k, playing = seats, participants // seats * seats
    return [[tuple(row[t:t + k]) for t in range(0, playing, k)] for row in best[2]]


class _Search:
    """The annealing's state: rows of positions, meetings, sit-outs and the running figures."""

    def __init__(self, start: list[tuple[list[list[int]], list[int]]], participants: int,
                 seats: int, rng: Rng) -> None:
        n, k, rounds = participants, seats, len(start)
        self.n, self.k, self.rounds, self.rng = n, k, rounds, rng
        self.playing = n // k * k
        self.sat_out = [0] * n
        self.rows: list[list[int]] = []
        for groups, bench in start:
            for p in bench:
                self.sat_out[p] += 1
            self.rows.append([p for group in groups for p in group] + list(bench))
        self.where = [[0] * n for _ in range(rounds)]
        for r, row in enumerate(self.rows):
            for i, p in enumerate(row):
                self.where[r][p] = i
        self.meet = [[0] * n for _ in range(n)]
        for row in self.rows:
            for t in range(0, self.playing, k):
                for a, b in combinations(row[t:t + k], 2):
                    self.meet[a][b] += 1
                    self.meet[b][a] += 1
        counts = [self.meet[a][b] for a, b in combinations(range(n), 2)]
        pairs = len(counts)
        mean = sum(counts) / pairs
        energy = [round(SCALE * abs(m - mean) ** POWER) for m in range(rounds + 2)]
        #: The change in energy when a pair meeting m times meets once more, or once less.
        self.more = [energy[m + 1] - energy[m] for m in range(rounds + 1)] + [0]
        self.less = [0] + [energy[m - 1] - energy[m] for m in range(1, rounds + 2)]
        self.histogram = [0] * (rounds + 2)
        for count in counts:
            self.histogram[count] += 1
        self.low, self.high = min(counts), max(counts)
        self.energy = sum(energy[count] for count in counts)
        self.squares = sum(count * count for count in counts)
        whole, extra = divmod(sum(counts), pairs)
        #: The sum of squares when every pair meets ``whole`` or ``whole + 1`` times.
        self.least_squares = pairs * whole * whole + extra * (2 * whole + 1)

    def budget(self) -> int:
        """The annealing's moves (a count, not a time: the result depends on the seed alone)."""
        return min(MOST_MOVES, FIELD_MOVES // self.n, MOVES_PER_SLOT * self.n * self.rounds)

    def anneal(self, budget: int) -> tuple[int, int, list[list[int]]]:
        """The annealing; returns the best rows seen as (pair spread, sum of squares, rows)."""
        rounds, playing = self.rounds, self.playing
        step = max(1, budget // COOLING_STEPS)
        ratio = (LAST_TEMPERATURE / FIRST_TEMPERATURE) ** (1 / COOLING_STEPS)
        temperature = FIRST_TEMPERATURE / ratio
        best = (self.high - self.low, self.squares)
        best_rows = [row[:] for row in self.rows]
        odds: list[int] = []
        draw = self.rng.next64
        for move in range(budget):
            if move % step == 0:
                if best[1] == self.least_squares:
                    break
                temperature *= ratio
                odds = [int(math.exp(-d / temperature) * 65536) for d in range(1, 64)]
            bits = draw()
            if (drawn := self._positions(bits)) is None:
                continue
            r, i, j = drawn
            row = self.rows[r]
            p, q = row[i], row[j]
            if j < playing or self.sat_out[q] == self.sat_out[p] + 1:
                change = self._change(row, i, j)
                if change <= 0 or (change <= 63 and (bits >> 56) << 8 < odds[change - 1]):
                    self._exchange(r, i, j)
                else:
                    continue
            else:  # also the other way round in a round where p sits out and q plays
                s = (bits >> 48 & 0xFF) * rounds >> 8
                i2, j2 = self.where[s][q], self.where[s][p]
                if i2 >= playing or j2 < playing:
                    continue
                change = self._exchange(r, i, j) + self._exchange(s, i2, j2)
                if change > 0 and (change > 63 or (bits >> 56) << 8 >= odds[change - 1]):
                    self._exchange(s, i2, j2)
                    self._exchange(r, i, j)
                    continue
            if (self.high - self.low, self.squares) < best:
                best = (self.high - self.low, self.squares)
                best_rows = [row[:] for row in self.rows]
        return (*best, best_rows)

    def descend(self, budget: int) -> tuple[int, int, list[list[int]]]:
        """A descent that puts the pair spread first: exchanges in one round (two players at
        different tables, or a player with one sitting out who has sat out once more) kept
        when they do not worsen (pair spread, energy). Started at random it ends, in some
        shapes, narrower than the annealing from the greedy start (twelve in sixes for seven
        rounds: 3 where the annealing stays at 4). Returns the best rows seen as (pair spread,
        sum of squares, rows)."""
        draw = self.rng.next64
        best = (self.high - self.low, self.squares)
        best_rows = [row[:] for row in self.rows]
        for _ in range(budget):
            if best[1] == self.least_squares:
                break
            if (drawn := self._positions(draw())) is None:
                continue
            r, i, j = drawn
            row = self.rows[r]
            if j >= self.playing and self.sat_out[row[j]] != self.sat_out[row[i]] + 1:
                continue
            spread = self.high - self.low
            change = self._exchange(r, i, j)
            if (self.high - self.low, change) > (spread, 0):
                self._exchange(r, i, j)
                continue
            if (self.high - self.low, self.squares) < best:
                best = (self.high - self.low, self.squares)
                best_rows = [row[:] for row in self.rows]
        return (*best, best_rows)

    def _positions(self, bits: int) -> tuple[int, int, int] | None:
        """A move's round and two positions ``i < j`` drawn from ``bits``; None when both sit
        out or both are at one table."""
        n, playing, k = self.n, self.playing, self.k
        r = (bits & 0xFFFF) * self.rounds >> 16
        i = (bits >> 16 & 0xFFFF) * n >> 16
        j = (bits >> 32 & 0xFFFF) * n >> 16
        if i > j:
            i, j = j, i
        if i >= playing or (j < playing and i - i % k == j - j % k):
            return None
        return r, i, j

    def _change(self, row: list[int], i: int, j: int) -> int:
        """The change in energy :meth:`_exchange` would make, without making it."""
        k, more, less = self.k, self.more.__getitem__, self.less.__getitem__
        p, q = row[i], row[j]
        mp, mq = self.meet[p], self.meet[q]
        start = i - i % k
        table = row[start:start + k]
        # p leaves its table and q joins it (less[0] == 0 counts p itself out, and q's meeting
        # with p is taken back); at a second table the same the other way round.
        change = (sum(map(less, map(mp.__getitem__, table)))
                  + sum(map(more, map(mq.__getitem__, table))) - more(mq[p]))
        if j < self.playing:
            start = j - j % k
            table = row[start:start + k]
            change += (sum(map(less, map(mq.__getitem__, table)))
                       + sum(map(more, map(mp.__getitem__, table))) - more(mp[q]))
        return change

    def _exchange(self, r: int, i: int, j: int) -> int:
        """Exchange positions ``i`` (at a table) and ``j`` (at another, or sitting out) of
        round ``r``; return the change in energy."""
        row, k = self.rows[r], self.k
        p, q = row[i], row[j]
        start = i - i % k
        change = self._move(p, q, row[start:start + k])
        if j < self.playing:
            start = j - j % k
            change += self._move(q, p, row[start:start + k])
        else:
            self.sat_out[p] += 1
            self.sat_out[q] -= 1
        row[i], row[j] = q, p
        self.where[r][p], self.where[r][q] = j, i
        return change

    def _move(self, leaving: int, joining: int, table: list[int]) -> int:
        """``leaving`` leaves ``table`` and ``joining`` takes its place: update the meetings,
        their histogram, spread and sums; return the change in energy."""
        meet, histogram, more, less = self.meet, self.histogram, self.more, self.less
        out, into = meet[leaving], meet[joining]
        change = squares = 0
        for x in table:
            if x == leaving:
                continue
            before = out[x]
            change += less[before]
            squares -= 2 * before - 1
            out[x] = meet[x][leaving] = before - 1
            histogram[before] -= 1
            histogram[before - 1] += 1
            self.low = min(self.low, before - 1)
            if before == self.high and not histogram[before]:
                self.high = before - 1
            before = into[x]
            change += more[before]
            squares += 2 * before + 1
            into[x] = meet[x][joining] = before + 1
            histogram[before] -= 1
            histogram[before + 1] += 1
            self.high = max(self.high, before + 1)
            if before == self.low and not histogram[before]:
                self.low = before + 1
        self.energy += change
        self.squares += squares
        return change


# --------------------------------------------------------------------------------------------
# The start: the scheduler before issue 21
# --------------------------------------------------------------------------------------------

def greedy_groupings(participants: int, seats: int, rounds: int,
                     rng: Rng) -> list[tuple[list[list[int]], list[int]]]:
    """The groupings of the scheduler before issue 21, drawn from ``rng``: each round's tables
    and who sits it out. The annealing starts from them, so its pair spread is never worse.

    Round by round, sit-outs go to those who sat out least (ties by a shuffle); each player in
    turn joins the open table it has met least; then participants are exchanged between tables,
    or with one sitting out who has sat out once more, while the sum over pairs of meetings
    cubed falls: round by round, then in passes over the whole schedule until nothing helps.
    ``tests/tournaments/previous_schedules.json`` holds its pair spreads (seeds 0-9).
    """
    meetings = [[0] * participants for _ in range(participants)]
    sit_outs = [0] * participants
    arrangement: list[tuple[list[list[int]], list[int]]] = []
    benched = participants % seats
    for _ in range(rounds):
        bench, playing = _sit_outs_drawn(benched, sit_outs, rng)
        groups = _greedy_tables(playing, seats, meetings)
        _exchange_while_cheaper(groups, bench, meetings, sit_outs)
        _count_meetings(meetings, groups, +1)
        arrangement.append((groups, bench))
    changed = True
    while changed:  # a round placed early did not know the later ones
        changed = False
        for groups, bench in arrangement:
            _count_meetings(meetings, groups, -1)
            changed |= _exchange_while_cheaper(groups, bench, meetings, sit_outs)
            _count_meetings(meetings, groups, +1)
    return arrangement


def random_groupings(participants: int, seats: int, rounds: int,
                     rng: Rng) -> list[tuple[list[list[int]], list[int]]]:
    """Each round's tables and sit-outs drawn at random from ``rng``, sit-outs to those who sat
    out least (so their counts stay within one)."""
    sit_outs = [0] * participants
    arrangement: list[tuple[list[list[int]], list[int]]] = []
    benched = participants % seats
    for _ in range(rounds):
        bench, playing = _sit_outs_drawn(benched, sit_outs, rng)
        arrangement.append(([playing[t:t + seats] for t in range(0, len(playing), seats)],
                            bench))
    return arrangement


def _sit_outs_drawn(benched: int, sit_outs: list[int], rng: Rng) -> tuple[list[int], list[int]]:
    """One round's ``benched`` sit-outs, those who sat out least (ties by a shuffle), counted
    in ``sit_outs``; and the rest, who play, in the shuffled order."""
    order = list(range(len(sit_outs)))
    rng.shuffle(order)
    order.sort(key=sit_outs.__getitem__)  # stable: the shuffle breaks ties
    for participant in order[:benched]:
        sit_outs[participant] += 1
    return order[:benched], order[benched:]


def _pair_cost(meetings: int) -> int:
    """The cost of one more meeting of a pair that has met ``meetings`` times: the marginal
    cost of meetings cubed (convex, so meetings spread out)."""
    return 3 * meetings * meetings + 3 * meetings + 1


def _count_meetings(meetings: list[list[int]], groups: list[list[int]], step: int) -> None:
    for group in groups:
        for a, b in combinations(group, 2):
            meetings[a][b] += step
            meetings[b][a] += step


def _greedy_tables(playing: list[int], seats: int, meetings: list[list[int]]) -> list[list[int]]:
    """A first split: each participant in turn joins the open table it has met least."""
    groups: list[list[int]] = [[] for _ in range(len(playing) // seats)]
    for participant in playing:
        open_groups = [group for group in groups if len(group) < seats]
        best = min(open_groups,
                   key=lambda group: sum(_pair_cost(meetings[participant][m]) for m in group))
        best.append(participant)
    return groups


def _exchange_while_cheaper(groups: list[list[int]], bench: list[int],
                            meetings: list[list[int]], sit_outs: list[int]) -> bool:
    """Exchange participants between tables, or with the bench, while that lowers the cost.

    ``affinity[p][g]`` (p's pair costs with table g's members) makes each candidate exchange
    O(1). One on the bench only changes place with a player who has sat out once less, so the
    multiset of sit-out counts stays the same. The cost falls at every exchange, so it ends.
    """
    participants = len(meetings)
    cost = [[_pair_cost(m) for m in row] for row in meetings]
    for p in range(participants):
        cost[p][p] = 0  # so affinity[p][g] counts p's table mates only
    tables = len(groups)
    everyone = groups + [bench]  # the bench is a group whose costs never count
    affinity = [[sum(row[m] for m in group) for group in groups] + [0] for row in cost]
    exchanged, improved = False, True
    while improved:
        improved = False
        for g, h in combinations(range(tables + 1), 2):
            for i, p in enumerate(everyone[g]):
                for j, q in enumerate(everyone[h]):
                    if h == tables and sit_outs[q] != sit_outs[p] + 1:
                        continue
                    change = affinity[q][g] - affinity[p][g] - cost[p][q]
                    if h < tables:
                        change += affinity[p][h] - affinity[q][h] - cost[p][q]
                    if change < 0:
                        everyone[g][i], everyone[h][j] = q, p
                        for r in range(participants):
                            affinity[r][g] += cost[r][q] - cost[r][p]
                            if h < tables:
                                affinity[r][h] += cost[r][p] - cost[r][q]
                        if h == tables:
                            sit_outs[p], sit_outs[q] = sit_outs[q], sit_outs[p]
                        p = q
                        exchanged = improved = True
    return exchanged
