"""``manage.py run_tournament``: play a tournament from the terminal, on the workers' code path.

    python manage.py run_tournament 12
    python manage.py run_tournament --create dice_cup \\
        --participants reference:heuristic,reference:random,webhook:7,player:alice \\
        --table-size 2 --meetings 2 --seed 7 --organiser alice --allow-private

Pending matches are claimed and started a chunk at a time by ``runner.play`` (as the
``tournaments.play`` task does; matches of reference bots are played and recorded there), webhook
seats are asked by ``match_advance_automatic_seats`` (as the ``advance_automatic_seats`` task
does) and the outcome is recorded by ``runner.record``. So it is safe next to running
workers: a match is claimed once, whoever claims it, and the command waits for the matches a
worker is playing (its bar moving as they end) before it prints the standings. It waits for
every match of the tournament, whoever plays it: a polling player's too, and the rounds a
Swiss tournament pairs as the last ones end (the bar's total grows with them), for up to
``--timeout`` seconds. It exits non-zero if the tournament did not finish (time out,
cancelled), after printing where it stands. ``--allow-private`` lets the webhook bots it calls
be on this machine (as `make run` does with ``BOTS_ALLOW_PRIVATE_ADDRESSES=1``).
"""

from __future__ import annotations

import sys
import time
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from games import selectors as match_selectors
from games.models import Match
from games.seats import PLAYER
from games.services import match_advance_automatic_seats
from lib.errors import DomainError
from tournaments import runner, selectors, services
from tournaments.entrants import entrant_kinds
from tournaments.models import Tournament, TournamentMatch
from tournaments.runner.tournament import SERIES


class Command(BaseCommand):
    help = ("Play a tournament's pending matches here and print its standings; with --create, "
            "create it first.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("tournament_id", nargs="?", type=int,
                            help="the tournament to play (omit with --create)")
        parser.add_argument("--no-progress", action="store_true",
                            help="no progress bar on stderr")
        parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_SECONDS,
                            help="give up waiting after this many seconds and exit non-zero "
                                 f"(default {DEFAULT_TIMEOUT_SECONDS:.0f})")
        parser.add_argument("--allow-private", action="store_true",
                            default=settings.BOTS_ALLOW_PRIVATE_ADDRESSES,
                            help="call webhook bots on loopback/private addresses (bots on "
                                 "this machine, as make run allows; default: the "
                                 "BOTS_ALLOW_PRIVATE_ADDRESSES setting)")
        create = parser.add_argument_group("create a tournament first")
        create.add_argument("--create", metavar="GAME", help="the game of a new tournament")
        create.add_argument("--participants", default="",
                            help="comma-separated KIND:WHO, e.g. reference:heuristic,"
                                 "reference:random,webhook:7,player:alice")
        create.add_argument("--name", help="default: '<game> tournament'")
        create.add_argument("--table-size", type=int, help="seats per match (default: the game's)")
        create.add_argument("--meetings", type=int, default=1,
                            help="two seats: times each pair meets; more: rounds of tables")
        create.add_argument("--duplicate", action="store_true",
                            help="play each deal once per seat rotation")
        create.add_argument("--seed", type=int, help="default: random")
        create.add_argument("--organiser", metavar="USERNAME",
                            help="default: the first superuser")

    def handle(self, *args: Any, tournament_id: int | None, create: str | None,
               no_progress: bool, allow_private: bool, timeout: float, **options: Any) -> None:
        if (tournament_id is None) == (create is None):
            raise CommandError("give a tournament id, or --create GAME")
        # The webhook seats of the matches played here call bots from this process: its
        # pooled client follows the setting, for as long as the command runs.
        allowed, settings.BOTS_ALLOW_PRIVATE_ADDRESSES = (settings.BOTS_ALLOW_PRIVATE_ADDRESSES,
                                                          allow_private)
        try:
            if create is not None:
                tournament = self._create(create, **options)
                tournament_id = tournament.pk
                self.stdout.write(f"created tournament #{tournament.pk}: "
                                  f"{tournament.matches.count()} matches")
                self.stdout.write(balance_line(tournament))
            tournament = selectors.tournament_get(tournament_id=tournament_id)
            self._play(tournament, progress=not no_progress, timeout=timeout)
        except DomainError as exc:
            raise CommandError(exc.detail) from None
        finally:
            settings.BOTS_ALLOW_PRIVATE_ADDRESSES = allowed
        tournament = selectors.tournament_get(tournament_id=tournament_id)
        self._report(tournament)
        if tournament.status != Tournament.Status.FINISHED:
            raise CommandError(f"tournament #{tournament.pk} did not finish: it is "
                               f"{tournament.status}" + (
                                   f" after {timeout:.0f} s (--timeout)"
                                   if tournament.status == Tournament.Status.RUNNING else ""))

    def _create(self, game: str, *, participants: str, name: str | None,
                table_size: int | None, meetings: int, duplicate: bool, seed: int | None,
                organiser: str | None, **_: Any) -> Tournament:
        specs = parse_participants(participants)
        users = get_user_model().objects
        owner = (users.filter(username=organiser).first() if organiser
                 else users.filter(is_superuser=True).order_by("pk").first())
        if owner is None:
            raise CommandError(f"no user {organiser!r}" if organiser
                               else "no superuser: pass --organiser USERNAME")
        return services.tournament_create(
            organiser=owner, name=name or f"{game} tournament", game=game,
            participants=specs, table_size=table_size,
            meetings=meetings, duplicate=duplicate, seed=seed)

    def _play(self, tournament: Tournament, *, progress: bool, timeout: float) -> None:
        """Start it if it waits for its start time, then, chunk by chunk in schedule order,
        claim and start pending matches and play and record each one started; wait for those
        played elsewhere, until it is over or ``timeout`` seconds have passed."""
        if tournament.status == Tournament.Status.SCHEDULED:
            services.tournament_start(tournament_id=tournament.pk)
        rows = selectors.tournament_matches(tournament=tournament)
        give_up = time.monotonic() + timeout
        # tqdm rewrites its line with "\r": it needs the raw stream, not Django's line wrapper.
        bar = tqdm(total=_total(tournament), unit="match", desc=f"tournament #{tournament.pk}",
                   file=getattr(self.stderr, "_out", sys.stderr), disable=not progress)
        with bar:
            while True:
                # Started by the last chunk, by an earlier run, or by a worker; those a worker
                # is playing right now (its lease held) end without this process.
                running = list(rows.filter(status=TournamentMatch.Status.RUNNING,
                                           match__isnull=False))
                elsewhere = set(match_selectors.matches_being_advanced(
                    match_ids=[row.match_id for row in running]))
                for row in running:
                    if row.match_id not in elsewhere:
                        self._finish(row)
                bar.total = max(bar.total, _total(tournament))  # a Swiss round paired
                bar.update(_done(tournament) - bar.n)
                if any(runner.play(kind=SERIES, series_id=tournament.pk, once=True).values()):
                    continue
                if _over(tournament) or time.monotonic() > give_up:
                    break
                sleep(WAIT_SECONDS)  # a worker's match, a polling player's, a stop time

    @staticmethod
    def _finish(row: TournamentMatch) -> None:
        """Ask the match's webhook seats until it is over or waits for a polling player, then
        record it (once: the signal may have recorded it already)."""
        if row.status != TournamentMatch.Status.RUNNING or row.match_id is None:
            return
        running = Match.objects.filter(pk=row.match_id, status=Match.Status.RUNNING)
        version = running.values_list("version", flat=True).first()
        while version is not None:
            match_advance_automatic_seats(match_id=row.match_id, max_seconds=3600)
            before, version = version, running.values_list("version", flat=True).first()
            if version == before:
                return  # nothing moved: a polling player is due, the match goes on without us
        runner.record(kind=SERIES, match_id=row.match_id)

    def _report(self, tournament: Tournament) -> None:
        progress = selectors.tournament_progress(tournament=tournament)
        self.stdout.write(
            f"tournament #{tournament.pk} {tournament.name!r} ({tournament.game}): "
            f"{tournament.status}, {progress['finished']}/{progress['total']} matches finished "
            f"({progress['forfeits']} forfeits, {progress['running']} running, "
            f"{progress['pending']} pending, {progress['cancelled']} cancelled)")
        self.stdout.write(standings_table(selectors.tournament_standings(tournament=tournament)))
        self.stdout.write(balance_line(tournament))


def parse_participants(text: str) -> list[dict[str, str]]:
    """``reference:heuristic,webhook:7,player:alice`` -> participant specs of the service."""
    specs = []
    for item in filter(None, (part.strip() for part in text.split(","))):
        kind, _, who = item.partition(":")
        kinds = [name for name, _ in entrant_kinds()]  # the seat-kind registry's
        if kind not in kinds or not who:
            raise CommandError(f"participant {item!r}: write KIND:WHO with KIND one of "
                               f"{', '.join(kinds)}")
        specs.append({"kind": kind, "user" if kind == PLAYER else "bot": who})
    return specs


def balance_line(tournament: Tournament) -> str:
    """The schedule's balance figures; they count tables, and with ``duplicate`` each table is
    played once per seat rotation, so matches are tables times the table size."""
    balance = tournament.balance
    per_table = tournament.table_size if tournament.duplicate else 1
    return (f"balance: pair meetings {balance['pair_meetings_min']}.."
            f"{balance['pair_meetings_max']}, seat-position spread {balance['seat_spread']}, "
            f"matches per participant {balance['matches_min'] * per_table}.."
            f"{balance['matches_max'] * per_table}")


def standings_table(rows: list[dict[str, Any]]) -> str:
    """Place, name, matches, mean points with its 95% interval, P(ahead of the next row),
    forfeits and the rating's ordinal; withdrawn participants marked."""
    lines = [(f"{'place':>5}  {'participant':<28} {'matches':>7} {'points':>6}  "
              f"{'95% interval':<13} {'ahead':>5} {'forfeits':>8} {'rating':>7}")]
    for row in rows:
        low_high = row["interval"]
        lines.append(
            f"{row['place']:>5}  {row['name'][:28]:<28} {row['matches']:>7} "
            f"{_number(row['points'], 3):>6}  "
            f"{'-' if low_high is None else f'{low_high[0]:.2f}..{low_high[1]:.2f}':<13} "
            f"{_number(row['ahead_of_next'], 2):>5} {row['forfeits']:>8} "
            f"{row['rating']['ordinal']:>7.2f}"
            + (f"  withdrawn: {row['withdrawn_reason']}" if row["withdrawn"] else ""))
    return "\n".join(lines)


def _number(value: float | None, digits: int) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


#: How often the command looks again at matches that a worker or a player is playing.
WAIT_SECONDS = 0.2
#: How long it waits for the tournament to finish by default (a polling player may be slow).
DEFAULT_TIMEOUT_SECONDS = 3600.0


def sleep(seconds: float) -> None:  # a seam for tests
    time.sleep(seconds)


def _done(tournament: Tournament) -> int:
    return TournamentMatch.objects.filter(tournament=tournament,
                                          status=TournamentMatch.Status.FINISHED).count()


def _total(tournament: Tournament) -> int:
    """Its matches as far as known: the rows planned, or the format's announced total."""
    return max(TournamentMatch.objects.filter(tournament=tournament).exclude(
        status=TournamentMatch.Status.CANCELLED).count(),
               Tournament.objects.filter(pk=tournament.pk).values_list(
                   "match_total", flat=True).first() or 0)


def _over(tournament: Tournament) -> bool:
    return Tournament.objects.filter(pk=tournament.pk, status__in=(
        Tournament.Status.FINISHED, Tournament.Status.CANCELLED)).exists()
