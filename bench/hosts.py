"""Slow webhook bots through 1, 2 and 3 matches-worker hosts: matches/s and the ratio to one.

    python bench/hosts.py [--db postgres://postgres@127.0.0.1:5432/bluff_bench_hosts]
                          [--meetings 1] [--threads 8]       (as root: network namespaces)

The hosts are Linux network namespaces on a bridge, as in ``tests/tournaments/test_hosts.py``
(its ``Network`` and ``Services``): PostgreSQL (through a socat forwarder) and a Redis of the
bench's own on the bridge address, 8 slow webhook bots (``tests.deterministic_bot``, which
end a match in reasonable time where always playing the first legal action does not, answering
after 20 ms) in a namespace of their own, and N namespaces each running one matches worker
(``--threads`` threads: matches in flight per host) started as `make run` starts it, plus one
housekeeping worker on the first. A round robin of dice cup at tables of 2 (``--meetings``
rounds of 28 pairs) is created with ``tournament_create`` (what the API calls); matches/s
from its creation to its last recorded result. I/O-bound, so the figure should grow with the
hosts until a shared resource is the limit: the bench prints the machine's CPU use over each
run (all hosts share its cores, with PostgreSQL and Redis), each component's share (the bots'
server, Redis, each worker, PostgreSQL's backends of the bench's database, the bench itself)
and the load average, and says which resource it was: a one-process component at a core's
worth, the machine's cores, or none (waiting).
"""

from __future__ import annotations

import argparse
import os
import pathlib
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import setup_bench, wait_for_workers
from bench.tournament import SLOW_MS, play

DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/bluff_bench_hosts"
BOTS = 8


def cpu_busy() -> tuple[float, float]:
    """(busy, total) jiffies of the whole machine so far (/proc/stat)."""
    with open("/proc/stat") as stat:
        fields = [float(x) for x in stat.readline().split()[1:]]
    idle = fields[3] + fields[4]
    return sum(fields) - idle, sum(fields)


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system) process ``pid`` has used so far; 0 if it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (float(fields[11]) + float(fields[12])) / os.sysconf("SC_CLK_TCK")


def backends(database: str) -> list[int]:
    """The PostgreSQL server processes serving ``database`` (their command line names it):
    this bench's connections, not other users' of the same server."""
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                    line = cmdline.read().decode(errors="replace")
            except OSError:
                continue
            if line.startswith("postgres: ") and f" {database} " in line:
                pids.append(int(entry))
    return pids


class Usage:
    """Each component's CPU over a run, in cores (CPU seconds / wall seconds): the bots'
    server and Redis are one process each, a matches worker one process (its threads share
    one GIL), so any of them near 1.0 is the limit; PostgreSQL is the backends of the bench's
    database."""

    def __init__(self, groups: dict[str, list[int]], database: str) -> None:
        self.groups, self.database = groups, database
        self.start = {name: sum(map(cpu_seconds, pids)) for name, pids in groups.items()}
        self.pg_start = {pid: cpu_seconds(pid) for pid in backends(database)}
        self.began = time.monotonic()

    def cores(self) -> dict[str, float]:
        wall = time.monotonic() - self.began
        used = {name: (sum(map(cpu_seconds, pids)) - self.start[name]) / wall
                for name, pids in self.groups.items()}
        used["PostgreSQL"] = sum(cpu_seconds(pid) - self.pg_start.get(pid, 0.0)
                                 for pid in backends(self.database)) / wall
        return used


def limit_of(cores: dict[str, float], machine: float) -> str:
    """Which resource limited a run: a single process at a core's worth, the machine's
    cores, or none (the work waited: the bots' 20 ms a move, round trips)."""
    single = {name: used for name, used in cores.items() if name != "PostgreSQL"}
    name, used = max(single.items(), key=lambda item: item[1])
    if used > 0.85:
        return f"{name}: one process at {used:.2f} of a core (its GIL or its one thread)"
    if machine > 0.85:
        return "CPU (the machine's cores, shared by the workers, PostgreSQL and Redis)"
    return "no CPU: waiting (the bots' 20 ms a move, round trips to PostgreSQL and Redis)"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", default=DEFAULT_DB)
    parser.add_argument("--meetings", type=int, default=1)
    parser.add_argument("--threads", type=int, default=8)
    args = parser.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("needs root: the hosts are network namespaces (ip netns)")
    tag = f"{os.getpid() % 10000}"
    subnet = f"10.{200 + os.getpid() % 50}.{os.getpid() % 250}"
    os.environ["CELERY_BROKER_URL"] = f"redis://{subnet}.1:16379/0"
    os.environ["CELERY_RESULT_BACKEND"] = os.environ["CELERY_BROKER_URL"]
    setup_bench(args.db)

    from django.contrib.auth import get_user_model

    from bots.models import Bot
    from bots.signing import new_secret
    from games.engine import game_ids
    from tests.helpers.netns import Network, Services

    logs = pathlib.Path(tempfile.mkdtemp(prefix="bluff-bench-hosts-"))
    network = Network(tag=tag, subnet=subnet)
    services = bots = None
    try:
        network.up(["w1", "w2", "w3", "b"])
        services = Services(network.gateway, logs)
        bots_host = network.hosts[network.host("b")]
        bots = subprocess.Popen(["ip", "netns", "exec", network.host("b"), sys.executable,
                                 "-m", "tests.deterministic_bot", bots_host, str(BOTS),
                                 str(SLOW_MS / 1000)], cwd=ROOT, stdout=subprocess.PIPE,
                                text=True)
        urls = [bots.stdout.readline().strip() for _ in range(BOTS)]
        organiser = get_user_model().objects.create_user("bench-hosts")
        ids = [Bot.objects.create(owner=organiser, name=f"slow{i}", url=url,
                                  secret=new_secret(), games=list(game_ids()),
                                  handshake_ok=True).pk for i, url in enumerate(urls)]
        env = {**os.environ, "DATABASE_URL": services.database_url,
               "CELERY_BROKER_URL": services.broker_url,
               "CELERY_RESULT_BACKEND": services.broker_url}
        from tests.helpers.workers import run_script, stop_processes

        worker_command = run_script.worker_command

        rates = {}
        for count in (1, 2, 3):
            hosts = [network.host(f"w{n}") for n in range(1, count + 1)]
            commands = [worker_command("housekeeping", "--pool", "solo", "--hostname",
                                       f"hk-{tag}@%h", "--loglevel", "WARNING")]
            commands += [worker_command("matches", "--pool", "threads", "--concurrency",
                                        str(args.threads), "--hostname", f"m-{host}@%h",
                                        "--loglevel", "WARNING", "--without-gossip",
                                        "--without-mingle", "--without-heartbeat")
                         for host in hosts]
            processes = []
            for n, (host, command) in enumerate(zip([hosts[0], *hosts], commands)):
                with open(logs / f"{n}-{count}.log", "w") as log:  # the worker's own copy
                    processes.append(subprocess.Popen(
                        ["ip", "netns", "exec", host, *command], cwd=ROOT, env=env,
                        stdout=log, stderr=subprocess.STDOUT))
            try:
                wait_for_workers(len(processes))
                busy0, total0 = cpu_busy()
                usage = Usage({"the bots' server": [bots.pid],
                               "Redis": [services.redis.pid],
                               **{f"matches worker {n}": [process.pid]
                                  for n, process in enumerate(processes[1:], start=1)},
                               "the bench (creates, polls)": [os.getpid()]},
                              database=services.database_url.rsplit("/", 1)[1])
                seconds, matches = play(organiser, participants=[
                    {"kind": "webhook", "bot": i} for i in ids], table_size=2,
                    meetings=args.meetings, seed=3, timeout=120)
                busy1, total1 = cpu_busy()
                cores = usage.cores()
            finally:
                stop_processes(processes, timeout=30)
            rates[count] = matches / seconds
            cpu = (busy1 - busy0) / (total1 - total0)
            load = os.getloadavg()
            print(f"{count} worker host(s), {args.threads} matches in flight each: {matches} "
                  f"matches in {seconds:.2f} s = {rates[count]:.1f} matches/s, "
                  f"{rates[count] / rates[1]:.2f}x one host; machine CPU busy {cpu:.0%} of "
                  f"{os.cpu_count()} cores; load average {load[0]:.2f} {load[1]:.2f} "
                  f"{load[2]:.2f}", flush=True)
            print("  cores used: " + ", ".join(f"{name} {used:.2f}"
                                               for name, used in cores.items()), flush=True)
            print(f"  limited by: {limit_of(cores, cpu)}", flush=True)
        print(f"(bots: {BOTS} at {SLOW_MS} ms a move, dice cup round robin)")
    finally:
        if bots is not None:
            bots.kill()
            bots.wait(timeout=10)
        if services is not None:
            services.stop()
        network.down()
    return 0


if __name__ == "__main__":
    sys.exit(main())
