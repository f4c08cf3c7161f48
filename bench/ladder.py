"""How many matches a ladder needs to rank its field: the uncertainty-driven matchmaker against
uniform random pairing, and how long one matchmaking call takes for 1,000 entrants.

    python bench/ladder.py [--entrants 32] [--seeds 40] [--most 4000] [--calls 9]

The field: ``--entrants`` bots of known strength, true skills spread evenly from 15 to 35 on
openskill's scale (its default mu 25). The outcome model is the rating model's own (Thurstone):
each seat performs its true skill plus normal noise of openskill's beta (25/6), the better
performance wins; so two neighbours meet at odds of about 54:46, the ends at 9,997:3. Matches
are played in batches, every bot free at the start of one: ``choose`` (2 seats, all in flight at
once, one match a bot, a pair at most 4 times a day, a batch an hour) or a uniformly random
pairing of everyone. After each batch every result so far is rated by
``tournaments.scoring.ratings.ratings`` (openskill's Plackett-Luce, as tournaments are rated),
and Kendall's tau is taken between the order by mu and the true order. Printed: the mean, over
``--seeds`` runs with the same seeds for both, of the matches until tau first reaches 0.9 (a run
that never does counts ``--most``), and until it stays there to the end of the run; then the
median CPU time of ``--calls`` ``choose`` calls on a field of 1,000.

Target (issue 47): 30% fewer matches than uniform; one call for 1,000 entrants under 100 ms.
Figures: docs/ladder.md.
"""

from __future__ import annotations

import argparse
import math
import os
import pathlib
import random
import statistics
import sys
import time
from collections import Counter
from itertools import combinations

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from openskill.models import PlackettLuce

from tournaments.scheduling.matchmaking import BETA, Entrant, Policy, choose
from tournaments.scoring.ratings import Rating, ratings
from tournaments.scoring.standings import MatchResult

TARGET = 0.9
HOUR = 3600.0
POLICY = {"pair_cap_per_day": 4, "starve_after_seconds": 3 * HOUR}


def kendall_tau(order: list[int], truth: list[float]) -> float:
    """Tau-a between an order (best first) and true skills: concordant minus discordant pairs
    over all pairs."""
    place = {p: k for k, p in enumerate(order)}
    sign = sum(1 if (place[a] < place[b]) == (truth[a] > truth[b]) else -1
               for a, b in combinations(range(len(truth)), 2))
    return sign / math.comb(len(truth), 2)


class Ratings:
    """``tournaments.scoring.ratings.ratings`` kept up to date one result at a time: the same
    model and the same ``rate`` call on each result in order (so the same figures, which
    :func:`run` checks at its end), without rating every result again after each batch."""

    def __init__(self, entrants: int) -> None:
        self.model = PlackettLuce()
        self.current = [self.model.rating(name=str(p)) for p in range(entrants)]
        self.played = [0] * entrants

    def add(self, result: MatchResult) -> None:
        teams = [[self.current[p]] for p in result.seats]
        for p, (rated,) in zip(result.seats, self.model.rate(teams, ranks=list(result.ranks))):
            self.current[p] = rated
            self.played[p] += 1

    def table(self) -> list[Rating]:
        return [Rating(p, r.mu, r.sigma, r.ordinal(), self.played[p])
                for p, r in enumerate(self.current)]


def run(entrants: int, seed: int, driven: bool, most: int) -> tuple[int, int, float]:
    """Matches until tau first reaches TARGET and until it stays there (``most`` if never), and
    the widest gap between these ratings and ``ratings()`` of every result at the end."""
    truth = [15 + 20 * k / (entrants - 1) for k in range(entrants)]
    rng = random.Random(f"outcomes {seed}")
    policy = Policy(max_in_flight=entrants // 2, **POLICY)
    results: list[MatchResult] = []
    kept = Ratings(entrants)
    last_played: dict[int, float] = {}
    today: Counter[frozenset[int]] = Counter()
    reached = stayed = None
    batch = 0
    while len(results) < most:
        now = batch * HOUR
        if batch % 24 == 0:
            today.clear()
        if driven:
            rated = kept.table()
            field = [Entrant(r.participant, r.mu, r.sigma, r.matches,
                             last_played=last_played.get(r.participant)) for r in rated]
            pairs = [t.seats for t in choose(field, today, policy, now=now, seed=seed * 10_000
                                             + batch)]
        else:
            shuffled = rng.sample(range(entrants), entrants)
            pairs = list(zip(shuffled[::2], shuffled[1::2]))
        for a, b in pairs:
            a_wins = rng.gauss(truth[a], BETA) > rng.gauss(truth[b], BETA)
            results.append(MatchResult((a, b), (1, 2) if a_wins else (2, 1), (1.0, 0.0)))
            kept.add(results[-1])
            today[frozenset((a, b))] += 1
            last_played[a] = last_played[b] = now
        batch += 1
        order = [r.participant for r in sorted(kept.table(), key=lambda r: -r.mu)]
        if kendall_tau(order, truth) >= TARGET:
            reached = reached or len(results)
            stayed = stayed or len(results)
        else:
            stayed = None
    gap = max(abs(a.mu - b.mu) + abs(a.sigma - b.sigma)
              for a, b in zip(kept.table(), ratings(results, entrants)))
    return reached or most, stayed or most, gap


def choose_times(calls: int) -> list[float]:
    """CPU seconds of ``choose`` on a field of 1,000: spread ratings, a few bots in flight, in a
    burst, starving or paused, owners of one to three bots, some pairs met today."""
    rng = random.Random(0)
    field = [Entrant(k, rng.gauss(25, 6), rng.uniform(1, 8), rng.randrange(200),
                     in_flight=int(rng.random() < 0.1), burst=3 * (rng.random() < 0.03),
                     last_played=rng.uniform(0, 4 * HOUR), owner=rng.randrange(500),
                     paused=rng.random() < 0.02) for k in range(1000)]
    ranked = sorted(range(1000), key=lambda k: field[k].mu)
    today = {frozenset((ranked[k], ranked[k + 1])): rng.randrange(4) for k in range(999)}
    policy = Policy(max_in_flight=400, neighbours=8, **POLICY)
    times = []
    for call in range(calls):
        cpu = time.process_time()
        choose(field, today, policy, now=4 * HOUR, seed=call)
        times.append(time.process_time() - cpu)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--entrants", type=int, default=32)
    parser.add_argument("--seeds", type=int, default=40)
    parser.add_argument("--most", type=int, default=4000)
    parser.add_argument("--calls", type=int, default=9)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}; {args.entrants} entrants, "
          f"{args.seeds} seeds")
    figures = {}
    for driven in (True, False):
        runs = [run(args.entrants, seed, driven, args.most) for seed in range(args.seeds)]
        figures[driven] = [statistics.mean(r[k] for r in runs) for k in (0, 1)]
        print(f"{'uncertainty-driven' if driven else 'uniform':>18}: reached "
              f"{[r[0] for r in runs]}, stayed {[r[1] for r in runs]}; ratings as "
              f"ratings() within {max(r[2] for r in runs):.1g}")
    (first, stays), (uniform_first, uniform_stays) = figures[True], figures[False]
    print(f"uncertainty-driven: {first:.0f} matches to tau {TARGET}, uniform: "
          f"{uniform_first:.0f}; {1 - first / uniform_first:.0%} fewer")
    print(f"to stay at tau {TARGET}: uncertainty-driven {stays:.0f}, uniform "
          f"{uniform_stays:.0f}; {1 - stays / uniform_stays:.0%} fewer")
    times = choose_times(args.calls)
    print(f"choose, 1,000 entrants: median {statistics.median(times) * 1000:.0f} ms of CPU "
          f"({args.calls} calls, slowest {max(times) * 1000:.0f} ms)")


if __name__ == "__main__":
    main()
