"""A ladder's matchmaker: which tables to start now so the ranking learns the most. No Django.

An always-on ladder (issue 47) asks :func:`choose` whenever a match ends or an entrant changes;
it answers the tables to start now, possibly none, the same for the same arguments and seed.

**Score.** A 2-seat table of ``a`` and ``b`` is worth ``P(misordered) * v / (2 beta^2 + v)``,
``v = sigma_a^2 + sigma_b^2``: the chance that the two stand in the wrong order now
(``Phi(-|mu_a - mu_b| / sqrt(v))``, high when their intervals overlap, so for neighbours in the
ranking) times the share of the outcome's variance that comes from not knowing their skills
(what a result can teach; ``beta`` is the game's own luck, openskill's). Why: Kendall's tau
between the ranking and the truth counts misordered pairs, and this spends each match where
one is most likely and a result can fix it. ``bench/ladder.py`` tried it against ``4 p (1 - p)
v`` (the outcome's variance times the uncertainty) and the misorder chance alone: the same
seeds gave it the fewest matches to reach and keep tau 0.9. A larger table sums its pairs.

**Placing.** An entrant whose ``sigma`` is above ``placing_sigma`` (openskill starts at 25/3;
6 is about its first dozen matches) is still being placed: at a 2-seat table it meets
opponents drawn at random from its block, every such pair scoring alike, one unit (above 0, so
the matching weighs each; larger tables are grouped as before). While ratings say little, neighbours by mu are near strangers whose
meeting is close to a coin flip, and the rating model shrinks ``sigma``
just as much whoever wins; a random opponent is usually far from it in truth, so the result is
decisive and moves both the right way. So the first matches fix the broad order (what Kendall's
tau counts most), the score above the fine one: in ``bench/ladder.py`` (160 seeds) this took
the matches to first reach tau 0.9 from 27% fewer than uniform pairing to 31-33% fewer (6.5:
the same; 7: 26%), and to stay there from 33% fewer to 40%.

**Priorities**, each before the next whatever the scores: entrants *starving* (no match for
``starve_after_seconds``, or never), then entrants in a *burst* (a new or changed bot plays
``burst`` matches first), then the rest by score. Never: a paused entrant; an entrant over its
in-flight cap or twice at a table; more than ``max_in_flight`` matches in the ladder; a pair past
its ``pair_cap_per_day``; two entrants of one owner at one table.

**Sparse candidates.** Each available entrant is joined only to its ``neighbours`` nearest on
either side in the rating order (by mu; lichess's arena pairs within such groups); a starving
or burst entrant walks on past incompatible ones until it has that many. 2-seat tables are a
maximum-weight matching (rustworkx's blossom, integer weights, the priorities as weights that
outweigh every score) in blocks of ``BLOCK`` consecutive entrants, as a matching is cubic in
its size; an urgent entrant a block left out then takes the nearest it may meet who is free or
beside a less urgent one, and those left at a cut meet a free neighbour across it. Larger
tables are grouped greedily: the most urgent entrant not seated yet takes the best compatible
neighbours. One matching is a round; an entrant allowed several matches at once gets one table
a round, for as many rounds as its cap.

**Duplicate** (card games): a table starts ``table_size`` matches on one deal, seats rotated,
so a pair's luck cancels; each of them counts against every cap.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import combinations

import rustworkx

#: openskill's default performance spread (``PlackettLuce().beta``, 25/6).
BETA = 25 / 6
#: Scores (0 to 1/2) are made integers at this scale for the matching.
SCALE = 1_000_000
#: Seeded noise added to a 2-seat table's weight, below one unit of score in any sum: it breaks
#: ties (a field of new bots with equal ratings) by seed rather than by id.
NOISE = 8
#: 2-seat tables are matched in blocks of this many consecutive entrants of the rating order.
BLOCK = 64

#: A table found in a round: ((starving seats, burst seats, score), entrant ids by seat).
Found = tuple[tuple[int, int, int], tuple[int, ...]]


@dataclass(frozen=True)
class Entrant:
    """One bot on the ladder as the matchmaker needs it; ``last_played`` in seconds, like ``now``."""

    id: int
    mu: float
    sigma: float
    matches: int = 0  # rated matches played
    in_flight: int = 0  # matches of its running now (started, not finished)
    burst: int = 0  # matches left of a new or changed bot's burst
    last_played: float | None = None
    owner: int | None = None  # two entrants of one owner never meet at a rated table
    paused: bool = False


@dataclass(frozen=True)
class Policy:
    """A ladder's matchmaking settings; caps count matches (a duplicate table is several)."""

    table_size: int = 2
    max_in_flight: int = 16  # the whole ladder
    max_in_flight_per_entrant: int = 1
    pair_cap_per_day: int = 10
    starve_after_seconds: float = 3600.0  # the floor: an entrant waiting so long goes first
    duplicate: bool = False
    neighbours: int = 8  # candidates on each side in the rating order
    beta: float = BETA
    placing_sigma: float = 6.0  # above it an entrant meets random opponents (module docstring)

    def __post_init__(self) -> None:
        if self.table_size < 2:
            raise ValueError(f"a table seats 2 or more, not {self.table_size}")
        if min(self.max_in_flight_per_entrant, self.pair_cap_per_day, self.neighbours) < 1:
            raise ValueError("caps per entrant and per pair, and neighbours, are 1 or more")
        if self.duplicate and self.max_in_flight_per_entrant < self.table_size:
            raise ValueError(f"a duplicate table puts {self.table_size} matches in flight for "
                             f"each entrant: max_in_flight_per_entrant must be at least that")

    @property
    def matches_per_table(self) -> int:
        return self.table_size if self.duplicate else 1


@dataclass(frozen=True)
class Table:
    """Entrant ids by seat for each match it starts: one, or a duplicate group's rotations.
    ``deal`` numbers it in the answer; every match of a duplicate group shares its deal."""

    seatings: tuple[tuple[int, ...], ...]
    deal: int

    @property
    def seats(self) -> tuple[int, ...]:
        return self.seatings[0]


def information(a: Entrant, b: Entrant, beta: float = BETA) -> float:
    """What a match of ``a`` and ``b`` is worth to the ranking (the module's docstring)."""
    spread = max(a.sigma**2 + b.sigma**2, 1e-12)
    misordered = 0.5 * math.erfc(abs(a.mu - b.mu) / math.sqrt(2 * spread))
    return misordered * spread / (2 * beta**2 + spread)


def choose(entrants: Sequence[Entrant], pair_counts_today: Mapping[frozenset[int], int],
           policy: Policy, *, now: float, seed: int, in_flight: int | None = None
           ) -> list[Table]:
    """The tables to start now, most urgent first; the same arguments and seed, the same answer.
    ``pair_counts_today``: matches each pair (a frozenset of two ids) started today.
    ``in_flight``: matches in play on the ladder, which ``max_in_flight`` caps; by default the
    sum of the entrants' own counts, which counts a match once per seat (a caller that knows
    its matches, as the ladder format does, says how many)."""
    if len({e.id for e in entrants}) != len(entrants):
        raise ValueError("entrant ids are unique")
    rng = random.Random(seed)
    shuffled = sorted(entrants, key=lambda e: e.id)
    rng.shuffle(shuffled)  # equal ratings meet in a seeded order, not by id
    per_table = policy.matches_per_table
    if in_flight is None:
        in_flight = sum(e.in_flight for e in entrants)
    room = policy.max_in_flight - in_flight
    state = _Matchmaker(policy, dict(pair_counts_today), now, rng)
    current = {e.id: e for e in shuffled}
    chosen: list[Found] = []
    for _ in range(policy.max_in_flight_per_entrant):
        free = [e for e in current.values() if not e.paused
                and e.in_flight + per_table <= policy.max_in_flight_per_entrant]
        if room < per_table or len(free) < policy.table_size:
            break
        found = sorted(state.tables(sorted(free, key=lambda e: e.mu)), reverse=True)
        found = found[:room // per_table]
        if not found:
            break
        for priority, seats in found:
            chosen.append((priority, seats))
            room -= per_table
            for member in seats:  # seated: served, one burst match fewer, less room
                e = current[member]
                current[member] = replace(e, in_flight=e.in_flight + per_table, last_played=now,
                                          burst=max(0, e.burst - per_table))
            for pair in combinations(seats, 2):
                state.counts[frozenset(pair)] = state.counts.get(frozenset(pair), 0) + per_table
                state.met.add(frozenset(pair))
    tables = []
    for deal, (_, seats) in enumerate(chosen):
        rotations = [seats[k:] + seats[:k] for k in range(per_table)]
        tables.append(Table(tuple(rotations), deal))
    return tables


class _Matchmaker:
    """What one call of :func:`choose` knows (the policy, the time, the pair counts grown by
    the tables chosen so far) and how it finds a round's tables."""

    def __init__(self, policy: Policy, counts: dict[frozenset[int], int], now: float,
                 rng: random.Random) -> None:
        self.policy, self.counts, self.now, self.rng = policy, counts, now, rng
        self.met: set[frozenset[int]] = set()  # pairs seated together earlier in this call
        self.rank: dict[int, int] = {}  # entrant id -> place in this round's rating order

    def tier(self, e: Entrant) -> int:
        """2 starving, 1 in a burst, 0 otherwise."""
        if e.last_played is None or self.now - e.last_played >= self.policy.starve_after_seconds:
            return 2
        return 1 if e.burst > 0 else 0

    def placing(self, e: Entrant) -> bool:
        """Still being placed: it meets random opponents (the module's docstring)."""
        return e.sigma > self.policy.placing_sigma

    def compatible(self, a: Entrant, b: Entrant) -> bool:
        pair = frozenset((a.id, b.id))
        return ((a.owner is None or a.owner != b.owner) and pair not in self.met
                and self.counts.get(pair, 0) + self.policy.matches_per_table
                <= self.policy.pair_cap_per_day)

    def neighbours(self, ranked: list[Entrant], i: int, step: int) -> list[int]:
        """Up to ``neighbours`` compatible positions from ``i`` going ``step`` (+1 or -1): a
        starving or burst entrant walks the whole order, the others only as far as their
        nearest ones in the round's rating order (``rank``: a block's leftovers too)."""
        want, urgent, here = self.policy.neighbours, self.tier(ranked[i]) > 0, ranked[i]
        found, j = [], i + step
        while 0 <= j < len(ranked) and len(found) < want and (
                urgent or abs(self.rank[ranked[j].id] - self.rank[here.id]) <= want):
            if self.compatible(here, ranked[j]):
                found.append(j)
            j += step
        return found

    def tables(self, ranked: list[Entrant]) -> list[Found]:
        """This round's tables: 2 seats by matching block by block, then the urgent left out
        served, then the rest greedily (across the cuts); larger tables greedily."""
        self.rank = {e.id: k for k, e in enumerate(ranked)}
        if self.policy.table_size > 2:
            return self._greedy(ranked)
        # Blocks of the rating order, as a matching is cubic in its entrants; even, so that
        # all may be seated; who a cut leaves out meets its neighbour across it below.
        partner: dict[int, int] = {}
        for lo in range(0, len(ranked), BLOCK):
            for i, j in self._matching(ranked[lo:lo + BLOCK]):
                partner[lo + i], partner[lo + j] = lo + j, lo + i
        self._serve_urgent(ranked, partner)
        found = [(self._priority([ranked[i], ranked[j]]),
                  tuple(self.rng.sample([ranked[i].id, ranked[j].id], 2)))
                 for i, j in sorted(partner.items()) if i < j]
        return found + self._greedy([e for k, e in enumerate(ranked) if k not in partner])

    def _serve_urgent(self, ranked: list[Entrant], partner: dict[int, int]) -> None:
        """Each starving or burst entrant left out takes the nearest compatible entrant who is
        free or seated beside a less urgent one (who leaves): so a block never keeps it from
        the one partner it may have in another block."""
        tiers = [self.tier(e) for e in ranked]
        waiting = sorted((k for k in range(len(ranked)) if tiers[k] and k not in partner),
                         key=lambda k: -tiers[k])
        while waiting:
            i = waiting.pop(0)
            if i in partner:
                continue  # another urgent one took it
            for j in _outward(i, len(ranked)):
                mate = partner.get(j)
                if not self.compatible(ranked[i], ranked[j]) or (
                        mate is not None and tiers[mate] >= tiers[i]):
                    continue
                if mate is not None:
                    del partner[mate]
                    if tiers[mate]:
                        waiting.append(mate)  # a burst entrant put out by a starving one
                partner[i], partner[j] = j, i
                break

    def _score(self, members: Sequence[Entrant]) -> int:
        return round(SCALE * sum(information(a, b, self.policy.beta)
                                 for a, b in combinations(members, 2)))

    def _priority(self, members: Sequence[Entrant]) -> tuple[int, int, int]:
        tiers = [self.tier(e) for e in members]
        return tiers.count(2), tiers.count(1), self._score(members)

    def _matching(self, ranked: list[Entrant]) -> list[tuple[int, int]]:
        """The pairs (positions in ``ranked``) of a maximum-weight matching on its sparse
        candidates."""
        # Each entrant reaches right; only the urgent ones (who walk further) reach left too;
        # one being placed reaches as many entrants drawn at random from the block.
        edges = sorted({(min(i, j), max(i, j)) for i in range(len(ranked))
                        for step in ((1, -1) if self.tier(ranked[i]) else (1,))
                        for j in self.neighbours(ranked, i, step)}
                       | {(min(i, j), max(i, j)) for i in range(len(ranked))
                          if self.placing(ranked[i]) for j in self._drawn(ranked, i)})
        if not edges:
            return []
        beta = self.policy.beta
        scored = {(i, j): 1 if self.placing(ranked[i]) or self.placing(ranked[j])
                  else round(SCALE * information(ranked[i], ranked[j], beta)) for i, j in edges}
        # Strict priorities: a burst seat outweighs every score a matching can sum, a starving
        # seat every burst and score; the noise sums to less than one unit of score.
        n = len(ranked)
        unit = NOISE * (n // 2 + 1)
        burst = unit * (max(scored.values()) + 1) * (n + 1)
        starving = burst * 2 * (n + 1)
        bonus = [(0, burst, starving)[self.tier(e)] for e in ranked]
        graph = rustworkx.PyGraph()
        graph.add_nodes_from(range(n))
        graph.add_edges_from([(i, j, bonus[i] + bonus[j] + unit * scored[i, j]
                               + int(self.rng.random() * NOISE)) for i, j in edges])
        matched = rustworkx.max_weight_matching(graph, weight_fn=lambda weight: weight)
        return sorted(tuple(sorted(pair)) for pair in matched)

    def _drawn(self, ranked: list[Entrant], i: int) -> list[int]:
        """Up to ``2 * neighbours`` compatible positions of ``ranked`` other than ``i``, drawn
        at random (seeded): the candidates of an entrant being placed."""
        want, found = 2 * self.policy.neighbours, []
        for j in self.rng.sample(range(len(ranked)), len(ranked)):
            if j != i and self.compatible(ranked[i], ranked[j]):
                found.append(j)
                if len(found) == want:
                    break
        return found

    def _greedy(self, ranked: list[Entrant]) -> list[Found]:
        """Tables of ``table_size``: the most urgent entrant not seated yet first, joined one
        by one by the compatible candidate of highest tier, then score."""
        size, seated, groups = self.policy.table_size, set(), []
        anchors = sorted(range(len(ranked)), key=lambda i: -self.tier(ranked[i]))
        for i in anchors:
            if i in seated:
                continue
            window = [j for step in (1, -1) for j in self.neighbours(ranked, i, step)
                      if j not in seated]
            members = [i]
            while len(members) < size:
                fits = [j for j in window if j not in members
                        and all(self.compatible(ranked[m], ranked[j]) for m in members)]
                if not fits:
                    break
                best = max(fits, key=lambda j: (self.tier(ranked[j]), self._score(
                    [ranked[m] for m in [*members, j]]), -j))
                members.append(best)
            if len(members) == size:
                seated.update(members)
                table = [ranked[m] for m in members]
                groups.append((self._priority(table), tuple(self.rng.sample(
                    [e.id for e in table], size))))
        return groups


def _outward(i: int, n: int) -> Iterator[int]:
    """The positions of ``range(n)`` other than ``i``, nearest first (the lower of a tie)."""
    for distance in range(1, n):
        yield from (j for j in (i - distance, i + distance) if 0 <= j < n)
