"""How long a Swiss round takes to pair, and a whole Swiss tournament.

    python bench/swiss.py [--sizes 16 128 1024] [--rounds 10] [--seed 0] [--complete]

For each field size, ``tournaments.formats.swiss.Swiss`` (what the runner asks when a round is
done) pairs ``--rounds`` rounds of random results (first seat wins, second wins or a draw, a
third each), each call given every outcome so far as the runner gives them. Printed per size:
CPU milliseconds of the slowest and the mean round, of the whole tournament's pairing, and
what the pairings reached (rematches, the widest seat balance, three same seats in a row).
``--complete`` also pairs every round on the complete graph and says in how many the sparse
graph of a large field found a pairing as cheap (slow: seconds a round at 1,024).

Target (issue 45): a round of 1,024 entrants in under 1 s of CPU.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import random
import sys
import time
from collections import Counter

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from games.engine.rng import secret_from_seed
from tournaments.formats.base import Outcome
from tournaments.formats.swiss import Swiss

RESULTS = ((1, 2), (2, 1), (1, 1))


def run(participants: int, rounds: int, seed: int, complete: bool) -> dict[str, float]:
    swiss = Swiss(participants=participants, rounds=rounds, secret=secret_from_seed(seed))
    rng = random.Random(seed)
    outcomes: dict[str, Outcome] = {}
    times, as_cheap = [], 0
    while True:
        cpu = time.process_time()
        planned = swiss.plan(outcomes)
        times.append(time.process_time() - cpu)
        if not planned:
            break
        if complete:
            costs = swiss.round_costs(outcomes)
            best = costs.best(lookahead=False, window=participants)
            seated = {p for match in planned for p in match.seats}
            made = [match.seats for match in planned]
            made += [(p, -1) for p in costs.nodes if p != -1 and p not in seated]
            as_cheap += (sum(costs.cost(a, b) for a, b in made)
                         <= sum(costs.cost(a, b) for a, b in best))
        for match in planned:
            outcomes[match.key] = Outcome(match.key, match.seats, rng.choice(RESULTS),
                                          (0.0, 0.0), round=match.round)
    rounds_timed = times[:-1]  # the last call only says it is over
    return {"slowest": max(rounds_timed), "mean": sum(rounds_timed) / len(rounds_timed),
            "total": sum(times), "as_cheap": as_cheap, **reached(outcomes.values())}


def reached(outcomes) -> dict[str, int]:
    """Rematches, the widest seat balance after any round, runs of three same seats."""
    pairs = Counter(frozenset(o.seats) for o in outcomes)
    seats: dict[int, list[int]] = {}
    for outcome in sorted(outcomes, key=lambda o: int(o.key)):
        for seat, p in enumerate(outcome.seats):
            seats.setdefault(p, []).append(seat)
    widest = runs = 0
    for taken in seats.values():
        balance = 0
        for k, seat in enumerate(taken):
            balance += 1 if seat == 0 else -1
            widest = max(widest, abs(balance))
            runs += k >= 2 and taken[k - 2] == taken[k - 1] == seat
    return {"rematches": sum(n - 1 for n in pairs.values()), "widest": widest, "runs": runs}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[16, 128, 1024])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--complete", action="store_true")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}; CPU ms")
    print(f"{'entrants':>8} {'slowest round':>14} {'mean round':>11} {'tournament':>11} "
          f"{'rematches':>9} {'widest':>6} {'runs of 3':>9}"
          + (f" {'as cheap':>9}" if args.complete else ""))
    for size in args.sizes:
        rounds = min(args.rounds, size - 1 + size % 2)
        got = run(size, rounds, args.seed, args.complete)
        print(f"{size:>8} {got['slowest'] * 1000:>14.1f} {got['mean'] * 1000:>11.1f} "
              f"{got['total'] * 1000:>11.1f} {got['rematches']:>9} {got['widest']:>6} "
              f"{got['runs']:>9}" + (f" {got['as_cheap']:>6}/{rounds}" if args.complete
                                     else ""))


if __name__ == "__main__":
    main()
