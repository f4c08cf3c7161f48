"""How balanced multi-seat schedules are, against their lower bounds, and how long they take.

    python bench/schedules.py [--seed 0] [--big-seeds 5]

For table sizes 3-6, 5-20 participants and 3 and 7 rounds (every shape a tournament can be
created with there), ``tournaments.scheduling.table_schedule`` (what ``tournament_create``
calls) makes the schedule; printed per shape:

- seat spread (the largest most-minus-fewest count of one participant over the seat
  positions) and its bound: 0 when every participant's number of tables is a multiple of the
  table size, else 1;
- pair spread (most minus fewest meetings of two participants) and its bound: 0 when the pair
  slots divide evenly over the pairs, else 1; and a bound that counts sit-outs
  (``pair_spread_floor``, "floor": 5 in fours for 7 rounds forces sit-out counts 1 and 2, so
  pairs meet 3 to 5 times, a floor of 2);
- the previous scheduler's figures for the same shape and seed, frozen before issue 21 in
  ``tests/tournaments/previous_schedules.json`` (seeds 0-9);
- wall and CPU milliseconds (the machine may be shared: CPU time is the steadier figure).

Then how many shapes reach each bound, now and before, and the 64-participant, 20-round
schedules for tables of 3 to 8 over five seeds, the slowest shown with the load average
(target: each within 1 s; the search's budget is a count of moves, so only the time depends on
the machine).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
import time
from collections import Counter

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tournaments.scheduling import (
    balance_figures,
    pair_spread_bound,
    pair_spread_floor,
    table_schedule,
)

PREVIOUS = ROOT / "tests" / "tournaments" / "previous_schedules.json"


def measure(participants: int, seats: int, rounds: int, seed: int) -> dict[str, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    schedule = table_schedule(participants, seats=seats, rounds=rounds, seed=seed)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    figures = balance_figures(schedule, participants)
    played = Counter(p for tables in schedule for table in tables for p in table)
    return {
        "seat": figures.seat_spread,
        "seat_bound": max(int(played[p] % seats != 0) for p in range(participants)),
        "pair": figures.pair_meetings_max - figures.pair_meetings_min,
        "pair_bound": pair_spread_bound(participants, seats=seats, rounds=rounds),
        "pair_floor": pair_spread_floor(participants, seats=seats, rounds=rounds),
        "wall_ms": wall * 1000,
        "cpu_ms": cpu * 1000,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0, help="0-9 to compare with the previous")
    parser.add_argument("--big-seeds", type=int, default=5,
                        help="seeds from --seed for the 64-participant schedules")
    arguments = parser.parse_args()
    seed = arguments.seed
    previous = json.loads(PREVIOUS.read_text())["shapes"]
    print(f"seed {seed}; previous: the scheduler before issue 21, same shape and seed")
    print(f"{'shape n/k/r':>12} {'seat':>6} {'bound':>5} {'prev':>4}  {'pair':>4} {'bound':>5}"
          f" {'floor':>5} {'prev':>4}  {'wall ms':>8} {'cpu ms':>7}")
    reached = Counter()
    worst_wall = worst_cpu = 0.0
    for seats in range(3, 7):
        for participants in range(max(5, seats), 21):
            for rounds in (3, 7):
                shape = f"{participants}/{seats}/{rounds}"
                m = measure(participants, seats, rounds, seed)
                old = previous.get(shape)
                old_seat = old["seat_spread"][seed] if old and seed < 10 else None
                old_pair = old["pair_spread"][seed] if old and seed < 10 else None
                reached["shapes"] += 1
                reached["seat"] += m["seat"] == m["seat_bound"]
                reached["pair"] += m["pair"] == m["pair_bound"]
                reached["floor"] += m["pair"] == m["pair_floor"]
                reached["both"] += m["seat"] == m["seat_bound"] and m["pair"] == m["pair_bound"]
                if old_pair is not None:
                    reached["old seat"] += old_seat == m["seat_bound"]
                    reached["old pair"] += old_pair == m["pair_bound"]
                    reached["old floor"] += old_pair == m["pair_floor"]
                    reached["old both"] += (old_seat == m["seat_bound"]
                                            and old_pair == m["pair_bound"])
                    reached["pair better"] += m["pair"] < old_pair
                    reached["pair worse"] += m["pair"] > old_pair
                worst_wall, worst_cpu = max(worst_wall, m["wall_ms"]), max(worst_cpu, m["cpu_ms"])
                print(f"{shape:>12} {m['seat']:>6} {m['seat_bound']:>5} {_or_dash(old_seat):>4}"
                      f"  {m['pair']:>4} {m['pair_bound']:>5} {m['pair_floor']:>5}"
                      f" {_or_dash(old_pair):>4}"
                      f"  {m['wall_ms']:>8.1f} {m['cpu_ms']:>7.1f}")
    total = reached["shapes"]
    print(f"\n{total} shapes. At the seat bound: {reached['seat']} (previous "
          f"{reached['old seat']}); at the pair bound: {reached['pair']} (previous "
          f"{reached['old pair']}); at both: {reached['both']} (previous {reached['old both']});"
          f" at the pair floor that counts sit-outs: {reached['floor']} (previous "
          f"{reached['old floor']}).")
    print(f"Pair spread below the previous in {reached['pair better']} shapes, above it in "
          f"{reached['pair worse']}. Slowest shape: {worst_wall:.0f} ms wall, "
          f"{worst_cpu:.0f} ms CPU.")
    seeds = range(seed, seed + arguments.big_seeds)
    print(f"\n64 participants, 20 rounds, seeds {seeds.start}-{seeds.stop - 1} (target: within"
          f" 1 s each; the slowest seed shown; load average {os.getloadavg()[0]:.2f}):")
    for seats in range(3, 9):
        runs = [measure(64, seats, 20, s) for s in seeds]
        m = max(runs, key=lambda run: run["cpu_ms"])
        pairs = sorted({run["pair"] for run in runs})
        print(f"  tables of {seats}: seat spread {m['seat']} (bound {m['seat_bound']}), pair spread"
              f" {'/'.join(map(str, pairs))} (bound {m['pair_bound']}, floor {m['pair_floor']}),"
              f" {m['wall_ms']:.0f} ms wall, {m['cpu_ms']:.0f} ms CPU")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


def _or_dash(value: int | None) -> str:
    return "-" if value is None else str(value)


if __name__ == "__main__":
    main()
