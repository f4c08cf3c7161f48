"""A series survives its database restarting in the middle (a round robin, a Swiss tournament,
a league night): a PostgreSQL of this test's own
(on another port, so the machine's shared one is never touched) is restarted while real workers
play, and every match is still played exactly once, with the standings of an undisturbed run
of the same seeds.

Everything runs in processes of its own against that cluster: migrations, the set-up, the
workers as `make run` starts them, and a sweeper doing what beat does (resuming stalled
matches, reaping), every half second instead of every minute.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import REAL_WORKERS, find_tool
from tests.deterministic_bot import DeterministicBot
from tests.helpers.workers import ROOT, Workers

pytestmark = [pytest.mark.postgres, pytest.mark.broker, REAL_WORKERS,
              pytest.mark.requires("initdb", "pg_ctl", "createdb", "runuser")]



def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class PrivateCluster:
    """initdb + pg_ctl as the postgres user, in a folder of the test's own, listening on
    ``host`` only (trusting the clients of ``clients``, a network, as well as loopback)."""

    def __init__(self, host: str = "127.0.0.1", clients: str | None = None) -> None:
        self.host = host
        self.port = _free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="bluff-pg-"))
        shutil.chown(self.dir, "postgres", "postgres")
        self.data = self.dir / "data"
        self._pg("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8")
        if clients:
            with open(self.data / "pg_hba.conf", "a") as hba:
                hba.write(f"host all all {clients} trust\n")
        self.start()

    def _pg(self, tool: str, *args: str) -> None:
        subprocess.run(["runuser", "-u", "postgres", "--", str(find_tool(tool)), *args],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def _ctl(self, action: str, *extra: str) -> None:
        self._pg("pg_ctl", action, "-D", str(self.data), "-w", "-l", str(self.dir / "log"),
                 "-o", f"-p {self.port} -k {self.dir} -c listen_addresses={self.host}", *extra)

    def start(self) -> None:
        self._ctl("start")

    def restart(self) -> None:
        self._ctl("restart", "-m", "fast")

    def stop(self) -> None:
        self._pg("pg_ctl", "stop", "-D", str(self.data), "-m", "immediate", "-w")
        shutil.rmtree(self.dir, ignore_errors=True)

    def url(self, name: str = "bluff") -> str:
        return f"postgres://postgres@{self.host}:{self.port}/{name}"


@pytest.fixture
def cluster() -> Iterator[PrivateCluster]:
    made = PrivateCluster()
    try:
        subprocess.run(["createdb", "-h", "127.0.0.1", "-p", str(made.port), "-U", "postgres",
                        "bluff"], check=True)
        yield made
    finally:
        made.stop()


BOTS = """
from django.contrib.auth import get_user_model
from bots.models import Bot
from games.engine import game_ids
user, _ = get_user_model().objects.get_or_create(username="org", defaults={{"is_staff": True}})
ids = []
for n, url in enumerate({urls!r}):
    bot, _ = Bot.objects.get_or_create(owner=user, name=f"det{{n}}", defaults=dict(
        url=url, secret="whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", games=list(game_ids()),
        handshake_ok=True))
    ids.append(bot.pk)
people = [{{"kind": "reference", "bot": "heuristic"}}, {{"kind": "reference", "bot": "random"}}]
people += [{{"kind": "webhook", "bot": i}} for i in ids]
"""

#: Per kind of series: the code that makes one (printing its id) and the code that reports it.
SETUP = {
    "round robin": BOTS + """
import json
from tournaments import services
t = services.tournament_create(organiser=user, name="{name}", game="dice_cup", table_size=2,
                               meetings=3, seed=21, participants=people)
print(json.dumps(t.pk))
""",
    "swiss": BOTS + """
import json
from tournaments import services
people += [{{"kind": "reference", "bot": "heuristic", "name": f"h{{i}}"}} for i in range(4)]
t = services.tournament_create(organiser=user, name="{name}", game="dice_cup", format="swiss",
                               rounds=5, seed=21, participants=people)
print(json.dumps(t.pk))
""",
    "continuous": BOTS + """
import json
from datetime import timedelta
from django.utils import timezone
from tournaments import services
people += [{{"kind": "reference", "bot": "heuristic", "name": f"h{{i}}"}} for i in range(4)]
t = services.tournament_create(organiser=user, name="{name}", game="dice_cup",
                               format="continuous", in_flight=3, seed=21, participants=people,
                               ends_at=timezone.now() + timedelta(seconds=20))
print(json.dumps(t.pk))
""",
    "league night": BOTS + """
import json
from datetime import timedelta
from django.utils import timezone
from tournaments.leagues import services as leagues
now = timezone.now()
league = leagues.league_create(organiser=user, name="{name}", game="dice_cup", table_size=2,
                               hands_per_night=6, seed=21, members=people,
                               season_start=now - timedelta(days=1),
                               season_end=now + timedelta(days=9))
night = leagues.night_schedule(league_id=league.pk, user=user, starts_at=now)
print(json.dumps(night.pk))
""",
}

REPORT = {
    "tournament": """
import json
from games import log
from games.models import Match
from tournaments import selectors
from tournaments.models import Tournament, TournamentMatch
t = Tournament.objects.get(pk={sid})
rows = list(TournamentMatch.objects.filter(tournament=t))
matches = Match.objects.filter(tournament_match__tournament=t)
gapless = all([e.n for e in log.entries(m.pk)] == list(range(m.version + 1)) for m in matches)
print(json.dumps({{"status": t.status, "done": sum(r.status == "finished" for r in rows),
    "total": max(len(rows), t.match_total), "matches": matches.count(),
    "all_matches": Match.objects.filter(seed__in=[r.seed for r in rows]).count(),
    "gapless": gapless,
    "table": [(r["participant"], r["points"], r["score"])
              for r in selectors.tournament_standings(tournament=t)]}}))
""",
    "league night": """
import json
from games import log
from games.models import Match
from tournaments import selectors
from tournaments.models import Hand, Night
n = Night.objects.select_related("league").get(pk={sid})
hands = list(Hand.objects.filter(night=n))
matches = Match.objects.filter(league_hand__night=n)
gapless = all([e.n for e in log.entries(m.pk)] == list(range(m.version + 1)) for m in matches)
print(json.dumps({{"status": n.status, "done": sum(h.status == "finished" for h in hands),
    "total": n.league.hands_per_night * max(1, len(n.tables)), "matches": matches.count(),
    "all_matches": Match.objects.filter(series="league",
                                        seed__in=[h.seed for h in hands]).count(),
    "gapless": gapless,
    "table": [(r.member, r.points, r.hands)
              for r in selectors.league_table(league_id=n.league_id)]}}))
""",
}

SWEEP = """
import time
from django.db import connection
from games.services import matches_resume_stalled
from django.db import Error
from tournaments import runner
from tournaments.leagues import nights
while True:
    try:
        matches_resume_stalled()
        nights.nights_start_due()
        runner.reap()
    except Error:  # the database is restarting: try again (any other error ends the sweeper)
        connection.close()
    time.sleep(0.5)
"""


def _shell(env: dict[str, str], code: str) -> str:
    result = subprocess.run([sys.executable, "manage.py", "shell", "-c", code], cwd=ROOT,
                            env=env, capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip().splitlines()[-1]


class Reporter:
    """One ``manage.py shell`` that reports a series each time it is asked (a line on its
    stdin), instead of a new process of Django for every look: the waits below look twice a
    second, and a new process costs a second of CPU the workers under test need."""

    CODE = (
        "import sys\nfrom django.db import Error, connection\n"
        f"REPORT = {REPORT!r}\n"
        "for line in sys.stdin:\n"
        "    kind, sid = line.rsplit(' ', 1)\n"
        "    try:\n"
        "        exec(REPORT[kind].format(sid=int(sid)), {})\n"
        "    except Error:  # the database is restarting: ask again\n"
        "        connection.close()\n"
        "        print('null')\n"
        "    sys.stdout.flush()\n")

    def __init__(self, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "manage.py", "shell", "-c", self.CODE], cwd=ROOT, env=env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True)

    def report(self, kind: str, series_id: int) -> dict:
        for _ in range(20):  # right after a restart the first connection may fail
            self.process.stdin.write(f"{kind} {series_id}\n")
            self.process.stdin.flush()
            line = ""
            while not line.startswith(("{", "null")):
                line = self.process.stdout.readline()
                assert line, "the reporter died"
            if line.startswith("{"):
                return json.loads(line)
            time.sleep(0.5)
        raise AssertionError("could not read the series back")

    def wait(self, kind: str, series_id: int, until, timeout: float) -> dict:
        limit = time.monotonic() + timeout
        while True:
            report = self.report(kind, series_id)
            if until(report):
                return report
            assert time.monotonic() < limit, f"timed out: {report}"
            time.sleep(0.5)

    def stop(self) -> None:
        self.process.kill()
        self.process.wait(timeout=10)


@pytest.mark.parametrize("series_kind", list(SETUP))
def test_a_database_restart_mid_series_loses_nothing(cluster, tmp_path, series_kind) -> None:
    """A round robin, a Swiss tournament (its next rounds planned around the restart), a
    continuous tournament (matches started as others end, until its time) and a league night.
    The continuous one's matches depend on when each ended: every match it started is played
    once, and no other run is compared."""
    kind = "league night" if series_kind == "league night" else "tournament"
    timed = series_kind == "continuous"
    bots = [DeterministicBot(delay=0.003) for _ in range(2)]
    for bot in bots:
        threading.Thread(target=bot.serve_forever, daemon=True).start()
    env = {**os.environ, "DATABASE_URL": cluster.url(), "BOTS_ALLOW_PRIVATE_ADDRESSES": "1",
           "BLUFF_STALLED_SECONDS": "1", "TOURNAMENT_LEASE_SECONDS": "2",
           "TOURNAMENT_CHUNK": "2", "PYTHONUNBUFFERED": "1"}
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput"], cwd=ROOT, env=env,
                   check=True, capture_output=True)
    workers = Workers(tmp_path, **env)  # on the cluster: env's DATABASE_URL wins
    swept = tmp_path / "sweeper.log"
    with swept.open("w") as log:  # the sweeper keeps its own copy
        sweeper = subprocess.Popen([sys.executable, "manage.py", "shell", "-c", SWEEP],
                                   cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=log)
    urls = [bot.url for bot in bots]
    reporter = Reporter(env)
    try:
        for queue in workers.run.QUEUES:
            workers.start(queue)
        setup = SETUP[series_kind]
        disturbed = json.loads(_shell(env, setup.format(urls=urls, name="disturbed")))
        first = reporter.wait(kind, disturbed,
                      lambda r: r["done"] >= (6 if timed else r["total"] // 4), 120)
        assert first["done"] < first["total"], "restarted before the end"
        cluster.restart()
        after = reporter.wait(kind, disturbed, lambda r: r["status"] == "finished", 240)
        if not timed:
            calm = json.loads(_shell(env, setup.format(urls=urls, name="calm")))
            undisturbed = reporter.wait(kind, calm, lambda r: r["status"] == "finished", 240)
    finally:
        sweeping = sweeper.poll() is None
        sweeper.kill()
        reporter.stop()
        workers.stop()
        for bot in bots:
            bot.shutdown()
            bot.server_close()
    assert sweeping, f"the sweeper died:\n{swept.read_text()[-3000:]}"
    assert after["done"] == after["total"] == after["matches"], "every match played"
    assert after["all_matches"] == after["total"] and after["gapless"], "and played once"
    if not timed:
        assert after["table"] == undisturbed["table"], "as if nothing had happened"
    else:
        assert after["total"] > first["done"], "it went on after the restart"
