"""Who sits with whom each round, pair meetings balanced by simulated annealing: pure Python.

``tournaments.scheduling`` calls :func:`balanced_groupings` for shapes no known design fits
(``tournaments.designs``); seat positions are given afterwards (``tournaments.seating``).

A round is a row of all participants: its first ``tables * seats`` positions are the tables,
``seats`` at a time, the rest sit the round out. Sit-outs start on a seeded circle (so each
participant's count is within one of everyone else's) and every move keeps each count. A move
exchanges, in one round, two participants of different tables; or a player with one sitting
out who has sat out exactly once more; or, when their counts do not allow that, it does the
same in two rounds at once (p sits out in round r instead of q, and q in round s instead of p).

The energy is the sum over pairs of ``|meetings - mean|**4`` (scaled to integers): convex and
steep, so one pair far from the mean costs more than several one off, which is what the pair
spread measures. The search keeps the best schedule seen by (pair spread, sum of squared
meetings), and stops as soon as the spread is at most one: then both are the least possible.
The budget is a number of moves, not a time, so the result depends on the seed alone.
"""

from __future__ import annotations

import math
from itertools import combinations

from games.engine.rng import Rng

Table = tuple[int, ...]

#: Moves tried per participant and round, at most MOST_MOVES, and at most FIELD_MOVES divided
#: by the participants: a 64-participant, 20-round schedule stays well within a second
#: (``bench/schedules.py``) while fields of 20 or fewer get their full share.
MOVES_PER_SLOT = 1000
MOST_MOVES = 150_000
FIELD_MOVES = 4_000_000
#: The temperature falls geometrically, in this many steps, from the first to the last (in
#: energy units: a worsening by 3 is accepted with odds e^-1 at the start).
FIRST_TEMPERATURE = 3.0
LAST_TEMPERATURE = 0.2
COOLING_STEPS = 100
#: The energy of a pair meeting m times: round(SCALE * |m - mean| ** POWER).
SCALE = 4
POWER = 4


def balanced_groupings(participants: int, seats: int, rounds: int,
                       rng: Rng) -> list[list[Table]]:
    """``rounds`` rounds of ``participants // seats`` tables of ``seats``, drawn from ``rng``."""
    return _Search(participants, seats, rounds, rng).run()


class _Search:
    """The annealing's state: rows of positions, meetings, sit-outs and the running figures."""

    def __init__(self, participants: int, seats: int, rounds: int, rng: Rng) -> None:
        n, k = participants, seats
        self.n, self.k, self.rounds, self.rng = n, k, rounds, rng
        self.playing = n // k * k
        benched = n - self.playing
        circle = list(range(n))
        rng.shuffle(circle)
        self.sat_out = [0] * n
        self.rows: list[list[int]] = []
        for r in range(rounds):
            out = [circle[(r * benched + i) % n] for i in range(benched)]
            for p in out:
                self.sat_out[p] += 1
            row = [p for p in range(n) if p not in out]
            rng.shuffle(row)
            self.rows.append(row + out)
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

    def run(self) -> list[list[Table]]:
        rounds, n, playing = self.rounds, self.n, self.playing
        budget = min(MOST_MOVES, FIELD_MOVES // n, MOVES_PER_SLOT * n * rounds)
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
            r = (bits & 0xFFFF) * rounds >> 16
            i = (bits >> 16 & 0xFFFF) * n >> 16
            j = (bits >> 32 & 0xFFFF) * n >> 16
            if i > j:
                i, j = j, i
            row = self.rows[r]
            if i >= playing or (j < playing and i - i % self.k == j - j % self.k):
                continue  # both sit out, or both at one table
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
        k = self.k
        return [[tuple(row[t:t + k]) for t in range(0, playing, k)] for row in best_rows]

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
