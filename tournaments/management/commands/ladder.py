"""``manage.py ladder``: put bots on a game's ladder, take them off, print its standings
(docs/ladder.md). An operator's command: it acts as the platform, for any bot.

    python manage.py ladder join dice_cup --bot 7                  # a webhook bot, by id
    python manage.py ladder join dice_cup --reference heuristic --reference random
    python manage.py ladder leave dice_cup --bot 7
    python manage.py ladder show dice_cup

A join queues the ladder's first matches at once (a worker plays them: ``make run``); the
reaper's sweep keeps it going.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.engine.base import counted
from games.seats import REFERENCE
from lib.errors import DomainError
from tournaments.ladders import selectors, services

WEBHOOK = "webhook"


class Command(BaseCommand):
    help = "Put bots on a game's ladder or take them off, or print its standings."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("action", choices=["join", "leave", "show"])
        parser.add_argument("game", help="engine game id, e.g. dice_cup")
        parser.add_argument("--bot", action="append", default=[], metavar="ID",
                            help="a webhook bot's id (again for more)")
        parser.add_argument("--reference", action="append", default=[], metavar="NAME",
                            help="a reference bot's name (again for more)")
        parser.add_argument("--seats", type=int, default=None,
                            help="the ladder's table size (default: two seats where the game "
                                 "allows them, else its smallest)")
        parser.add_argument("--limit", type=int, default=50, help="show: rows (default 50)")

    def handle(self, *args: Any, action: str, game: str, bot: list[str],
               reference: list[str], seats: int | None, limit: int, **options: Any) -> None:
        try:
            if action == "show":
                self._show(game, seats, limit)
                return
            bots = [(WEBHOOK, b) for b in bot] + [(REFERENCE, r) for r in reference]
            if not bots:
                raise CommandError("name a bot: --bot ID or --reference NAME")
            for kind, name in bots:
                if action == "join":
                    entry, changed = services.ladder_join(game=game, user=None, bot=name,
                                                          kind=kind, seats=seats)
                    self.stdout.write(f"{kind} {name}: "
                                      + ("on the ladder" if changed else "on it already")
                                      + f" (entry {entry.pk})")
                else:
                    services.ladder_leave(game=game, user=None, bot=name, kind=kind,
                                          seats=seats)
                    self.stdout.write(f"{kind} {name}: off the ladder")
        except DomainError as exc:
            raise CommandError(f"{exc.code}: {exc.detail}") from None

    def _show(self, game: str, seats: int | None, limit: int) -> None:
        ladder = selectors.ladder_get(game=game, seats=seats)
        entries = selectors.ladder_entries(ladder=ladder)
        rows = selectors.standings_rows(entries=entries, page=list(entries[:limit]))
        summary = selectors.ladder_summary(game=game, ladder=ladder, seats=seats)
        self.stdout.write(f"{game} ladder: {counted(summary['entrants'], 'bot')}, "
                          f"{_matches(summary['matches'])} played, "
                          f"{summary['in_flight']} in flight")
        for row in rows:
            low, high = row["interval"]
            ahead = "" if row["ahead_of_next"] is None else \
                f"  ahead of next {row['ahead_of_next']:.0%}"
            paused = "  PAUSED" if row["paused"] else ""
            self.stdout.write(f"{row['rank']:>4}. {row['name']:<32} {row['mu']:6.2f} "
                              f"[{low:.1f}, {high:.1f}]  {_matches(row['matches'])}"
                              f"{ahead}{paused}")


def _matches(count: int) -> str:
    return "1 match" if count == 1 else f"{count} matches"
