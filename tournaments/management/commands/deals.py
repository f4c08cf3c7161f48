"""``manage.py deals``: recompute a finished series' deals from its published secret.

    python manage.py deals tournament 12
    python manage.py deals night 3 7            # league 3, night 7
    python manage.py deals --secret HEX deal 4  # one seed, no database: deal 4 of a round robin

Each deal's seed is ``games.engine.rng.deal_seed(secret, *place)``; the place of a match is
``("deal", deal)`` in a round robin or rounds of tables (duplicate rotations share their deal),
``("swiss", number)`` in a Swiss tournament and ``(table, hand)`` in a league night, whose
secret is its own (``deal_secret`` in the night's API). The command refuses a series that can
still be played: its secret is not public yet (docs/tournaments.md, "What is public when").
A deal is replayed from its seed with ``games.engine.play`` (docs/engine.md).
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.engine.rng import deal_seed
from tournaments.leagues.night_kind import published_secret
from tournaments.models import Night, Tournament


class Command(BaseCommand):
    help = "Recompute every deal of a finished tournament or league night from its secret."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("what", help="tournament ID | night LEAGUE NUMBER | with "
                                         "--secret: the parts of one deal's place")
        parser.add_argument("ids", nargs="*")
        parser.add_argument("--secret", help="a published deal secret (64 hex digits): print "
                                             "the seed of one place, without the database")

    def handle(self, *args: Any, what: str, ids: list[str], secret: str | None,
               **options: Any) -> None:
        if secret is not None:
            try:
                self.stdout.write(str(deal_seed(secret, what, *ids)))
            except ValueError:
                raise CommandError("a deal secret is 64 hex digits") from None
            return
        if what == "tournament" and len(ids) == 1:
            secret, deals = self._tournament(_number(ids[0]))
        elif what == "night" and len(ids) == 2:
            secret, deals = self._night(_number(ids[0]), _number(ids[1]))
        else:
            raise CommandError("say `tournament ID`, `night LEAGUE NUMBER`, or --secret HEX "
                               "PLACE...")
        differ = 0
        for label, place, stored in deals:
            seed = deal_seed(secret, *place)
            differ += seed != stored
            self.stdout.write(f"{label}: {':'.join(map(str, place))} -> {seed}"
                              + ("" if seed == stored else f"  DIFFERS (stored {stored})"))
        if differ:
            raise CommandError(f"{differ} of {len(deals)} deals differ from their secret "
                               "(a series made before deal secrets, 2026-12-05, or a fault)")
        self.stdout.write(f"secret {secret}: all {len(deals)} deals recomputed from the "
                          "published secret")

    def _tournament(self, tournament_id: int) -> tuple[str, list[tuple[str, tuple, int]]]:
        tournament = Tournament.objects.filter(pk=tournament_id).first()
        if tournament is None:
            raise CommandError(f"no tournament {tournament_id}")
        if not tournament.is_over:
            raise CommandError(f"tournament {tournament_id} is not over: its secret is not "
                               "public yet")
        swiss = tournament.format == Tournament.Format.SWISS
        rows = tournament.matches.exclude(status="cancelled").order_by("number")
        return tournament.deal_secret, [
            (f"match {row.number}", ("swiss", row.number) if swiss else ("deal", row.deal),
             row.seed) for row in rows]

    def _night(self, league_id: int, number: int) -> tuple[str, list[tuple[str, tuple, int]]]:
        night = (Night.objects.select_related("league")
                 .filter(league_id=league_id, number=number).first())
        if night is None:
            raise CommandError(f"league {league_id} has no night {number}")
        secret = published_secret(night)
        if secret is None:
            raise CommandError(f"night {number} of league {league_id} is not over: its secret "
                               "is not public yet")
        hands = night.hands.exclude(match=None).select_related("match").order_by("table",
                                                                                "number")
        return secret, [(f"table {h.table} hand {h.number}", (h.table, h.number), h.match.seed)
                        for h in hands]


def _number(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise CommandError(f"{text!r} is not a number") from None
